"""DeepSpeed oracle worker: deepspeed.runtime.config.DeepSpeedConfig(path) on every DeepSpeed JSON.

DeepSpeedConfig reads the file itself (hjson, refusing duplicate keys), asserts fp16+bf16 are not both on,
parses communication_data_type and data_types.grad_accum_dtype, and checks the batch-size trio at the world
size (deepspeed.comm's get_world_size, answered with the product's resolved world size: no process group).
Claims: ds.load (raises or not) vs the product's error-level diagnostics; ds.compute and ds.reduce (fp16/bf16
mode, and the reduction dtype: communication_data_type, else the training dtype) vs the precision table.
Files with "auto" values are for the HF/accelerate integration, which fills them before DeepSpeedConfig runs:
they get no ds.load claim (their dtypes are still compared).
"""
from __future__ import annotations

import json
import logging
import sys


def has_auto(x) -> bool:
    if isinstance(x, dict):
        return any(has_auto(v) for v in x.values())
    if isinstance(x, list):
        return any(has_auto(v) for v in x)
    return x == "auto"


def main() -> None:
    logging.disable(logging.CRITICAL)
    import deepspeed.runtime.config as dsc
    import torch

    jobs = json.load(sys.stdin)
    out = []
    names = {torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float32: "float32"}
    for job in jobs:
        path, prod = job["path"], job["product"]
        ws = job.get("worldSize") or 1
        dsc.dist.get_world_size = lambda *a, **k: ws  # type: ignore[attr-defined]
        dsc.dist.get_rank = lambda *a, **k: 0  # type: ignore[attr-defined]
        claims = []
        perrs = sorted(d["code"] for d in prod.get("diagnostics", []) if d["severity"] == "error")
        yaml_file = path.endswith((".yml", ".yaml"))
        try:
            if yaml_file:  # a GPT-NeoX YAML: NeoX reads it with PyYAML and hands DeepSpeed the dict
                import yaml

                raw = yaml.safe_load(open(path))
            else:
                raw = json.load(open(path))
        except Exception:
            raw = None
        auto = has_auto(raw)
        try:
            cfg = dsc.DeepSpeedConfig(dict(raw) if yaml_file and isinstance(raw, dict) else path)
            verdict, err = "accepts", None
        except BaseException as e:
            cfg, verdict, err = None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300], e
        if not auto:
            claims.append({"kind": "ds.load", "product": perrs or "accepts", "oracle": verdict, "agree": bool(perrs) == (err is not None),
                           "note": f"world size {ws}"})
        prec = prod.get("precision") or {}
        if raw is not None and not perrs:
            fp16 = bool((raw.get("fp16") or {}).get("enabled") is True)
            bf16 = bool((raw.get("bf16") or raw.get("bfloat16") or {}).get("enabled") is True)
            if cfg is not None:
                fp16, bf16 = bool(cfg.float16_config.enabled), bool(cfg.bfloat16_config.enabled)
                comm = names.get(cfg.communication_data_type) if cfg.communication_data_type is not None else None
            else:
                comm = None
            compute = "float16" if fp16 else "bfloat16" if bf16 else "float32"
            if not ((raw.get("fp16") or {}).get("enabled") == "auto" or (raw.get("bf16") or {}).get("enabled") == "auto"):
                claims.append({"kind": "ds.compute", "product": prec.get("compute"), "oracle": compute, "agree": prec.get("compute") == compute})
                if cfg is not None and ws > 1:
                    reduce = comm or compute
                    claims.append({"kind": "ds.reduce", "product": prec.get("gradReduce"), "oracle": reduce, "agree": prec.get("gradReduce") == reduce,
                                   "note": "communication_data_type" if comm else "training dtype (no communication_data_type)"})
        out.append({"path": path, "claims": claims})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
