"""Lightning oracle worker: the Trainer's _AcceleratorConnector on the file's precision / strategy / devices /
num_nodes, with CUDA mocked (num_cuda_devices, is_available), and the precision plugin it picks.

Claims: pl.connector (the connector raises or not) vs the product's error-level diagnostics; pl.compute,
pl.params and pl.reduce (from the plugin: MixedPrecision autocasts over fp32 parameters and DDP reduces in
the parameter dtype; HalfPrecision converts the module; FSDPPrecision's MixedPrecision config has
param_dtype / reduce_dtype) vs the precision table.
"""
from __future__ import annotations

import json
import logging
import sys
from unittest import mock


def trainer_args(doc):
    if not isinstance(doc, dict):
        return None
    t = doc.get("trainer")
    if isinstance(t, dict):
        return t
    if "Trainer" in str(doc.get("_target_", "")) or "precision" in doc:
        return doc
    return None


def main() -> None:
    logging.disable(logging.CRITICAL)
    import torch
    import yaml
    from lightning.pytorch.trainer.connectors.accelerator_connector import _AcceleratorConnector

    names = {torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64", None: None}
    out = []
    for job in json.load(sys.stdin):
        path, prod = job["path"], job["product"]
        claims = []
        try:
            doc = yaml.safe_load(open(path))
        except Exception:
            doc = None
        t = trainer_args(doc)
        if t is None:
            out.append({"path": path, "claims": claims})
            continue
        strategy = t.get("strategy", "auto")
        if not isinstance(strategy, str):
            out.append({"path": path, "claims": claims})
            continue
        precision = t.get("precision", "32-true")
        accel = t.get("accelerator", "auto")
        devices = t.get("devices", "auto")
        num_nodes = t.get("num_nodes", 1)
        n_dev = devices if isinstance(devices, int) and devices > 0 else 1
        perrs = sorted(d["code"] for d in prod.get("diagnostics", []) if d["severity"] == "error")
        cuda = accel in ("gpu", "cuda", "auto")
        try:
            with mock.patch("lightning.fabric.accelerators.cuda.num_cuda_devices", return_value=n_dev if cuda else 0), \
                 mock.patch("torch.cuda.is_available", return_value=cuda), \
                 mock.patch("torch.cuda.device_count", return_value=n_dev if cuda else 0), \
                 mock.patch("torch.cuda.is_bf16_supported", return_value=True, create=True):
                conn = _AcceleratorConnector(devices=devices, accelerator=accel, strategy=strategy, precision=precision, num_nodes=num_nodes)
                plugin = conn.precision_plugin
            verdict = type(plugin).__name__
        except BaseException as e:
            plugin, verdict = None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
        # PL6 (norm clipping with FSDP) fails at the first clip, after the connector: not a connector claim.
        conn_errs = [c for c in perrs if c != "lightning/PL6"]
        claims.append({"kind": "pl.connector", "product": conn_errs or "accepts", "oracle": verdict, "agree": bool(conn_errs) == (plugin is None)})
        prec = prod.get("precision") or {}
        if plugin is not None and not conn_errs:
            p = str(getattr(plugin, "precision", precision))
            half = {"16": "float16", "bf16": "bfloat16", "64": "float64", "32": "float32"}.get(p.split("-")[0], "float32")
            cls = type(plugin).__name__
            mp = getattr(plugin, "mixed_precision_config", None) if cls == "FSDPPrecision" else None
            if p.endswith("-mixed"):
                params, compute = "float32", half
            else:
                params, compute = half, half
            reduce = names.get(mp.reduce_dtype) if mp is not None and mp.reduce_dtype is not None else (compute if mp is not None else params)
            ws = job.get("worldSize") or 1
            claims.append({"kind": "pl.compute", "product": prec.get("compute"), "oracle": f"{compute} ({cls} {p})", "agree": prec.get("compute") == compute})
            claims.append({"kind": "pl.params", "product": prec.get("paramStorage"), "oracle": f"{params} ({cls} {p})", "agree": prec.get("paramStorage") == params})
            if ws > 1:
                claims.append({"kind": "pl.reduce", "product": prec.get("gradReduce"), "oracle": f"{reduce} ({cls} {p}, strategy {strategy})", "agree": prec.get("gradReduce") == reduce})
        out.append({"path": path, "claims": claims})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
