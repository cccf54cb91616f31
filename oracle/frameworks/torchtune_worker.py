"""torchtune oracle worker: the config as torchtune loads it (OmegaConf.load, as torchtune.config.parse does)
and the recipes' dtype resolution, torchtune.training.get_dtype(cfg.dtype, device=cpu) (cpu: get_dtype only
asks the hardware about bf16 on CUDA, and the answer there depends on the GPU, not the config).

Claims: tt.load (OmegaConf loads it) vs the product's yaml-syntax errors; tt.dtype: get_dtype raises
(an unknown name: TT2) or returns a dtype; the recipes then refuse float16 ("full fp16 training is not
supported", TT1); otherwise the dtype is what the product reports as the parameter and compute dtype.
"""
from __future__ import annotations

import json
import logging
import sys


def main() -> None:
    logging.disable(logging.CRITICAL)
    import torch
    from omegaconf import OmegaConf
    from torchtune.training import get_dtype

    names = {torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64"}
    out = []
    for job in json.load(sys.stdin):
        path, prod = job["path"], job["product"]
        claims = []
        errs = sorted(d["code"] for d in prod.get("diagnostics", []) if d["severity"] == "error")
        try:
            cfg = OmegaConf.load(path)
            verdict = "loads"
        except BaseException as e:
            cfg, verdict = None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
        syntax = [c for c in errs if "syntax" in c]
        claims.append({"kind": "tt.load", "product": syntax or "loads", "oracle": verdict, "agree": bool(syntax) == (cfg is None)})
        if cfg is None:
            out.append({"path": path, "claims": claims})
            continue
        raw = cfg.get("dtype", None) if hasattr(cfg, "get") else None
        if raw is not None and not isinstance(raw, str):
            raw = str(raw)
        try:
            dt = get_dtype(raw, device=torch.device("cpu"))
            o = names.get(dt, str(dt))
            refused = dt == torch.float16
        except BaseException as e:
            o, refused = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300], True
        dtype_errs = [c for c in errs if c in ("torchtune/fp16-training-rejected", "torchtune/unknown-dtype")]
        claims.append({"kind": "tt.dtype.refused", "product": dtype_errs or "accepts", "oracle": ("refused: " if refused else "") + o,
                       "agree": bool(dtype_errs) == refused, "note": f"dtype: {raw}"})
        prec = prod.get("precision") or {}
        if not refused and prec:
            claims.append({"kind": "tt.dtype", "product": [prec.get("paramStorage"), prec.get("compute")], "oracle": [o, o],
                           "agree": [prec.get("paramStorage"), prec.get("compute")] == [o, o], "note": f"dtype: {raw}"})
        out.append({"path": path, "claims": claims})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
