/** The YAML front end: ranges, anchors/merge keys, multi-document streams, YAML 1.1 booleans, hostile input. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { findEntry } from "../server/src/core/model/document";
import { isYaml11Boolean, MAX_ALIAS_EXPANSION, MAX_YAML_CHARS, parseYamlDocument, yamlParseNotes } from "../server/src/core/parse/yaml";

const parse = (t: string) => parseYamlDocument("file:///x/c.yaml", t);

describe("YAML front end", () => {
  it("flattens keys with full paths and keeps key and value ranges", () => {
    const doc = parse("model:\n  _component_: torchtune.models.x\n  lora_rank: 16\ndtype: bf16 # pure\n");
    assert.deepEqual(doc.syntaxErrors, []);
    const e = findEntry(doc, "model", "lora_rank")!;
    assert.equal(e.value.kind, "integer");
    assert.equal(e.value.value, 16);
    assert.deepEqual(e.keyRange, { start: { line: 2, character: 2 }, end: { line: 2, character: 11 } });
    assert.deepEqual(e.value.range, { start: { line: 2, character: 13 }, end: { line: 2, character: 15 } });
    const d = findEntry(doc, "dtype")!;
    assert.equal(d.value.value, "bf16");
    assert.equal(doc.sections[0]!.path.join("."), "model");
    assert.deepEqual(doc.sections[0]!.headerRange, { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } });
    assert.equal(doc.comments.length, 1);
    assert.equal(doc.comments[0]!.text, "pure");
  });

  it("keeps the quotes in the value range and tells integers from floats", () => {
    const doc = parse("a: 'no'\nb: 2e-5\nc: 1.0\nd: -1\ne: ~\nf:\n");
    assert.deepEqual(findEntry(doc, "a")!.value.range, { start: { line: 0, character: 3 }, end: { line: 0, character: 7 } });
    assert.equal(findEntry(doc, "a")!.value.value, "no");
    assert.equal(findEntry(doc, "b")!.value.kind, "float");
    assert.equal(findEntry(doc, "c")!.value.kind, "float");
    assert.equal(findEntry(doc, "d")!.value.kind, "integer");
    assert.equal(findEntry(doc, "e")!.value.kind, "null");
    assert.equal(findEntry(doc, "f")!.value.kind, "null");
  });

  it("reads bare yes/no/on/off as booleans like PyYAML (YAML 1.1), and marks them", () => {
    const doc = parse("a: no\nb: NO\nc: On\nd: 'no'\ne: true\nf: y\n");
    for (const [k, v] of [["a", false], ["b", false], ["c", true]] as const) {
      const e = findEntry(doc, k)!;
      assert.equal(e.value.kind, "boolean");
      assert.equal(e.value.value, v);
      assert.ok(isYaml11Boolean(e.value), k);
    }
    assert.equal(findEntry(doc, "d")!.value.kind, "string");
    assert.ok(!isYaml11Boolean(findEntry(doc, "e")!.value));
    // PyYAML does not treat y/n as booleans.
    assert.equal(findEntry(doc, "f")!.value.value, "y");
  });

  it("expands anchors, aliases and merge keys (explicit keys win)", () => {
    const doc = parse("base: &b\n  lr: 1\n  dtype: bf16\nrun:\n  <<: *b\n  lr: 2\nlist: [*b]\n");
    assert.equal(findEntry(doc, "run", "dtype")!.value.value, "bf16");
    assert.equal(findEntry(doc, "run", "lr")!.value.value, 2);
    assert.equal(findEntry(doc, "list", "0", "dtype")!.value.value, "bf16");
    assert.deepEqual(yamlParseNotes(doc), []);
  });

  it("leaves OmegaConf interpolations alone", () => {
    const doc = parse("output_dir: /tmp/x\nlog_dir: ${output_dir}/logs\nn: ${oc.env:N,4}\n");
    assert.deepEqual(doc.syntaxErrors, []);
    assert.equal(findEntry(doc, "log_dir")!.value.value, "${output_dir}/logs");
  });

  it("uses the first mapping document of a stream; other documents sit under their own prefix", () => {
    const doc = parse("# header\n---\ndistributed_type: FSDP\n---\ndistributed_type: NO\nextra: 1\n");
    assert.deepEqual(doc.syntaxErrors, []);
    assert.equal(findEntry(doc, "distributed_type")!.value.value, "FSDP");
    assert.equal(findEntry(doc, "(document 2)", "extra")!.value.value, 1);
  });

  it("flattens sequences of mappings and flow mappings", () => {
    const doc = parse("datasets:\n  - path: a\n    type: alpaca\n  - {path: b, type: c}\ncfg: {x: 1, y: [1, 2]}\n");
    const ds = findEntry(doc, "datasets")!;
    assert.equal(ds.value.kind, "array");
    assert.equal(ds.value.items!.length, 2);
    assert.equal(findEntry(doc, "datasets", "0", "type")!.value.value, "alpaca");
    assert.equal(findEntry(doc, "datasets", "1", "path")!.value.value, "b");
    assert.equal(findEntry(doc, "cfg")!.value.kind, "table");
    assert.equal(findEntry(doc, "cfg", "x")!.value.value, 1);
  });

  it("reports syntax errors with a range and still builds a partial model", () => {
    const doc = parse("distributed_type: FSDP\nmixed_precision: [bf16\nnum_processes: 2\n");
    assert.ok(doc.syntaxErrors.length > 0);
    assert.match(doc.syntaxErrors[0]!.message, /^YAML syntax error/);
    assert.ok(findEntry(doc, "distributed_type"));
  });

  it("a broken accelerate config reports yaml-syntax; a broken unrelated YAML stays silent", () => {
    const r = analyzeDocument("file:///x/accel.yaml", "distributed_type: FSDP\nmixed_precision: [bf16\n");
    // The broken line is set aside and the rest analysed (issue #14).
    assert.equal(r.framework, "accelerate");
    assert.ok(r.diagnostics.some((d) => d.code === "yaml-syntax"));
    const u = analyzeDocument("file:///x/ci.yml", "name: ci\non: [push\n");
    assert.deepEqual(u.diagnostics, []);
  });

  it("stops an alias bomb fast, with a yaml-alias-limit diagnostic", () => {
    const names = "abcdefghi".split("");
    let bomb = `a: &a [${Array(9).fill('"lol"').join(",")}]\n`;
    for (let i = 1; i < names.length; i++) bomb += `${names[i]}: &${names[i]} [${Array(9).fill("*" + names[i - 1]).join(",")}]\n`;
    // Bounded by the expansion budget (about 387M nodes unbounded); its time is measured in npm run bench.
    const doc = parse(bomb);
    assert.ok(doc.entries.length < MAX_ALIAS_EXPANSION * 2);
    const notes = yamlParseNotes(doc);
    assert.equal(notes.length, 1);
    assert.equal(notes[0]!.code, "yaml-alias-limit");
    // Inside a detected config the note is a diagnostic.
    const r = analyzeDocument("file:///x/accel.yaml", `distributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_processes: 2\nfsdp_config:\n${bomb.replace(/^/gm, "  ")}`);
    assert.equal(r.framework, "accelerate");
    const d = r.diagnostics.find((x) => x.code === "yaml-alias-limit");
    assert.ok(d);
    assert.equal(d.severity, "warning");
    assert.match(d.message, /alias/);
  });

  it("survives a self-referencing alias and deep nesting", () => {
    const doc = parse("a: &a\n  b: *a\n");
    assert.ok(doc);
    const deep = "x: " + "[".repeat(500) + "]".repeat(500) + "\n";
    const d2 = parse(deep);
    assert.ok(d2);
  });

  it("skips files over the YAML size limit with a reason", () => {
    const doc = parse("a: 1\n".repeat(MAX_YAML_CHARS / 5 + 10));
    assert.match(doc.skipped ?? "", /over the limit of 512000/);
  });

  it("keeps directive comments (precision-lens: off / framework=)", () => {
    const off = analyzeDocument("file:///x/a.yaml", "# precision-lens: off\ndistributed_type: NO\nmixed_precision: no\n");
    assert.equal(off.framework, null);
    assert.deepEqual(off.diagnostics, []);
    const forced = analyzeDocument("file:///x/a.yaml", "# precision-lens: framework=accelerate\nmixed_precision: bf16\n");
    assert.equal(forced.framework, "accelerate");
    assert.match(forced.frameworkReason, /framework=accelerate/);
  });

  it("analyses a 1,000-line config completely (its speed is measured in npm run bench)", () => {
    let t = "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\ndtype: bf16\n";
    let extras = 0;
    for (; t.split("\n").length < 1000; extras++) t += `extra_${extras}:\n  _component_: torchtune.x.y\n  a: 1\n  b: [1, 2]\n`;
    const r = analyzeDocument("file:///x/c.yaml", t);
    assert.equal(r.framework, "torchtune");
    // Every key of every block is in the model: nothing was cut short.
    assert.equal(r.doc.entries.filter((e) => /^extra_\d+$/.test(e.path[0]!) && e.path[1] === "b").length, extras);
  });
});
