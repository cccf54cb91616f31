/**
 * The incremental TOML read (parse/tomlFast.ts `parseTomlFast(text, lines, key)`, issue #36): a new version
 * of a document reads on from its first change, reusing the previous read before it. Over random edits of
 * a large TOML (headers, arrays of tables, dotted keys, multi-line arrays, inline tables, comments, quotes,
 * deletions, line endings), the incremental read is byte-identical (`JSON.stringify`) to a fresh one, bails
 * exactly when a fresh read bails, and never changes the objects of the read it reused; every eighth edit,
 * the whole analysis (diagnostics, hovers' inputs: `analyzeDocument`'s result) is identical to a fresh one.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { NO_ENV } from "../server/src/core/analysis";
import { LineIndex } from "../server/src/core/model/lineIndex";
import { MAX_NESTING } from "../server/src/core/model/limits";
import { forgetTomlVersions, parseTomlDocument } from "../server/src/core/parse/toml";
import { commonPrefix, commonSuffix, forgetTomlReads, parseTomlFast } from "../server/src/core/parse/tomlFast";
import { rng } from "./support/rng";

const ROOT = join(__dirname, "..");
const URI = "file:///w/big.toml";

/** Numbers JSON cannot write, spelled out (nan, inf, -0). */
const json = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0)) ? `#num:${String(v)}` : v));


/** The seed example, then tables of every shape the fast path reads. */
function bigToml(tables: number): string {
  const out = [readFileSync(join(ROOT, "examples", "tp_only_8gpu.toml"), "utf8").trimEnd()];
  for (let t = 0; t < tables; t++) {
    if (t % 7 === 3) out.push(`[[runs]]\nname = "run ${t}"\nsteps = ${t}`);
    else if (t % 7 === 5) out.push(`[group_${t}.inner]\nx = ${t}.5\nflag = ${t % 2 === 0}`);
    else out.push(`[own_${t}]  # table ${t}`);
    out.push(`key_a = "value ${t}"`, `key_b = ${t * 3}`, `dotted.part = 'lit ${t}'`, `dotted.other = 0x${t.toString(16)}`);
    if (t % 4 === 0) out.push(`list = [\n  1,  # one\n  2,\n]`);
    if (t % 5 === 0) out.push(`inline = { a = 1, b.c = "x" }`);
    out.push(`# note ${t}`, "");
  }
  return out.join("\n") + "\n";
}

const SNIPPETS = ["\n", "# c\n", "[fresh_table]\n", "[[runs]]\n", "x = 1\n", "key_a = 2\n", '"', "'''", "a.b = 2\n", "]", "{", "=", " ", "7", "\r\n", "[own_3]\n", "[group_5]\n", "dotted = 1\n", "list = [\n", "#"];

/** One random edit: an insertion, a deletion, a replacement, or a whole line duplicated. */
function edit(text: string, r: () => number): string {
  const at = Math.floor(r() * (text.length + 1));
  const kind = r();
  if (kind < 0.5) return text.slice(0, at) + SNIPPETS[Math.floor(r() * SNIPPETS.length)]! + text.slice(at);
  if (kind < 0.75) return text.slice(0, at) + text.slice(Math.min(text.length, at + 1 + Math.floor(r() * 40)));
  if (kind < 0.9) return text.slice(0, at) + SNIPPETS[Math.floor(r() * SNIPPETS.length)]! + text.slice(Math.min(text.length, at + 1 + Math.floor(r() * 8)));
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  const lineEnd = text.indexOf("\n", at);
  const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd + 1);
  return text.slice(0, lineStart) + line + text.slice(lineStart);
}

