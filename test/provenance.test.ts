/**
 * Provenance and severity (issue #17, core/provenance.ts, docs/provenance.md):
 *  - the gate: an error resting on a default or an inferred fact becomes a warning that names the assumption;
 *  - every rule of every framework registry declares the facts it rests on;
 *  - the property: an input whose deciding fact is a default never yields an error. For each generated input
 *    (and examples/, and ../shared/corpus when present) analysed with nothing explicit, every error must
 *    survive every other value of each assumed fact (world size, torchtitan version, GPU type); an error that
 *    disappears under one was decided by the assumption and must not have been an error.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { hardwareInFileName, hardwareInFolder } from "../server/src/core/frameworks/torchtitan/fileName";
import type { AnalysisResult, AnalysisSettings } from "../server/src/core/analysis";
import { GPU_IDS } from "../server/src/core/engine/gpus";
import { ACCELERATE_RULES } from "../server/src/core/frameworks/accelerate/rules/index";
import { AXOLOTL_RULES } from "../server/src/core/frameworks/axolotl/rules/index";
import { DEEPSPEED_RULES } from "../server/src/core/frameworks/deepspeed/rules/index";
import { LIGHTNING_RULES } from "../server/src/core/frameworks/lightning/rules/index";
import { TITAN_RULES } from "../server/src/core/frameworks/torchtitan/rules/index";
import { TORCHTUNE_RULES } from "../server/src/core/frameworks/torchtune/rules/index";
import { TRANSFORMERS_RULES } from "../server/src/core/frameworks/transformers/rules/index";
import { RELEASES } from "../server/src/core/frameworks/torchtitan/versions";
import { PY_TITAN_RULES } from "../server/src/core/frameworks/torchtitan/python/titanContext";
import { PY_RELEASES } from "../server/src/core/frameworks/torchtitan/python/context";
import { assumption, FACT_KINDS, gateDiagnostics, isKnown, restingOn, type FactName } from "../server/src/core/provenance";
import type { Diagnostic } from "../server/src/core/model/types";
import { CORPUS, corpusSkip, listFiles } from "./support/corpus";
import { checkDiagnostics } from "./support/fixture";
import { buildTitanContext } from "../server/src/core/frameworks/torchtitan/analyzer";
import { robustOverVersions } from "../server/src/core/frameworks/torchtitan/robust";
import { ddpWithOtherParallelism } from "../server/src/core/frameworks/torchtitan/rules/ddp-with-other-parallelism";
import { restsOnOf } from "../server/src/core/provenance";
import { NO_ENV } from "../server/src/core/analysis";
import { parseTomlDocument } from "../server/src/core/parse/toml";

import { VERL_RULES } from "../server/src/core/frameworks/verl/rules/index";
import { MEGATRON_RULES } from "../server/src/core/frameworks/megatron/rules/index";
import { AUTOMODEL_RULES } from "../server/src/core/frameworks/automodel/rules/index";
const REGISTRIES: Record<string, readonly { codes: readonly string[]; restsOn: readonly FactName[]; onAssumed?: string; warningOnAssumed?: string }[]> = {
  torchtitan: TITAN_RULES,
  torchtune: TORCHTUNE_RULES,
  accelerate: ACCELERATE_RULES,
  lightning: LIGHTNING_RULES,
  axolotl: AXOLOTL_RULES,
  deepspeed: DEEPSPEED_RULES,
  transformers: TRANSFORMERS_RULES,
  verl: VERL_RULES,
  megatron: MEGATRON_RULES,
  automodel: AUTOMODEL_RULES,
};
const FACT_NAMES: readonly FactName[] = ["worldSize", "version", "gpu", "model", "forkSchema", "linkedConfig", "launcher", "evaluation"];

const R = { start: { line: 2, character: 0 }, end: { line: 2, character: 5 } };
const err = (message: string): Diagnostic => ({ code: "x", severity: "error", message, range: R, source: "precision-lens" });

describe("the severity gate (core/provenance.ts)", () => {
  it("an error resting on a default world size becomes a warning led by the assumption", () => {
    const [d] = gateDiagnostics([err("The degrees multiply to 4: the launch fails")], { restsOn: ["worldSize"] }, { worldSize: { value: 8, kind: "default", detail: "run_train.sh default (NGPU=8)" } });
    assert.equal(d!.severity, "warning");
    assert.equal(d!.message, "Assuming 8 GPUs, run_train.sh default (NGPU=8): the degrees multiply to 4: the launch fails");
    assert.equal(d!.detail, "Assuming 8 GPUs, run_train.sh default (NGPU=8): the degrees multiply to 4: the launch fails.");
    assert.equal(d!.data?.facts?.assumed, "worldSize");
  });

  it("an error on known facts stands; so does one resting on nothing", () => {
    for (const kind of FACT_KINDS.filter(isKnown)) {
      const [d] = gateDiagnostics([err("DDP fails")], { restsOn: ["worldSize", "version"] }, { worldSize: { value: 4, kind, detail: "x" }, version: { value: { id: "v0.2.2" }, kind, detail: "y" } });
      assert.deepEqual([d!.severity, d!.message], ["error", "DDP fails"], kind);
    }
    const [d] = gateDiagnostics([err("bad type")], { restsOn: [] }, {});
    assert.equal(d!.severity, "error");
  });

  it("inferred, default, comment and absent facts are assumptions; the rule may ask for information; acronyms keep their capitals", () => {
    assert.deepEqual(FACT_KINDS.filter((k) => !isKnown(k)), ["comment", "inferred", "default"]);
    const [d] = gateDiagnostics([err("DDP with TP raises")], { restsOn: ["version"], onAssumed: "information" }, { version: { value: { id: "v0.2.1" }, kind: "inferred", detail: "from the keys" } });
    assert.deepEqual([d!.severity, d!.message], ["information", "Assuming torchtitan v0.2.1, inferred: from the keys: DDP with TP raises"]);
    const [e] = gateDiagnostics([err("Sum mismatch")], { restsOn: ["worldSize"] }, {});
    assert.deepEqual([e!.severity, e!.message], ["warning", "Assuming an unknown world size: sum mismatch"]);
    assert.equal(assumption("gpu", { value: "h100-sxm", kind: "default", detail: "the default; set precisionLens.gpu or --gpu for another GPU type" }), "h100-sxm (the default)");
  });

  it("warningOnAssumed: a warning resting on an assumed fact becomes information led by it; on known facts, and without the flag, it stays", () => {
    const warn = (): Diagnostic => ({ ...err("The run is pure bf16"), severity: "warning" });
    const assumed = { launcher: { value: "single-GPU/DDP", kind: "default" as const, detail: "none named" } };
    const [d] = gateDiagnostics([warn()], { restsOn: ["launcher"], warningOnAssumed: "information" }, assumed);
    assert.deepEqual([d!.severity, d!.message, d!.data?.facts?.assumed], ["information", "Assuming the single-GPU/DDP launcher, none named: the run is pure bf16", "launcher"]);
    const [k] = gateDiagnostics([warn()], { restsOn: ["launcher"], warningOnAssumed: "information" }, { launcher: { ...assumed.launcher, kind: "run-script" } });
    assert.deepEqual([k!.severity, k!.message], ["warning", "The run is pure bf16"]);
    const [n] = gateDiagnostics([warn()], { restsOn: ["launcher"] }, assumed);
    assert.deepEqual([n!.severity, n!.message], ["warning", "The run is pure bf16"]);
  });

  it("restingOn overrides the rule's facts for one diagnostic", () => {
    const a = err("fails on any world size");
    const b = restingOn(err("fails on this world size"), ["worldSize"]);
    const out = gateDiagnostics([a, b], { restsOn: [] }, { worldSize: { value: 8, kind: "default", detail: "d" } });
    assert.deepEqual(out.map((d) => d.severity), ["error", "warning"]);
  });

  it("a message too long with its lead keeps the compact lead and stays whole, never cut mid-word (issue #34)", () => {
    const long = `Converter "float8" is not registered in torchtitan v0.2.2: KeyError at launch (now "quantize.linear.float8"), see the docs`;
    const [d] = gateDiagnostics([{ ...err(long), detail: "Long." }], { restsOn: ["version"] }, { version: { value: { id: "v0.2.2" }, kind: "inferred", detail: "the keys [quantize.linear] / [quantize.grouped_mm] and more" } });
    assert.equal(d!.message, `Assuming torchtitan v0.2.2 (inferred): converter "float8" is not registered in torchtitan v0.2.2: KeyError at launch (now "quantize.linear.float8"), see the docs`);
    assert.equal(d!.detail, "Assuming torchtitan v0.2.2 (inferred from the keys): Long.");
  });
});

describe("every rule declares the facts it rests on", () => {
  for (const [fw, rules] of Object.entries(REGISTRIES)) {
    it(fw, () => {
      assert.ok(rules.length > 0);
      for (const r of rules) {
        assert.ok(Array.isArray(r.restsOn), `${r.codes.join(",")} has no restsOn`);
        for (const f of r.restsOn) assert.ok(FACT_NAMES.includes(f), `${r.codes.join(",")}: unknown fact ${f}`);
        if (r.onAssumed !== undefined) assert.ok(["warning", "information"].includes(r.onAssumed));
        if (r.warningOnAssumed !== undefined) assert.equal(r.warningOnAssumed, "information");
      }
    });
  }
  it("a Python config function runs the torchtitan rule list itself (issue #30: no separate Python rules)", () => {
    // Every torchtitan rule but the TOML key-schema ones (a Python config's fields are typed by its own table).
    assert.ok(PY_TITAN_RULES.every((r) => TITAN_RULES.includes(r)));
    const skipped = TITAN_RULES.filter((r) => !PY_TITAN_RULES.includes(r)).flatMap((r) => r.codes);
    assert.deepEqual(skipped.sort(), ["deprecated-key", "extension-section-without-module", "fork-config", "invalid-value", "moved-key", "removed-key", "unknown-key", "unknown-section", "wrong-type"]);
  });
});

// ---- the property ------------------------------------------------------------------------------------------

const MODEL = `[job]\ndescription = "generated"\n\n[model]\nname = "llama3"\nflavor = "8B"\n`;

/** Deterministic generator (a linear congruential sequence), so a failure reproduces. */
function* lcg(seed: number): Generator<number> {
  let s = seed;
  for (;;) {
    s = (s * 1103515245 + 12345) % 2147483648;
    yield s;
  }
}
const pick = <T>(g: Generator<number>, xs: readonly T[]): T => xs[g.next().value % xs.length]!;

