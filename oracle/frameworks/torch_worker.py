"""PyTorch's own autocast registrations, for the engine's op tables (server/src/core/engine/autocast.ts).

  python torch_worker.py < tables.json     tables: the product's AUTOCAST_TABLES {device: {policy: [ops]}}

CPU: the set of aten ops with an AutocastCPU kernel in the installed torch (torch._C._dispatch_dump names
each registration); the policy of a CPU kernel is not visible there, so membership is what is compared.
CUDA: the set of ops with an AutocastCUDA kernel (the CPU wheel registers them too), and the policy from the
AT_FORALL_* lists of the installed wheel's ATen/autocast_mode.h (the lists autocast_mode.cpp registers for
CUDA) where an op is in one. Prints claims.
"""
from __future__ import annotations

import json
import os
import re
import sys

import torch

HEADER_POLICY = {"AT_FORALL_LOWER_PRECISION_FP": "lower_precision_fp", "AT_FORALL_FP32": "fp32",
                 "AT_FORALL_FP32_SET_OPT_DTYPE": "fp32_set_opt_dtype", "AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE": "fp32_append_dtype",
                 "AT_FORALL_PROMOTE": "promote"}


def registered(key: str) -> set[str]:
    out = set()
    for n in torch._C._dispatch_get_all_op_names():
        try:
            d = torch._C._dispatch_dump(n)
        except Exception:
            continue
        if any(line.startswith(key + ":") and "fallthrough" not in line for line in d.splitlines()):
            out.add(n.split("::", 1)[1].split(".", 1)[0])
    return out


def cuda_header() -> dict[str, str]:
    path = os.path.join(os.path.dirname(torch.__file__), "include", "ATen", "autocast_mode.h")
    text = open(path).read()
    out: dict[str, str] = {}
    for macro, policy in HEADER_POLICY.items():
        m = re.search(r"#define " + macro + r"\(_\)((?:[^\n]*\\\n)+[^\n]*)", text)
        if not m:
            continue
        for op in re.findall(r"_\(\s*(?:ADD_NS\()?([A-Za-z0-9_]+)", m.group(1)):
            out.setdefault(op, policy)
    return out


def main() -> int:
    tables = json.load(sys.stdin)
    claims = []
    prod_cpu = {op for ops in tables["cpu"].values() for op in ops}
    reg = registered("AutocastCPU")
    for op in sorted(prod_cpu | reg):
        claims.append({"kind": "torch.autocast.cpu", "path": f"aten::{op}", "product": "listed" if op in prod_cpu else "not listed",
                       "oracle": "AutocastCPU kernel" if op in reg else "no AutocastCPU kernel", "agree": (op in prod_cpu) == (op in reg)})
    prod_cuda = {op: pol for pol, ops in tables["cuda"].items() for op in ops}
    reg_cuda = registered("AutocastCUDA")
    hdr = cuda_header()
    for op in sorted(set(prod_cuda) | reg_cuda):
        # membership from the dispatcher (cudnn_* and the banned binary_cross_entropy are registered by hand);
        # the policy from the header's lists where the op is in one
        claims.append({"kind": "torch.autocast.cuda", "path": f"aten::{op}", "product": prod_cuda.get(op, "not listed"),
                       "oracle": hdr.get(op, "registered" if op in reg_cuda else "no AutocastCUDA kernel"),
                       "agree": (op in prod_cuda) == (op in reg_cuda) and (op not in hdr or prod_cuda.get(op) == hdr[op])})
    json.dump({"torch": torch.__version__, "claims": claims}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
