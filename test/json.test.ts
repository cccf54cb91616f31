/** The JSON front end (DeepSpeed configs): ranges, nested objects, duplicates, errors, comments. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { findEntry, findSection } from "../server/src/core/model/document";
import { jsonDuplicateKeys, parseJsonDocument } from "../server/src/core/parse/json";

const parse = (t: string) => parseJsonDocument("file:///x/ds.json", t);

describe("JSON front end", () => {
  it("flattens nested objects with ranges", () => {
    const doc = parse('{\n  "bf16": {"enabled": true},\n  "zero_optimization": {\n    "stage": 3\n  },\n  "lr": 1e-4,\n  "x": []\n}\n');
    assert.deepEqual(doc.syntaxErrors, []);
    const e = findEntry(doc, "bf16", "enabled")!;
    assert.equal(e.value.value, true);
    assert.deepEqual(e.keyRange, { start: { line: 1, character: 11 }, end: { line: 1, character: 20 } });
    assert.deepEqual(e.value.range, { start: { line: 1, character: 22 }, end: { line: 1, character: 26 } });
    assert.equal(findEntry(doc, "zero_optimization", "stage")!.value.kind, "integer");
    assert.equal(findEntry(doc, "lr")!.value.kind, "float");
    assert.equal(findEntry(doc, "x")!.value.kind, "array");
    assert.ok(findSection(doc, "zero_optimization"));
  });

  it("keeps empty objects as table entries and decodes escapes", () => {
    const doc = parse('{"a": {}, "s": "x\\"y\\u0041"}');
    assert.equal(findEntry(doc, "a")!.value.kind, "table");
    assert.equal(findEntry(doc, "s")!.value.value, 'x"yA');
  });

  it("reports syntax errors with a position", () => {
    const doc = parse('{\n  "a": 1,\n  "b": tru\n}');
    assert.equal(doc.syntaxErrors.length, 1);
    assert.match(doc.syntaxErrors[0]!.message, /JSON syntax error/);
    assert.equal(doc.syntaxErrors[0]!.range.start.line, 2);
    const trailing = parse('{"a": 1,}');
    assert.match(trailing.syntaxErrors[0]!.message, /trailing comma/);
  });

  it("records duplicate keys (DeepSpeed rejects them)", () => {
    const doc = parse('{"zero_optimization": {"stage": 2}, "bf16": {"enabled": true}, "bf16": {"enabled": false}}');
    assert.equal(jsonDuplicateKeys(doc).length, 1);
    const r = analyzeDocument("file:///x/ds.json", '{"zero_optimization": {"stage": 2}, "train_batch_size": 8, "train_batch_size": 16}');
    assert.ok(r.diagnostics.some((d) => d.code === "deepspeed/duplicate-key" && d.severity === "error"));
  });

  it("accepts // and /* */ comments so directives work", () => {
    const r = analyzeDocument("file:///x/ds.json", '// precision-lens: off\n{"zero_optimization": {"stage": 2}, "fp16": {"enabled": true, "loss_scale": -1}}');
    assert.equal(r.framework, null);
    assert.deepEqual(r.diagnostics, []);
  });

  it("a JSON file that is not a DeepSpeed config gets nothing", () => {
    const r = analyzeDocument("file:///x/package.json", '{"name": "x", "version": "1.0.0", "scripts": {"test": "node t"}}');
    assert.equal(r.framework, null);
    assert.deepEqual(r.diagnostics, []);
    const broken = analyzeDocument("file:///x/tsconfig.json", '{"compilerOptions": {');
    assert.deepEqual(broken.diagnostics, []);
  });

  it("a broken DeepSpeed config reports json-syntax", () => {
    const r = analyzeDocument("file:///x/ds.json", '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": true,}}');
    assert.equal(r.framework, null);
    assert.ok(r.diagnostics.some((d) => d.code === "json-syntax"));
  });
});
