"""Megatron-LM launch scripts against megatron-core's own checks (stdin: jobs [{path, worldSize, product}]; argv:
the --target folder megatron-core is installed in; stdout: [{path, claims}]).

Where `validate_args` ships: megatron/training/arguments.py is in the Megatron-LM repository only. The PyPI wheel
megatron-core 0.16.1 holds megatron/core/ and nothing of megatron/training/ (its RECORD lists no arguments.py), and
no other PyPI package ships it; CI reaches PyPI only. So the oracle runs what megatron-core itself decides on the
script's flags (read by shell_args.py, the oracle's own reader):
  - TransformerConfig(...).__post_init__ (and ModelParallelConfig's): --bf16 with --fp16 raises ValueError
    (transformer_config.py:915), heads / query groups not divisible by TP, fp8 options;
  - OptimizerConfig(...).__post_init__: --main-grads-dtype / --main-params-dtype other than fp32 without
    --use-precision-aware-optimizer, that optimizer without --use-distributed-optimizer or with a non-adam optimizer
    (optimizer_config.py:346-420); the TransformerEngine FusedAdam it then needs is GPU-only (not compared);
  - parallel_state.initialize_model_parallel(tp, pp, cp, ep) on torch's fake process group of the world size the
    product resolved: world sizes not divisible raise RuntimeError (parallel_state.py:741), and the
    data-parallel size is get_data_parallel_world_size().
Flags reach the dataclasses by name (arguments.py's dests are the flag with - as _, and
core_transformer_config_from_args copies the fields of the same name); params_dtype / pipeline_dtype are given as
--bf16 / --fp16 say, which is validate_args' mapping, so the dtypes are not claims here (not compared, with that
reason): only the launch outcome and the parallel sizes are.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shell_args  # noqa: E402

ROOT = sys.argv[1]
sys.path.insert(0, ROOT)
VERSION = next((d[len("megatron_core-"):-len(".dist-info")] for d in os.listdir(ROOT) if d.startswith("megatron_core-")), "?")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.testing._internal.distributed.fake_pg import FakeStore  # noqa: E402

with contextlib.redirect_stderr(io.StringIO()):
    from megatron.core import parallel_state as ps  # noqa: E402
    from megatron.core.optimizer import OptimizerConfig  # noqa: E402
    from megatron.core.transformer.transformer_config import TransformerConfig  # noqa: E402

DT = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16, "fp8": torch.uint8}
# The product's error codes whose cause megatron-core itself checks (the rest are validate_args' only).
READ = {"tensor-model-parallel-size", "pipeline-model-parallel-size", "context-parallel-size", "expert-model-parallel-size", "num-layers",
        "hidden-size", "num-attention-heads", "num-query-groups", "num-experts", "fp8-format", "fp8-recipe", "optimizer", "main-grads-dtype",
        "main-params-dtype", "exp-avg-dtype", "exp-avg-sq-dtype"}
DECIDED = {"megatron/bf16-and-fp16", "megatron/precision-aware-optimizer", "megatron/parallel-sizes"}


def flags_of(text: str) -> dict | None:
    for ws, _env in shell_args.commands(text):
        at = next((i for i, w in enumerate(ws) if re.search(r"(?:^|/)pretrain_gpt\.py$", w)), None)
        # the launcher runs it (not `[ -f pretrain_gpt.py ]`, an echo)
        if at is None or not re.search(r"(?:^|/)(?:torchrun|python[0-9.]*|srun|uv)$", ws[0]) or any(w.startswith("--deepspeed") for w in ws):
            continue
        out: dict[str, object] = {}
        i = at + 1
        while i < len(ws):
            m = re.match(r"^--([A-Za-z0-9][\w-]*)(?:=(.*))?$", ws[i])
            if m:
                if m.group(2) is not None:
                    out[m.group(1)] = m.group(2)
                elif i + 1 < len(ws) and not re.match(r"^--[A-Za-z]", ws[i + 1]):
                    out[m.group(1)] = ws[i + 1]
                    i += 1
                else:
                    out[m.group(1)] = True
            i += 1
        return out
    return None


def num(f: dict, name: str, dflt: int | None) -> int | None:
    v = f.get(name)
    if v is None:
        return dflt
    return int(v) if isinstance(v, str) and v.isdigit() else None


def transformer(f: dict):
    tp, pp, cp, ep = (num(f, n, 1) for n in ("tensor-model-parallel-size", "pipeline-model-parallel-size", "context-parallel-size", "expert-model-parallel-size"))
    bf16, fp16 = bool(f.get("bf16")), bool(f.get("fp16"))
    params = torch.float16 if fp16 else torch.bfloat16 if bf16 else torch.float32
    heads = num(f, "num-attention-heads", None)
    kw = dict(tensor_model_parallel_size=tp, pipeline_model_parallel_size=pp, context_parallel_size=cp,
              expert_model_parallel_size=ep,
              # validate_args turns --sequence-parallel off at TP 1 (megatron/training/arguments.py, core_v0.16.1,
              # "Disabling sequence parallelism because tensor model parallelism is disabled") before the config
              sequence_parallel=bool(f.get("sequence-parallel")) and (tp or 1) > 1,
              num_layers=num(f, "num-layers", None) or max(pp or 1, 1), hidden_size=num(f, "hidden-size", None) or 64 * (tp or 1),
              # a script without --num-attention-heads (a model preset) gets one TP divides: that check is not read
              num_attention_heads=heads or (tp or 1), bf16=bf16, fp16=fp16, params_dtype=params, pipeline_dtype=params)
    if f.get("group-query-attention") and num(f, "num-query-groups", None):
        kw["num_query_groups"] = num(f, "num-query-groups", None)
    if f.get("fp8-format"):
        kw["fp8"] = f["fp8-format"]
        if isinstance(f.get("fp8-recipe"), str):
            kw["fp8_recipe"] = f["fp8-recipe"]
    if num(f, "num-experts", None):
        kw["num_moe_experts"] = num(f, "num-experts", None)
    if None in (tp, pp, cp, ep):
        raise ValueError("a parallel size that is not a number")
    return TransformerConfig(**kw)


def optimizer(f: dict):
    kw = dict(optimizer=f.get("optimizer") if isinstance(f.get("optimizer"), str) else "adam", bf16=bool(f.get("bf16")), fp16=bool(f.get("fp16")),
              use_distributed_optimizer=bool(f.get("use-distributed-optimizer")), use_precision_aware_optimizer=bool(f.get("use-precision-aware-optimizer")))
    for n in ("main-grads-dtype", "main-params-dtype", "exp-avg-dtype", "exp-avg-sq-dtype"):
        if isinstance(f.get(n), str) and f[n] in DT:
            kw[n.replace("-", "_")] = DT[f[n]]
    return OptimizerConfig(**kw)


def mesh(f: dict, world: int) -> dict:
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world)
    try:
        ps.initialize_model_parallel(num(f, "tensor-model-parallel-size", 1), num(f, "pipeline-model-parallel-size", 1),
                                     context_parallel_size=num(f, "context-parallel-size", 1),
                                     expert_model_parallel_size=num(f, "expert-model-parallel-size", 1), create_gloo_process_groups=False)
        return {"tp": ps.get_tensor_model_parallel_world_size(), "pp": ps.get_pipeline_model_parallel_world_size(),
                "cp": ps.get_context_parallel_world_size(), "ep": ps.get_expert_model_parallel_world_size(),
                "dp_replicate": ps.get_data_parallel_world_size()}
    finally:
        ps.destroy_model_parallel()
        dist.destroy_process_group()


def step(name: str, fn):
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            return fn(), None
    except Exception as e:  # noqa: BLE001  the framework's own exception is the answer
        return None, f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:240] if str(e) else ''}"


def check(job: dict) -> list[dict]:
    p = job["product"]
    claims = []
    text = open(job["path"], errors="replace").read()
    f = flags_of(text)
    codes = sorted({d["code"] for d in p.get("diagnostics", []) if d["severity"] == "error"})
    if f is None:
        return [dict(kind="mcore.not-compared", product=codes or "accepts", oracle="the oracle's shell reader found no pretrain_gpt.py command", agree=True, version=VERSION,
                     note="the launch command is built at run time")]
    # flags the checks read whose value is only known at run time (a --save $DIR is none of them)
    unknown = sorted(k for k, v in f.items() if isinstance(v, str) and "$" in v and k in READ)
    errs = []
    _, e = step("TransformerConfig", lambda: transformer(f))
    # is_te_min_version(...) with no TransformerEngine installed compares None with a Version: a host limit
    te_only = bool(e) and "'NoneType' and 'Version'" in e
    errs += [e] if e and not te_only else []
    _, e = step("OptimizerConfig", lambda: optimizer(f))
    te_only = te_only or (bool(e) and "TransformerEngine" in e)
    if e and "TransformerEngine" not in e:
        errs.append(e)
    W = job.get("worldSize")
    sizes = [f.get(n) for n in ("tensor-model-parallel-size", "pipeline-model-parallel-size", "context-parallel-size", "expert-model-parallel-size")]
    if any(v is not None and not (isinstance(v, str) and v.isdigit()) for v in sizes):
        W = None  # a parallel size only known at run time: no mesh
    m = None
    if W:
        m, e = step("initialize_model_parallel", lambda: mesh(f, W))
        errs += [e] if e else []
    # a launch failure the product predicts is capped to a warning when it rests on an assumed version or world
    # size: every diagnostic of these codes predicts one, at any severity
    launch = sorted({d["code"] for d in p.get("diagnostics", []) if d["code"] in DECIDED})
    decided = launch
    other = [c for c in codes if c not in DECIDED]
    if unknown and not errs and not decided:
        claims.append(dict(kind="mcore.not-compared", product=codes or "accepts", oracle=f"flags from unset variables: {', '.join(unknown[:4])}", agree=True, version=VERSION,
                           note="their values are only known at run time"))
        return claims
    if te_only and not errs:
        # the check stopped at TransformerEngine before reaching the rest: no launch verdict
        return [dict(kind="mcore.not-compared", product=decided or "accepts", oracle="a megatron-core check needs TransformerEngine (its FusedAdam, or is_te_min_version)",
                     agree=True, version=VERSION, note="TransformerEngine is GPU-only")] + claims
    o_launch = errs[0] if errs else "accepts"
    claims.append(dict(kind="mcore.launch", product=decided or "accepts", oracle=o_launch, agree=bool(decided) == bool(errs), version=VERSION,
                       note=f"world size {W}" if W else "no world size: initialize_model_parallel not run"))
    if other:
        claims.append(dict(kind="mcore.not-compared", product=other, oracle="validate_args (megatron/training/arguments.py) is not on PyPI", agree=True, version=VERSION,
                           note="checked by validate_args only"))
    if te_only:
        claims.append(dict(kind="mcore.not-compared", product=decided or "accepts", oracle="a megatron-core check needs TransformerEngine (its FusedAdam, or is_te_min_version)", agree=True, version=VERSION,
                           note="TransformerEngine is GPU-only"))
    if m and not errs and not codes and not launch:
        par = p.get("parallel") or {}
        mine = {k: par.get(k) for k in m}
        claims.append(dict(kind="mcore.parallel", product=mine, oracle=m, agree=mine == m, version=VERSION, note=f"parallel_state at world size {W}"))
    return claims


def main() -> None:
    jobs = json.load(sys.stdin)
    out = []
    for j in jobs:
        try:
            out.append({"path": j["path"], "claims": check(j)})
        except Exception as e:  # noqa: BLE001
            out.append({"path": j["path"], "claims": [dict(kind="mcore.worker", product="a verdict", oracle=f"{type(e).__name__}: {e}"[:300], agree=False, version=VERSION)]})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