/** torchtitan inputs whose world size, version and GPU type are all left to defaults and inference. */
function titanInputs(n: number): { uri: string; text: string }[] {
  const g = lcg(17);
  const out: { uri: string; text: string }[] = [];
  for (let i = 0; i < n; i++) {
    const lines = [MODEL, "[parallelism]"];
    const deg = (key: string, xs: readonly number[]): void => {
      const v = pick(g, xs);
      if (v !== 0) lines.push(`${key} = ${v}`);
    };
    deg("data_parallel_replicate_degree", [0, 1, 2, 4, 32]);
    deg("data_parallel_shard_degree", [0, -1, 1, 2, 4, 8]);
    deg("tensor_parallel_degree", [0, 1, 2, 4, 8, 16]);
    deg("pipeline_parallel_degree", [0, 1, 2, 4]);
    deg("context_parallel_degree", [0, 1, 2]);
    deg("expert_parallel_degree", [0, 1, 2, 3, 8, 12, 128]);
    lines.push("", "[training]");
    if (pick(g, [0, 1])) lines.push(`mixed_precision_param = "${pick(g, ["bfloat16", "float32", "float16"])}"`);
    if (pick(g, [0, 1])) lines.push(`mixed_precision_reduce = "${pick(g, ["float32", "bfloat16"])}"`);
    if (pick(g, [0, 0, 1])) lines.push("enable_cpu_offload = true");
    if (pick(g, [0, 1])) lines.push(`local_batch_size = ${pick(g, [1, 2, 8])}`, `global_batch_size = ${pick(g, [-1, 6, 16, 64])}`, `seq_len = ${pick(g, [2048, 1000])}`);
    if (pick(g, [0, 0, 1])) lines.push("", "[model.converters]", "", "[compile]", `enable = ${pick(g, ["true", "false"])}`);
    if (pick(g, [0, 0, 1])) lines.push("", "[checkpoint]", "enable = true", `create_seed_checkpoint = ${pick(g, ["true", "false"])}`);
    if (pick(g, [0, 0, 1])) lines.push("", "[quantize.linear.float8]", "enable_fsdp_float8_all_gather = true");
    out.push({ uri: `file:///gen/titan_${i}.toml`, text: lines.join("\n") + "\n" });
  }
  return out;
}

