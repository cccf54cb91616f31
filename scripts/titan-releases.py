"""Generator (developer tool, not part of the product): what each torchtitan TOML release registers, read from
the release itself. Writes server/src/core/frameworks/torchtitan/releases.data.ts.

  .oracle-venv/bin/python scripts/titan-releases.py            (releases installed by oracle/setup.sh)
  .oracle-venv/bin/python scripts/titan-releases.py --check    (exit 1 when the committed file differs)

For each release in .oracle-venv/torchtitan/<v>/ it runs one subprocess that imports that release (the package
__init__ bypassed with a namespace stub and triton stubbed inert, as oracle/frameworks/titan_worker.py does) and
records, with torchtitan's own objects:
  models:   every name get_train_spec accepts (0.1.0: the specs the models/experiments packages register;
            0.2.x: _supported_models | _supported_experiments, protocols/train_spec.py:71-87) and the flavor keys
            of its TrainSpec (0.1.0 `config`, 0.2.x `model_args`); a spec whose import fails on this host is
            recorded with flavors null (not known) and the reason
  storage:  for each model, the smallest flavor built on the meta device under the default dtype float32: the
            top-level submodules whose parameters are NOT float32 (the model's own code chose their dtype,
            e.g. gpt_oss casts its TransformerBlocks to bfloat16)
  modules:  every importable module of the release (packages and .py files under torchtitan/), the names
            job.custom_config_module / experimental.custom_args_module can name without ModuleNotFoundError
The product never runs this: it reads the data file. Rerun it when a release is added (oracle/setup.sh).
"""
from __future__ import annotations

import contextlib
import copy
import importlib
import io
import json
import os
import re
import subprocess
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_TITAN = os.path.join(ROOT, ".oracle-venv", "torchtitan")
OUT = os.path.join(ROOT, "server", "src", "core", "frameworks", "torchtitan", "releases.data.ts")
RELEASES = ["0.1.0", "0.2.0", "0.2.1", "0.2.2"]


def _modules(root: str) -> list[str]:
    out = []
    base = os.path.join(root, "torchtitan")
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not x.startswith("."))
        rel = os.path.relpath(d, root).replace(os.sep, ".")
        # a directory is importable as a (namespace) package whether or not it has an __init__.py
        out.append(rel)
        for f in sorted(files):
            if f.endswith(".py") and f != "__init__.py":
                out.append(f"{rel}.{f[:-3]}")
    return sorted(set(out))


