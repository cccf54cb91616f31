/**
 * rust-analyzer-style fixture tests. A fixture is a config text with inline expectation lines:
 *
 *   [parallelism]
 *   tensor_parallel_degree = 8
 *   #^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]: mixed precision is disabled
 *
 * A marker line is a comment whose body is carets and an expectation. The carets mark columns of the
 * nearest line above that is not a marker. `#^` starts at the column of the `#`, so column 0 can be
 * marked. A single `|` instead of carets marks an empty range at its column (e.g. the end of a line). The
 * expectation is `severity[code]` optionally followed by `: text`, which must occur in the message or, for a
 * diagnostic whose short message leaves the explanation to its `detail` (hover, report), in that detail.
 * Every diagnostic must be expected and every expectation met: nothing extra, nothing missing.
 *
 * JSON has no comments, so in a fixture whose uri ends in `.json` the marker lines start with `//` instead
 * (the carets mark their own columns: `//^` starts at column 2); they are removed before the analysis and the
 * carets mark the nearest line above in the text without them.
 */
import assert from "node:assert/strict";
import { analyzeDocument } from "../../server/src/core/analyze";
import { applyEdits } from "../../server/src/core/diagnostics/build";
import type { AnalysisEnv, AnalysisResult, AnalysisSettings } from "../../server/src/core/analysis";
import type { Diagnostic, Range } from "../../server/src/core/model/types";
import { LineIndex } from "../../server/src/core/model/lineIndex";

const MARKER = /^(\s*)(#?)(\s*)(\^+|\|)\s+(error|warning|information|hint)\[([^\]]+)\](?::\s*(.*))?$/;

export interface Expectation {
  range: Range;
  severity: string;
  code: string;
  messagePart?: string;
}

export function parseExpectations(text: string): Expectation[] {
  const lines = text.split(/\r?\n/);
  const out: Expectation[] = [];
  let target = -1;
  for (let i = 0; i < lines.length; i++) {
    const m = MARKER.exec(lines[i]!);
    if (!m) {
      target = i;
      continue;
    }
    const hashCol = m[1]!.length;
    const caretCol = hashCol + m[2]!.length + m[3]!.length;
    const start = m[2] && m[3]!.length === 0 && m[4] !== "|" ? hashCol : caretCol;
    // `|` marks an empty range at its column (a position between characters, e.g. the end of a line).
    const end = m[4] === "|" ? caretCol : caretCol + m[4]!.length;
    assert.ok(target >= 0, `marker on line ${i + 1} has no line above it`);
    const e: Expectation = { range: { start: { line: target, character: start }, end: { line: target, character: end } }, severity: m[5]!, code: m[6]! };
    if (m[7]) e.messagePart = m[7].trim();
    out.push(e);
  }
  return out;
}

const JSON_MARKER = /^(\s*)(\/\/)(\s*)(\^+|\|)\s+(error|warning|information|hint)\[([^\]]+)\](?::\s*(.*))?$/;

/** A JSON fixture: the text without its `//` marker lines, and the expectations in that text's lines. */
export function parseJsonFixture(text: string): { clean: string; expected: Expectation[] } {
  const lines = text.split(/\r?\n/);
  const kept: string[] = [];
  const expected: Expectation[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = JSON_MARKER.exec(lines[i]!);
    if (!m) {
      kept.push(lines[i]!);
      continue;
    }
    const target = kept.length - 1;
    assert.ok(target >= 0, `marker on line ${i + 1} has no line above it`);
    const slashCol = m[1]!.length;
    const caretCol = slashCol + m[2]!.length + m[3]!.length;
    const end = m[4] === "|" ? caretCol : caretCol + m[4]!.length;
    const e: Expectation = { range: { start: { line: target, character: caretCol }, end: { line: target, character: end } }, severity: m[5]!, code: m[6]! };
    if (m[7]) e.messagePart = m[7].trim();
    expected.push(e);
  }
  return { clean: kept.join("\n"), expected };
}

