/** Completion, key hovers, document symbols and folding from the versioned schema. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { complete } from "../server/src/core/features/completion";
import { parseTomlDocument } from "../server/src/core/parse/toml";
import { documentSymbols, foldingRanges } from "../server/src/core/features/symbols";
import { keyHoverMarkdown, keyHoverTargets } from "../server/src/core/frameworks/torchtitan/schema/hover";

/** `|` marks the cursor. */
function at(textWithCursor: string) {
  const i = textWithCursor.indexOf("|");
  const text = textWithCursor.slice(0, i) + textWithCursor.slice(i + 1);
  const before = text.slice(0, i).split("\n");
  return { doc: parseTomlDocument("file:///c.toml", text), pos: { line: before.length - 1, character: before[before.length - 1]!.length } };
}
const labels = (xs: { label: string }[]) => xs.map((x) => x.label);

describe("complete", () => {
  it("table names inside [ ], for the release, leaving out tables already there", () => {
    const { doc, pos } = at("[training]\nsteps = 1\n[quan|");
    const items = complete(doc, "v0.2.2", pos);
    assert.ok(labels(items).includes("quantize.linear.float8"));
    assert.ok(!labels(items).includes("training"));
    assert.ok(!labels(items).includes("float8"));
    const it0 = items.find((x) => x.label === "quantize.linear.float8")!;
    assert.equal(it0.insertText, "quantize.linear.float8]");
    assert.deepEqual(it0.range, { start: { line: 2, character: 1 }, end: { line: 2, character: 5 } });
    const old = complete(at("[training]\n[|").doc, "v0.1.0", at("[training]\n[|").pos);
    assert.ok(labels(old).includes("float8"));
    assert.ok(!labels(old).includes("quantize.linear.float8"));
  });
  it("keys of the current table with type, default and docs, minus the ones present", () => {
    const { doc, pos } = at("[training]\nsteps = 1\nmixed|\n");
    const items = complete(doc, "v0.2.2", pos);
    const mp = items.find((x) => x.label === "mixed_precision_param")!;
    assert.equal(mp.kind, "key");
    assert.equal(mp.detail, 'str = "bfloat16"');
    assert.equal(mp.insertText, 'mixed_precision_param = "bfloat16"');
    assert.ok(mp.documentation!.includes("**Precision:**"));
    assert.ok(!labels(items).includes("steps"));
    assert.ok(labels(items).includes("dataloader.num_workers"));
    assert.ok(!labels(complete(doc, "v0.1.0", pos)).includes("dtype"));
    assert.ok(labels(complete(doc, "v0.2.2", pos)).includes("dtype"));
  });
  it("allowed values after =, with the default preselected", () => {
    const { doc, pos } = at('[training]\nmixed_precision_param = |\n');
    const items = complete(doc, "v0.2.2", pos);
    assert.deepEqual(labels(items), ['"bfloat16"', '"float32"']);
    assert.equal(items[0]!.preselect, true);
    const q = at('[training]\nmixed_precision_param = "bf|"\n');
    const qi = complete(q.doc, "v0.2.2", q.pos)[0]!;
    assert.equal(qi.insertText, '"bfloat16"');
    assert.deepEqual(qi.range, { start: { line: 1, character: 24 }, end: { line: 1, character: 28 } });
    const b = at("[metrics]\nenable_wandb = |\n");
    assert.deepEqual(labels(complete(b.doc, "v0.2.2", b.pos)), ["true", "false"]);
  });
  it("converter names for the release, inside and outside the list", () => {
    const a = at('[model]\nconverters = ["|"]\n');
    const inList = complete(a.doc, "v0.2.2", a.pos);
    assert.ok(labels(inList).includes('"quantize.linear.float8"'));
    assert.ok(inList.every((x) => x.documentation));
    const b = at("[model]\nconverters = |\n");
    assert.ok(labels(complete(b.doc, "v0.1.0", b.pos)).includes('["float8"]'));
  });
  it("extension module keys when the config names the module", () => {
    const { doc, pos } = at('[job]\ncustom_config_module = "torchtitan.models.flux.job_config"\n[encoder]\n|\n');
    assert.ok(labels(complete(doc, "v0.2.2", pos)).includes("t5_encoder"));
  });
});

describe("hover", () => {
  it("type, default, meaning, since, precision", () => {
    const md = keyHoverMarkdown("v0.2.2", "training.dtype")!;
    assert.ok(md.includes("`str`"));
    assert.ok(md.includes('default `"float32"`'));
    assert.ok(md.includes("2025-09-16 (first release v0.2.0)"));
    assert.ok(md.includes("**Precision:**"));
    assert.ok(keyHoverMarkdown("v0.2.2", "training.steps")!.includes("Since v0.1.0 or earlier"));
  });
  it("old names say where the key went", () => {
    const md = keyHoverMarkdown("v0.2.2", "training.compile")!;
    assert.ok(md.includes("renamed to **compile.enable**"));
    assert.equal(keyHoverMarkdown("v0.2.2", "nope.nope"), undefined);
  });
  it("targets on every known key and header", () => {
    const doc = parseTomlDocument("file:///h.toml", "[training]\nsteps = 1\nbogus = 2\n[float8]\nemulate = true\n");
    const ts = keyHoverTargets(doc, "v0.2.2");
    assert.equal(ts.length, 3); // steps, float8.emulate (old name), [training]
    assert.ok(ts.some((t) => t.markdown.startsWith("**[training]**")));
  });
});

describe("symbols and folding", () => {
  const text = `# a
# b
[training]
steps = 1
converters = [
  "x",
]

# about the next table
[quantize.linear.float8]
emulate = true
`;
  const doc = parseTomlDocument("file:///s.toml", text);
  it("one symbol per table with its keys", () => {
    const s = documentSymbols(doc);
    assert.deepEqual(
      s.map((x) => [x.name, x.children.map((c) => c.name)]),
      [
        ["training", ["steps", "converters"]],
        ["quantize.linear.float8", ["emulate"]],
      ],
    );
    assert.equal(s[0]!.kind, "table");
    assert.equal(s[0]!.children[0]!.detail, "1");
  });
  it("folds tables, multi-line values and comment blocks", () => {
    assert.deepEqual(foldingRanges(doc), [
      { startLine: 0, endLine: 1, kind: "comment" },
      { startLine: 2, endLine: 6, kind: "region" },
      { startLine: 4, endLine: 6, kind: "region" },
      { startLine: 9, endLine: 10, kind: "region" },
    ]);
  });
});
