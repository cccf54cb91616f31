/**
 * Error recovery for the YAML front end (issue #14). The `yaml` package composes a document even after
 * errors, but the shape it guesses can mislead (an unclosed quote swallows the rest of the file; an
 * unclosed `[` turns the next key into a list item). So, like the TOML front end, we set the broken line
 * aside (blanked with spaces, offsets kept; with the lines nested under it) and compose again, trying the
 * likely culprits in turn: the line of an unclosed quote, the line before the error, the error's line,
 * the line after. A candidate is kept when it removes the error. Bounded by MAX_YAML_PARSES; when the
 * errors do not go away within it, the front end reports them and the document is not analysed.
 */
import type { LineIndex } from "../model/lineIndex";

export const MAX_YAML_PARSES = 8;

export interface YamlError {
  start: number;
  end: number;
  message: string;
}

export interface YamlRecovery {
  text: string;
  /** One error per cause, at the cause. */
  errors: YamlError[];
  /** Lines set aside, each with the key path of its line when it has one. */
  setAside: { first: number; last: number; path?: string[] }[];
}

export function recoverYaml(text: string, lines: LineIndex, first: YamlError[], errorsOf: (t: string) => YamlError[] | undefined): YamlRecovery | undefined {
  let cur = text;
  let errs = first;
  let parses = 1;
  const out: YamlRecovery = { text, errors: [], setAside: [] };
  while (errs.length) {
    const e = errs[0]!;
    const errLine = lines.positionAt(e.start).line;
    const candidates: { line: number; at?: [number, number] }[] = [];
    if (/closing .?quote/i.test(e.message)) {
      const q = unclosedQuoteLine(cur, lines, errLine);
      if (q) candidates.push(q);
    }
    const prev = neighbour(cur, lines, errLine, -1);
    if (prev !== undefined) candidates.push({ line: prev });
    candidates.push({ line: errLine });
    const next = neighbour(cur, lines, errLine, 1);
    if (next !== undefined) candidates.push({ line: next });
    // Try each candidate; keep the one that leaves the fewest errors, then sets aside the fewest lines.
    let best: { c: (typeof candidates)[number]; last: number; text: string; after: YamlError[] } | undefined;
    const seen = new Set<number>();
    for (const c of candidates) {
      if (seen.has(c.line)) continue;
      seen.add(c.line);
      if (parses >= MAX_YAML_PARSES) break;
      const last = blockEnd(cur, lines, c.line);
      const tried = blankLines(cur, lines, c.line, last);
      if (tried === cur) continue;
      parses++;
      const after = errorsOf(tried);
      if (!after) return undefined;
      const movedOn = !after.length || lines.positionAt(after[0]!.start).line > Math.max(errLine, last) || after.length < errs.length;
      if (!movedOn) continue;
      if (!best || after.length < best.after.length || (after.length === best.after.length && last - c.line < best.last - best.c.line)) best = { c, last, text: tried, after };
      if (!after.length && last === c.line) break; // cannot do better than one line
    }
    const progressed = !!best;
    if (best) {
      const { c, last } = best;
      const own = lineOf(cur, lines, c.line);
      const [start, end] = c.at ?? (c.line === errLine ? [e.start, Math.max(e.end, e.start)] : [lines.lineStart(c.line) + indent(own), lines.lineStart(c.line) + own.trimEnd().length]);
      out.errors.push({ start, end, message: e.message });
      out.setAside.push({ first: c.line, last, path: pathAt(cur, lines, c.line) });
      cur = best.text;
      errs = best.after;
    }
    if (!progressed) return undefined;
  }
  out.text = cur;
  return out;
}

function lineOf(t: string, lines: LineIndex, n: number): string {
  return t.slice(lines.lineStart(n), lines.lineEnd(n));
}

function isBlank(s: string): boolean {
  return /^\s*(#.*)?$/.test(s);
}

function indent(s: string): number {
  return s.length - s.trimStart().length;
}

function neighbour(t: string, lines: LineIndex, n: number, dir: 1 | -1): number | undefined {
  for (let i = n + dir; i >= 0 && i < lines.lineCount; i += dir) if (!isBlank(lineOf(t, lines, i))) return i;
  return undefined;
}

/** The last line of the block a line opens: the following lines indented deeper than it. */
function blockEnd(t: string, lines: LineIndex, n: number): number {
  const ind = indent(lineOf(t, lines, n));
  let last = n;
  for (let i = n + 1; i < lines.lineCount; i++) {
    const s = lineOf(t, lines, i);
    if (isBlank(s)) continue;
    if (indent(s) <= ind) break;
    last = i;
  }
  return last;
}

function blankLines(t: string, lines: LineIndex, first: number, last: number): string {
  const a = lines.lineStart(first);
  const b = lines.lineEnd(last);
  return t.slice(0, a) + t.slice(a, b).replace(/[^\r\n]/g, " ") + t.slice(b);
}

/** The first line at or before `upTo` with a quote opened after `key:` or `- ` and not closed on it. */
function unclosedQuoteLine(t: string, lines: LineIndex, upTo: number): { line: number; at: [number, number] } | undefined {
  for (let n = 0; n <= upTo && n < lines.lineCount; n++) {
    const s = lineOf(t, lines, n);
    const m = /^(\s*(?:-\s+)?(?:[^\s#'"][^:#]*:\s+)?)(["'])/.exec(s);
    if (!m) continue;
    const q = m[2]!;
    const body = s.slice(m[0].length);
    const closed = q === '"' ? /^(?:[^"\\]|\\.)*"/.test(body) : /^(?:[^']|'')*'(?!')/.test(body);
    if (!closed) {
      const start = lines.lineStart(n) + m[1]!.length;
      return { line: n, at: [start, lines.lineEnd(n)] };
    }
  }
  return undefined;
}

/** The key path of a `key:` line from the keys above it with less indentation (best effort). */
function pathAt(t: string, lines: LineIndex, n: number): string[] | undefined {
  const own = /^(\s*)([A-Za-z0-9_.-]+)\s*:/.exec(lineOf(t, lines, n));
  if (!own) return undefined;
  const path = [own[2]!];
  let ind = own[1]!.length;
  for (let i = n - 1; i >= 0 && ind > 0; i--) {
    const m = /^(\s*)([A-Za-z0-9_.-]+)\s*:\s*(#.*)?$/.exec(lineOf(t, lines, i));
    if (m && m[1]!.length < ind) {
      path.unshift(m[2]!);
      ind = m[1]!.length;
    } else if (!isBlank(lineOf(t, lines, i)) && indent(lineOf(t, lines, i)) < ind) return undefined; // a list or flow parent
  }
  return path;
}