/** `pick` on the high bits: the low bits of a power-of-two LCG repeat with a short period. */
const pickHi = <T>(g: Generator<number>, xs: readonly T[]): T => xs[(g.next().value >>> 16) % xs.length]!;

/** torchtitan Python registries whose world size and version are left to defaults; some with a statement not followed. */
function pythonInputs(n: number): { uri: string; text: string }[] {
  const g = lcg(29);
  const out: { uri: string; text: string }[] = [];
  for (let i = 0; i < n; i++) {
    const par: string[] = [];
    const deg = (key: string, xs: readonly (number | string)[]): void => {
      const v = pickHi(g, xs);
      if (v !== 0) par.push(`${key}=${v}`);
    };
    deg("data_parallel_replicate_degree", [0, 1, 2, 4]);
    deg("data_parallel_shard_degree", [0, -1, 1, 2, 4, 8]);
    deg("tensor_parallel_degree", [0, 1, 2, 3, 4, 8]);
    deg("pipeline_parallel_degree", [0, 1, 2]);
    deg("context_parallel_degree", [0, 1, 2]);
    deg("tensor_parallel_degree", [0, 0, 0, "UNKNOWN_TP"]);
    const tr: string[] = [];
    if (pickHi(g, [0, 1])) tr.push(`mixed_precision_param="${pickHi(g, ["bfloat16", "float32", "bf16"])}"`);
    if (pickHi(g, [0, 1])) tr.push(`mixed_precision_reduce="${pickHi(g, ["float32", "bfloat16", "fp32"])}"`);
    if (pickHi(g, [0, 0, 1])) tr.push(`dtype="${pickHi(g, ["bfloat16", "float32"])}"`);
    const loop = pickHi(g, [0, 0, 1]) ? "    for _ in range(2):\n        pass\n" : "";
    const base = pickHi(g, [0, 0, 0, 1]) ? "    config = upstream_base()\n" : "    config = Trainer.Config()\n";
    const text = `from torchtitan.config import ParallelismConfig, TrainingConfig\nfrom torchtitan.models.llama3.config_registry import upstream_base\nfrom torchtitan.trainer import Trainer\n\n\ndef gen_${i}() -> Trainer.Config:\n${base}    config.parallelism = ParallelismConfig(${par.join(", ")})\n    config.training = TrainingConfig(${tr.join(", ")})\n${loop}    return config\n`;
    out.push({ uri: `file:///gen/py_${i}/config_registry.py`, text });
  }
  return out;
}

/** YAML/JSON inputs with no world size written (the fact each framework's world-size rules rest on). */
function yamlInputs(): { uri: string; text: string }[] {
  const out: { uri: string; text: string }[] = [];
  for (const [tb, mb, gas] of [[32, 4, 1], [30, 4, 1], [64, 2, 4], [16, 16, 1]] as const) {
    out.push({ uri: `file:///gen/ds_${tb}_${mb}_${gas}.json`, text: JSON.stringify({ train_batch_size: tb, train_micro_batch_size_per_gpu: mb, gradient_accumulation_steps: gas, bf16: { enabled: true }, zero_optimization: { stage: 2 } }, null, 2) });
  }
  for (const [rep, shard, tp] of [[1, 4, 2], [2, 1, 2], [1, 2, 1]] as const) {
    out.push({
      uri: `file:///gen/acc_${rep}_${shard}_${tp}.yaml`,
      text: `compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\nmixed_precision: bf16\nfsdp_config:\n  fsdp_version: 2\nparallelism_config:\n  parallelism_config_dp_replicate_size: ${rep}\n  parallelism_config_dp_shard_size: ${shard}\n  parallelism_config_tp_size: ${tp}\n`,
    });
  }
  for (const [shard, tp] of [[4, 2], [3, 1], [-1, 2]] as const) {
    out.push({
      uri: `file:///gen/full_finetune_${shard}_${tp}.yaml`,
      text: `model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\noptimizer:\n  _component_: torch.optim.AdamW\n  lr: 2e-5\nloss:\n  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\ndtype: bf16\ndata_parallel_shard_dim: ${shard}\ntensor_parallel_dim: ${tp}\n`,
    });
  }
  return out;
}

function fileInputs(dir: string): { uri: string; text: string }[] {
  return listFiles(dir, [".toml", ".yaml", ".yml", ".json"]).map((p) => ({ uri: `file:///inputs/${relative(dir, p).replace(/\\/g, "/")}`, text: readFileSync(p, "utf8") }));
}

const key = (d: Diagnostic): string => `${d.code}@${d.range.start.line}:${d.range.start.character}`;

/** The other values of each fact the base analysis assumed, as explicit CLI settings. */
function alternatives(base: AnalysisResult): AnalysisSettings[] {
  const out: AnalysisSettings[] = [];
  const assumed = (k: string | undefined): boolean => k === undefined || !isKnown(k as never);
  if (base.framework !== null && assumed(base.worldSize?.kind)) for (const w of [1, 2, 3, 4, 8, 12, 16, 32, 64, 128, 256]) out.push({ worldSize: w, origin: "cli" });
  if (base.framework === "torchtitan") {
    // A Python registry's versions: the Python-era releases and main dates in each mechanism period.
    const versions = base.format === "python" ? [...Object.keys(PY_RELEASES), "main@2026-03-01", "main@2026-03-20", "main@2026-05-01"] : Object.keys(RELEASES);
    if (assumed(base.torchtitanVersion?.kind)) for (const v of versions) out.push({ torchtitanVersion: v, origin: "cli" });
    for (const gpu of GPU_IDS) out.push({ gpu, origin: "cli" });
  }
  return out;
}

