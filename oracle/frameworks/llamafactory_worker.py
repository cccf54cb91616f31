"""LLaMA-Factory oracle worker: one pin set (oracle/requirements-hf.txt, `lf<version>`) per process.

  python llamafactory_worker.py <set folder> <set name>   (jobs on stdin, verdicts on stdout)

The set's folder (.oracle-venv/hf/<set>/: llamafactory with the transformers / accelerate / TRL / peft / datasets
releases its own check_dependencies accepts, extras/misc.py:95-101@v0.9.5, all installed with --no-deps) goes first
on sys.path. Per file, LLaMA-Factory's own code decides every verdict:
  launch   `llamafactory-cli train <file>` as LLaMA-Factory runs it: sys.argv = [cli, <file>] and
           llamafactory.hparams.get_train_args() (hparams/parser.py:304-535@v0.9.5): read_args loads the YAML with
           OmegaConf, HfArgumentParser over (ModelArguments, DataArguments, TrainingArguments, FinetuningArguments,
           GeneratingArguments) with allow_extra_keys=False (unknown keys raise), the dataclasses' __post_init__
           (TrainingArguments: mixed precision, DeepSpeed fill), then its own stage / finetuning_type / pure_bf16 /
           DeepSpeed / quantization checks and `compute_dtype` (parser.py:512-515). Raises (class, message) or not.
  unknown  the keys the parser rejected (its ValueError lists them).
  compute  model_args.compute_dtype after get_train_args, then LLaMA-Factory's own patch_config
           (model/patcher.py:314-325@v0.9.5: when neither bf16/pure_bf16 nor fp16 set it, infer_optim_dtype of the
           checkpoint's dtype) run on a tiny LlamaConfig with no weights. The checkpoint's dtype is not known without
           the model: the config says bfloat16, the product's stated assumption ("a bf16 checkpoint"); the file's
           `model_name_or_path` is never fetched.
  amp      accelerate's own Accelerator(cpu=True, mixed_precision=<TrainingArguments.mixed_precision>).autocast()
           dtype on the CPU device (bf16 only: accelerate autocasts fp16 on CUDA devices).
The launcher is `llamafactory-cli train`, which re-launches itself under torchrun on a multi-GPU host
(cli.py / launcher.py@v0.9.5, `FORCE_TORCHRUN`): the worker sets the variables torchrun sets for one process
(RANK/LOCAL_RANK 0, WORLD_SIZE 1, MASTER_ADDR/PORT) so that a DeepSpeed file is parsed as it is launched, not
refused with "Please use `FORCE_TORCHRUN=1`". The GPU facts are answered for the GPU the product assumed, its
default H100: transformers' is_torch_bf16_gpu_available() (as transformers_worker.py), and misc.py's
_is_bf16_available / _is_fp16_available (computed at import from CUDA, extras/misc.py:41-45@v0.9.5).
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys

SET_DIR, SET_NAME = sys.argv[1], sys.argv[2]
sys.path.insert(0, SET_DIR)
# The project-dataclass case (oracle/cases/hf_project_dataclass/) is our own fixture: its folder goes on the path so
# the worker may import its dataclass. Nothing from a collected repository or the corpus is ever imported.
HERE = os.path.dirname(os.path.abspath(__file__))


def short(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    return f"{type(e).__name__}: {s[0] if s else ''}"[:300]


def main() -> None:
    logging.disable(logging.CRITICAL)
    real_stdout, sys.stdout = sys.stdout, sys.stderr
    torchrun = {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "LOCAL_WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1",
                "MASTER_PORT": os.environ.get("PL_ORACLE_PORT", "29517")}
    os.environ.pop("DISABLE_VERSION_CHECK", None)
    import torch
    import transformers
    from transformers.utils import import_utils as iu
    orig_bf16 = iu.is_torch_bf16_gpu_available

    def bf16_gpu_h100(*a, **k) -> bool:
        saved = torch.cuda.is_available, torch.cuda.is_bf16_supported
        torch.cuda.is_available, torch.cuda.is_bf16_supported = (lambda: True), (lambda *a, **k: True)
        try:
            return orig_bf16()
        finally:
            torch.cuda.is_available, torch.cuda.is_bf16_supported = saved
    import transformers.utils as tu
    import transformers.training_args as ta
    for m in (iu, tu, ta):
        if hasattr(m, "is_torch_bf16_gpu_available"):
            m.is_torch_bf16_gpu_available = bf16_gpu_h100
    import accelerate
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState, PartialState
    import llamafactory
    from llamafactory.extras import misc
    from llamafactory.hparams import get_train_args
    from llamafactory.hparams import parser as lf_parser
    from llamafactory.model import patcher
    lf_parser.is_torch_bf16_gpu_available = bf16_gpu_h100
    # _check_extra_dependencies (parser.py:205-256@v0.9.5) asks whether optional packages are installed on the host
    # (matplotlib for plot_loss, jieba/nltk/rouge_chinese for predict_with_generate, deepspeed, galore_torch, ...):
    # a property of the machine, not of the file. Shim: each requirement is recorded (verdict "requires") instead of
    # looked up; nothing compared depends on it.
    requires: list[str] = []
    lf_parser.check_version = lambda req, mandatory=False: requires.append(req)
    misc._is_bf16_available, misc._is_fp16_available = bf16_gpu_h100(), True

    names = {torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float32: "float32"}
    versions = {"llamafactory": llamafactory.__version__ if hasattr(llamafactory, "__version__") else SET_NAME[2:],
                "transformers": transformers.__version__, "accelerate": accelerate.__version__}
    out = []
    import time

    def parse(path: str):
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            sys.argv = ["llamafactory-cli", path]
            return get_train_args()
    for job in json.load(sys.stdin):
        path = os.path.abspath(job["path"])
        v: dict = {"path": job["path"], "set": SET_NAME, "versions": versions}
        for k in [k for k in os.environ if k.startswith("ACCELERATE_")]:
            del os.environ[k]
        sink = io.StringIO()
        saved_argv, saved_cwd = sys.argv, os.getcwd()
        requires.clear()
        t0 = time.time()
        for k in torchrun:
            os.environ.pop(k, None)
        try:
            # launched from the file's repository (relative `deepspeed:` paths resolve there, as for its user)
            os.chdir(job.get("cwd") or saved_cwd)
            try:
                model_args, data_args, training_args, finetuning_args, _ = parse(path)
            except ValueError as e:
                # `llamafactory-cli train` on one GPU runs one plain process; LLaMA-Factory refuses DeepSpeed there
                # (parser.py:353-354) and the user relaunches with FORCE_TORCHRUN=1 (torchrun, launcher.py): so does
                # the oracle, with the variables torchrun sets for one process.
                if "FORCE_TORCHRUN" not in str(e):
                    raise
                os.environ.update(torchrun)
                v["torchrun"] = True
                model_args, data_args, training_args, finetuning_args, _ = parse(path)
            v["launch"] = {"ok": True}
        except BaseException as e:  # noqa: BLE001 - the class and message are the verdict
            v["launch"] = {"ok": False, "error": short(e)}
            msg = str(e)
            if isinstance(e, ValueError) and "not used by the HfArgumentParser" in msg:
                import ast
                try:
                    v["unknown"] = sorted(ast.literal_eval(msg[msg.index("["): msg.rindex("]") + 1]))
                except (ValueError, SyntaxError):
                    v["unknown"] = None
            out.append(v)
            continue
        finally:
            v["requires"] = sorted(set(requires))
            v["seconds"] = round(time.time() - t0, 2)
            sys.argv = saved_argv
            os.chdir(saved_cwd)
            with contextlib.suppress(Exception):
                AcceleratorState._reset_state(True)
                PartialState._reset_state()
        v["bf16"], v["fp16"], v["pure_bf16"] = bool(training_args.bf16), bool(training_args.fp16), bool(finetuning_args.pure_bf16)
        v["stage"], v["finetuning_type"] = finetuning_args.stage, finetuning_args.finetuning_type
        v["deepspeed"] = bool(training_args.deepspeed)
        v["quantization_bit"] = model_args.quantization_bit
        v["compute_dtype_args"] = names.get(model_args.compute_dtype)
        quant = model_args.quantization_bit
        cfg = None
        # the loader's dtype: LLaMA-Factory's own patch_config on a tiny config whose checkpoint dtype is bf16
        try:
            cfg = transformers.LlamaConfig(hidden_size=8, intermediate_size=16, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2, vocab_size=32)
            cfg.torch_dtype = torch.bfloat16
            quant = model_args.quantization_bit
            model_args.quantization_bit = None  # bitsandbytes needs CUDA; the compute dtype is decided before it
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                patcher.patch_config(cfg, None, model_args, {}, bool(training_args.do_train))
            v["compute"] = names.get(model_args.compute_dtype)
        except BaseException as e:  # noqa: BLE001
            v["compute_error"] = short(e)
            if model_args.compute_dtype is not None:
                v["compute"] = names.get(model_args.compute_dtype)
        # the parameters as LLaMA-Factory trains them: a tiny model of that config built in the loader's dtype (as
        # load_model does, model/loader.py), then its own init_adapter (model/adapter.py@v0.9.5: LoRA / freeze / full,
        # the upcast of trainable parameters to fp32 unless pure_bf16 / BAdam). Quantized models are not built
        # (bitsandbytes needs CUDA).
        if quant is None and v.get("compute"):
            try:
                from llamafactory.model.adapter import init_adapter
                cfg.num_hidden_layers = 4
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    model = transformers.AutoModelForCausalLM.from_config(cfg, torch_dtype=model_args.compute_dtype)
                    model = init_adapter(cfg, model, model_args, finetuning_args, bool(training_args.do_train))
                v["trainable"] = sorted({names.get(q.dtype, str(q.dtype)) for q in model.parameters() if q.requires_grad})
                # the dtype of the attention projections' weights the matmuls use (PEFT's base_layer for LoRA)
                mats = {names.get(m.weight.dtype) for n, m in model.named_modules() if n.endswith("q_proj") or n.endswith("q_proj.base_layer")
                        if isinstance(m, torch.nn.Linear)}
                v["matmul_weights"] = sorted(x for x in mats if x)
            except BaseException as e:  # noqa: BLE001
                v["adapter_error"] = short(e)
        mp = getattr(training_args, "mixed_precision", None) or ("bf16" if training_args.bf16 else "fp16" if training_args.fp16 else "no")
        v["mixed_precision"] = mp
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
        out.append(v)
    json.dump(out, real_stdout)


if __name__ == "__main__":
    main()
