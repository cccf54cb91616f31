"""torchtitan oracle worker: runs ONE torchtitan release (its install dir on sys.path) over a list of TOML files.

Reads a JSON list of jobs on stdin ({"path", "worldSize"}), prints a JSON list of verdicts on stdout:
  parse:  ConfigManager.parse_args(["--job.config_file", path]) accepted it, or the exception type + message
  dims:   ParallelDims(...degrees from the parsed JobConfig..., world_size) validated, or the assertion text;
          the resolved degrees
  mesh:   build_mesh() on a fake process group of that world size (torch.distributed "fake" backend +
          FakeStore): the mesh dim names, or the exception
  amp:    maybe_enable_amp(parallel_dims, training.mixed_precision_param, "cpu"): "fsdp" (nullcontext, FSDP
          handles it), "disabled" (nullcontext, TP/PP without FSDP), or "autocast:<dtype>"
Only torchtitan's own functions decide; this file only calls them. torchtitan's package __init__ (which
imports the quantization registry and its optional deps) is bypassed with a namespace stub.
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import os
import sys
import traceback
import types


def _stub_package(root: str) -> None:
    pkg = types.ModuleType("torchtitan")
    pkg.__path__ = [os.path.join(root, "torchtitan")]  # type: ignore[attr-defined]
    sys.modules["torchtitan"] = pkg


def _short(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[0] if msg else ''}"[:400]


def main() -> None:
    root, version = sys.argv[1], sys.argv[2]
    _stub_package(root)
    import logging

    logging.disable(logging.CRITICAL)
    import torch
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore

    if version == "0.1.0":
        cm_mod = importlib.import_module("torchtitan.config_manager")
    else:
        cm_mod = importlib.import_module("torchtitan.config.manager")
    pd_mod = importlib.import_module("torchtitan.distributed.parallel_dims")
    ut_mod = importlib.import_module("torchtitan.distributed.utils")
    ParallelDims = pd_mod.ParallelDims
    pd_params = set(inspect.signature(ParallelDims).parameters)

    jobs = json.load(sys.stdin)
    out = []
    current_ws = None
    for job in jobs:
        path, ws = job["path"], int(job["worldSize"])
        v: dict = {"path": path, "version": version}
        # -- parse
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                cfg = cm_mod.ConfigManager().parse_args(["--job.config_file", path])
            v["parse"] = {"ok": True}
        except BaseException as e:  # tyro raises SystemExit on bad values
            v["parse"] = {"ok": False, "error": _short(e)}
            out.append(v)
            continue
        par = cfg.parallelism
        degrees = {
            "dp_replicate": par.data_parallel_replicate_degree,
            "dp_shard": par.data_parallel_shard_degree,
            "cp": par.context_parallel_degree,
            "tp": par.tensor_parallel_degree,
            "pp": par.pipeline_parallel_degree,
            "ep": getattr(par, "expert_parallel_degree", 1),
            "etp": getattr(par, "expert_tensor_parallel_degree", 1),
        }
        v["configured"] = degrees
        v["mixed_precision_param"] = cfg.training.mixed_precision_param
        kwargs = {k: val for k, val in degrees.items() if k in pd_params}
        kwargs["world_size"] = ws
        if "enable_loss_parallel" in pd_params:
            kwargs["enable_loss_parallel"] = not par.disable_loss_parallel
        # -- dims
        try:
            pdims = ParallelDims(**kwargs)
            v["dims"] = {"ok": True, "resolved": {k: getattr(pdims, k, 1) for k in degrees}}
        except BaseException as e:
            v["dims"] = {"ok": False, "error": _short(e)}
            out.append(v)
            continue
        # -- mesh, on a fake process group of the world size
        try:
            if current_ws != ws:
                if dist.is_initialized():
                    dist.destroy_process_group()
                dist.init_process_group("fake", rank=0, world_size=ws, store=FakeStore())
                current_ws = ws
            if "device_type" in inspect.signature(pdims.build_mesh).parameters:
                mesh = pdims.build_mesh("cpu")
            else:
                mesh = pdims.build_mesh()
            names = list(mesh.mesh_dim_names or [])
            extra = sorted(getattr(pdims, "_meshes", {}) or {})
            v["mesh"] = {"ok": True, "dims": names, "meshes": extra}
        except BaseException as e:
            v["mesh"] = {"ok": False, "error": _short(e)}
        # -- amp
        try:
            ctx = ut_mod.maybe_enable_amp(pdims, cfg.training.mixed_precision_param, "cpu")
            if isinstance(ctx, torch.autocast):
                v["amp"] = f"autocast:{str(ctx.fast_dtype).replace('torch.', '')}"
            elif pdims.fsdp_enabled:
                v["amp"] = "fsdp"
            else:
                v["amp"] = "disabled"
        except BaseException as e:
            v["amp"] = f"error:{_short(e)}"
        out.append(v)
    if dist.is_initialized():
        dist.destroy_process_group()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        traceback.print_exc()
        sys.exit(3)
