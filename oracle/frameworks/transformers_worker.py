"""transformers-family oracle worker: one pin set (oracle/requirements-hf.txt) per process.

  python transformers_worker.py <set folder> <set name>   (jobs on stdin, verdicts on stdout)

The set's folder (.oracle-venv/hf/<set>/, transformers + TRL + accelerate installed there with --no-deps) goes
first on sys.path. Per file, the framework's own code decides every verdict:
  parse      the dialect's own parser: transformers.HfArgumentParser(TrainingArguments).parse_yaml_file /
             parse_json_file (allow_extra_keys=False: unknown keys raise ValueError), or
             trl.TrlParser((ScriptArguments, <Config>, ModelConfig)).parse_args_and_config(["--config", path]);
             both run the dataclasses' __post_init__ (TrainingArguments.__post_init__: mixed precision, FSDP
             arguments, the DeepSpeed fill: HfTrainerDeepSpeedConfig.trainer_config_process and DeepSpeedPlugin).
  finalize   for a DeepSpeed run: HfTrainerDeepSpeedConfig.trainer_config_finalize(args, <tiny meta model>, 100)
             (the TrainingArguments / DeepSpeed mismatch ValueError is raised here), then the
             DeepSpeedPlugin.set_mixed_precision the Accelerator calls (inserts or checks bf16/fp16.enabled).
  unknown    the keys the parser rejected; for TRL, those the TRL CLI leaves after its own `accelerate_config`
             handling (unknown_keys below).
  amp        the dtype torch.autocast runs with inside accelerate's own Accelerator(cpu=True).autocast() for
             the mixed_precision TrainingArguments resolved (on the CPU device: the oracle has no GPU).
  ds         DeepSpeedConfig(<the filled config>) and DeepSpeedEngine.get_data_types() on a stand-in engine (as
             deepspeed_worker.py): compute dtype, bf16/fp16 enabled, gradient_accumulation_steps.
  fsdp       the FSDP version the TrainingArguments resolved (fsdp_config["version"] after __post_init__).
The host is a CPU. The one place __post_init__ asks it about the GPU, is_torch_bf16_gpu_available()
(training_args.py:1776-1779@5.24.0; at 4.52.3 only when torch.cuda.is_available()), is answered for the GPU the
product assumed, its default H100 (bf16 supported): see bf16_gpu_h100 below. No other CUDA query is mocked, so a
bf16-on-V100 verdict is not asked of this worker.
The job's `dialect` is the product's reading of the file (which parser to ask); `trl` picks TRL's config class
named by the file or its folders (grpo/dpo/sft, innermost first; SFTConfig otherwise).
"""
from __future__ import annotations

import io
import json
import logging
import os
import sys
import contextlib

SET_DIR, SET_NAME = sys.argv[1], sys.argv[2]
sys.path.insert(0, SET_DIR)


