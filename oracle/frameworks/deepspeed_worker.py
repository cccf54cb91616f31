"""DeepSpeed oracle worker: deepspeed.runtime.config.DeepSpeedConfig(path) on every DeepSpeed JSON.

DeepSpeedConfig reads the file itself (hjson, refusing duplicate keys), asserts fp16+bf16 are not both on,
parses communication_data_type and data_types.grad_accum_dtype, and checks the batch-size trio at the world
size (deepspeed.comm's get_world_size, answered with the product's resolved world size: no process group).
Claims: ds.load (raises or not) vs the product's error-level diagnostics; ds.compute and ds.reduce vs the
precision table, read from DeepSpeedEngine's own methods (get_data_types()[0], the model dtype, and the
communication_data_type property) called on a stand-in engine that holds only the parsed DeepSpeedConfig (the
engine itself needs a model, an optimizer and a process group). A file DeepSpeedConfig refuses gets no dtype
claim (its ds.load claim says it fails).
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
    from deepspeed.runtime.engine import DeepSpeedEngine as Engine

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
        if cfg is not None and not perrs and not (isinstance(raw, dict) and any((raw.get(k) or {}).get("enabled") == "auto" for k in ("fp16", "bf16") if isinstance(raw.get(k), dict))):
            eng = Engine.__new__(Engine)  # DeepSpeedEngine's methods, on the parsed config only
            eng._config = cfg
            model_dtype = eng.get_data_types()[0]
            compute = names.get(model_dtype, str(model_dtype))
            claims.append({"kind": "ds.compute", "product": prec.get("compute"), "oracle": compute, "agree": prec.get("compute") == compute,
                           "note": "DeepSpeedEngine.get_data_types()[0]"})
            if ws > 1:
                comm = Engine.communication_data_type.fget(eng)
                reduce = names.get(comm, str(comm))
                claims.append({"kind": "ds.reduce", "product": prec.get("gradReduce"), "oracle": reduce, "agree": prec.get("gradReduce") == reduce,
                               "note": "DeepSpeedEngine.communication_data_type"})
        out.append({"path": path, "claims": claims})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
