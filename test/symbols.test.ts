/**
 * The outline (document symbols) follows each format's own nesting: a YAML/JSON key sits under the mapping
 * it is written in, a TOML key under the table header above it. Every symbol has a name (LSP clients reject
 * an empty one: "name must not be falsy"), and the names from the root down to a key spell its path.
 * Runs over every example in the repo and every file of ../shared/corpus (that part skips when absent).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseDocument } from "../server/src/core/analyze";
import { documentSymbols, type DocSymbol } from "../server/src/core/features/symbols";
import type { ConfigFormat } from "../server/src/core/model/document";
import { CORPUS, listFiles, corpusSkip } from "./support/corpus";

const EXTS: Record<string, ConfigFormat> = { ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".json": "json" };
const formatOf = (f: string): ConfigFormat | undefined => EXTS[Object.keys(EXTS).find((e) => f.endsWith(e)) ?? ""];

/** Path segments a symbol's name stands for: `a.b` → [a, b], `x[0]` → [x, 0], `[[a.b]]` → [a, b]. */
function segments(name: string): string[] {
  const bare = name.startsWith("[[") && name.endsWith("]]") ? name.slice(2, -2) : name;
  const out: string[] = [];
  for (const part of bare.split(".")) {
    const m = /^(.*?)((?:\[\d+\])*)$/.exec(part)!;
    if (m[1] !== "" || m[2] === "") out.push(m[1] === '""' ? "" : m[1]!);
    for (const i of m[2]!.matchAll(/\[(\d+)\]/g)) out.push(i[1]!);
  }
  return out;
}

/** Checks every symbol of one file; returns the problems found (empty when right). */
function problems(file: string, text: string, format: ConfigFormat): string[] {
  const doc = parseDocument(`file://${file}`, text, format);
  const out: string[] = [];
  const byKey = new Map<string, string[]>(); // "line:char" of a key → the path its outline ancestors spell
  const walk = (list: readonly DocSymbol[], above: string[]): void => {
    for (const s of list) {
      if (!s.name) out.push(`${file}:${s.selectionRange.start.line + 1}: empty symbol name`);
      const path = [...above, ...segments(s.name)];
      if (s.kind === "key") byKey.set(`${s.selectionRange.start.line}:${s.selectionRange.start.character}`, path);
      walk(s.children, format === "toml" && s.name.startsWith("[[") ? [...path, "*"] : path);
    }
  };
  walk(documentSymbols(doc), []);
  for (const e of doc.entries) {
    const spelled = byKey.get(`${e.keyRange.start.line}:${e.keyRange.start.character}`);
    if (!spelled) continue; // a key seen twice (YAML merge) is outlined once, where it is written
    // Compared as dotted text (a key may itself hold a dot: `nvidia.com/gpu`). TOML array-of-tables entries
    // carry the item index; the outline names the table once per item (`*`).
    const norm = (p: readonly string[]): string => {
      const t = p.join(".");
      return format === "toml" ? t.replace(/(^|\.)(\d+|\*)(?=\.|$)/g, "$1*") : t;
    };
    if (norm(spelled) !== norm(e.path)) {
      out.push(`${file}:${e.keyRange.start.line + 1}: key ${e.path.join(".")} is outlined as ${spelled.join(".")}`);
    }
  }
  return out;
}

describe("document symbols follow the format's nesting", () => {
  it("a YAML top-level key after a nested mapping is a root symbol, not an empty child of the mapping", () => {
    const text = "model:\n  _component_: torchtune.models.llama3\nloss:\n  _component_: torch.nn.CrossEntropyLoss\nepochs: 1\ndtype: bf16\n";
    const syms = documentSymbols(parseDocument("file:///c.yaml", text, "yaml"));
    assert.deepEqual(
      syms.map((s) => [s.name, s.kind, s.children.map((c) => c.name)]),
      [
        ["model", "table", ["_component_"]],
        ["loss", "table", ["_component_"]],
        ["epochs", "key", []],
        ["dtype", "key", []],
      ],
    );
  });
  it("YAML lists of mappings and flow mappings nest under their key", () => {
    const text = "datasets:\n  - path: a\n    type: alpaca\nopt: {lr: 1, eps: 2}\n";
    const syms = documentSymbols(parseDocument("file:///c.yaml", text, "yaml"));
    assert.deepEqual(
      syms.map((s) => [s.name, s.children.map((c) => [c.name, c.children.map((g) => g.name)])]),
      [
        ["datasets", [["[0]", ["path", "type"]]]],
        ["opt", [["lr", []], ["eps", []]]],
      ],
    );
  });
  it("JSON nests by object", () => {
    const text = '{\n  "zero_optimization": {\n    "stage": 3,\n    "offload": {"device": "cpu"}\n  },\n  "bf16": {"enabled": true},\n  "train_batch_size": 8\n}\n';
    const syms = documentSymbols(parseDocument("file:///ds.json", text, "json"));
    assert.deepEqual(
      syms.map((s) => [s.name, s.children.map((c) => c.name)]),
      [
        ["zero_optimization", ["stage", "offload"]],
        ["bf16", ["enabled"]],
        ["train_batch_size", []],
      ],
    );
  });
  it("an empty YAML key has a non-empty name", () => {
    const syms = documentSymbols(parseDocument("file:///c.yaml", '"": 1\na: 2\n', "yaml"));
    assert.deepEqual(syms.map((s) => s.name), ['""', "a"]);
  });

  it("every example in the repo: no empty name, every key under its own parent", () => {
    const files = listFiles(resolve(__dirname, "../examples"), Object.keys(EXTS));
    assert.ok(files.length >= 20, `examples found: ${files.length}`);
    const found = files.flatMap((f) => problems(f, readFileSync(f, "utf8"), formatOf(f)!));
    assert.deepEqual(found, []);
  });

  it("every corpus file: no empty name, every key under its own parent", { skip: corpusSkip() }, () => {
    const files = listFiles(CORPUS, Object.keys(EXTS)).filter((f) => !f.includes(join("corpus", "broken")));
    assert.ok(files.length >= 50, `corpus files found: ${files.length}`);
    const found = files.flatMap((f) => problems(f, readFileSync(f, "utf8"), formatOf(f)!));
    assert.deepEqual(found.slice(0, 20), []);
  });
});
