"""accelerate oracle worker.

Claims:
  acc.load:     accelerate.commands.config.config_args.load_config_from_file(path) (ClusterConfig: unknown
                keys raise) vs the product's error-level bare-no-boolean/unknown-key/unknown-mixed-precision diagnostics
  acc.yaml11:   bare-no-boolean says accelerate crashes on a bare NO/no (a YAML 1.1 boolean): accelerate's own launch
                path decides. launch_command(launch_command_parser().parse_args(["--config_file", path,
                "train.py"])) runs with the process start replaced (subprocess.Popen, torch.distributed.run.run)
                and CUDA reported present (8 devices), so _validate_launch_command and the launcher's
                prepare_*_cmd_env run as on a GPU host: the claim is whether that raises on a bool ("'bool'
                object has no attribute ..."), e.g. mixed_precision: no meets .lower(); distributed_type: no
                (False) launches one process (launch.py L1222-1240 at accelerate 1.15.0)
  acc.fsdp:     FullyShardedDataParallelPlugin(fsdp_version=...).set_mixed_precision(mixed_precision): the
                policy's param_dtype (compute) and reduce_dtype vs the precision table
  acc.deepspeed: DeepSpeedPlugin(hf_ds_config=<the linked JSON>).set_mixed_precision(mixed_precision) raises
                (fp16 vs bf16 conflict) or not, vs the product's error-level diagnostics on the pair
"""
from __future__ import annotations

import json
import logging
import os
import sys

# bare-no-boolean (a bare NO read as a boolean) fails later, at launch: checked as acc.yaml11 on the loaded values.
LOAD_CODES = {"accelerate/unknown-key", "accelerate/unknown-mixed-precision"}
STRING_FIELDS = ("compute_environment", "distributed_type", "mixed_precision")


def _launch(path: str) -> dict:
    """accelerate's launch_command on the config, nothing started: the launcher reached and its ACCELERATE_* env,
    or the exception it raised."""
    import unittest.mock as um

    import accelerate.commands.launch as L
    import torch.distributed.run as dr

    seen: dict = {}

    class _Proc:
        returncode = 0

        def wait(self):
            return 0

    def popen(cmd, env=None, **_):
        seen.update(launcher="subprocess", env={k: v for k, v in (env or {}).items() if k.startswith("ACCELERATE_")})
        return _Proc()

    def run(_args):
        seen.update(launcher="torch.distributed.run", env={k: v for k, v in os.environ.items() if k.startswith("ACCELERATE_")})

    try:
        with um.patch.object(L.subprocess, "Popen", popen), um.patch.object(dr, "run", run), \
                um.patch("torch.cuda.is_available", return_value=True), um.patch("torch.cuda.device_count", return_value=8), \
                um.patch.object(L, "check_cuda_p2p_ib_support", return_value=True):
            L.launch_command(L.launch_command_parser().parse_args(["--config_file", path, "train.py"]))
    except BaseException as e:  # noqa: BLE001 (SystemExit from argparse too)
        seen["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
    return seen


def main() -> None:
    logging.disable(logging.CRITICAL)
    import torch
    from accelerate.commands.config.config_args import load_config_from_file
    from accelerate.utils import DeepSpeedPlugin, FullyShardedDataParallelPlugin

    names = {torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float32: "float32", None: None}
    out = []
    for job in json.load(sys.stdin):
        path, prod = job["path"], job["product"]
        claims = []
        errs = sorted(d["code"] for d in prod.get("diagnostics", []) if d["severity"] == "error")
        perrs = sorted(set(errs) & LOAD_CODES)
        try:
            cfg = load_config_from_file(path)
            verdict = type(cfg).__name__
        except BaseException as e:
            cfg, verdict = None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
        claims.append({"kind": "acc.load", "product": perrs or "accepts", "oracle": verdict, "agree": bool(perrs) == (cfg is None)})
        if cfg is not None:
            bools = [f for f in STRING_FIELDS if isinstance(getattr(cfg, f, None), bool)]
            ac1 = "accelerate/bare-no-boolean" in errs
            launch = _launch(path)
            crash = "'bool' object" in launch.get("error", "")
            told = launch.get("error") or f"launches ({launch.get('launcher')}, ACCELERATE_MIXED_PRECISION={launch.get('env', {}).get('ACCELERATE_MIXED_PRECISION')})"
            claims.append({"kind": "acc.yaml11", "product": "bare-no-boolean" if ac1 else "no bare-no-boolean", "oracle": f"booleans in {bools}: {told}" if bools else f"strings: {told}",
                           "agree": ac1 == crash, "note": "accelerate's launch_command (process start mocked) raises on a boolean or not"})
        if cfg is None or perrs:
            out.append({"path": path, "claims": claims})
            continue
        dt = str(getattr(cfg, "distributed_type", "")).split(".")[-1]
        mp = str(getattr(cfg, "mixed_precision", "no") or "no")
        prec = prod.get("precision") or {}
        if dt == "FSDP" and mp in ("fp16", "bf16", "fp8"):
            fsdp = getattr(cfg, "fsdp_config", None) or {}
            version = int(fsdp.get("fsdp_version", 1) or 1)
            try:
                plugin = FullyShardedDataParallelPlugin(fsdp_version=version)
                plugin.set_mixed_precision(mp)
                pol = plugin.mixed_precision_policy
                compute, reduce = names.get(pol.param_dtype), names.get(pol.reduce_dtype)
                claims.append({"kind": "acc.fsdp", "product": [prec.get("compute"), prec.get("gradReduce")], "oracle": [compute, reduce],
                               "agree": [prec.get("compute"), prec.get("gradReduce")] == [compute, reduce], "note": f"FSDP{version} {mp}"})
            except BaseException as e:
                claims.append({"kind": "acc.fsdp", "product": [prec.get("compute"), prec.get("gradReduce")], "oracle": f"{type(e).__name__}: {e}"[:300], "agree": False})
        ds = getattr(cfg, "deepspeed_config", None) or {}
        ds_file = ds.get("deepspeed_config_file")
        if dt == "DEEPSPEED" and ds_file:
            full = os.path.join(os.path.dirname(path), ds_file)
            if os.path.isfile(full):
                try:
                    plugin = DeepSpeedPlugin(hf_ds_config=full)
                    plugin.set_mixed_precision(mp)
                    v, raised = "accepts", False
                except BaseException as e:
                    v, raised = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300], True
                claims.append({"kind": "acc.deepspeed", "product": errs or "accepts", "oracle": v, "agree": bool(errs) == raised, "note": f"mixed_precision {mp} with {ds_file}"})
        out.append({"path": path, "claims": claims})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
