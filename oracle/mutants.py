"""Mutation testing of the oracle (issue #32 §3): each mutant is a one-line change to the product's TypeScript,
built into its own dist/ (esbuild, in a temporary copy of the sources); the oracle then runs on the mutant
over oracle/mutants/ (small configs that exercise each claim) and examples/yaml/, and must FAIL (an
undocumented disagreement). A mutant the oracle passes survived: the oracle cannot see that change.

  .oracle-venv/bin/python oracle/mutants.py                 # every mutant (npm run test:oracle:mutants)
  .oracle-venv/bin/python oracle/mutants.py --only ds-      # the mutants whose name starts with ds-
  .oracle-venv/bin/python oracle/mutants.py --list

Writes oracle/out/mutants.json: per mutant, caught or survived, and the claims that caught it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV = os.environ.get("ORACLE_VENV", os.path.join(ROOT, ".oracle-venv"))
FW = "server/src/core/frameworks"

# name, file, the exact text, its replacement, the oracle's frameworks that must catch it. Each kind the issue
# asks for: a dtype of each framework flipped, a mechanism swapped, a launch error dropped or added, the world
# size off by a factor, the version shifted one era.
MUTANTS: list[tuple[str, str, str, str, str]] = [
    # -- DeepSpeed
    ("ds-compute-flip", f"{FW}/deepspeed/resolve.ts", 'const low: DType = mode === "bf16" ? "bfloat16" : "float16";', 'const low: DType = mode === "bf16" ? "float16" : "bfloat16";', "deepspeed"),
    ("ds-reduce-ignores-comm", f"{FW}/deepspeed/resolve.ts", "const R: DType = f.commDtype ? DS_DTYPE[f.commDtype] ?? low : low;", "const R: DType = low;", "deepspeed"),
    ("ds-error-dropped-bf16-and-fp16", f"{FW}/deepspeed/rules/index.ts", "[bf16AndFp16, ampWithZero,", "[ampWithZero,", "deepspeed"),
    ("ds-error-dropped-batch-size-product", f"{FW}/deepspeed/rules/index.ts", "invalidValue, batchSizeProduct, noBatchSize", "invalidValue, noBatchSize", "deepspeed"),
    ("ds-error-dropped-unknown-precision-key", f"{FW}/deepspeed/rules/index.ts", "noBatchSize, unknownPrecisionKey,", "noBatchSize,", "deepspeed"),
    ("ds-error-added-low-precision-reduction", f"{FW}/deepspeed/rules/low-precision-reduction.ts", 'd.add("low-precision-reduction", "information"', 'd.add("low-precision-reduction", "error"', "deepspeed"),
    # -- Lightning / LitGPT
    ("pl-litgpt-ddp-as-fsdp", f"{FW}/lightning/strategy.ts", 'if (written === "ddp" || written === "auto") {', 'if (written === "never") {', "lightning"),
    ("pl-error-dropped-unknown-precision", f"{FW}/lightning/rules/index.ts", "unknownPrecision, ", "", "lightning"),
    # -- torchtitan
    ("titan-dims-error-capped", f"{FW}/torchtitan/rules/parallel-dims.ts", "e.everyWorldSize ? RESTS_ON_EVERY_WORLD_SIZE : RESTS_ON[e.kind]", "RESTS_ON[e.kind]", "torchtitan"),
    ("titan-reduce-bf16", f"{FW}/torchtitan/knobs.ts", 'reduce: read(KNOB_SPECS.reduce),', 'reduce: { ...read(KNOB_SPECS.reduce), value: "bfloat16" },', "torchtitan"),
]


def copy_sources(dst: str) -> None:
    for d in ("server", "client", "scripts"):
        shutil.copytree(os.path.join(ROOT, d), os.path.join(dst, d), ignore=shutil.ignore_patterns("node_modules", "dist"))
    for f in ("package.json", "tsconfig.json"):
        if os.path.exists(os.path.join(ROOT, f)):
            shutil.copy(os.path.join(ROOT, f), dst)
    os.symlink(os.path.join(ROOT, "node_modules"), os.path.join(dst, "node_modules"))


def run_mutant(m, work: str, keep_out: str) -> dict:
    name, path, old, new, only = m
    src = os.path.join(work, path)
    text = open(src).read()
    if text.count(old) != 1:
        return {"name": name, "status": "stale", "why": f"the text to mutate occurs {text.count(old)} times in {path}"}
    open(src, "w").write(text.replace(old, new))
    try:
        b = subprocess.run(["node", "scripts/build.mjs"], cwd=work, capture_output=True, text=True)
        if b.returncode != 0:
            return {"name": name, "status": "caught", "by": ["build"], "why": b.stderr[-300:]}
        out = os.path.join(keep_out, name)
        r = subprocess.run([os.path.join(VENV, "bin", "python"), os.path.join(HERE, "run.py"), "--files", os.path.join(HERE, "mutants"),
                            "--files", os.path.join(ROOT, "examples", "yaml"), "--only", only, "--out", out],
                           cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, PL_PRODUCT_DIST=os.path.join(work, "dist")))
        rep = os.path.join(out, "agreement.json")
        if not os.path.exists(rep):
            return {"name": name, "status": "caught", "by": ["oracle run failed"], "why": r.stderr[-300:]}
        und = [c for c in json.load(open(rep))["claims"] if not c["agree"] and not c.get("documented")]
        return {"name": name, "status": "caught" if und else "survived", "by": sorted({f'{c["kind"]} {os.path.basename(c["path"])}' for c in und})}
    finally:
        open(src, "w").write(text)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="run the mutants whose name starts with this")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    ms = [m for m in MUTANTS if m[0].startswith(a.only)]
    if a.list:
        for m in ms:
            print(m[0], m[4])
        return 0
    keep = os.path.join(HERE, "out", "mutants")
    os.makedirs(keep, exist_ok=True)
    res = []
    with tempfile.TemporaryDirectory(prefix="pl-mutants-") as work:
        copy_sources(work)
        for m in ms:
            t0 = time.time()
            r = run_mutant(m, work, keep)
            r["seconds"] = round(time.time() - t0, 1)
            res.append(r)
            print(f'{r["name"]}: {r["status"]} {", ".join(r.get("by", []))[:200]} ({r["seconds"]} s)', flush=True)
    caught = sum(r["status"] == "caught" for r in res)
    json.dump({"mutants": res, "caught": caught, "total": len(res)}, open(os.path.join(HERE, "out", "mutants.json"), "w"), indent=1)
    print(f"mutation score: {caught}/{len(res)}")
    return 0 if caught == len(res) else 1


if __name__ == "__main__":
    sys.exit(main())