def one(version: str) -> dict:
    root = os.path.join(VENV_TITAN, version)
    pkg = types.ModuleType("torchtitan")
    pkg.__path__ = [os.path.join(root, "torchtitan")]  # type: ignore[attr-defined]
    sys.modules["torchtitan"] = pkg
    sys.path.insert(0, os.path.join(ROOT, "oracle", "frameworks"))
    from titan_registry_worker import _stub_triton

    _stub_triton()
    import logging

    logging.disable(logging.CRITICAL)
    import torch

    tu = importlib.import_module("torchtitan.tools.utils")
    tu.device_type, tu.device_module = "cpu", torch.cpu
    ts = importlib.import_module("torchtitan.protocols.train_spec")
    failed: dict[str, str] = {}
    if version == "0.1.0":
        for name in ("torchtitan.models", "torchtitan.experiments"):
            with contextlib.suppress(ImportError):
                importlib.import_module(name)
        base = set(ts._train_specs)
        # experiments whose own train script imports them (flux, deepseek_v3, multimodal at 0.1.0): torchtitan's
        # train.py does not register them, their run scripts do
        own: dict[str, str] = {}
        failed: dict[str, str] = {}
        exp = os.path.join(root, "torchtitan", "experiments")
        for d in sorted(os.listdir(exp)):
            init = os.path.join(exp, d, "__init__.py")
            if os.path.isfile(init) and "register_train_spec(" in open(init).read():
                before = set(ts._train_specs)
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        importlib.import_module(f"torchtitan.experiments.{d}")
                except BaseException as e:  # noqa: BLE001 (a dependency this host lacks): the name from the source
                    m = re.search(r'register_train_spec\(\s*TrainSpec\(\s*name="([^"]+)"', open(init).read())
                    if m:
                        own[m.group(1)] = f"torchtitan.experiments.{d}"
                        failed[m.group(1)] = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:160]
                for n in set(ts._train_specs) - before - base:
                    own[n] = f"torchtitan.experiments.{d}"
        names = sorted(set(ts._train_specs) | set(failed))
    else:
        names = sorted(set(importlib.import_module("torchtitan.models")._supported_models) | set(importlib.import_module("torchtitan.experiments")._supported_experiments))
    models: dict = {}
    for name in names:
        entry: dict = {}
        if version == "0.1.0" and name in own:
            entry["ownTrainScript"] = own[name]
        try:
            if name in failed:
                raise ImportError(failed[name])
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                spec = ts.get_train_spec(name)
            flavors = spec.config if version == "0.1.0" else spec.model_args
            entry["flavors"] = sorted(flavors)
        except BaseException as e:  # noqa: BLE001 (a spec whose module needs a GPU-only or absent package)
            entry["flavors"] = None
            entry["unknownBecause"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:160]
            models[name] = entry
            continue
        # storage: the smallest flavor on the meta device, default dtype float32
        try:
            flavor = "debugmodel" if "debugmodel" in flavors else sorted(flavors)[0]
            args = copy.deepcopy(flavors[flavor])
            cls = spec.cls if version == "0.1.0" else spec.model_cls
            torch.set_default_dtype(torch.float32)
            with torch.device("meta"), contextlib.redirect_stdout(io.StringIO()):
                model = cls(args)
            odd = {}
            for child, mod in model.named_children():
                dts = sorted({str(p.dtype).replace("torch.", "") for p in mod.parameters()})
                if dts and dts != ["float32"]:
                    odd[child] = dts[0] if len(dts) == 1 else dts
            if odd:
                entry["storage"] = odd
        except BaseException as e:  # noqa: BLE001
            entry["storageUnknownBecause"] = f"{type(e).__name__}"[:80]
        models[name] = entry
    return {"models": models, "modules": _modules(root)}


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        json.dump(one(sys.argv[2]), sys.stdout)
        return
    data = {}
    for v in RELEASES:
        r = subprocess.run([sys.executable, __file__, "--one", v], capture_output=True, text=True, cwd=ROOT)
        if r.returncode != 0:
            sys.exit(f"{v}: {r.stderr[-2000:]}")
        data[f"v{v}"] = json.loads(r.stdout)
    body = json.dumps(data, indent=1, sort_keys=True)
    text = (
            "/**\n * GENERATED by scripts/titan-releases.py from the installed torchtitan releases (.oracle-venv/torchtitan/<v>/):\n"
            " * per release, the train specs get_train_spec accepts and their flavors, the top-level submodules a model\n"
            " * builds in a dtype other than the default float32, and the release's module names. Do not edit by hand.\n */\n"
            'import { table } from "../../model/table";\n\n'
            "export interface ReleaseModel {\n  /** null: the spec's module does not import on the generator's CPU host. */\n  flavors: string[] | null;\n"
            "  unknownBecause?: string;\n  /** registered only when the experiment's own train script imports it (not by torchtitan's train.py). */\n  ownTrainScript?: string;\n  /** top-level submodule -> the dtype(s) the model's own code gives its parameters. */\n"
            "  storage?: Record<string, string | string[]>;\n  storageUnknownBecause?: string;\n}\n"
            "export interface ReleaseRegistry {\n  models: Record<string, ReleaseModel>;\n  modules: string[];\n}\n"
            f"export const RELEASE_REGISTRY: Readonly<Record<string, ReleaseRegistry>> = table<string, ReleaseRegistry>({body});\n"
    )
    if "--check" in sys.argv:  # oracle/oracle.test.mjs: the committed file is what the releases say
        same = os.path.exists(OUT) and open(OUT).read() == text
        print(f"{os.path.relpath(OUT, ROOT)} {'matches' if same else 'DIFFERS from'} the installed releases")
        sys.exit(0 if same else 1)
    with open(OUT, "w") as fh:
        fh.write(text)
    print(f"wrote {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