/** Errors of `base` that some other value of an assumed fact makes disappear. */
function decidedByAssumption(uri: string, text: string): string[] {
  const base = analyzeDocument(uri, text);
  const errors = base.diagnostics.filter((d) => d.severity === "error" && d.code !== "internal-error");
  if (!errors.length) return [];
  const bad: string[] = [];
  for (const s of alternatives(base)) {
    const other = new Set(analyzeDocument(uri, text, s).diagnostics.filter((d) => d.severity === "error").map(key));
    for (const e of errors) if (!other.has(key(e))) bad.push(`${uri}: error[${e.code}] "${e.message}" is gone with ${JSON.stringify(s)}`);
  }
  return [...new Set(bad)];
}

describe("property: an input whose deciding fact is a default never yields an error", () => {
  it("generated torchtitan inputs (400, all degrees, knobs; world size / version / GPU left to defaults)", () => {
    const inputs = titanInputs(400);
    const bad = inputs.flatMap((i) => decidedByAssumption(i.uri, i.text));
    assert.deepEqual(bad.slice(0, 10), []);
    // The generator reaches the gated cases: some inputs do carry a downgraded error (the gate is exercised).
    const gated = inputs.filter((i) => analyzeDocument(i.uri, i.text).diagnostics.some((d) => d.data?.facts?.assumed !== undefined));
    assert.ok(gated.length >= 10, `only ${gated.length} generated inputs reached an assumed-fact error`);
  });

  it("generated torchtitan Python registries (200; world size and version left to defaults, some loops and unfollowed bases)", () => {
    const inputs = pythonInputs(200);
    assert.ok(inputs.every((i) => analyzeDocument(i.uri, i.text).format === "python" && analyzeDocument(i.uri, i.text).framework === "torchtitan"));
    const bad = inputs.flatMap((i) => decidedByAssumption(i.uri, i.text));
    assert.deepEqual(bad.slice(0, 10), []);
    const gated = inputs.filter((i) => analyzeDocument(i.uri, i.text).diagnostics.some((d) => d.data?.facts?.assumed !== undefined));
    assert.ok(gated.length >= 5, `only ${gated.length} generated registries reached an assumed-fact error`);
    const stood = inputs.filter((i) => analyzeDocument(i.uri, i.text).diagnostics.some((d) => d.severity === "error"));
    assert.ok(stood.length >= 5, `only ${stood.length} generated registries kept an error on known facts`);
  });

  it("generated YAML/JSON inputs without a world size", () => {
    const bad = yamlInputs().flatMap((i) => decidedByAssumption(i.uri, i.text));
    assert.deepEqual(bad, []);
  });

  it("examples/", () => {
    const bad = fileInputs(join(__dirname, "..", "examples")).flatMap((i) => decidedByAssumption(i.uri, i.text));
    assert.deepEqual(bad, []);
  });

  it("../shared/corpus", { skip: corpusSkip() }, () => {
    const bad = fileInputs(CORPUS).flatMap((i) => decidedByAssumption(i.uri, i.text));
    assert.deepEqual(bad, []);
  });
});

describe("examples of the severity rule (fixtures)", () => {
  it("DDP+TP on a version inferred from the keys: an error all the same, since it fails at every date the keys allow (issue #30 §5)", () => {
    const body = `${MODEL}\n[parallelism]\ndata_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 1\ntensor_parallel_degree = 4\n`;
    const r = analyzeDocument("file:///w/ddp_tp.toml", body);
    assert.equal(r.torchtitanVersion?.kind, "inferred");
    const inferred = r.diagnostics.find((d) => d.code === "ddp-with-other-parallelism");
    assert.equal(inferred?.severity, "error");
    assert.equal(inferred!.message, "DDP (replicate 2, shard 1) cannot be combined with TP: torchtitan raises RuntimeError at launch");
    assert.match(inferred!.detail ?? "", /This holds at every torchtitan version the file allows \(from 2025-03-18 to 2026-02-23, \d+ periods checked\), so it does not rest on the inferred version \(torchtitan v0\.2\.2\)\.$/);
    // The headline says the launch fails, and so does an error diagnostic.
    assert.equal(r.mechanism, "error");
    checkDiagnostics(`# precision-lens: torchtitan-version=v0.2.2\n${body.replace("data_parallel_replicate_degree = 2\n", "data_parallel_replicate_degree = 2\n#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[ddp-with-other-parallelism]: DDP has not supported > 1D parallelism\n")}`);
  });

  it("a launch failure that only some candidate dates reach keeps resting on the inferred version", () => {
    // qwen3's DDP branch raises for DDP + TP up to v0.2.0 and not from the ParallelDims rewrite (2025-12-17) on.
    const body = `[job]\ndescription = "x"\n\n[model]\nname = "qwen3"\nflavor = "0.6B"\n\n[parallelism]\ndata_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 1\ntensor_parallel_degree = 4\n`;
    const doc = parseTomlDocument("file:///w/q.toml", body);
    const { ctx } = buildTitanContext(doc, { torchtitanVersion: "v0.2.0", origin: "cli" }, NO_ENV);
    const found = ddpWithOtherParallelism.run(ctx);
    assert.equal(found[0]?.severity, "error");
    // The same file, its version inferred over [2025-06-16, 2026-02-23]: not every date fails.
    ctx.version = { ...ctx.version, kind: "inferred", source: "config-keys", window: { from: "2025-06-16" } };
    assert.deepEqual(restsOnOf(robustOverVersions(ctx, found, ddpWithOtherParallelism)[0]!, ddpWithOtherParallelism), ["worldSize", "version"]);
    // Over [2025-06-16, 2025-12-17) every date fails: the version is no longer a guess the error rests on.
    ctx.version = { ...ctx.version, window: { from: "2025-06-16", until: "2025-12-17" } };
    const again = ddpWithOtherParallelism.run(ctx);
    assert.deepEqual(restsOnOf(robustOverVersions(ctx, again, ddpWithOtherParallelism)[0]!, ddpWithOtherParallelism), ["worldSize"]);
  });

  it("the seed warning stays a warning: TP-only on run_train.sh's default 8 GPUs trains in fp32", () => {
    checkDiagnostics(`${MODEL}
[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 8
#^^^^^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]: No mixed precision: TP-only on 8 GPUs trains in fp32
`);
  });
});

