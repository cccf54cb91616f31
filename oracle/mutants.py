"""Mutation testing of the oracle (issue #32 §3): each mutant is a one-line change to the product's TypeScript,
built into its own dist/ (esbuild, in a temporary copy of the sources); the oracle then runs on the mutant
over oracle/mutants/ (small configs that exercise each claim), examples/yaml/ and oracle/cases/ (the Megatron-LM
and verl launch scripts), and must FAIL (an
undocumented disagreement). A mutant the oracle passes survived: the oracle cannot see that change.

The unmutated product runs first over the same files and must agree everywhere (exit 2 otherwise): a "catch"
must not be a disagreement the baseline already had. That run also fills the frameworks' answers
(ORACLE_CACHE, run.py's worker()), which do not depend on the mutant, so each mutant costs a build and the
product's side. A mutant whose text no longer occurs once in its file is "stale" and fails the run.

  .oracle-venv/bin/python oracle/mutants.py                 # every mutant (npm run test:oracle:mutants)
  .oracle-venv/bin/python oracle/mutants.py --ci            # CI's subset (CI_SUBSET; oracle/oracle.test.mjs)
  .oracle-venv/bin/python oracle/mutants.py --only ds-      # the mutants whose name starts with ds- (or a,b,...)
  .oracle-venv/bin/python oracle/mutants.py --only titan3-  # the 0.3.0 registry mutants: run.py --registry runs the
                                                            # installed wheel's registries through the registry worker
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
    ("pl-compute-flip", f"{FW}/lightning/resolve.ts", 'const low: DType | undefined = precision.startsWith("bf16") ? "bfloat16" : precision.startsWith("16") ? "float16" : undefined;', 'const low: DType | undefined = precision.startsWith("bf16") ? "float16" : precision.startsWith("16") ? "bfloat16" : undefined;', "lightning"),
    ("pl-true-params-fp32", f"{FW}/lightning/resolve.ts", "table: all(low, `\\`precision: ${precision}\\` (module cast)`),", "table: all(full, `\\`precision: ${precision}\\` (module cast)`),", "lightning"),
    ("pl-ddp-reduce-bf16", f"{FW}/lightning/resolve.ts", 'R: dt(W === 1 || !W ? "float32" : "float32", "DDP reduces in the gradient dtype")', 'R: dt(W === 1 || !W ? "float32" : "bfloat16", "DDP reduces in the gradient dtype")', "lightning"),
    # -- accelerate
    ("acc-fsdp-compute-flip", f"{FW}/accelerate/resolve.ts", 'const low = m === "fp16" ? "float16" : "bfloat16";', 'const low = m === "fp16" ? "bfloat16" : "float16";', "accelerate"),
    ("acc-error-dropped-bare-no-boolean", f"{FW}/accelerate/rules/index.ts", "  bareNoBoolean,\n", "", "accelerate"),
    ("acc-error-added-bare-no-distributed-type", f"{FW}/accelerate/rules/bare-no-boolean.ts", 'if (word === "distributed_type") {', 'if (word === "never") {', "accelerate"),
    ("acc-error-dropped-unknown-key", f"{FW}/accelerate/rules/index.ts", "  unknownMixedPrecision,\n  unknownKey,\n", "  unknownMixedPrecision,\n", "accelerate"),
    # -- torchtune
    ("tt-dtype-flip", f"{FW}/torchtune/data.ts", 'bf16: "bfloat16"', 'bf16: "float16"', "torchtune"),
    ("tt-error-dropped-unknown-dtype", f"{FW}/torchtune/rules/index.ts", "  unknownDtype,\n  fp16TrainingRejected,", "  fp16TrainingRejected,", "torchtune"),
    # -- torchtitan: dtypes
    ("titan-reduce-bf16", f"{FW}/torchtitan/knobs.ts", 'reduce: read(KNOB_SPECS.reduce),', 'reduce: { ...read(KNOB_SPECS.reduce), dtype: "bfloat16" },', "torchtitan"),
    ("titan-fsdp-compute-flip", f"{FW}/torchtitan/resolve.ts", '{ dtype: p, knob: "training.mixed_precision_param (FSDP MixedPrecisionPolicy.param_dtype)" }', '{ dtype: storage, knob: "training.mixed_precision_param (FSDP MixedPrecisionPolicy.param_dtype)" }', "torchtitan"),
    ("titan-autocast-dtype-flip", f"{FW}/torchtitan/resolve.ts", '{ dtype: p, knob: "training.mixed_precision_param (torch.autocast dtype, matmuls only)" }', '{ dtype: "float16", knob: "training.mixed_precision_param (torch.autocast dtype, matmuls only)" }', "torchtitan"),
    ("titan-storage-ignores-training-dtype", f"{FW}/torchtitan/resolve.ts", "const storage = knobs.trainingDtype.dtype;", 'const storage = knobs.trainingDtype.isDefault ? knobs.trainingDtype.dtype : "float32";', "torchtitan"),
    # -- torchtitan: mechanism
    ("titan-fsdp-as-autocast", f"{FW}/torchtitan/eras.ts", 'return { mechanism: "fully_shard", reason: "FSDP/HSDP/CP is enabled (dp_shard > 1 or cp > 1)", logs: [{ level: "info", text: INFO_FSDP }], ddp: false };\n    }\n    if (d.tp > 1 || d.pp > 1) {\n      // DDP beside TP/PP', 'return { mechanism: "autocast", reason: "FSDP/HSDP/CP is enabled (dp_shard > 1 or cp > 1)", logs: [{ level: "info", text: INFO_FSDP }], ddp: false };\n    }\n    if (d.tp > 1 || d.pp > 1) {\n      // DDP beside TP/PP', "torchtitan"),
    ("titan-ddp-as-none", f"{FW}/torchtitan/eras.ts", 'return { mechanism: "autocast", reason: ddp.ddp ? "pure DDP', 'return { mechanism: "none", reason: ddp.ddp ? "pure DDP', "torchtitan"),
    # -- torchtitan: launch errors
    ("titan-dims-error-capped", f"{FW}/torchtitan/rules/parallel-dims.ts", "e.everyWorldSize ? RESTS_ON_EVERY_WORLD_SIZE : RESTS_ON[e.kind]", "RESTS_ON[e.kind]", "torchtitan"),
    ("titan-error-dropped-ddp-with-other-parallelism", f"{FW}/torchtitan/rules/index.ts", "  ddpWithOtherParallelism,\n", "", "torchtitan"),
    ("titan-error-dropped-pp-1f1b-microbatches", f"{FW}/torchtitan/rules/index.ts", "  pp1f1bMicrobatches,\n", "", "torchtitan"),
    ("titan-error-added-pp-gpipe", f"{FW}/torchtitan/rules/pp-1f1b-microbatches.ts", 's.schedule !== "1F1B"', 's.schedule === "none"', "torchtitan"),
    ("titan-error-dropped-unknown-key", f"{FW}/torchtitan/schema/rules.ts", "  unknownKey,\n", "", "torchtitan"),
    ("titan-error-dropped-model-not-in-release", f"{FW}/torchtitan/rules/index.ts", "  modelNotInRelease,\n", "", "torchtitan"),
    ("titan-error-dropped-ep-needs-tp-mesh", f"{FW}/torchtitan/rules/index.ts", "  epNeedsTpMesh,\n", "", "torchtitan"),
    ("titan-error-dropped-module-not-in-release", f"{FW}/torchtitan/rules/index.ts", "  moduleNotInRelease,\n", "", "torchtitan"),
    ("titan-gpt-oss-bf16-layers-dropped", f"{FW}/torchtitan/releaseRegistry.ts", "if (!p || !o) return p;", "if (p || !o) return p;", "torchtitan"),
    # -- torchtitan: world size off by a factor
    ("titan-world-size-directive-x2", f"{FW}/torchtitan/analyzer.ts", "else if (Number.isInteger(n) && n > 0) fromDirective = { value: n,", "else if (Number.isInteger(n) && n > 0) fromDirective = { value: n * 2,", "torchtitan"),
    ("titan-dp-shard-half", f"{FW}/torchtitan/parallelDims.ts", "S = Math.floor(worldSize / (R * C * T * P));", "S = Math.floor(worldSize / (2 * R * C * T * P));", "torchtitan"),
    # -- torchtitan: version shifted one era
    ("titan-version-v020-as-v021", f"{FW}/torchtitan/versions.ts", '"v0.2.0": { date: "2025-10-17",', '"v0.2.0": { date: "2025-12-26",', "torchtitan"),
    # -- transformers / TRL (transformers_worker.py, over the corner cases in oracle/hf/)
    ("hf-compute-flip", f"{FW}/transformers/resolve.ts", 'const low: DType | undefined = amp.value === "bf16" ? "bfloat16" : amp.value === "fp16" ? "float16" : undefined;', 'const low: DType | undefined = amp.value === "bf16" ? "float16" : amp.value === "fp16" ? "bfloat16" : undefined;', "transformers"),
    ("hf-ds-fill-dropped", f"{FW}/transformers/resolve.ts", 'if (requested !== "fp32" && facts.mode === "fp32" &&', 'if (requested === "never" && facts.mode === "fp32" &&', "transformers"),
    ("hf-error-dropped-deepspeed-value-mismatch", f"{FW}/transformers/rules/index.ts", "deepspeedValueMismatch, ", "", "transformers"),
    ("hf-version-evaluation-strategy-kept", f"{FW}/transformers/trainingArgs.json", '"evaluation_strategy": "0-48",', '"evaluation_strategy": "0-121",', "transformers"),
    ("hf-version-fsdp2-default-later", f"{FW}/transformers/data.ts", 'export const FSDP2_DEFAULT_SINCE = "5.10.1";', 'export const FSDP2_DEFAULT_SINCE = "5.25.0";', "transformers"),
    # issue #31's open misses: the enum boolean, GRPOConfig's process count, the unpinned removed keys
    ("hf-error-dropped-boolean-enum-value", f"{FW}/transformers/rules/index.ts", "bf16AndFp16, booleanEnumValue,", "bf16AndFp16,", "transformers"),
    ("hf-grpo-world-size-ignored", f"{FW}/transformers/rules/grpo-generation-batch.ts", "const n = worldSize?.value;", "const n = worldSize ? 1 : undefined;", "transformers"),
    ("hf-unpinned-removed-key-silent", f"{FW}/transformers/rules/unknown-key.ts", "          else {\n            // No pin: the version is unknown.", "          else if (Math.random() > 2) {\n            // No pin: the version is unknown.", "transformers"),
    # -- LLaMA-Factory (llamafactory_worker.py, over oracle/cases/hf/lf0.9.5/: get_train_args, patch_config, init_adapter)
    ("lf-load-dtype-flip", f"{FW}/transformers/context.ts", 'if (bf16 || pureBf16) return { value: "bfloat16", source: "file"', 'if (bf16 || pureBf16) return { value: "float16", source: "file"', "transformers"),
    ("lf-upcast-dropped", f"{FW}/transformers/resolve.ts", 'P = dt("float32", `LLaMA-Factory upcasts the trainable', 'P = dt("bfloat16", `LLaMA-Factory upcasts the trainable', "transformers"),
    ("lf-error-dropped-rejected-args", f"{FW}/transformers/rules/index.ts", "pureBf16Zero3, llamafactoryRejectedArgs, ", "pureBf16Zero3, ", "transformers"),
    # -- Megatron-LM (oracle/cases/megatron/, megatron-core's own checks)
    ("mg-error-dropped-bf16-and-fp16", f"{FW}/megatron/rules/index.ts", "[bf16AndFp16, parallelSizes,", "[parallelSizes,", "megatron"),
    ("mg-error-dropped-parallel-sizes", f"{FW}/megatron/rules/index.ts", "[bf16AndFp16, parallelSizes,", "[bf16AndFp16,", "megatron"),
    ("mg-dp-half", f"{FW}/megatron/resolve.ts", "W % (tp * pp * cp) === 0 ? W / (tp * pp * cp) : undefined", "W % (tp * pp * cp) === 0 ? W / (2 * tp * pp * cp) : undefined", "megatron"),
    # -- verl (oracle/cases/verl/, Hydra + verl's config dataclasses and FSDPEngine)
    ("verl-storage-flip", f"{FW}/verl/data.ts", '  bf16: "bfloat16",', '  bf16: "float16",', "verl"),
    ("verl-error-dropped-unknown-dtype", f"{FW}/verl/rules/index.ts", "[mixedPrecisionNeedsPlus, unknownDtype,", "[mixedPrecisionNeedsPlus,", "verl"),
    ("verl-error-dropped-needs-plus", f"{FW}/verl/rules/index.ts", "[mixedPrecisionNeedsPlus, unknownDtype,", "[unknownDtype,", "verl"),
    ("titan-version-v021-as-v020", f"{FW}/torchtitan/versions.ts", '"v0.2.1": { date: "2025-12-26",', '"v0.2.1": { date: "2025-10-17",', "torchtitan"),
    # -- NeMo AutoModel (issue #35; caught on oracle/automodel/, which run.py always adds for automodel)
    ("am-reduce-follows-param", f"{FW}/automodel/resolve.ts", "R: W === 1 ? noReduce() : dt(r.dtype, r.from),", "R: W === 1 ? noReduce() : dt(p.dtype, p.from),", "automodel"),
    ("am-error-dropped-unknown-dtype", f"{FW}/automodel/rules/index.ts", 'parseNotesRule("automodel"), unknownDtype, bf16WeightsAdam', 'parseNotesRule("automodel"), bf16WeightsAdam', "automodel"),
    ("am-one-gpu-policy-applied", f"{FW}/automodel/resolve.ts", 'const policySkipped = strategy === "fsdp2" && W === 1;', "const policySkipped = false;", "automodel"),
    # -- torchtitan 0.3.0 Python registries ("titan3": run.py --registry, the installed wheel's config_registry.py
    # files through titan_registry_worker.py; the registry worker's answers are cached by the baseline like the others)
    ("titan3-reduce-bf16", f"{FW}/torchtitan/python/context.ts", "const knobs = readKnobs(view, version.date);", 'const read0 = readKnobs(view, version.date);\n  const knobs = { ...read0, reduce: { ...read0.reduce, dtype: "bfloat16" as const } };', "titan3"),
    ("titan3-fsdp-as-none", f"{FW}/torchtitan/python/context.ts", "let precision = resolvePrecision(decision, knobs, layout);", 'let precision = resolvePrecision(decision.mechanism === "fully_shard" ? { ...decision, mechanism: "none" } : decision, knobs, layout);', "titan3"),
]
# CI's subset (oracle/oracle.test.mjs): one per kind, the fast frameworks first.
CI_SUBSET = ["am-reduce-follows-param", "ds-error-dropped-unknown-precision-key", "ds-compute-flip", "pl-litgpt-ddp-as-fsdp", "titan-reduce-bf16", "titan-world-size-directive-x2"]


def copy_sources(dst: str) -> None:
    for d in ("server", "client", "scripts"):
        shutil.copytree(os.path.join(ROOT, d), os.path.join(dst, d), ignore=shutil.ignore_patterns("node_modules", "dist"))
    for f in ("package.json", "tsconfig.json"):
        if os.path.exists(os.path.join(ROOT, f)):
            shutil.copy(os.path.join(ROOT, f), dst)
    os.symlink(os.path.join(ROOT, "node_modules"), os.path.join(dst, "node_modules"))


def run_mutant(m, work: str, keep_out: str, cache: str) -> dict:
    name, path, old, new, only = m
    src = os.path.join(work, path)
    text = open(src).read()
    if text.count(old) != 1:  # a mutant whose text moved is reported, and fails the run
        return {"name": name, "status": "stale", "why": f"the text to mutate occurs {text.count(old)} times in {path}"}
    open(src, "w").write(text.replace(old, new))
    try:
        b = subprocess.run(["node", "scripts/build.mjs"], cwd=work, capture_output=True, text=True)
        if b.returncode != 0:
            return {"name": name, "status": "caught", "by": ["build"], "why": b.stderr[-300:]}
        out = os.path.join(keep_out, name)
        und, err = oracle(work, out, only, cache)
        if und is None:
            return {"name": name, "status": "oracle failed", "why": err}
        return {"name": name, "status": "caught" if und else "survived", "by": sorted({f'{c["kind"]} {os.path.basename(c["path"])}' + (f' @{c["version"]}' if c.get("version") else "") for c in und})}
    finally:
        open(src, "w").write(text)


def _fw(only: str) -> str:
    """The run.py framework of a mutant's target ("titan3": torchtitan, with --registry)."""
    return "torchtitan" if only == "titan3" else only