function fmt(d: { range: Range; severity: string; code: string; message?: string }): string {
  const r = d.range;
  return `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character} ${d.severity}[${d.code}]${d.message ? ": " + d.message : ""}`;
}

const CAPACITY_CODE = "memory-exceeds-gpu";

export interface FixtureOptions {
  uri?: string;
  settings?: AnalysisSettings;
  env?: AnalysisEnv;
  /** Codes to ignore (for fixtures about one rule family). */
  ignore?: string[];
}

export function analyzeFixture(text: string, opts: FixtureOptions = {}): AnalysisResult {
  return analyzeDocument(opts.uri ?? "file:///fixture/train.toml", text, opts.settings ?? {}, opts.env);
}

/** Runs the analysis and asserts the diagnostics match the inline expectations exactly. */
export function checkDiagnostics(text: string, opts: FixtureOptions = {}): AnalysisResult {
  const json = opts.uri?.endsWith(".json") ? parseJsonFixture(text) : undefined;
  const result = analyzeFixture(json?.clean ?? text, opts);
  const expected = json?.expected ?? parseExpectations(text);
  // The memory-capacity estimate (memory-exceeds-gpu) depends on model size and GPU, not on the concern a
  // fixture is about: it is checked only by fixtures that expect it.
  const ignore = [...(opts.ignore ?? []), ...(expected.some((e) => e.code === CAPACITY_CODE) ? [] : [CAPACITY_CODE])];
  const actual = result.diagnostics.filter((d) => !ignore.includes(d.code));
  const unmatched = [...actual];
  const missing: Expectation[] = [];
  for (const e of expected) {
    const i = unmatched.findIndex(
      (d) => d.code === e.code && d.severity === e.severity && sameRange(d.range, e.range) && (!e.messagePart || d.message.includes(e.messagePart) || !!d.detail?.includes(e.messagePart)),
    );
    if (i < 0) missing.push(e);
    else unmatched.splice(i, 1);
  }
  if (missing.length || unmatched.length) {
    assert.fail(
      [
        missing.length ? `missing:\n  ${missing.map((m) => fmt({ ...m, message: m.messagePart })).join("\n  ")}` : "",
        unmatched.length ? `unexpected:\n  ${unmatched.map((d) => fmt(d)).join("\n  ")}` : "",
        `all actual:\n  ${actual.map((d) => fmt(d)).join("\n  ")}`,
      ]
        .filter(Boolean)
        .join("\n"),
    );
  }
  return result;
}

function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}

/** Finds the diagnostic `code`, applies its fix whose title contains `titlePart`, returns the new text. */
export function applyFix(text: string, code: string, titlePart: string, opts: FixtureOptions = {}): { after: string; diagnostic: Diagnostic } {
  const result = analyzeFixture(text, opts);
  const d = result.diagnostics.find((x) => x.code === code);
  assert.ok(d, `no ${code} diagnostic; got ${result.diagnostics.map((x) => x.code).join(", ")}`);
  const f = d.data?.fixes?.find((x) => x.title.includes(titlePart));
  assert.ok(f, `no fix containing "${titlePart}" on ${code}; fixes: ${(d.data?.fixes ?? []).map((x) => x.title).join(" | ")}`);
  const after = applyEdits({ text, lines: new LineIndex(text) }, f.edits);
  return { after, diagnostic: d };
}

/** Applies the fix, checks the exact resulting text, and checks that the result no longer has `code`. */
export function checkFix(before: string, code: string, titlePart: string, expectedAfter: string, opts: FixtureOptions = {}): void {
  const { after } = applyFix(before, code, titlePart, opts);
  assert.equal(after, expectedAfter);
  const again = analyzeFixture(after, opts);
  assert.deepEqual(again.doc.syntaxErrors, [], "the fixed file must parse");
  assert.ok(!again.diagnostics.some((x) => x.code === code), `after the fix, ${code} is still reported`);
}

/** Strips marker lines (for texts shown to the analyser as a user would have them). */
export function withoutMarkers(text: string): string {
  return text
    .split("\n")
    .filter((l) => !MARKER.test(l))
    .join("\n");
}
