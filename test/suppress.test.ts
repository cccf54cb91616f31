/** Suppression comments (server/src/core/diagnostics/suppress.ts), on synthetic diagnostics and through the analysis. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { applyEdits, diag } from "../server/src/core/diagnostics/build";
import { parseTomlDocument } from "../server/src/core/parse/toml";
import { applySuppressions, parseSuppressions, UNUSED_SUPPRESSION } from "../server/src/core/diagnostics/suppress";
import type { Diagnostic } from "../server/src/core/model/types";

const at = (line: number, code: string): Diagnostic => diag(code, "warning", { start: { line, character: 0 }, end: { line, character: 3 } }, `${code} on ${line}`);
const parse = (t: string) => parseTomlDocument("file:///s.toml", t);

describe("parseSuppressions", () => {
  it("line above, trailing, file-wide (disable-file and top block)", () => {
    const t = `# precision-lens: disable=a-code

[training]
# precision-lens: disable=b-code, c-code
# an ordinary comment in between

steps = 1
seq_len = 7  # precision-lens: disable=d-code
# precision-lens: disable-file=e-code
`;
    const s = parseSuppressions(parse(t));
    assert.deepEqual(
      s.map((x) => [x.codes, x.scope]),
      [
        [["a-code"], "file"],
        [["b-code", "c-code"], 6],
        [["d-code"], 7],
        [["e-code"], "file"],
      ],
    );
  });
  it("a comment directly on top of the first table is for that line, not the file", () => {
    const s = parseSuppressions(parse(`# precision-lens: disable=x\n[training]\nsteps = 1\n`));
    assert.deepEqual(s[0]!.scope, 1);
  });
  it("other directives on the same comment are left alone", () => {
    const s = parseSuppressions(parse(`# precision-lens: world-size=8 disable=x,y\n\n[training]\n`));
    assert.deepEqual(s[0]!.codes, ["x", "y"]);
  });
});

describe("applySuppressions", () => {
  const text = `[training]
# precision-lens: disable=unknown-key
seq_lenn = 1
steps = 2 # precision-lens: disable=wrong-type
# precision-lens: disable=moved-key
gc_freq = 3
`;
  it("drops suppressed diagnostics and reports unused suppressions as faded hints", () => {
    const doc = parse(text);
    const out = applySuppressions(doc, [at(2, "unknown-key"), at(2, "other"), at(3, "wrong-type"), at(5, "unknown-key")]);
    assert.deepEqual(
      out.map((d) => `${d.range.start.line}:${d.code}`),
      ["2:other", "5:unknown-key", `4:${UNUSED_SUPPRESSION}`],
    );
    const hint = out.find((d) => d.code === UNUSED_SUPPRESSION)!;
    assert.equal(hint.severity, "hint");
    assert.equal(hint.unnecessary, true);
    assert.ok(hint.message.includes("`moved-key`"));
    const fixed = applyEdits(doc, hint.data!.fixes![0]!.edits);
    assert.equal(fixed, text.replace("# precision-lens: disable=moved-key\n", ""));
  });
  it("file-wide and `all`", () => {
    const doc = parse(`# precision-lens: disable-file=all\n[training]\nsteps = 1\n`);
    assert.deepEqual(applySuppressions(doc, [at(2, "x"), at(1, "y")]), []);
  });
  it("removes only the unused code of a multi-code suppression, and a trailing comment whole", () => {
    const doc = parse(`[training]\n# precision-lens: disable=a,b\nsteps = 1 # precision-lens: disable=c\n`);
    const out = applySuppressions(doc, [at(2, "a")]);
    const hints = out.filter((d) => d.code === UNUSED_SUPPRESSION);
    assert.equal(hints.length, 2);
    assert.equal(applyEdits(doc, hints[0]!.data!.fixes![0]!.edits), `[training]\n# precision-lens: disable=a\nsteps = 1 # precision-lens: disable=c\n`);
    assert.equal(applyEdits(doc, hints[1]!.data!.fixes![0]!.edits), `[training]\n# precision-lens: disable=a,b\nsteps = 1\n`);
  });
  it("no suppressions: the list is returned as is", () => {
    const ds = [at(0, "x")];
    assert.deepEqual(applySuppressions(parse("[a]\n"), ds), ds);
  });
  it("works on real analysis output", () => {
    const t = `[training]\n# precision-lens: disable=unknown-key\nseq_lenn = 2048\n[parallelism]\ntensor_parallel_degree = 1\n[activation_checkpoint]\nmode = "full"\n`;
    const r = analyzeDocument("file:///s.toml", t, { torchtitanVersion: "v0.2.2" });
    // Whether or not analyzeDocument already applied suppressions, applying them leaves no unknown-key.
    const doc = parse(t);
    const out = applySuppressions(doc, r.diagnostics);
    assert.ok(!out.some((d) => d.code === "unknown-key"));
  });
});