def oracle(work: str, out: str, only: str, cache: str):
    """run.py on the product built in work/dist, over oracle/mutants/ and examples/yaml/: the undocumented
    disagreements, or None and the reason when the run itself failed (a crash is not a catch)."""
    # the transformers family's corner cases live in oracle/hf/ (each pin set's folder, with its pins)
    hf = ["--files", os.path.join(HERE, "hf")] if "transformers" in only.split(",") else []
    r = subprocess.run([os.path.join(VENV, "bin", "python"), os.path.join(HERE, "run.py"), "--files", os.path.join(HERE, "mutants"),
                        "--files", os.path.join(ROOT, "examples", "yaml"), "--files", os.path.join(HERE, "cases"), *hf,
                        "--only", ",".join(sorted({_fw(o) for o in only.split(",")})), "--out", out,
                        *(["--registry"] if "titan3" in only.split(",") else [])],
                       cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, PL_PRODUCT_DIST=os.path.join(work, "dist"), ORACLE_CACHE=cache))
    rep = os.path.join(out, "agreement.json")
    if not os.path.exists(rep):
        return None, r.stderr[-600:]
    return [c for c in json.load(open(rep))["claims"] if not c["agree"] and not c.get("documented")], ""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="run the mutants whose name starts with this (comma-separated prefixes)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--ci", action="store_true", help="CI's subset (CI_SUBSET)")
    a = ap.parse_args()
    prefixes = tuple(a.only.split(","))  # comma-separated prefixes
    ms = [m for m in MUTANTS if m[0].startswith(prefixes) and (not a.ci or m[0] in CI_SUBSET)]
    if a.list:
        for m in ms:
            print(m[0], m[4])
        return 0
    keep = os.path.join(HERE, "out", "mutants")
    os.makedirs(keep, exist_ok=True)
    res = []
    with tempfile.TemporaryDirectory(prefix="pl-mutants-") as work:
        copy_sources(work)
        cache = os.path.join(work, "oracle-cache")
        # The unmutated product first: it must agree everywhere (else a "catch" could be the baseline's own
        # disagreement), and its run fills the frameworks' answers the mutants reuse (ORACLE_CACHE).
        b = subprocess.run(["node", "scripts/build.mjs"], cwd=work, capture_output=True, text=True)
        if b.returncode != 0:
            print(f"the unmutated product does not build: {b.stderr[-600:]}")
            return 2
        fws = sorted({m[4] for m in ms})
        t0 = time.time()
        und, err = oracle(work, os.path.join(keep, "baseline"), ",".join(fws), cache)
        print(f"baseline ({','.join(fws)}): {'failed: ' + err if und is None else str(len(und)) + ' undocumented disagreements'} ({round(time.time() - t0, 1)} s)", flush=True)
        if und is None or und:
            for c in und or []:
                print(f'  {c["kind"]} {c["path"]} @{c.get("version")}: product {json.dumps(c["product"])}, framework {json.dumps(c["oracle"])}')
            return 2
        for m in ms:
            t0 = time.time()
            r = run_mutant(m, work, keep, cache)
            r["seconds"] = round(time.time() - t0, 1)
            res.append(r)
            print(f'{r["name"]}: {r["status"]} {", ".join(r.get("by", []))[:200]} ({r["seconds"]} s)', flush=True)
    caught = sum(r["status"] == "caught" for r in res)
    json.dump({"mutants": res, "caught": caught, "total": len(res)}, open(os.path.join(HERE, "out", "mutants.json"), "w"), indent=1)
    print(f"mutation score: {caught}/{len(res)}")
    return 0 if caught == len(res) else 1


if __name__ == "__main__":
    sys.exit(main())
