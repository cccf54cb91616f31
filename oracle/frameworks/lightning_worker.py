"""Lightning oracle worker: the Trainer's _AcceleratorConnector on the file's precision / strategy / devices /
num_nodes, with CUDA mocked (num_cuda_devices, is_available), and the precision plugin it picks.

Claims: pl.connector (the connector raises or not) vs the product's error-level diagnostics; pl.compute,
pl.params and pl.reduce read from what the plugin does (observe(): no dtype mapping of the oracle's own) vs
the precision table.
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


def observe(plugin, names):
    """What the plugin itself does to a module, on CPU: a Linear built under its module_init_context and
    converted by its convert_module (the parameters' dtype); the dtype its forward computes in (the autocast
    context it opens, else the output dtype of that Linear under its forward_context); the gradient-reduction
    dtype (FSDPPrecision: its MixedPrecision config's reduce_dtype, else the parameters' dtype, which is the
    dtype of the .grad buffers DDP all-reduces: read from a backward through the Linear)."""
    import torch
    how = {}
    with plugin.module_init_context():
        lin = torch.nn.Linear(4, 4)
    lin = plugin.convert_module(lin)
    pdt = lin.weight.dtype
    how["params"] = "Linear under module_init_context + convert_module"
    ac = plugin.autocast_context_manager() if hasattr(plugin, "autocast_context_manager") else None
    mp = getattr(plugin, "mixed_precision_config", None)
    if mp is not None and mp.param_dtype is not None:
        compute, how["compute"] = names.get(mp.param_dtype), "mixed_precision_config.param_dtype"
    elif isinstance(ac, torch.autocast):
        compute, how["compute"] = names.get(ac.fast_dtype), "autocast_context_manager().fast_dtype"
    else:
        with plugin.forward_context():
            y = lin(plugin.convert_input(torch.ones(2, 4)))
        compute, how["compute"] = names.get(y.dtype), "Linear output under forward_context"
    if mp is not None:
        rd = mp.reduce_dtype if mp.reduce_dtype is not None else mp.param_dtype
        reduce, how["reduce"] = names.get(rd) if rd is not None else names.get(pdt), "mixed_precision_config.reduce_dtype"
    else:
        x = plugin.convert_input(torch.ones(2, 4, dtype=pdt))
        lin(x).float().sum().backward()
        reduce, how["reduce"] = names.get(lin.weight.grad.dtype), ".grad dtype after backward (DDP all-reduces it)"
    return names.get(pdt), compute, reduce, how


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
        # fsdp-norm-clipping (norm clipping with FSDP) fails at the first clip, after the connector: not a connector claim.
        conn_errs = [c for c in perrs if c != "lightning/fsdp-norm-clipping"]
        claims.append({"kind": "pl.connector", "product": conn_errs or "accepts", "oracle": verdict, "agree": bool(conn_errs) == (plugin is None)})
        prec = prod.get("precision") or {}
        if plugin is not None and not conn_errs:
            cls = type(plugin).__name__
            p = str(getattr(plugin, "precision", precision))
            try:
                params, compute, reduce, how = observe(plugin, names)
            except BaseException as e:  # a plugin this CPU step cannot drive: not compared, with the reason
                claims.append({"kind": "pl.not-compared", "product": (prod.get("precision") or {}).get("compute"),
                               "oracle": f"{cls}: {type(e).__name__}: {e}"[:300], "agree": True, "note": "the plugin could not run on CPU"})
                out.append({"path": path, "claims": claims})
                continue
            prec = prod.get("precision") or {}
            ws = job.get("worldSize") or 1
            claims.append({"kind": "pl.compute", "product": prec.get("compute"), "oracle": f"{compute} ({cls} {p}: {how['compute']})", "agree": prec.get("compute") == compute})
            claims.append({"kind": "pl.params", "product": prec.get("paramStorage"), "oracle": f"{params} ({cls} {p}: {how['params']})", "agree": prec.get("paramStorage") == params})
            if ws > 1:
                claims.append({"kind": "pl.reduce", "product": prec.get("gradReduce"), "oracle": f"{reduce} ({cls} {p}, strategy {strategy}: {how['reduce']})", "agree": prec.get("gradReduce") == reduce})
        out.append({"path": path, "claims": claims})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