// ---- torchtitan: a default never contradicts the file (issue #17 §2) --------------------------------------

describe("torchtitan: the world size a file implies, and the one it states", () => {
  const par = (lines: string) => `${MODEL}\n[parallelism]\n${lines}\n`;
  const ws = (text: string, uri = "file:///w/train.toml") => {
    const r = analyzeDocument(uri, text);
    return { r, w: [r.worldSize?.value, r.worldSize?.kind, r.worldSize?.source] };
  };
  const errors = (r: AnalysisResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.code);

  it("dp_replicate 32 beside a -1: 32 GPUs (≥ 32, from the degrees), no launch failure, a DDP layout", () => {
    const { r, w } = ws(par("data_parallel_replicate_degree = 32\ndata_parallel_shard_degree = -1"));
    assert.deepEqual(w, [32, "inferred", "degrees"]);
    assert.equal(r.worldSize?.detail, "the degrees, which need at least 32 GPUs");
    assert.deepEqual(errors(r), []);
    assert.equal(r.layoutName, "DDP");
    assert.equal(r.mechanism, "autocast");
  });

  it("degrees whose product is 32 beside a -1 (TP 4 × PP 8): 32 GPUs", () => {
    const { r, w } = ws(par("data_parallel_shard_degree = -1\ntensor_parallel_degree = 4\npipeline_parallel_degree = 8"));
    assert.deepEqual(w, [32, "inferred", "degrees"]);
    assert.deepEqual(errors(r), []);
  });

  it("the seed warning on a world size inferred from the degrees leads with the assumption (#30)", () => {
    const { r } = ws(`# precision-lens: torchtitan-version=v0.2.2\n${par("data_parallel_shard_degree = -1\ntensor_parallel_degree = 4\npipeline_parallel_degree = 8")}`);
    const d = r.diagnostics.filter((x) => x.code === "no-mixed-precision");
    assert.equal(d.length, 1);
    assert.equal(d[0]!.severity, "warning");
    assert.equal(d[0]!.message, "Assuming 32 GPUs (inferred): no mixed precision: TP+PP on 32 GPUs trains in fp32 (dp_shard -1 → 1, so no FSDP)");
    assert.match(d[0]!.detail!, /^Assuming 32 GPUs \(inferred\): This is a TP\+PP run on 32 GPUs/);
    assert.equal(d[0]!.data?.facts?.assumed, "worldSize");
    // A stated world size: no lead.
    const stated = ws(`# precision-lens: torchtitan-version=v0.2.2 world-size=32\n${par("data_parallel_shard_degree = -1\ntensor_parallel_degree = 4\npipeline_parallel_degree = 8")}`).r;
    assert.equal(stated.diagnostics.find((x) => x.code === "no-mixed-precision")?.message, "No mixed precision: TP+PP on 32 GPUs trains in fp32 (dp_shard -1 → 1, so no FSDP)");
  });

  it("EP 128 beside a -1 (v0.2.2's expert mesh): 128 GPUs, the smallest the expert mesh factors", () => {
    const { r, w } = ws(`# precision-lens: torchtitan-version=v0.2.2\n${par("data_parallel_shard_degree = -1\nexpert_parallel_degree = 128")}`);
    assert.deepEqual(w, [128, "inferred", "degrees"]);
    assert.deepEqual(errors(r), []);
  });

  it("every degree written: the product is the file's own world size (kind file)", () => {
    const { w } = ws(par("data_parallel_shard_degree = 4\ntensor_parallel_degree = 2"));
    assert.deepEqual(w, [8, "file", "degrees"]);
  });

  it("a comment stating the size is evidence, with its line (torchtitan's presets: llama3_70b.toml:1 at v0.2.2)", () => {
    const text = `# NOTE: this toml config is a preset for 64 A100 GPUs.\n${par("data_parallel_shard_degree = -1\ntensor_parallel_degree = 8")}`;
    const { r, w } = ws(text, "file:///w/llama3_8b.toml");
    assert.deepEqual(w, [64, "comment", "comment"]);
    assert.equal(r.worldSize?.detail, "the comment on line 1");
    assert.deepEqual(r.worldSize?.location?.range.start, { line: 0, character: 0 });
    assert.equal(r.layoutName, "FSDP+TP");
    assert.ok(!r.diagnostics.some((d) => d.code === "no-mixed-precision"), "no TP-only warning on the 64 GPUs the file states");
  });

  it("a stated size the explicit degrees contradict is stale (a fork's copied header): the degrees win", () => {
    const { w } = ws(`# NOTE: this toml config is a preset for 64 A100 GPUs.\n${par("data_parallel_replicate_degree = 8\ndata_parallel_shard_degree = 1")}`);
    assert.deepEqual(w, [8, "file", "degrees"]);
  });

  it("a size the file's name states (16xgb300) is an inference the degrees must allow; explicit degrees and run scripts come first", () => {
    const text = par("data_parallel_shard_degree = -1\ntensor_parallel_degree = 8");
    const { r, w } = ws(text, "file:///w/llama3_405b-16xgb300-8k.toml");
    assert.deepEqual(w, [16, "inferred", "file-name"]);
    assert.equal(r.worldSize?.detail, "the file name");
    assert.ok(!r.diagnostics.some((d) => d.code === "no-mixed-precision"), "FSDP+TP on 16, not TP-only on 8");
    assert.deepEqual(ws(text, "file:///w/llama3_8b_8xh100.toml").w, [8, "inferred", "file-name"]);
    // A bare count of GPUs names a variant as often as the launch: not read.
    assert.deepEqual(ws(text, "file:///w/llama3_8b_64gpus.toml").w, [8, "default", "default"]);
    // TP 8 cannot run on 12: the name is ignored.
    assert.deepEqual(ws(text, "file:///w/llama3_12xh100.toml").w, [8, "default", "default"]);
    // Every degree written: the product is the file's own.
    assert.deepEqual(ws(par("data_parallel_shard_degree = 4\ntensor_parallel_degree = 2"), "file:///w/x-16xh100.toml").w, [8, "file", "degrees"]);
    assert.equal(hardwareInFileName("/w/llama3_8b.toml"), undefined);
    assert.deepEqual(hardwareInFileName("/w/qwen3_30b_a3b-8xb200-32k.toml"), { gpu: "b200", count: 8 });
    assert.deepEqual(hardwareInFileName("C:\\w\\llama3_8b_h100.toml"), { gpu: "h100" });
    assert.equal(hardwareInFileName("/w/tp_only_8gpu.toml"), undefined);
  });

  it("a folder right above the config that names a GPU (logs/h200/) is evidence of it, weaker than the file name (#30)", () => {
    const text = par("data_parallel_shard_degree = -1");
    const gpuOf = (uri: string) => analyzeDocument(uri, text).simulation?.throughput?.gpu;
    assert.deepEqual(gpuOf("file:///w/logs/h200/llama3_8b.toml"), { value: "h200", source: "folder" });
    assert.deepEqual(gpuOf("file:///w/configs/8xa100/run/llama3_8b.toml")?.source, "folder", "two folders up, with a count");
    // The file's own name wins over its folder.
    assert.deepEqual(gpuOf("file:///w/logs/h200/llama3_8b_b200.toml"), { value: "b200", source: "file-name" });
    // Not read: a folder whose name only contains a family, or one more than two folders up.
    assert.deepEqual(gpuOf("file:///w/h100_vs_a100/llama3_8b.toml"), { value: "h100-sxm", source: "default" });
    assert.deepEqual(gpuOf("file:///data/h200/a/b/llama3_8b.toml"), { value: "h100-sxm", source: "default" });
    assert.deepEqual(hardwareInFolder("/w/logs/H200/x.toml"), { gpu: "h200", folder: "H200" });
  });

  it("prose that merely mentions GPUs is not a statement of the size", () => {
    const { w } = ws(`# TP-only on 8 GPUs trains in fp32, see the docs\n${par("data_parallel_shard_degree = -1\ntensor_parallel_degree = 2")}`);
    assert.deepEqual(w, [8, "default", "default"]);
  });
});