def short(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    return f"{type(e).__name__}: {s[0] if s else ''}"[:300]


def unknown_keys(e: BaseException, dialect: str, path: str, cls) -> list[str] | None:
    """The keys the parser rejected, as the framework lists them; for TRL, those left after the TRL CLI's own
    handling: parse_args_and_config(return_remaining_strings=True, separate_remaining_strings=True) returns the
    config file's leftover strings, which `trl <cmd>` passes to resolve_accelerate_config_argument
    (trl/cli/commands/training.py:61-64@1.9.0; `accelerate_config` becomes accelerate's --config_file)."""
    if not isinstance(e, ValueError):
        return None
    msg = str(e)
    if dialect != "trl":
        if "not used by the HfArgumentParser" not in msg:
            return None
        import ast
        return sorted(ast.literal_eval(msg[msg.index("["): msg.rindex("]") + 1]))
    if "Unknown arguments from config file" not in msg:
        return None
    from trl import ModelConfig, TrlParser
    try:
        from trl import ScriptArguments
    except ImportError:
        from trl.scripts.utils import ScriptArguments
    parsed = TrlParser((ScriptArguments, cls, ModelConfig)).parse_args_and_config(args=["--config", path], return_remaining_strings=True, separate_remaining_strings=True)
    rest = list(parsed[-2])
    try:
        from trl.cli.accelerate_config import resolve_accelerate_config_argument
        rest = resolve_accelerate_config_argument(rest)
    except ImportError:
        pass
    i, keys = 0, []
    while i < len(rest):
        if rest[i] == "--config_file":  # what the TRL CLI made of `accelerate_config`
            i += 2
            continue
        if rest[i].startswith("--"):
            keys.append(rest[i][2:])
        i += 1
    return sorted(keys)


def clean_env() -> None:
    for k in list(os.environ):
        if k.startswith("ACCELERATE_"):
            del os.environ[k]


def main() -> None:
    logging.disable(logging.CRITICAL)
    real_stdout, sys.stdout = sys.stdout, sys.stderr  # the frameworks print; only the verdicts go to stdout
    import torch
    import transformers
    from transformers import HfArgumentParser, TrainingArguments
    import trl
    from trl import ModelConfig, TrlParser
    try:
        from trl import ScriptArguments
    except ImportError:  # pragma: no cover - older TRL
        from trl.scripts.utils import ScriptArguments
    import accelerate
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState
    import deepspeed.runtime.config as dsc
    from deepspeed.runtime.engine import DeepSpeedEngine as Engine

    # The one place TrainingArguments.__post_init__ asks the host about the GPU: is_torch_bf16_gpu_available()
    # (training_args.py:1776-1779@5.24.0; import_utils.py:664-665@5.24.0 asks torch.cuda.is_bf16_supported()).
    # Answered for the GPU the product assumed (its default, H100: capability 9.0, bf16 supported) by running the
    # framework's own function with CUDA reported present and bf16-capable; nothing else sees a GPU.
    import transformers.training_args as ta
    from transformers.utils import import_utils as iu
    orig_bf16 = iu.is_torch_bf16_gpu_available

    def bf16_gpu_h100() -> bool:
        saved = torch.cuda.is_available, torch.cuda.is_bf16_supported
        torch.cuda.is_available, torch.cuda.is_bf16_supported = (lambda: True), (lambda *a, **k: True)
        try:
            return orig_bf16()
        finally:
            torch.cuda.is_available, torch.cuda.is_bf16_supported = saved
    if hasattr(ta, "is_torch_bf16_gpu_available"):
        ta.is_torch_bf16_gpu_available = bf16_gpu_h100

    names = {torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float32: "float32"}
    versions = {"transformers": transformers.__version__, "trl": trl.__version__, "accelerate": accelerate.__version__}
    configs = {"grpo": trl.GRPOConfig, "dpo": trl.DPOConfig, "sft": trl.SFTConfig}

    out = []
    for job in json.load(sys.stdin):
        path, dialect = job["path"], job["dialect"]
        ws = job.get("worldSize") or 1
        dsc.dist.get_world_size = lambda *a, **k: ws  # type: ignore[attr-defined]
        dsc.dist.get_rank = lambda *a, **k: 0  # type: ignore[attr-defined]
        v: dict = {"path": path, "set": SET_NAME, "versions": versions}
        clean_env()
        args, cls = None, None
        sink = io.StringIO()
        try:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                if dialect == "trl":
                    # the trainer named by the file or its folders (grpo-*.yaml, recipes/*/grpo/), innermost first
                    parts = path.replace("\\", "/").lower().split("/")
                    cls = next((c for p in reversed(parts) for k, c in configs.items() if k in p), trl.SFTConfig)
                    v["parser"] = f"TrlParser((ScriptArguments, {cls.__name__}, ModelConfig))"
                    # GRPOConfig.__post_init__ sizes the generation batch with `self.world_size` (grpo_config.py:1075
                    # @v1.9.0, :510@v0.18.0), the launch's process count: answered with the job's world size (the
                    # file's stated one, else the product's; 1 when neither), as the launcher would give it. Only
                    # for GRPO: elsewhere the DeepSpeed fill reads it and keeps its single-process answer.
                    saved_ws = TrainingArguments.__dict__.get("world_size")
                    if cls is trl.GRPOConfig:
                        TrainingArguments.world_size = property(lambda self: ws)
                        v["processes"] = ws
                    try:
                        parsed = TrlParser((ScriptArguments, cls, ModelConfig)).parse_args_and_config(args=["--config", path])
                    finally:
                        if saved_ws is not None:
                            TrainingArguments.world_size = saved_ws
                    args = parsed[1]
                elif job.get("project"):
                    # the oracle's own project-dataclass fixture (oracle/cases/hf/project_dataclass/train.py, never a
                    # collected repository's code): the parser its build_parser() returns, with the project's
                    # dataclass beside TrainingArguments
                    import importlib.util
                    spec = importlib.util.spec_from_file_location("pl_oracle_project_fixture", job["project"])
                    mod = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(mod)  # type: ignore[union-attr]
                    p = mod.build_parser()
                    v["parser"] = f"HfArgumentParser(({', '.join(t.__name__ for t in p.dataclass_types)})) (the fixture's build_parser)"
                    parsed = p.parse_json_file(path) if path.endswith(".json") else p.parse_yaml_file(path)
                    args = next(a for a in parsed if isinstance(a, TrainingArguments))
                else:
                    v["parser"] = "HfArgumentParser(TrainingArguments)"
                    p = HfArgumentParser(TrainingArguments)
                    parsed = p.parse_json_file(path) if path.endswith(".json") else p.parse_yaml_file(path)
                    args = parsed[0]
            v["parse"] = {"ok": True}
        except BaseException as e:  # noqa: BLE001 - the class and message are the verdict
            v["parse"] = {"ok": False, "error": short(e)}
            try:
                v["unknown"] = unknown_keys(e, dialect, path, cls if dialect == "trl" else None)
            except BaseException as e2:  # noqa: BLE001 - the re-parse raised on something else (a GRPO batch check)
                v["unknown_error"] = short(e2)
                v["unknown"] = None
            out.append(v)
            continue
        try:
            import yaml
            raw = yaml.safe_load(open(path)) if not path.endswith(".json") else json.load(open(path))
            v["accelerate_config"] = isinstance(raw, dict) and "accelerate_config" in raw
        except Exception:  # noqa: BLE001
            pass
        mp = getattr(args, "mixed_precision", None) or os.environ.get("ACCELERATE_MIXED_PRECISION", "no")
        v["mixed_precision"] = mp
        v["bf16"], v["fp16"] = bool(args.bf16), bool(args.fp16)
        fc = getattr(args, "fsdp_config", None) or {}
        if getattr(args, "fsdp", None):
            v["fsdp"] = {"version": fc.get("version", fc.get("fsdp_version"))}
        # amp: accelerate's own autocast context (Accelerator.autocast) for that mixed precision, on the CPU device
        try:
            AcceleratorState._reset_state(True)
            acc = Accelerator(cpu=True, mixed_precision=mp)
            with acc.autocast():
                on = torch.is_autocast_enabled("cpu")
                v["amp"] = names.get(torch.get_autocast_dtype("cpu")) if on else None
        except BaseException as e:  # noqa: BLE001
            v["amp_error"] = short(e)
        finally:
            AcceleratorState._reset_state(True)
        hf_ds = getattr(args, "hf_deepspeed_config", None)
        if hf_ds is not None:
            try:
                model = torch.nn.Linear(8, 8, device="meta")
                model.config = transformers.PretrainedConfig(hidden_size=8)
                hf_ds.trainer_config_finalize(args, model, 100)
                # what Accelerator.__init__ then does with the plugin TrainingArguments built (accelerator.py:
                # `deepspeed_plugin.set_mixed_precision(mixed_precision)`): inserts or checks bf16/fp16.enabled
                if getattr(args, "deepspeed_plugin", None) is not None:
                    args.deepspeed_plugin.set_mixed_precision(mp)
                v["finalize"] = {"ok": True}
            except BaseException as e:  # noqa: BLE001
                v["finalize"] = {"ok": False, "error": short(e)}
                out.append(v)
                continue
            try:
                cfg = dsc.DeepSpeedConfig(dict(getattr(args, "deepspeed_plugin", None).deepspeed_config if getattr(args, "deepspeed_plugin", None) is not None else hf_ds.config))
                eng = Engine.__new__(Engine)
                eng._config = cfg
                v["ds"] = {"compute": names.get(eng.get_data_types()[0]), "bf16": bool(cfg.bfloat16_config.enabled), "fp16": bool(cfg.float16_config.enabled),
                           "gas": cfg.gradient_accumulation_steps}
            except BaseException as e:  # noqa: BLE001
                v["ds"] = {"error": short(e)}
        out.append(v)
    json.dump(out, real_stdout)


if __name__ == "__main__":
    main()
