"""Runs the scripts `precision-lens probe --device cpu` wrote, on CPU with gloo, and prints their observations.

  python probe_worker.py < jobs.json     jobs: [{"path": config, "script": probe.py, "world": W}]
  PL_PROBE_TORCHTITAN=.oracle-venv/torchtitan/0.2.2 python probe_worker.py < jobs.json
      also runs each config's configured variant with torchtitan's own apply_tp / apply_fsdp / apply_ddp
      (models/llama3/infra/parallelize.py of that release) on the probe's model, which has torchtitan's
      module names (tok_embeddings, layers.N.attention.wq, feed_forward.w1, ...)

Each script is imported as a module (its PLAN and functions; its main() is not run), so that every variant
of every config that scales to the same number of ranks runs in one group of processes: one torch start per
rank count (1, 2, 4) instead of one per variant. What each rank runs is the script's own run_variant, on the
layout its own scale() gives; the observation has the shape the script's main() prints.
"""
from __future__ import annotations

import importlib.util
import json
import os
import socket
import sys
import tempfile


def load(path: str, i: int):
    spec = importlib.util.spec_from_file_location(f"pl_probe_{i}", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def titan_parallelize(root: str):
    """torchtitan's own apply_tp / apply_fsdp / apply_ddp (models/llama3/infra/parallelize.py of the release at
    root), imported without the packages' __init__ (they import every model, some need triton)."""
    import types
    for name in ("torchtitan", "torchtitan.models", "torchtitan.models.llama3", "torchtitan.models.llama3.infra"):
        pkg = types.ModuleType(name)
        pkg.__path__ = [os.path.join(root, *name.split("."))]
        sys.modules[name] = pkg
    import importlib
    import logging
    logging.disable(logging.CRITICAL)
    return importlib.import_module("torchtitan.models.llama3.infra.parallelize")


def with_torchtitan(pz, m):
    DT = m.DT

    def parallelize(model, v, mesh, names):
        L = v["layout"]
        if L["tp"] > 1:
            pz.apply_tp(model, mesh["tp"], v["lossParallel"], False)
        if v["mechanism"] == "fully_shard":
            dp = [n for n in ("dp_replicate", "dp_shard") if n in names]
            dp_mesh = mesh[tuple(dp)] if len(dp) > 1 else mesh[dp[0]] if dp else mesh
            # gloo has no ReduceOp.PREMUL_SUM, which FSDP uses once torchtitan sets the gradient divide factor
            # to 1.0 (disable_fsdp_gradient_division); the factor scales values, not dtypes, so it is skipped here
            pz.disable_fsdp_gradient_division = lambda model: None
            pz.apply_fsdp(model, dp_mesh, DT[v["paramDtype"]], DT[v["reduceDtype"]], False)
        elif v["ddp"] and L["dp_replicate"] > 1:
            pz.apply_ddp(model, mesh["dp_replicate"], False)
            model.register_comm_hook(mesh["dp_replicate"].get_group(), m.ddp_comm_hook)
        return model

    return parallelize


def child(rank: int, n: int, jobs: list[dict], port: int, out: str) -> None:
    import torch
    import torch.distributed as dist
    mods = [load(j["script"], i) for i, j in enumerate(jobs)]
    titan = os.environ.get("PL_PROBE_TORCHTITAN")
    pz = titan_parallelize(titan) if titan else None
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=n)
    try:
        mods[0].patch_collectives()  # once per process; the wrappers report to the variant being run
        results: dict[str, list] = {}
        for j, m in zip(jobs, mods):
            for v in j["byRanks"].get(str(n), []):
                m.PARALLELIZE = None
                results.setdefault(j["path"], []).append(m.run_variant(v, torch.device("cpu"), n, rank))
                if pz is not None and v["label"] == j["configuredLabel"]:
                    # the configured variant again, parallelized by torchtitan's own functions
                    m.PARALLELIZE = with_torchtitan(pz, m)
                    r = m.run_variant(v, torch.device("cpu"), n, rank)
                    m.PARALLELIZE = None
                    results.setdefault(j["path"] + "#torchtitan", []).append(r)
        if rank == 0:
            with open(out, "w") as fh:
                json.dump(results, fh)
    finally:
        dist.destroy_process_group()


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def main() -> int:
    import torch
    import torch.multiprocessing as mp
    jobs = json.load(sys.stdin)
    counts: set[int] = set()
    for i, j in enumerate(jobs):
        m = load(j["script"], i)
        j["plan"] = m.PLAN
        j["byRanks"] = {}
        j["configuredLabel"] = m.PLAN["variants"][0]["label"]
        for v in m.PLAN["variants"]:
            sv = dict(v, configuredLayout=v["layout"], layout=m.scale(v["layout"], j["world"]))
            n = m.ranks(sv["layout"])
            j["byRanks"].setdefault(str(n), []).append(sv)
            counts.add(n)
    observed: dict[str, list] = {}
    timing: dict[str, float] = {}
    import time
    for n in sorted(counts):
        fd, out = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        t0 = time.time()
        mp.spawn(child, args=(n, [{"path": j["path"], "script": j["script"], "byRanks": j["byRanks"], "configuredLabel": j["configuredLabel"]} for j in jobs], free_port(), out), nprocs=n, join=True)
        timing[str(n)] = round(time.time() - t0, 1)
        with open(out) as fh:
            for path, vs in json.load(fh).items():
                observed.setdefault(path, []).extend(vs)
        os.unlink(out)
    res = []
    for j in jobs:
        order = [v["label"] for v in j["plan"]["variants"]]
        for key, how in ((j["path"], "probe"), (j["path"] + "#torchtitan", "torchtitan")):
            if key not in observed:
                continue
            vs = sorted(observed[key], key=lambda r: order.index(r["label"]))
            res.append({"path": j["path"], "parallelizedBy": how, "observation": {
                "probe": 1, "source": j["plan"]["source"], "device": "cpu", "torch": torch.__version__.split("+")[0], "ranks": j["world"],
                "notReproduced": j["plan"]["notReproduced"], "variants": vs, "skipped": []}})
    json.dump({"results": res, "seconds": timing}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
