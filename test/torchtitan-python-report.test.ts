/**
 * The report and the what-if matrix of a torchtitan config function (issue #22): `explain FILE.py::fn`
 * (Markdown and --format html), the report view the editor's panel renders, the per-op simulation of the
 * function's resolved layout, and the what-if cells (world sizes × the Python-era periods and releases).
 * The registry is a fixture written here: test/fixtures/python-registry/mytitan/ (config_registry.py chains
 * to base.py). Expected values follow from torchtitan's semantics as the analysis models them: eras.ts (the
 * mechanism per period), #2900 (fully_shard on every layout from 2026-04-09), components/loss.py@b5bcd76c6:58
 * (the loss upcasts its logits with pred.float()).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import { NO_ENV, type AnalysisSettings } from "../server/src/core/analysis";
import { codeLenses } from "../server/src/core/features/index";
import { buildReportView, renderReportHtml, type WhatIfView } from "../server/src/core/report";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { pyScenario } from "../server/src/core/frameworks/torchtitan/python/analyzer";
import { runCliCaptured } from "./support/cli";

const ROOT = resolve(__dirname, "..");
const DIR = join(ROOT, "test/fixtures/python-registry");
const FILE = join(DIR, "mytitan/config_registry.py");
const REL = "test/fixtures/python-registry/mytitan/config_registry.py";
const TEXT = readFileSync(FILE, "utf8");
const URI = pathToFileURL(FILE).href;

function analyzeFn(fn: string | undefined, settings: AnalysisSettings = {}) {
  const env = nodeEnv(FILE, [DIR]);
  const r = analyzeDocument(URI, TEXT, { ...settings, ...(fn ? { configFunction: fn } : {}) }, env, "python");
  return { r, env };
}

/** The engine input of one function at a forced world size (v0.4.0), as the what-if cells build it. */
function inputOf(fn: string, worldSize: number) {
  const env = nodeEnv(FILE, [DIR]);
  const doc = analyzeDocument(URI, TEXT, {}, env, "python").doc;
  const input = pyScenario(doc, {}, env, fn)?.resolve(worldSize, "v0.4.0")?.r.simulationInput;
  assert.ok(input, `${fn}: no simulation input`);
  return input;
}

function cell(w: WhatIfView, worldSize: number, version: string) {
  const c = w.cells.find((x) => x.worldSize === worldSize && x.version === version);
  assert.ok(c, `no cell ${worldSize} × ${version}`);
  return { mechanism: c.mechanism, compute: c.compute, layoutName: c.layoutName, current: c.current };
}

describe("torchtitan Python: the per-op simulation of a config function", () => {
  it("FSDP+TP at v0.4.0: every op of the block computes in bf16, the loss in fp32 (pred.float())", () => {
    const { r } = analyzeFn("llama3_8b_tp2");
    assert.deepEqual(r.configFunctions?.map((f) => f.name), ["llama3_8b_tp2"]);
    const sim = r.simulation;
    assert.ok(sim, "the function's step is simulated");
    assert.deepEqual(sim.model && [sim.model.name, sim.model.flavor], ["llama3", "8B"], "the model comes from model_registry(\"8B\") imported from torchtitan.models.llama3");
    const fwd = Object.fromEntries(sim.forward.map((o) => [o.op, o.dtype]));
    assert.deepEqual(fwd, {
      tok_embeddings: "bfloat16", attention_norm: "bfloat16", wq: "bfloat16", wk: "bfloat16", wv: "bfloat16", rope: "bfloat16", attention: "bfloat16", wo: "bfloat16", attention_residual: "bfloat16",
      ffn_norm: "bfloat16", w1: "bfloat16", w3: "bfloat16", silu: "bfloat16", ffn_mul: "bfloat16", w2: "bfloat16", ffn_residual: "bfloat16", norm: "bfloat16", output: "bfloat16", loss: "float32",
    });
    assert.equal(sim.fsdp?.castForwardInputs, false, "from 2026-04-08 the LLM parallelize passes cast_forward_inputs=False");
    assert.equal(inputOf("llama3_8b_tp2", 8).activationCheckpoint, "full", "FullAC.Config() reaches the engine");
  });

  it("main's token-count batch fields become the engine's batch (4096 tokens / 1024 context = 4 × 1024)", () => {
    const input = inputOf("llama3_debug_1gpu", 1);
    assert.equal(input.seqLen, 1024);
    assert.equal(input.localBatchSize, 4);
    assert.deepEqual(input.model, { name: "llama3", flavor: "debugmodel" });
    assert.equal(input.activationCheckpoint, "selective", "Trainer.Config's default: SelectiveAC.Config (trainer.py@b5bcd76c6:108)");
  });

  it("a chained base (config = tp4_base() in base.py) is simulated with the base's layout and the function's own dtype", () => {
    const { r } = analyzeFn("from_base", { worldSize: 4, origin: "cli" });
    assert.equal(r.layoutName, "TP-only");
    assert.equal(r.simulation?.storageDtype, "bfloat16");
    assert.equal(r.simulation?.optimizerState, "bfloat16");
    assert.equal(inputOf("from_base", 4).layout.tp, 4);
  });
});

