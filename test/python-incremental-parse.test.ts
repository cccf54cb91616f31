/**
 * Issue #36: the Python parse reuses the previous tree's fragments for an edited text (parse/python.ts
 * `pythonTree`). Over random edits of a registry (insertions and deletions anywhere, syntax-breaking ones
 * included), the incremental tree is the tree a fresh parse gives, and so is the module model built on it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { forgetPythonTrees, parsePythonModule, pythonTree } from "../server/src/core/parse/python";
import { registry } from "./bench/python";

/** A deterministic pseudo-random sequence (mulberry32), so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ["x", "1", " ", "\n", "(", ")", ":", "=", '"', "#", "    ", "\n    config.training.steps = 7", "def f():\n", "\n\ndef g() -> Trainer.Config:\n    return base()\n", "[", "]"];

function edit(text: string, next: () => number): string {
  const at = Math.floor(next() * (text.length + 1));
  if (next() < 0.4) return text.slice(0, at) + text.slice(Math.min(text.length, at + 1 + Math.floor(next() * 12)));
  return text.slice(0, at) + PIECES[Math.floor(next() * PIECES.length)]! + text.slice(at);
}

const model = (text: string): string => JSON.stringify(parsePythonModule(text).module, (_k, v: unknown) => (v instanceof Map ? [...v] : v));

test("an incremental parse of an edited registry gives the fresh parse's tree and module model", () => {
  const next = rng(36);
  let text = registry(300);
  pythonTree(text);
  for (let i = 0; i < 120; i++) {
    text = edit(text, next);
    const incremental = pythonTree(text);
    const fresh = pythonTree(text, false);
    assert.equal(incremental.toString(), fresh.toString(), `edit ${i}: the trees differ`);
    if (i % 10 === 0) {
      const warm = model(text + "\n");
      forgetPythonTrees();
      assert.equal(warm, model(text + "\n"), `edit ${i}: the module models differ`);
    }
  }
});

test("the analysis of a registry edited keystroke by keystroke is the cold analysis", () => {
  const next = rng(7);
  let text = registry(150);
  const uri = "file:///inc/config_registry.py";
  analyzeDocument(uri, text);
  for (let i = 0; i < 25; i++) {
    text = edit(text, next);
    const warm = JSON.stringify(analyzeDocument(uri, text));
    forgetPythonTrees();
    const cold = JSON.stringify(analyzeDocument(uri, text));
    assert.equal(warm, cold, `edit ${i}`);
  }
});

test("an edit far from a recent tree's text parses from scratch, and the result is the same", () => {
  const a = registry(100);
  pythonTree(a);
  const b = "import os\n" + "x = 1\n".repeat(200);
  assert.equal(pythonTree(b).toString(), pythonTree(b, false).toString());
});
