/**
 * Fuzz: seeded random mutations of the example configs. The core must always return a result with
 * in-bounds diagnostic ranges, never throw, never report an internal error, and every offered fix
 * must apply cleanly.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { applyEdits } from "../server/src/core/diagnostics/build";
import { LineIndex } from "../server/src/core/model/lineIndex";
import { rng } from "./support/rng";

const EXAMPLES = resolve(__dirname, "../examples");
const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 1500);


const TOKENS = ["[", "]", "[[", "=", '"', "'", "\n", "-1", "0", "8", "1e9", "-", "#", ".", "{", "}", ",", "true", '"bf16"', '"float16"', "\u0000", "\r\n", "precision-lens: world-size=0", "tensor_parallel_degree = ", "[parallelism]"];

function mutate(text: string, r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  let t = text;
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const pos = Math.floor(r() * (t.length + 1));
    switch (Math.floor(r() * 6)) {
      case 0:
        t = t.slice(0, pos) + t.slice(pos + 1 + Math.floor(r() * 20));
        break;
      case 1:
        t = t.slice(0, pos) + pick(TOKENS) + t.slice(pos);
        break;
      case 2: {
        const lines = t.split("\n");
        const a = Math.floor(r() * lines.length);
        lines.splice(a, 0, lines[Math.floor(r() * lines.length)]!);
        t = lines.join("\n");
        break;
      }
      case 3:
        t = t.replace(/-?\d+/g, (m) => (r() < 0.3 ? String(Math.floor(r() * 40) - 4) : m));
        break;
      case 4:
        t = t.replace(/"[a-z0-9_.]*"/g, (m) => (r() < 0.2 ? pick(['"bfloat16"', '"float32"', '"fp32"', '""', "1", "[]"]) : m));
        break;
      default: {
        const lines = t.split("\n");
        const a = Math.floor(r() * lines.length);
        const b = Math.floor(r() * lines.length);
        [lines[a], lines[b]] = [lines[b]!, lines[a]!];
        t = lines.join("\n");
      }
    }
  }
  return t;
}

describe("fuzz", () => {
  const bases = readdirSync(EXAMPLES)
    .filter((f) => f.endsWith(".toml"))
    .map((f) => readFileSync(join(EXAMPLES, f), "utf8"));

  it(`${ITERATIONS} mutated configs: always a result, never a throw, fixes apply`, () => {
    assert.ok(bases.length >= 5);
    const seed = Number(process.env.FUZZ_SEED ?? 20261130);
    const r = rng(seed);
    let withDiagnostics = 0;
    let fixesChecked = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      const text = mutate(bases[i % bases.length]!, r);
      const ws = r() < 0.3 ? { worldSize: 1 + Math.floor(r() * 64) } : {};
      let result;
      try {
        result = analyzeDocument("file:///fuzz/train.toml", text, ws);
      } catch (e) {
        assert.fail(`seed ${seed} iteration ${i}: threw ${(e as Error).stack}\n--- input ---\n${text}`);
      }
      assert.ok(Array.isArray(result.diagnostics));
      const lines = new LineIndex(text);
      for (const d of result.diagnostics) {
        assert.notEqual(d.code, "internal-error", `seed ${seed} iteration ${i}: ${d.message}\n--- input ---\n${text}`);
        assert.ok(d.range.start.line < lines.lineCount && d.range.end.line < lines.lineCount, `out-of-bounds range for ${d.code}`);
        for (const f of d.data?.fixes ?? []) {
          const after = applyEdits({ text, lines }, f.edits);
          // Issue #2: applying an offered fix leaves a file that parses and no longer has that diagnostic.
          if (result.doc.syntaxErrors.length === 0) {
            const again = analyzeDocument("file:///fuzz/train.toml", after, ws);
            assert.deepEqual(again.doc.syntaxErrors, [], `seed ${seed} iteration ${i}: fix "${f.title}" broke the syntax\n--- input ---\n${text}\n--- after ---\n${after}`);
            const still = again.diagnostics.filter((x) => x.code === d.code && x.message === d.message);
            assert.equal(still.length, 0, `seed ${seed} iteration ${i}: after "${f.title}" ${d.code} remains\n--- input ---\n${text}\n--- after ---\n${after}`);
            fixesChecked++;
          }
        }
      }
      if (result.diagnostics.length) withDiagnostics++;
    }
    // The mutations must actually exercise the rules, or the test proves nothing.
    assert.ok(fixesChecked > 50, `only ${fixesChecked} fixes were exercised`);
    assert.ok(withDiagnostics > ITERATIONS / 4, `only ${withDiagnostics} of ${ITERATIONS} inputs produced diagnostics`);
  });
});
