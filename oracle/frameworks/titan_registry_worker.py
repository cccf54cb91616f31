"""torchtitan 0.3.0 oracle worker for Python config registries (config_registry.py files).

  titan_registry_worker.py <torchtitan 0.3.0 install dir>      (jobs on stdin, verdicts on stdout, JSON)

Each job is {"path", "module", "functions": [names], "worldSize", "flags": {name: [argv]}}: a config_registry.py file (torchtitan's own,
or a fork's copy of one) and the dotted module it stands for (torchtitan.models.<m>.config_registry). A fork's
file is loaded under that dotted name, so its relative imports resolve to the installed 0.3.0 package.
For every function, only torchtitan's own code decides:
  parse:  ConfigManager().parse_args(["--module", <m>, "--config", <function>, *flags]) (torchtitan's CLI, tyro),
          or the exception; `flags` are the `--section.option value` flags of the run script that launches the
          function (as the product read them), so tyro itself applies them, or rejects one: tyro exits with
          status 2 (SystemExit), reported as {"ok": False, "exit": 2, "error": <tyro's message>}
  dims:   ParallelDims.from_config(cfg.parallelism, world_size): the resolved degrees, or the assertion text
  mesh:   build_mesh() on a fake process group (torch.distributed "fake" backend + FakeStore; titan_mesh.py,
          shared with titan_worker.py): the mesh dim names, or the exception
  mp:     cfg.training.mixed_precision_param / mixed_precision_reduce as the parsed config holds them, and
          whether torchtitan's mesh keeps the FSDP axis (ParallelDims._mesh_exist("fsdp"/"dp_shard")), which
          is what the 0.3.0 parallelize functions hand to apply_fsdp_to_decoder (there is no
          maybe_enable_amp in 0.3.0: FSDP's MixedPrecisionPolicy is always installed)
A function whose module cannot be imported (a dependency the wheel does not ship, a model the wheel lacks)
is reported with the reason and not compared.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import json
import os
import sys
import traceback
import types


def _short(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[0] if msg else ''}"[:400]


class _Inert:
    """Stands for any triton attribute: a decorator (returns the function), a factory, a type annotation."""

    def __call__(self, *a, **k):
        return a[0] if len(a) == 1 and callable(a[0]) and not k else self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert()

    def __getitem__(self, key):
        return self


def _inert_attr(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Inert()


def _stub_triton() -> None:
    """0.3.0 imports triton at module level for GPU kernels (minimal_async_ep, fused overrides) that a config
    never runs; triton is GPU-only, so the import is satisfied by an inert module (named in docs/oracle.md)."""
    try:
        import triton  # noqa: F401
        return
    except ImportError:
        pass
    # torch decides once, before the stub exists, that there is no triton package
    import torch._dynamo  # noqa: F401
    import torch._inductor.compile_fx  # noqa: F401
    import torch._inductor.runtime.triton_compat  # noqa: F401

    for name in ("triton", "triton.language"):
        m = types.ModuleType(name)
        m.__getattr__ = _inert_attr  # type: ignore[method-assign]
        sys.modules[name] = m
    sys.modules["triton"].language = sys.modules["triton.language"]  # type: ignore[attr-defined]


def main() -> None:
    root = sys.argv[1]
    pkg = types.ModuleType("torchtitan")
    pkg.__path__ = [os.path.join(root, "torchtitan")]  # type: ignore[attr-defined]
    sys.modules["torchtitan"] = pkg
    sys.path.append(root)  # the 0.3.0-only dependencies installed with it (spmd_types), after the venv's own
    _stub_triton()
    import logging

    logging.disable(logging.CRITICAL)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from titan_mesh import FakeWorld

    cm_mod = importlib.import_module("torchtitan.config.manager")
    ParallelDims = importlib.import_module("torchtitan.distributed.parallel_dims").ParallelDims

    jobs = json.load(sys.stdin)
    out = []
    world = FakeWorld()
    for job in jobs:
        path, dotted, ws = job["path"], job["module"], int(job["worldSize"])
        # the module to hand to --module: torchtitan.models.llama3.config_registry -> torchtitan.models.llama3
        cli_module = dotted.rsplit(".", 1)[0]
        try:
            for k in [k for k in sys.modules if k == dotted]:
                del sys.modules[k]
            parent = importlib.import_module(cli_module)
            spec = importlib.util.spec_from_file_location(dotted, os.path.abspath(path))
            mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            sys.modules[dotted] = mod
            with contextlib.redirect_stdout(io.StringIO()):
                spec.loader.exec_module(mod)  # type: ignore[union-attr]
            setattr(parent, "config_registry", mod)
            load_error = None
        except BaseException as e:
            sys.modules.pop(dotted, None)
            load_error = _short(e)
        for fn in job["functions"]:
            v: dict = {"path": path, "function": fn}
            out.append(v)
            if load_error:
                v["load"] = {"ok": False, "error": load_error}
                continue
            flags = [str(a) for a in (job.get("flags") or {}).get(fn) or []]
            if flags:
                v["flags"] = flags
            err = io.StringIO()
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                    cfg = cm_mod.ConfigManager().parse_args(["--module", cli_module, "--config", fn, *flags])
                v["parse"] = {"ok": True}
            except SystemExit as e:
                # tyro's own exit on a flag it rejects: the launch ends here with its status (2)
                said = [ln.strip(" │╭╮╰╯─-\t") for ln in err.getvalue().splitlines()]
                said = [ln for ln in said if ln]
                # tyro's box: a title, then what it rejects (the help that follows names the worker's path)
                v["parse"] = {"ok": False, "exit": e.code if isinstance(e.code, int) else 1, "error": said[1][:400] if len(said) > 1 else _short(e)}
                continue
            except BaseException as e:
                v["parse"] = {"ok": False, "error": _short(e)}
                continue
            tr = cfg.training
            v["mp"] = {"param": tr.mixed_precision_param, "reduce": tr.mixed_precision_reduce}
            try:
                pdims = ParallelDims.from_config(cfg.parallelism, ws)
                v["dims"] = {"ok": True, "resolved": {k: getattr(pdims, k) for k in ("dp_replicate", "dp_shard", "cp", "tp", "pp", "ep")}}
            except BaseException as e:
                v["dims"] = {"ok": False, "error": _short(e)}
                continue
            try:
                mesh = world.mesh(pdims, ws)  # titan_mesh.py, shared with titan_worker.py
                v["mesh"] = {"ok": True, "dims": list(mesh.mesh_dim_names or [])}
            except BaseException as e:
                v["mesh"] = {"ok": False, "error": _short(e)}
            v["mp"]["fsdp_axis"] = bool(pdims._mesh_exist("fsdp", 1) or pdims._mesh_exist("dp_shard", 1))
    world.close()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        traceback.print_exc()
        sys.exit(3)