describe("torchtitan: the expert mesh must factor the world (v0.2.2 distributed/parallel_dims.py:136-158)", () => {
  it("EP 3 on 8 GPUs: ValueError at launch", () => {
    checkDiagnostics(`# precision-lens: world-size=8 torchtitan-version=v0.2.2
${MODEL}
[parallelism]
data_parallel_shard_degree = -1
expert_parallel_degree = 3
#^^^^^^^^^^^^^^^^^^^^^^^^^ error[parallel-dims-ep-divisibility]: does not divide the ranks torchtitan v0.2.2 needs: the launch fails
`);
  });

  it("EP 12 with DDP (dp_replicate 12, dp_shard 1) on 12 GPUs: ValueError at launch", () => {
    const r = checkDiagnostics(`# precision-lens: world-size=12 torchtitan-version=v0.2.1
${MODEL}
[parallelism]
data_parallel_replicate_degree = 12
data_parallel_shard_degree = 1
expert_parallel_degree = 12
#^^^^^^^^^^^^^^^^^^^^^^^^^^ error[parallel-dims-ep-divisibility]: expert_parallel_degree = 12 does not divide
`);
    assert.match(r.diagnostics[0]!.detail!, /dp_shard·cp·tp = 1 .*DeviceMesh\._unflatten raises ValueError/);
  });

  it("v0.2.0: EP 3 with CP 2 fails `ep % cp == 0` at every world size: an error with the world size only assumed", () => {
    const r = checkDiagnostics(`# precision-lens: torchtitan-version=v0.2.0
${MODEL}
[parallelism]
data_parallel_shard_degree = -1
context_parallel_degree = 2
expert_parallel_degree = 3
#^^^^^^^^^^^^^^^^^^^^^^^^^ error[parallel-dims-ep-divisibility]: expert_parallel_degree = 3 does not divide the ranks torchtitan v0.2.0 needs
`);
    assert.equal(r.worldSize?.source, "default");
  });

  it("v0.2.0: EP 3 with TP 2 (expert TP 1) fails `ep % (cp*tp) == 0` at every world size: an error", () => {
    checkDiagnostics(`# precision-lens: torchtitan-version=v0.2.0
${MODEL}
[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 2
expert_tensor_parallel_degree = 1
expert_parallel_degree = 3
#^^^^^^^^^^^^^^^^^^^^^^^^^ error[parallel-dims-ep-divisibility]: expert_parallel_degree = 3 does not divide the ranks torchtitan v0.2.0 needs
`);
  });

  it("EP 8 on 8 GPUs factors the world: silent", () => {
    checkDiagnostics(`# precision-lens: world-size=8 torchtitan-version=v0.2.2
[job]
description = "fixture"

[model]
name = "llama4"
flavor = "debugmodel"

[parallelism]
data_parallel_shard_degree = -1
expert_parallel_degree = 8
`);
  });
});

describe("torchtitan's own presets (../shared/corpus/torchtitan), checked with no option", { skip: corpusSkip("torchtitan") }, () => {
  it("no error, and no TP-only / no-mixed-precision warning where the file states its size", () => {
    const files = listFiles(join(CORPUS, "torchtitan"), [".toml"]);
    const bad: string[] = [];
    let titan = 0;
    for (const p of files) {
      const text = readFileSync(p, "utf8");
      const r = analyzeDocument(`file://${p}`, text);
      if (r.framework !== "torchtitan") continue;
      titan++;
      for (const d of r.diagnostics) {
        if (d.severity === "error") bad.push(`${relative(CORPUS, p)}: error[${d.code}] ${d.message}`);
        if (d.code === "no-mixed-precision" && /preset for \d+/.test(text)) bad.push(`${relative(CORPUS, p)}: ${d.message}`);
      }
    }
    assert.ok(titan >= 20, `only ${titan} torchtitan presets found`);
    assert.deepEqual(bad, []);
  });
});

