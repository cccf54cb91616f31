/**
 * Messages as the best linters write them (issue #12): one sentence of at most MAX_MESSAGE characters that
 * says what happens and why; the long explanation lives in the diagnostic's `detail` (hover, report, JSON)
 * and on the code's page. Checked on every diagnostic the product gives for examples/ and, when present,
 * for ../shared/corpus.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { CORPUS, CORPUS_SKIP, corpusAvailable, listFiles } from "./support/corpus";

const MAX_MESSAGE = 120;

/**
 * Codes whose messages may still be long (issue #12): none left. A code that cannot fit goes here, commented,
 * with its long text moved to `detail` as soon as it can.
 */
const STILL_LONG: ReadonlySet<string> = new Set<string>([]);
const STILL_LONG_PREFIXES: readonly string[] = [];

function stillLong(code: string): boolean {
  return STILL_LONG.has(code) || STILL_LONG_PREFIXES.some((p) => code.startsWith(p));
}

const ROOT = resolve(__dirname, "..");

function tooLong(files: readonly string[], root: string): string[] {
  const out: string[] = [];
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    const r = analyzeDocument(pathToFileURL(f).href, text, {}, nodeEnv(f, [root]));
    for (const d of r.diagnostics) {
      if (stillLong(d.code)) continue;
      // Never cut mid-word (issue #34: "…KeyErro…"): an elided list ("(`a`, …)") is fine, a cut word is not.
      if (/\w…/.test(d.message)) out.push(`${f}:${d.range.start.line + 1} ${d.code} is cut mid-word: ${d.message}`);
      // An assumption-led message keeps its whole body: the lead may take it past MAX_MESSAGE, the body may not.
      const body = /^Assuming [^:]+: /.test(d.message) ? d.message.replace(/^Assuming [^:]+: /, "") : d.message;
      if (body.length > MAX_MESSAGE || /\n/.test(d.message)) out.push(`${f}:${d.range.start.line + 1} ${d.code} (${d.message.length}): ${d.message}`);
      // A message is plain text (terminals, SARIF, the Problems panel print it as is): no Markdown emphasis.
      if (/\*\*|__/.test(d.message)) out.push(`${f}:${d.range.start.line + 1} ${d.code} has Markdown emphasis in its message: ${d.message}`);
    }
  }
  return out;
}

describe("diagnostic messages are one short sentence", () => {
  it(`examples/: every message is at most ${MAX_MESSAGE} characters (codes not in the allow-list)`, () => {
    const files = listFiles(join(ROOT, "examples"), [".toml", ".yaml", ".yml", ".json"]);
    assert.ok(files.length > 10);
    assert.deepEqual(tooLong(files, join(ROOT, "examples")), []);
  });

  it(`../shared/corpus: every message is at most ${MAX_MESSAGE} characters (codes not in the allow-list)`, (t) => {
    if (!corpusAvailable()) return t.skip(CORPUS_SKIP);
    const files = listFiles(CORPUS, [".toml", ".yaml", ".yml", ".json"]);
    assert.deepEqual(tooLong(files, dirname(CORPUS)), []);
  });

  it("framework and schema messages are short too, and keep every fact in `detail`", () => {
    const tt = analyzeDocument("file:///w/full_finetune_distributed.yaml", "model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\ndtype: bf16\nepochs: 1\noptimizer:\n  _component_: torch.optim.AdamW\n  lr: 3e-6\n", {}, nodeEnv("/w/full_finetune_distributed.yaml", []));
    const tt3 = tt.diagnostics.find((d) => d.code === "torchtune/pure-bf16");
    assert.ok(tt3 && tt3.message.length <= MAX_MESSAGE, tt3?.message);
    assert.match(tt3.message, /^`dtype: bf16` is pure bf16 \(no fp32 master copy\): with lr = 0\.000003, small updates round away in bf16$/);
    assert.match(tt3.detail ?? "", /meta-pytorch\/torchtune#2254\)\. Use `dtype: fp32` if convergence suffers; torchtune has no fp32-master mixed precision\.$/);
    const toml = '# precision-lens: framework=torchtitan world-size=8 torchtitan-version=main@2025-06-20\n[model]\nname = "llama3"\n\n[training]\nsum_loss = true\n';
    const tt2 = analyzeDocument("file:///w/train.toml", toml, {}, nodeEnv("/w/train.toml", []));
    // A key upstream never had: the one fork-config note (issue #17 §3), short, with the facts in `detail`.
    const unknown = tt2.diagnostics.find((d) => d.code === "fork-config");
    assert.ok(unknown && unknown.message.length <= MAX_MESSAGE, unknown?.message);
    assert.equal(unknown.message, "torchtitan fork config: 1 name upstream never had, not checked: training.sum_loss");
    assert.match(unknown.detail ?? "", /checked against upstream torchtitan main@2025-06-20\. To check them, point Precision Lens at the fork's config source with the precisionLens\.torchtitanConfigSource setting or --torchtitan-config-source PATH/);
  });

  it("a shortened message keeps its long explanation in `detail`", () => {
    const f = join(ROOT, "examples", "tp_only_8gpu.toml");
    const r = analyzeDocument(pathToFileURL(f).href, readFileSync(f, "utf8"), {}, nodeEnv(f, [join(ROOT, "examples")]));
    const d = r.diagnostics.find((x) => x.code === "no-mixed-precision");
    assert.ok(d, "the seed example warns");
    assert.ok(d.message.length <= MAX_MESSAGE);
    assert.match(d.message, /^No mixed precision: TP-only on 8 GPUs trains in fp32 \(dp_shard -1 → 1/);
    assert.match(d.detail ?? "", /FSDP is off and torchtitan v0\.2\.2 applies no mixed precision/);
  });
});
