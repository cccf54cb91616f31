/**
 * Issue #33: a "remove key" quick fix removes that key's node with its separator, in every layout (block
 * YAML, YAML flow mappings on one or several lines, one-line and pretty JSON), never whole lines that hold
 * other keys. Property tests over generated layouts: the result parses and only the target key is gone.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyEdits } from "../server/src/core/diagnostics/build";
import { removeKey } from "../server/src/core/frameworks/common/edits";
import type { ConfigDocument } from "../server/src/core/model/document";
import { LineIndex } from "../server/src/core/model/lineIndex";
import { parseJsonDocument } from "../server/src/core/parse/json";
import { parseYamlDocument } from "../server/src/core/parse/yaml";
import { parseTomlDocument } from "../server/src/core/parse/toml";
import { deleteEntry } from "../server/src/core/edit/toml";
import { applyFix } from "./support/fixture";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

type Layout = "yaml-block" | "yaml-flow-line" | "yaml-flow-lines" | "yaml-nested-flow" | "json-line" | "json-pretty" | "json-compact";
const LAYOUTS: Layout[] = ["yaml-block", "yaml-flow-line", "yaml-flow-lines", "yaml-nested-flow", "json-line", "json-pretty", "json-compact"];

/** A document of `n` keys k0 … k(n-1) in `layout`, with values of a few kinds. */
function generate(r: () => number, layout: Layout, n: number): string {
  const values = Array.from({ length: n }, () => pick(r, ["1", "true", '"s"', "2.5", "null"]));
  const yamlValues = values.map((v) => (v === "null" ? "~" : v));
  const keys = values.map((_, i) => `k${i}`);
  const eol = r() < 0.2 ? "\r\n" : "\n";
  const trail = r() < 0.5 ? eol : "";
  switch (layout) {
    case "yaml-block":
      return keys.map((k, i) => `${k}: ${yamlValues[i]}${r() < 0.3 ? "  # note" : ""}`).join(eol) + trail;
    case "yaml-flow-line":
      return `{${keys.map((k, i) => `${k}: ${yamlValues[i]}`).join(pick(r, [", ", ",", " , "]))}}${trail}`;
    case "yaml-flow-lines":
      return `{${eol}${keys.map((k, i) => `  ${k}: ${yamlValues[i]}`).join(`,${eol}`)}${eol}}${trail}`;
    case "yaml-nested-flow":
      return `top: 1${eol}cfg: {${keys.map((k, i) => `${k}: ${yamlValues[i]}`).join(", ")}}${eol}other: 2${trail}`;
    case "json-line":
      return `{${keys.map((k, i) => `"${k}": ${values[i]}`).join(", ")}}${trail}`;
    case "json-compact":
      return `{${keys.map((k, i) => `"${k}":${values[i]}`).join(",")}}`;
    case "json-pretty":
      return `{${eol}${keys.map((k, i) => `  "${k}": ${values[i]}`).join(`,${eol}`)}${eol}}${trail}`;
  }
}

const parse = (layout: Layout, text: string): ConfigDocument => (layout.startsWith("json") ? parseJsonDocument("file:///x.json", text) : parseYamlDocument("file:///x.yaml", text));
const summary = (doc: ConfigDocument): string[] => doc.entries.filter((e) => e.value.kind !== "table" && (e.value.kind as string) !== "map").map((e) => `${e.path.join(".")}=${JSON.stringify(e.value.value)}`);

describe("issue #33: removeKey removes the node with its separator, in every layout", () => {
  for (const layout of LAYOUTS) {
    it(`${layout}: over generated documents the result parses and only the target key is gone`, () => {
      const r = rng(LAYOUTS.indexOf(layout) + 33);
      for (let round = 0; round < 40; round++) {
        const n = 1 + Math.floor(r() * 5);
        const text = generate(r, layout, n);
        const doc = parse(layout, text);
        assert.deepEqual(doc.syntaxErrors, [], `generated text parses: ${JSON.stringify(text)}`);
        const targetIndex = Math.floor(r() * n);
        const prefix = layout === "yaml-nested-flow" ? ["cfg"] : [];
        const target = doc.entries.find((e) => e.path.join(".") === [...prefix, `k${targetIndex}`].join("."));
        assert.ok(target, `k${targetIndex} in ${JSON.stringify(text)}`);
        const after = applyEdits({ text, lines: new LineIndex(text) }, removeKey(doc, target.range));
        const again = parse(layout, after);
        const where = `${layout}, k${targetIndex} of ${n}: ${JSON.stringify(text)} → ${JSON.stringify(after)}`;
        assert.deepEqual(again.syntaxErrors, [], where);
        const expected = summary(doc).filter((s) => !s.startsWith(`${[...prefix, `k${targetIndex}`].join(".")}=`));
        assert.deepEqual(summary(again), expected, where);
      }
    });
  }
});

describe("issue #33: TOML's deleteEntry (the model has no entries inside inline tables, so no fix removes one there)", () => {
  it("over generated tables (comments, dotted keys, inline-table values) the result parses and only the target key is gone", () => {
    const r = rng(3333);
    for (let round = 0; round < 60; round++) {
      const n = 1 + Math.floor(r() * 5);
      const values = Array.from({ length: n }, () => pick(r, ["1", "true", '"s"', "2.5", "[1, 2]"]));
      const dotted = r() < 0.4;
      const body = values.map((v, i) => `${dotted ? "cfg." : ""}k${i} = ${r() < 0.2 ? "{a = 1, b = 2}" : v}${r() < 0.3 ? " # c" : ""}`).join("\n");
      const text = dotted ? `[t]\n${body}${r() < 0.5 ? "\n" : ""}` : `[t.cfg]\n${body}${r() < 0.5 ? "\n" : ""}`;
      const doc = parseTomlDocument(`file:///x${round}.toml`, text);
      const want = `t.cfg.k${Math.floor(r() * n)}`;
      const target = doc.entries.find((e) => e.path.join(".") === want)!;
      assert.ok(target, `${want} in ${JSON.stringify(text)}: ${doc.entries.map((e) => e.path.join(".")).join(", ")}`);
      const after = applyEdits({ text, lines: new LineIndex(text) }, deleteEntry(doc, target));
      const again = parseTomlDocument(`file:///y${round}.toml`, after);
      const where = `${JSON.stringify(text)} → ${JSON.stringify(after)}`;
      assert.deepEqual(again.syntaxErrors, [], where);
      assert.deepEqual(summary(again), summary(doc).filter((x) => !x.startsWith(`${target.path.join(".")}=`)), where);
    }
  });
});

describe("issue #33: the rules' remove-key fixes keep the other keys", () => {
  it("HF8 on a one-line TrainingArguments JSON removes `fp16` only (it emptied the file)", () => {
    const text = '{"output_dir": "out", "bf16": true, "fp16": true, "per_device_train_batch_size": 4}\n';
    const { after } = applyFix(text, "transformers/bf16-and-fp16", "Remove", { uri: "file:///ws/training_args.json" });
    assert.equal(after, '{"output_dir": "out", "bf16": true, "per_device_train_batch_size": 4}\n');
  });
  it("AC4 on an accelerate flow mapping removes `zero_stage` and keeps `deepspeed_config_file`", () => {
    const text = "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config: {deepspeed_config_file: ds.json, zero_stage: 3}\nnum_processes: 8\n";
    const { after } = applyFix(text, "accelerate/key-belongs-in-deepspeed-file", "Remove `zero_stage`", { uri: "file:///ws/accelerate_config.yaml" });
    assert.equal(after, "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config: {deepspeed_config_file: ds.json}\nnum_processes: 8\n");
  });
});
