/**
 * Issue #36: the Python nesting guard (parse/guard.ts `pyNestingScan`) passes over an edited text's changed
 * lines only, resuming from the last pass's record. Over random edits (brackets, quotes, triple quotes,
 * backslashes, indentation, unary runs, `not `, line feeds and carriage returns), the resumed pass gives the
 * full pass's answer and record; the record after the edit is the old one's (the same state objects), so the
 * reuse is real; a text nested too deep is found wherever the edit puts it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_PY_NESTING, pyNestingLine, pyNestingScan, type PyNestingScan } from "../server/src/core/parse/guard";
import { parsePythonDocument } from "../server/src/core/parse/python";
import { registry } from "./bench/python";
import { rng } from "./support/rng";


const PIECES = ["\n\n", "(\n", ")\n", "x", "1", " ", "\n", "\r\n", "\r", "(", ")", "[", "]", "{", "}", ":", '"', "'", '"""', "'''", "\\", "\\\n", "#", "# (((\n", "    ", "\t", "\n    ", "-", "+", "~", "not ", "- - -", "\n        x = (\n", '"(((', "def f():\n    return (\n"];

function edit(text: string, next: () => number): string {
  let at = Math.floor(next() * (text.length + 1));
  // A third of the edits at a line start (where the pass records its state), blank lines included.
  if (next() < 0.33) at = text.lastIndexOf("\n", at - 1) + 1;
  const r = next();
  if (r < 0.3) return text.slice(0, at) + text.slice(Math.min(text.length, at + 1 + Math.floor(next() * 12)));
  // A substitution: a few characters replaced by a piece (a keystroke over a selection).
  if (r < 0.5) return text.slice(0, at) + PIECES[Math.floor(next() * PIECES.length)]! + text.slice(Math.min(text.length, at + 1 + Math.floor(next() * 3)));
  return text.slice(0, at) + PIECES[Math.floor(next() * PIECES.length)]! + text.slice(at);
}

function common(a: string, b: string): { prefix: number; suffix: number } {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  const max = Math.min(a.length, b.length) - prefix;
  while (suffix < max && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  return { prefix, suffix };
}

const plain = (s: PyNestingScan) => ({ line: s.line, starts: s.starts, lines: s.lines, states: s.states });

test("a resumed nesting pass over an edited text gives the full pass's answer and record", () => {
  for (const [seed, start] of [
    [36, registry(200)],
    [37, "x = 1\n"],
    [38, `def f():\n    a = ${"(".repeat(60)}1${")".repeat(60)}\n    b = """\n(((\n"""\n    return not not - - 1\n`],
  ] as const) {
    const next = rng(seed);
    let text = start;
    let prev = pyNestingScan(text);
    let resumed = 0;
    for (let i = 0; i < 400; i++) {
      const after = edit(text, next);
      const full = pyNestingScan(after);
      const { prefix, suffix } = common(text, after);
      if (prev.line === undefined) {
        const inc = pyNestingScan(after, prev, prefix, suffix);
        assert.deepEqual(plain(inc), plain(full), `seed ${seed}, edit ${i}: ${JSON.stringify(after.slice(Math.max(0, prefix - 20), prefix + 20))}`);
        resumed++;
      }
      text = after;
      prev = full;
    }
    assert.ok(resumed > 100, `seed ${seed}: only ${resumed} resumed passes`);
  }
});

test("the record after an edit is the old pass's own (the unchanged lines are not passed over again)", () => {
  const text = registry(1000);
  const prev = pyNestingScan(text);
  assert.equal(prev.line, undefined);
  const at = text.indexOf("config.training.steps = 50\n");
  assert.ok(at > 0);
  const after = `${text.slice(0, at)}config.training.steps = 5000\n${text.slice(at + "config.training.steps = 50\n".length)}`;
  const { prefix, suffix } = common(text, after);
  const inc = pyNestingScan(after, prev, prefix, suffix);
  assert.equal(inc.starts.length, prev.starts.length);
  const last = prev.states.length - 1;
  assert.equal(inc.states[last], prev.states[last], "the last line's state is the old object: the pass stopped after the edit");
  assert.equal(inc.states[0], prev.states[0]);
  assert.equal(inc.starts[last], prev.starts[last]! + 2);
  // A line inserted above: the old record moves by one line and the inserted line's length.
  const moved = `x = 1\n${text}`;
  const m = pyNestingScan(moved, prev, 0, text.length);
  assert.equal(m.states[last + 1], prev.states[last]);
  assert.equal(m.lines[last + 1], prev.lines[last]! + 1);
  assert.equal(m.starts[last + 1], prev.starts[last]! + 6);
  assert.deepEqual(plain(m), plain(pyNestingScan(moved)));
});

test("an edit that nests a line too deep is found by the resumed pass, at that line", () => {
  const text = registry(300);
  const prev = pyNestingScan(text);
  const at = text.indexOf("config.training.steps = 20\n");
  const lineOf = text.slice(0, at).split("\n").length - 1;
  const deep = `${text.slice(0, at)}config.training.steps = ${"(".repeat(MAX_PY_NESTING + 1)}${text.slice(at + "config.training.steps = ".length)}`;
  const { prefix, suffix } = common(text, deep);
  assert.equal(pyNestingScan(deep, prev, prefix, suffix).line, lineOf);
  assert.equal(pyNestingLine(deep), lineOf);
});

test("the document parse's guard follows a sequence of edits as a fresh parse does", () => {
  let text = registry(200);
  const next = rng(41);
  for (let i = 0; i < 120; i++) {
    text = edit(text, next);
    const skipped = parsePythonDocument("file:///w/config_registry.py", text).skipped;
    const line = pyNestingLine(text);
    if (line === undefined) assert.ok(!skipped?.includes("nest"), `edit ${i}: ${skipped}`);
    else assert.ok(skipped?.includes(`(at line ${line + 1})`), `edit ${i}: ${skipped}`);
  }
});