describe("incremental TOML read (issue #36)", () => {
  it("random edits of a large TOML: the incremental read is byte-identical to a fresh read, and reuses what it can", (t) => {
    forgetTomlReads();
    const r = rng(36);
    const base = bigToml(100);
    let text = base;
    let lastRead = base;
    let last: ReturnType<typeof parseTomlFast>;
    let read = 0;
    let bailed = 0;
    let reused = 0;
    for (let step = 0; step < 300; step++) {
      // Edits of the current text, or (most often after a bail) of the last text read; sometimes back to the
      // base file (undo), sometimes an append (the bench's edit).
      const k = r();
      const from = k < 0.8 ? lastRead : text;
      text = k < 0.05 ? base : k < 0.15 ? `${from}\n# edit ${step}\n` : edit(from, r);
      const fresh = parseTomlFast(text, new LineIndex(text));
      const freshJson = json(fresh);
      const inc = parseTomlFast(text, new LineIndex(text), URI);
      assert.equal(json(inc), freshJson, `step ${step}: the incremental read differs from a fresh read`);
      if (inc) {
        read++;
        lastRead = text;
        // Reuse: the first entry is the previous read's own object (a fresh read makes new ones).
        if (last && inc.entries[0] === last.entries[0]) reused++;
        last = inc;
      } else bailed++;
    }
    t.diagnostic(`300 edited texts: ${read} read (${reused} reusing the previous read's objects), ${bailed} bailed`);
    assert.ok(read > 80, `only ${read} of 300 edited texts were read by the fast path`);
    assert.ok(bailed > 50, `only ${bailed} of 300 edited texts made the fast path bail`);
    assert.ok(reused > 70, `only ${reused} reads reused the previous read's objects`);
  });

  it("a reused read's objects are not changed by the next read (the open section is copied)", () => {
    forgetTomlReads();
    const text = "[a]\nx = 1\ny = 2\n";
    const first = parseTomlFast(text, new LineIndex(text), URI)!;
    const firstJson = json(first);
    const next = `${text}z = 3\n`;
    const second = parseTomlFast(next, new LineIndex(next), URI)!;
    assert.equal(json(first), firstJson, "the first read changed");
    assert.equal(second.entries[0], first.entries[0], "the unchanged entry was not reused");
    assert.notEqual(second.sections[0], first.sections[0], "the open section was shared, not copied");
    assert.deepEqual(second.sections[0]!.range, { start: { line: 0, character: 0 }, end: { line: 3, character: 5 } });
    assert.deepEqual(second.entries.map((e) => e.path.join(".")), ["a.x", "a.y", "a.z"]);
    assert.equal(commonSuffix("abcxyz", "qxyz", 4), 3);
    assert.equal(commonSuffix("xyz", "xyz", 2), 2);
    assert.equal(commonPrefix("abcxyz", "abq"), 2);
    // A redefinition after the reused part still bails: the definitions were rebuilt.
    const dup = `${next}x = 4\n`;
    assert.equal(parseTomlFast(dup, new LineIndex(dup), URI), undefined);
  });

  it("the guard's scan resumes with the nesting depth of its line break: one more bracket past the limit is still refused", () => {
    forgetTomlVersions();
    const uri = "file:///w/deep.toml";
    // An array open MAX_NESTING - 1 deep across a line break, then closed: the depth at the break is what counts.
    const open = `x = ${"[".repeat(MAX_NESTING - 1)}\n`;
    const close = `${"]".repeat(MAX_NESTING - 1)}\n`;
    const fine = `a = 1\n${open}1${close}`;
    const first = parseTomlDocument(uri, fine);
    assert.equal(first.skipped, undefined);
    const deeper = `a = 1\n${open}[[1]]${close}`;
    const inc = parseTomlDocument(uri, deeper);
    forgetTomlVersions();
    const fresh = parseTomlDocument(uri, deeper);
    assert.match(fresh.skipped ?? "", /nest/i);
    assert.equal(inc.skipped, fresh.skipped);
  });

  it("every eighth edit: analyzeDocument after incremental reads equals a fresh analysis", () => {
    forgetTomlVersions();
    const r = rng(3636);
    let text = bigToml(80);
    const uri = "file:///w/train.toml";
    let compared = 0;
    for (let step = 0; step < 40; step++) {
      text = r() < 0.2 ? `${text}\n# edit ${step}\n` : edit(text, r);
      const inc = analyzeDocument(uri, text, {}, NO_ENV);
      if (step % 8 !== 7) continue;
      forgetTomlVersions();
      const fresh = analyzeDocument(uri, text, {}, NO_ENV);
      assert.equal(json(inc.diagnostics), json(fresh.diagnostics), `step ${step}: diagnostics differ`);
      // The line index too (derived from the last version's: LineIndex.afterEdit).
      const whole = (a: typeof inc) => json(a);
      assert.equal(whole(inc), whole(fresh), `step ${step}: the analyses differ`);
      compared++;
    }
    assert.equal(compared, 5);
  });
});