describe("torchtitan Python: the report view (the editor's panel, explain --format html)", () => {
  it("the dtype strip is the function's per-op forward and gradient dtypes", () => {
    const { r, env } = analyzeFn("llama3_debug_1gpu");
    const v = buildReportView(r, { env });
    assert.equal(v.title, "config_registry.py::llama3_debug_1gpu");
    const strip = Object.fromEntries((v.dtypeStrip ?? []).map((o) => [o.op, `${o.forward}/${o.grad}`]));
    assert.equal(strip["attention_norm"], "bfloat16/bfloat16");
    assert.equal(strip["output"], "bfloat16/bfloat16");
    assert.equal(strip["loss"], "float32/float32");
    assert.equal(v.dtypeStrip?.length, 19);
  });

  it("the what-if matrix: world sizes × main 2026-02-23 / main 2026-03-09 / v0.3.0 / v0.4.0, each cell the function re-resolved", () => {
    const { r, env } = analyzeFn("llama3_8b_tp2");
    const w = buildReportView(r, { env }).whatIf;
    assert.ok(w);
    assert.deepEqual(w.versions.map((x) => x.id), ["main@2026-02-23", "main@2026-03-09", "v0.3.0", "v0.4.0"]);
    assert.deepEqual(w.worldSizes, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
    assert.deepEqual(w.current, { worldSize: 8, version: "v0.4.0" }, "NGPU=8 assumed, v0.4.0 assumed");
    // TP 2 on 2 GPUs: TP-only. Before #2900 torchtitan applied no mixed precision to TP-only (fp32 compute);
    // from 2026-04-09 fully_shard runs on the size-1 dp mesh and computes in bf16.
    assert.deepEqual(cell(w, 2, "main@2026-02-23"), { mechanism: "none", compute: "float32", layoutName: "TP-only", current: false });
    assert.deepEqual(cell(w, 2, "main@2026-03-09"), { mechanism: "none", compute: "float32", layoutName: "TP-only", current: false });
    assert.deepEqual(cell(w, 2, "v0.3.0"), { mechanism: "fully_shard", compute: "bfloat16", layoutName: "TP-only", current: false });
    assert.deepEqual(cell(w, 8, "v0.4.0"), { mechanism: "fully_shard", compute: "bfloat16", layoutName: "FSDP+TP", current: true });
    // TP 2 does not fit on one GPU: the launch fails at every version.
    assert.deepEqual(cell(w, 1, "v0.4.0"), { mechanism: "error", compute: undefined, layoutName: undefined, current: false });
    assert.equal(w.cells.length, 11 * 4);
    assert.ok(w.cells.filter((c) => c.mechanism !== "error").every((c) => c.peakBytes !== undefined && c.peakBytes > 0), "llama3 8B has a memory estimate in every launchable cell");
  });

  it("one GPU: autocast in the first Python period, replicate/FSDP policy never, fully_shard from #2900", () => {
    const { r, env } = analyzeFn("llama3_debug_1gpu");
    const w = buildReportView(r, { env }).whatIf!;
    assert.deepEqual(w.current, { worldSize: 1, version: "v0.4.0" });
    assert.deepEqual(cell(w, 1, "main@2026-02-23"), { mechanism: "autocast", compute: "bfloat16", layoutName: "single GPU", current: false });
    assert.deepEqual(cell(w, 1, "main@2026-03-09"), { mechanism: "autocast", compute: "bfloat16", layoutName: "single GPU", current: false });
    assert.deepEqual(cell(w, 1, "v0.4.0"), { mechanism: "fully_shard", compute: "bfloat16", layoutName: "single GPU", current: true });
    // dp_shard = 1 is explicit: on 2 GPUs the degrees no longer multiply to the world size.
    assert.equal(cell(w, 2, "v0.4.0").mechanism, "error");
  });

  it("the cells follow the function's imports through the report's env (without it the base is not followed)", () => {
    const { r, env } = analyzeFn("from_base");
    const withEnv = buildReportView(r, { env }).whatIf!;
    assert.deepEqual(cell(withEnv, 4, "v0.4.0"), { mechanism: "fully_shard", compute: "bfloat16", layoutName: "TP-only", current: false });
    const alone = buildReportView(r, { env: NO_ENV }).whatIf!;
    assert.notEqual(cell(alone, 4, "v0.4.0").layoutName, "TP-only", "without the workspace, tp4_base() is not followed and its TP degree is unknown");
  });

  it("a current main@ date gets its own column, placed by date", () => {
    const { r, env } = analyzeFn("llama3_8b_tp2", { torchtitanVersion: "main@2026-05-01", origin: "cli" });
    const w = buildReportView(r, { env }).whatIf!;
    assert.deepEqual(w.versions.map((x) => x.id), ["main@2026-02-23", "main@2026-03-09", "main@2026-05-01", "v0.3.0", "v0.4.0"]);
    assert.equal(cell(w, 8, "main@2026-05-01").current, true);
  });

  it("the HTML page has the dtype strip and the what-if matrix, titled with the function", () => {
    const { r, env } = analyzeFn("llama3_8b_tp2");
    const html = renderReportHtml(buildReportView(r, { env }), { nonce: "abcdefghijkl" });
    assert.match(html, /<title>Precision report: config_registry\.py::llama3_8b_tp2<\/title>/);
    assert.match(html, /What if: world size × torchtitan version/);
    assert.match(html, /main 2026-02-23/);
    assert.match(html, /attention_norm/);
  });
});

describe("torchtitan Python: explain FILE.py::fn and the code lens", () => {
  it("explain FILE.py::fn prints the function's summary, then its per-op table", () => {
    const { out, code, err } = runCliCaptured(["explain", `${REL}::llama3_8b_tp2`], ROOT);
    assert.equal(err, "");
    assert.equal(code, 0);
    assert.match(out, /### Precision Lens — `llama3_8b_tp2\(\)`/);
    assert.match(out, /### Simulated training step \(llama3 8B, fully_shard\)/);
    assert.match(out, /\| attention_norm \| `bfloat16` \| `bfloat16` \|/);
    assert.match(out, /\| loss \| `float32` \| `float32` \|/);
    assert.doesNotMatch(out, /from_base/, "only the function asked for");
  });

  it("explain --format html FILE.py::fn is the function's page with its what-if matrix", () => {
    const { out, code } = runCliCaptured(["explain", "--format", "html", `${REL}::from_base`], ROOT);
    assert.equal(code, 0);
    assert.match(out, /<title>Precision report: config_registry\.py::from_base<\/title>/);
    assert.match(out, /id="pl-whatif"/);
  });

  it("explain FILE.py (every function) lists each summary and says where the per-op table is", () => {
    const { out } = runCliCaptured(["explain", REL], ROOT);
    for (const f of ["llama3_8b_tp2", "llama3_debug_1gpu", "from_base"]) assert.match(out, new RegExp(`### Precision Lens — \`${f}\\(\\)\``));
    assert.match(out, /per function: open a function's report from its code lens, or run `precision-lens explain FILE\.py::llama3_8b_tp2`/);
    assert.doesNotMatch(out, /### Simulated training step/);
  });

  it("each function's code lens opens that function's report", () => {
    const { r } = analyzeFn(undefined);
    assert.deepEqual(codeLenses(r).map((l) => [l.range.start.line, l.arguments]), [
      [9, [URI, "llama3_8b_tp2"]],
      [17, [URI, "llama3_debug_1gpu"]],
      [25, [URI, "from_base"]],
    ]);
  });
});

describe("torchtitan Python: explain with a Python-era version flag", () => {
  it("--torchtitan-version v0.3.0 is accepted and reported as the function's version", () => {
    const { out, code, err } = runCliCaptured(["explain", "--torchtitan-version", "v0.3.0", `${REL}::llama3_8b_tp2`], ROOT);
    assert.equal(err, "");
    assert.equal(code, 0);
    assert.match(out, /torchtitan v0\.3\.0 \(--torchtitan-version v0\.3\.0\)/);
  });
  it("an unknown version is still a usage error", () => {
    const { code, err } = runCliCaptured(["explain", "--torchtitan-version", "v0.9.0", `${REL}::llama3_8b_tp2`], ROOT);
    assert.equal(code, 2);
    assert.match(err, /unknown version "v0\.9\.0"/);
  });
});

describe("torchtitan Python: each config function is a config in check (issue #30 §4)", () => {
  it("text: the file line counts the functions, then one line per function at its name", () => {
    const { out, code } = runCliCaptured(["check", REL], ROOT);
    assert.equal(code, 0);
    const lines = out.split("\n");
    assert.equal(lines[0], `${REL}: torchtitan v0.4.0 · 3 config functions`);
    assert.equal(lines[1], `  ${REL}:10:5: llama3_8b_tp2(): FSDP+TP on 8 GPUs: fp32 params, bf16 compute, fp32 reduce, fp32 optimizer state (NGPU=8 assumed) · world size from run_train.sh default (NGPU=8)`);
    assert.equal(lines[2], `  ${REL}:18:5: llama3_debug_1gpu(): single GPU: fp32 params, bf16 compute, no reduce, fp32 optimizer state · world size from product of the parallel degrees (1)`);
    assert.match(lines[3]!, /:26:5: from_base\(\): FSDP\+TP on 8 GPUs: bf16 params/);
  });
  it("JSON: no file-level layout from the first function; an entry per function with its name, range, layout and diagnostics", () => {
    const { out } = runCliCaptured(["check", "--format", "json", REL], ROOT);
    const f = JSON.parse(out).files[0];
    assert.deepEqual([f.worldSize, f.parallel, f.mechanism, f.precision, f.simulation], [null, null, null, null, null]);
    assert.deepEqual(f.configFunctions.map((x: { name: string; range: { start: { line: number } } }) => [x.name, x.range.start.line]), [["llama3_8b_tp2", 9], ["llama3_debug_1gpu", 17], ["from_base", 25]]);
    const one = f.configFunctions[1];
    assert.deepEqual([one.layoutName, one.mechanism, one.worldSize.value, one.precision], ["single GPU", "fully_shard", 1, { paramStorage: "float32", compute: "bfloat16", gradReduce: null }]);
    assert.deepEqual(f.configFunctions[2].diagnostics.map((d: { code: string }) => d.code), ["fsdp-tp-grad-allreduce-dtype", "pure-bf16"]);
  });
  it("FILE.py::fn keeps the single-config output", () => {
    const { out } = runCliCaptured(["check", "--format", "json", `${REL}::llama3_debug_1gpu`], ROOT);
    const f = JSON.parse(out).files[0];
    assert.equal(f.mechanism, "fully_shard");
    assert.deepEqual(f.configFunctions.map((x: { name: string }) => x.name), ["llama3_debug_1gpu"]);
  });
  it("--world-size FUNCTION=N and `world-size=N@FUNCTION` apply to that function only", () => {
    const { out } = runCliCaptured(["check", "--world-size", "llama3_8b_tp2=4", REL], ROOT);
    assert.match(out, /:10:5: llama3_8b_tp2\(\): FSDP\+TP on 4 GPUs: .* · world size from --world-size llama3_8b_tp2=4\n/);
    assert.match(out, /:26:5: from_base\(\): FSDP\+TP on 8 GPUs/);
    const text = `# precision-lens: world-size=16@from_base\n${readFileSync(FILE, "utf8")}`;
    const r = analyzeDocument(URI, text, {}, nodeEnv(FILE, [ROOT]));
    const byName = new Map(r.configFunctions!.map((x) => [x.name, x]));
    assert.deepEqual([byName.get("from_base")!.worldSize?.value, byName.get("from_base")!.worldSize?.source], [16, "directive"]);
    assert.equal(byName.get("llama3_8b_tp2")!.worldSize?.source, "default");
  });
  it("--world-size FUNCTION=N rejects a size that is not a positive integer", () => {
    const { code, err } = runCliCaptured(["check", "--world-size", "llama3_8b_tp2=0", REL], ROOT);
    assert.equal(code, 2);
    assert.match(err, /--world-size llama3_8b_tp2=N needs a positive integer/);
  });
});