describe("torchtitan semantics of the 2026-12 review (spec torchtitan.md §3.3)", () => {
  const Q = (directive: string, converter: string) => `# precision-lens: torchtitan-version=v0.2.2${directive}
${MODEL}converters = ["${converter}"]

[compile]
enable = true
components = ["model", "loss"]
`;

  it("float8 on a known A100: launch failure (v0.2.2 quantization/float8.py:37-45)", () => {
    checkDiagnostics(Q(" gpu=a100-80gb", "quantize.linear.float8").replace(`converters = ["quantize.linear.float8"]\n`, `converters = ["quantize.linear.float8"]\n#             ^^^^^^^^^^^^^^^^^^^^^^^^ error[quantize-gpu-unsupported]: float8 on A100 SXM 80GB: torchtitan needs an SM 8.9+ GPU\n`));
  });

  it("float8 on the default GPU (H100, SM 9.0) and emulated float8 in eager mode on an A100: silent", () => {
    assert.ok(!analyzeDocument("file:///w/a.toml", Q("", "quantize.linear.float8")).diagnostics.some((d) => d.code === "quantize-gpu-unsupported"));
    const eager = `${Q(" gpu=a100-80gb", "quantize.linear.float8").replace("enable = true", "enable = false")}\n[quantize.linear.float8]\nemulate = true\n`;
    assert.ok(!analyzeDocument("file:///w/b.toml", eager).diagnostics.some((d) => d.code === "quantize-gpu-unsupported"));
  });

  it("MXFP8 on a known H100: launch failure; on the default GPU: information naming the assumption (quantization/mx.py:42-44)", () => {
    checkDiagnostics(Q(" gpu=h100", "quantize.linear.mx").replace(`converters = ["quantize.linear.mx"]\n`, `converters = ["quantize.linear.mx"]\n#             ^^^^^^^^^^^^^^^^^^^^ error[quantize-gpu-unsupported]: MXFP8 on H100 SXM 80GB: torchtitan needs SM100 (B200) or gfx950\n`));
    checkDiagnostics(Q("", "quantize.linear.mx").replace(`converters = ["quantize.linear.mx"]\n`, `converters = ["quantize.linear.mx"]\n#             ^^^^^^^^^^^^^^^^^^^^ information[quantize-gpu-unsupported]: Assuming h100-sxm (the default): MXFP8 on H100 SXM 80GB\n`));
    assert.ok(!analyzeDocument("file:///w/c.toml", Q(" gpu=b200", "quantize.linear.mx")).diagnostics.some((d) => d.code === "quantize-gpu-unsupported"));
  });

  it("a preset's comment names the GPU type: evidence, so float8 on it is information, not an error", () => {
    const r = analyzeDocument("file:///w/llama3_8b.toml", `# NOTE: this toml config is a preset for 64 A100 GPUs.\n${Q("", "quantize.linear.float8")}`);
    const d = r.diagnostics.find((x) => x.code === "quantize-gpu-unsupported");
    assert.equal(d?.severity, "information");
    assert.match(d!.message, /^Assuming a100-80gb \(as a comment states\): float8 on A100 SXM 80GB: torchtitan needs an SM 8\.9\+ GPU, so the launch fails \(ValueError\)$/);
  });

  it("CPU offload without FSDP on one known GPU: the first step fails (v0.2.2 train.py:184-186, 579-582)", () => {
    checkDiagnostics(`# precision-lens: world-size=1
${MODEL}
[training]
enable_cpu_offload = true
#^^^^^^^^^^^^^^^^^^^^^^^^ error[cpu-offload-without-fsdp]: CPU offload on one GPU without FSDP: the weights stay on the CPU and the first step fails
`);
  });

  it("CPU offload on a TP-only layout (more than one GPU): still the warning", () => {
    checkDiagnostics(`# precision-lens: world-size=2
${MODEL}
[parallelism]
data_parallel_shard_degree = 1
tensor_parallel_degree = 2
#^^^^^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]: TP-only on 2 GPUs trains in fp32

[training]
enable_cpu_offload = true
#^^^^^^^^^^^^^^^^^^^^^^^^ warning[cpu-offload-without-fsdp]: CPU offload needs FSDP
`);
  });

  it("v0.1.0 silently drops unknown keys (v0.1.0 config_manager.py:805-818 _dict_to_dataclass): never \"rejects\"", () => {
    const r = analyzeDocument("file:///w/e.toml", `# precision-lens: torchtitan-version=v0.1.0\n${MODEL}\n[training]\nstepz = 10\n\n[frobnicate]\nx = 1\n`);
    // `stepz` is a near miss of an upstream key: its own finding. `[frobnicate]` no torchtitan ever had: the one
    // fork-config note lists it (issue #17 §3). Neither says "rejects", neither is an error.
    const found = r.diagnostics.filter((d) => d.code === "unknown-key" || d.code === "unknown-section");
    assert.equal(found.length, 1);
    assert.equal(r.diagnostics.filter((d) => d.code === "fork-config").length, 1);
    for (const d of r.diagnostics) assert.notEqual(d.severity, "error");
    for (const d of found) {
      assert.notEqual(d.severity, "error");
      assert.match(d.message, /upstream torchtitan v0\.1\.0 ignores it/);
      assert.doesNotMatch(d.message, /rejects/);
    }
  });
});

