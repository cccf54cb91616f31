"""torchtune oracle worker: the config as torchtune loads it (OmegaConf.load, as torchtune.config.parse does)
and what a recipe does with its `dtype`: torchtune's own FullFinetuneRecipeSingleDevice.__init__
(recipes/full_finetune_single_device.py, loaded from the installed wheel by path: the `recipes` package refuses
imports) run on the loaded config with `device: cpu` (get_dtype asks the hardware about bf16 only on CUDA,
and the answer there depends on the GPU, not the config).

The constructor resolves `self._dtype = training.get_dtype(cfg.dtype, device)` and then refuses float16 with
a raise of its own; the next lines read keys the oracle does not supply (output_dir, ...) and raise there.
So: an exception raised by get_dtype (the dtype unset) or by a `raise` in the recipe's __init__ itself is the
recipe refusing the dtype; one raised further on (after self._dtype is set, inside OmegaConf) means the dtype
passed, and self._dtype, read from the constructor's frame, is the dtype the recipe trains in.

Claims: tt.load (OmegaConf loads it) vs the product's yaml-syntax errors; tt.dtype.refused (fp16-training-rejected/unknown-dtype) vs the
recipe's refusal; tt.dtype: the recipe's self._dtype vs the product's parameter and compute dtype.
"""
from __future__ import annotations

import json
import logging
import sys


def main() -> None:
    logging.disable(logging.CRITICAL)
    import torch
    from omegaconf import DictConfig, OmegaConf
    import importlib.util
    import os
    import site

    path_ = next(os.path.join(d, "recipes", "full_finetune_single_device.py") for d in site.getsitepackages()
                 if os.path.isfile(os.path.join(d, "recipes", "full_finetune_single_device.py")))
    spec = importlib.util.spec_from_file_location("tt_full_finetune_single_device", path_)
    rmod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rmod)
    Recipe = rmod.FullFinetuneRecipeSingleDevice

    def recipe_dtype(loaded):
        """(refused, dtype name or the exception) from the recipe's own constructor, on the file's `dtype` (absent
        when the file has none) and `device: cpu`."""
        has = isinstance(loaded, DictConfig) and "dtype" in loaded
        cfg = OmegaConf.create({"device": "cpu", **({"dtype": loaded.dtype} if has else {})})
        try:
            Recipe(cfg)
            return False, "constructed"  # not reached: the stand-in config lacks output_dir
        except BaseException as e:
            tb, me, last = e.__traceback__, None, None
            while tb is not None:
                f = tb.tb_frame
                if f.f_code.co_name == "__init__" and isinstance(f.f_locals.get("self"), Recipe):
                    me = f
                last = f
                tb = tb.tb_next
            dt = getattr(me.f_locals["self"], "_dtype", None) if me is not None else None
            msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
            if dt is None or last is me:  # get_dtype raised, or the recipe's own raise
                return True, msg
            return False, names.get(dt, str(dt))

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
        refused, o = recipe_dtype(cfg)
        dtype_errs = [c for c in errs if c in ("torchtune/fp16-training-rejected", "torchtune/unknown-dtype")]
        claims.append({"kind": "tt.dtype.refused", "product": dtype_errs or "accepts", "oracle": ("refused: " if refused else "") + o,
                       "agree": bool(dtype_errs) == refused, "note": f"dtype: {raw}; FullFinetuneRecipeSingleDevice.__init__"})
        prec = prod.get("precision") or {}
        if not refused and prec:
            claims.append({"kind": "tt.dtype", "product": [prec.get("paramStorage"), prec.get("compute")], "oracle": [o, o],
                           "agree": [prec.get("paramStorage"), prec.get("compute")] == [o, o], "note": f"dtype: {raw}"})
        out.append({"path": path, "claims": claims})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
