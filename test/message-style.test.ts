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
      if (d.message.length > MAX_MESSAGE || /\n/.test(d.message)) out.push(`${f}:${d.range.start.line + 1} ${d.code} (${d.message.length}): ${d.message}`);
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