describe("torchtitan DDP and CP semantics of the 2026-12 review (spec torchtitan.md §1.4, §3.3)", () => {
  const ddpTp = (model: string | undefined, version: string) => `# precision-lens: world-size=8 torchtitan-version=${version}
[job]
description = "fixture"
${model ? `\n[model]\nname = "${model}"\nflavor = "debugmodel"\n` : ""}
[parallelism]
data_parallel_replicate_degree = 2
data_parallel_shard_degree = 1
tensor_parallel_degree = 4
`;
  const ddpCodes = (text: string) => analyzeDocument("file:///w/ddp.toml", text).diagnostics.filter((d) => d.code === "ddp-with-other-parallelism").map((d) => d.severity);

  it("DDP + TP at v0.2.1/v0.2.2: llama3 and llama4 raise (v0.2.2 llama3/infra/parallelize.py:148-151, llama4 :216-219); no model.name is llama3", () => {
    for (const v of ["v0.2.1", "v0.2.2"]) {
      assert.deepEqual(ddpCodes(ddpTp("llama3", v)), ["error"], v);
      assert.deepEqual(ddpCodes(ddpTp("llama4", v)), ["error"], v);
      assert.deepEqual(ddpCodes(ddpTp(undefined, v)), ["error"], v);
    }
  });

  it("DDP + TP at v0.2.1/v0.2.2: qwen3, deepseek_v3, gpt_oss do not raise (v0.2.2 qwen3 :177-180, deepseek_v3 :197-200, gpt_oss :162-165 test ndim of a 1-D mesh)", () => {
    for (const v of ["v0.2.1", "v0.2.2"]) {
      for (const m of ["qwen3", "deepseek_v3", "gpt_oss"]) {
        const r = analyzeDocument("file:///w/ddp.toml", ddpTp(m, v));
        assert.deepEqual(r.diagnostics.filter((d) => d.code === "ddp-with-other-parallelism"), [], `${m} ${v}`);
        assert.equal(r.mechanism, "none", `${m} ${v}: maybe_enable_amp logs the TP/PP warning and returns a null context`);
      }
    }
  });

  it("DDP + TP at v0.2.0: qwen3 still raises (v0.2.0 qwen3/infra/parallelize.py:166-168 tests world_mesh.ndim)", () => {
    assert.deepEqual(ddpCodes(ddpTp("qwen3", "v0.2.0")), ["error"]);
  });

  it("DDP + TP on a fork's model: at most a warning that names the assumed model", () => {
    const r = analyzeDocument("file:///w/ddp.toml", ddpTp("my_fork_model", "v0.2.2"));
    const d = r.diagnostics.find((x) => x.code === "ddp-with-other-parallelism");
    assert.equal(d?.severity, "warning");
    assert.match(d!.message, /^Assuming model "my_fork_model" \(inferred\): DDP \(replicate 2, shard 1\) cannot be combined with TP: torchtitan raises RuntimeError at launch$/);
    assert.equal(d!.data?.facts?.assumed, "model");
  });

  // Before the [parallelism] table (2025), the DP degrees lived in [training] and CP in [experimental].
  const ddpCp = (version: string) =>
    version.startsWith("main@2024")
      ? `# precision-lens: world-size=4 torchtitan-version=${version}\n${MODEL}\n[training]\ndata_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 1\n\n[experimental]\ncontext_parallel_degree = 2\n`
      : `# precision-lens: world-size=4 torchtitan-version=${version}\n${MODEL}\n[parallelism]\ndata_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 1\ncontext_parallel_degree = 2\n`;

  it("DDP + CP on main between 2024-12-11 and 2024-12-26 raises (40a0873b3 parallelism/parallelize_llama.py:83-85)", () => {
    checkDiagnostics(ddpCp("main@2024-12-20").replace("data_parallel_replicate_degree = 2\n", "data_parallel_replicate_degree = 2\n#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[ddp-with-other-parallelism]: DDP (replicate 2, shard 1) cannot be combined with CP 2 on torchtitan main@2024-12-20: RuntimeError at launch\n"));
  });

  it("DDP + CP from 2024-12-26 (6b03ffa32) and in every release: HSDP over dp_replicate × cp, no error", () => {
    for (const v of ["main@2024-12-27", "v0.1.0", "v0.2.2"]) {
      const r = analyzeDocument("file:///w/ddpcp.toml", ddpCp(v));
      assert.deepEqual(r.diagnostics.filter((d) => d.code === "ddp-with-other-parallelism"), [], v);
      assert.equal(r.mechanism, "fully_shard", v);
    }
  });

  it("DDP + CP before 2024-12-11: the DDP branch's world_mesh.ndim check raises (40a0873b3^ parallelize_llama.py:80-82, FSDP only for dp_shard > 1)", () => {
    assert.deepEqual(ddpCodes(ddpCp("main@2024-11-20")), ["error"]);
  });

  const cp = (version: string, flavor: string, extra = "") => `# precision-lens: world-size=8 torchtitan-version=${version}
[job]
description = "fixture"

[model]
name = "llama3"
flavor = "${flavor}"

[parallelism]
data_parallel_shard_degree = -1
context_parallel_degree = 2
${extra}`;
  const cpCodes = (text: string) => analyzeDocument("file:///w/cp.toml", text).diagnostics.filter((d) => d.code === "cp-attention-unsupported").map((d) => `${d.severity}@${d.range.start.line}`);

  it("varlen attention with CP at v0.2.2: NotImplementedError (v0.2.2 models/llama3/model/args.py:57-65), on the flavor", () => {
    checkDiagnostics(cp("v0.2.2", "8B_varlen").replace(`flavor = "8B_varlen"\n`, `flavor = "8B_varlen"\n#        ^^^^^^^^^^^ error[cp-attention-unsupported]: Varlen attention (flavor "8B_varlen") with CP 2: torchtitan v0.2.2 raises NotImplementedError\n`));
  });

  it("flex attention with CP: fails at v0.2.1 (args.py:57-63), works at v0.2.2 (FlexCP, 0a2107f98)", () => {
    assert.deepEqual(cpCodes(cp("v0.2.1", "8B_flex")), ["error@6"]);
    assert.deepEqual(cpCodes(cp("v0.2.2", "8B_flex")), []);
    assert.deepEqual(cpCodes(cp("v0.2.2", "8B")), []);
  });

  it("the ptrr load balancer with SDPA at v0.2.2: ValueError on the first step (distributed/context_parallel.py:196-200); with flex: silent; without CP: silent", () => {
    const ptrr = `context_parallel_load_balancer = "ptrr"\n`;
    checkDiagnostics(cp("v0.2.2", "8B", `${ptrr}#                                ^^^^^^ error[cp-attention-unsupported]: The "ptrr" CP load balancer needs flex attention; flavor "8B" uses SDPA\n`));
    assert.deepEqual(cpCodes(cp("v0.2.2", "8B_flex", ptrr)), []);
    assert.deepEqual(cpCodes(cp("v0.2.2", "8B", ptrr).replace("context_parallel_degree = 2", "context_parallel_degree = 1")), []);
  });

  it("on a version inferred from the keys, the CP error is a warning naming the assumption", () => {
    const r = analyzeDocument("file:///w/cp.toml", cp("v0.2.2", "8B_varlen").replace(/^# precision-lens.*\n/, ""));
    const d = r.diagnostics.find((x) => x.code === "cp-attention-unsupported");
    assert.equal(d?.severity, "warning");
    assert.match(d!.message, /^Assuming torchtitan v0\.2\.2/);
  });
});
