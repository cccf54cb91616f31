"""torchtitan oracle worker: runs ONE torchtitan release (its install dir on sys.path) over a list of TOML files.

Reads a JSON list of jobs on stdin ({"path", "worldSize"}), prints a JSON list of verdicts on stdout:
  parse:  ConfigManager.parse_args(["--job.config_file", path]) accepted it, or the exception type + message
  dims:   ParallelDims(...degrees from the parsed JobConfig..., world_size) validated, or the assertion text;
          the resolved degrees
  mesh:   build_mesh() on a fake process group of that world size (torch.distributed "fake" backend +
          FakeStore; titan_mesh.py, shared with titan_registry_worker.py): the mesh dim names, or the exception
  amp:    maybe_enable_amp(parallel_dims, training.mixed_precision_param, "cpu"): "autocast:<dtype>" when it
          returns a torch.autocast, else "null-context"
  built:  what train.py does next, with the release's own functions: get_train_spec(model.name), the flavor's
          model args updated from the parsed config (update_from_config), the model built on the meta device
          under set_default_dtype(training.dtype) where the release has it, build_model_converters(...).convert,
          then the release's pipelining_fn (PP) or parallelize_fn, and read back from the modules it returns:
          the parameters' dtypes (storage), the FSDP MixedPrecisionPolicy each FSDPModule holds (param, reduce,
          output dtype), whether replicate (DDP) was applied; or the exception it raised
Only torchtitan's own functions decide; this file only calls them. torchtitan's package __init__ (which
imports the quantization registry and its optional deps) is bypassed with a namespace stub; triton (GPU-only,
imported at module level by kernels a config never runs on CPU) is an inert stub (titan_registry_worker.py);
torchtitan's `device_type` is set to "cpu" before its modules read it (the mesh and fully_shard run on CPU).
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


def _dt(d) -> str | None:
    return None if d is None else str(d).replace("torch.", "")


def build(version: str, cfg, pdims, mesh):
    """train.py's model construction and parallelization, up to the modules it trains (see the module doc)."""
    import copy
    import types as _types

    import torch
    from torch.distributed._composable.replicate import replicate
    from torch.distributed.fsdp import FSDPModule

    ts = importlib.import_module("torchtitan.protocols.train_spec")
    # what the package __init__ (bypassed by the namespace stub) imports: the quantization converters' registry
    # (float8, mx), and at 0.1.0 the models and experiments, whose imports register their train specs
    for name in ("torchtitan.components.quantization", *(("torchtitan.models", "torchtitan.experiments") if version == "0.1.0" else ())):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    spec = ts.get_train_spec(cfg.model.name)
    args = copy.deepcopy((spec.config if version == "0.1.0" else spec.model_args)[cfg.model.flavor])
    if version == "0.1.0":
        # 0.1.0 reads the vocabulary size and eos id from the tokenizer (not a dtype input): a stand-in tokenizer
        args.update_from_config(cfg, _types.SimpleNamespace(n_words=128256, eos_id=0))
    else:
        args.update_from_config(cfg)
    ut = importlib.import_module("torchtitan.tools.utils")
    dmap = getattr(importlib.import_module("torchtitan.config"), "TORCH_DTYPE_MAP", None) if version != "0.1.0" else None
    tdtype = getattr(cfg.training, "dtype", None)
    ctx = ut.set_default_dtype(dmap[tdtype]) if (dmap and tdtype and hasattr(ut, "set_default_dtype")) else contextlib.nullcontext()
    with torch.device("meta"), ctx:
        model = (spec.cls if version == "0.1.0" else spec.model_cls)(args)
    importlib.import_module("torchtitan.protocols.model_converter").build_model_converters(cfg, pdims).convert(model)
    if pdims.pp_enabled:
        loss = lambda pred, labels: pred.sum()  # noqa: E731 (the schedule's loss: not a dtype input)
        if version == "0.1.0":
            r = spec.pipelining_fn(model, mesh, pdims, cfg, torch.device("cpu"), args, spec.parallelize_fn, loss)
        else:
            r = spec.pipelining_fn(model, pdims, cfg, torch.device("cpu"), args, spec.parallelize_fn, loss)
        parts = r[1]
    else:
        parts = [spec.parallelize_fn(model, mesh, pdims, cfg) if version == "0.1.0" else spec.parallelize_fn(model, pdims, cfg)]
    storage = sorted({_dt(p.dtype) for m in parts for p in m.parameters()})
    pols = []
    for m in parts:
        for sub in m.modules():
            if isinstance(sub, FSDPModule):
                mp = sub._get_fsdp_state()._mp_policy
                pols.append((_dt(mp.param_dtype), _dt(mp.reduce_dtype), _dt(mp.output_dtype)))
    roots = [m for m in parts if isinstance(m, FSDPModule)]
    return {"ok": True, "parts": len(parts), "storage": storage,
            "fsdp": bool(roots), "policies": sorted({"/".join(str(x) for x in p) for p in pols}),
            "policy": dict(zip(("param", "reduce", "output"), (_dt(roots[0]._get_fsdp_state()._mp_policy.param_dtype), _dt(roots[0]._get_fsdp_state()._mp_policy.reduce_dtype), _dt(roots[0]._get_fsdp_state()._mp_policy.output_dtype)))) if roots else None,
            "replicate": any(replicate.state(m) is not None for m in parts)}


def _where(e: BaseException) -> str:
    """The innermost torchtitan frame of the traceback (file:line), to tell a CPU limit from a config error."""
    tb, where = e.__traceback__, ""
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if "/torchtitan/" in f:
            where = f"{f.split('/torchtitan/', 1)[1]}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def main() -> None:
    root, version = sys.argv[1], sys.argv[2]
    _stub_package(root)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from titan_registry_worker import _stub_triton

    _stub_triton()
    import logging

    logging.disable(logging.CRITICAL)
    import torch

    tu = importlib.import_module("torchtitan.tools.utils")
    tu.device_type, tu.device_module = "cpu", torch.cpu  # before parallel_dims etc. import it
    from titan_mesh import FakeWorld

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
    world = FakeWorld()
    for job in jobs:
        path, ws = job["path"], int(job["worldSize"])
        v: dict = {"path": path, "version": version, "worldSize": ws}
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
        # -- mesh, on a fake process group of the world size (titan_mesh.py)
        try:
            mesh = world.mesh(pdims, ws)
            names = list(mesh.mesh_dim_names or [])
            extra = sorted(getattr(pdims, "_meshes", {}) or {})
            v["mesh"] = {"ok": True, "dims": names, "meshes": extra}
        except BaseException as e:
            v["mesh"] = {"ok": False, "error": _short(e)}
        # -- amp
        try:
            ctx = ut_mod.maybe_enable_amp(pdims, cfg.training.mixed_precision_param, "cpu")
            v["amp"] = f"autocast:{_dt(ctx.fast_dtype)}" if isinstance(ctx, torch.autocast) else "null-context"
        except BaseException as e:
            v["amp"] = f"error:{_short(e)}"
        if v["mesh"]["ok"]:
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    v["built"] = build(version, cfg, pdims, mesh)
            except BaseException as e:
                v["built"] = {"ok": False, "error": _short(e), "where": _where(e)}
        out.append(v)
    world.close()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        traceback.print_exc()
        sys.exit(3)
