/**
 * Checks every front end makes before parsing: the text must look like text and be of a size the
 * parsers handle quickly (toml-eslint-parser grows super-linearly; see README "Limits").
 */

import { MAX_KEY_PARTS, MAX_NESTING } from "../model/limits";

/** Above this many characters a config is not analysed (real training configs are under 20 kB; a 500 kB TOML file takes about a second to parse and analyse on a 2-core machine). */
export const MAX_ANALYSED_CHARS = 512_000;

/** Returns a user-facing reason to skip the text, or undefined when it can be parsed. */
export function skipReason(text: string): string | undefined {
  if (text.length > MAX_ANALYSED_CHARS) {
    return `Precision Lens did not analyse this file: it has ${text.length} characters, over the limit of ${MAX_ANALYSED_CHARS}.`;
  }
  const probe = text.slice(0, 8192);
  if (probe.includes("\u0000")) {
    return BINARY_REASON;
  }
  return undefined;
}

const BINARY_REASON = "Precision Lens did not analyse this file: it contains NUL bytes and looks binary.";

/** True for the `skipped` reason of a text with NUL bytes (a training config among them gets `nul-bytes`). */
export function isBinaryReason(reason: string): boolean {
  return reason === BINARY_REASON;
}

const NESTING_PREFIX = "Precision Lens did not analyse this file: its values nest more than";

/** The user-facing reason for a file whose values nest deeper than the parsers are allowed to go. */
export function nestingReason(limit: number, line?: number): string {
  return `${NESTING_PREFIX} ${limit} levels deep${line === undefined ? "" : ` (at line ${line + 1})`}; real training configs nest a few levels.`;
}

const KEY_PARTS_PREFIX = "Precision Lens did not analyse this file: a dotted key or table header has more than";

/** The user-facing reason for a file with a dotted key of more than MAX_KEY_PARTS parts. */
export function keyPartsReason(line?: number): string {
  return `${KEY_PARTS_PREFIX} ${MAX_KEY_PARTS} parts${line === undefined ? "" : ` (at line ${line + 1})`}; real training configs use a few.`;
}

/** True for a `skipped` reason given by a structural bound (nesting, key parts; those also get a diagnostic). */
export function isNestingReason(reason: string): boolean {
  return reason.startsWith(NESTING_PREFIX) || reason.startsWith(KEY_PARTS_PREFIX);
}

/** Raw string literals at least this long are parsed in pieces (see `prepareToml`). */
export const LONG_STRING_CHARS = 4096;

/** A long string literal replaced by a short placeholder for the parser, and its real value. */
interface LongString {
  start: number;
  /** End of the literal in the original text (exclusive). */
  end: number;
  /** End of the placeholder (exclusive); the rest up to `end` is padding whitespace. */
  placeholderEnd: number;
  placeholder: string;
  value: string;
}

export interface TomlPrepared {
  /** Set when the file must not be parsed: its values nest too deep. */
  skipped?: string;
  /** The text to hand to the parser: the original, or the original with long strings replaced. */
  parseText: string;
  longStrings: LongString[];
}

/**
 * One linear pass over a TOML text before the parser sees it (the parser recurses per bracket and spreads
 * a string's code points into one call, so both deep nesting and a 150,000-character string overflow the
 * stack):
 *  - counts `[`/`{` nesting outside strings and comments; past MAX_NESTING the file is not parsed;
 *  - replaces each string literal of LONG_STRING_CHARS or more with a short unique placeholder padded
 *    with spaces (newlines kept), so every other offset is unchanged; the literal's value is parsed in
 *    pieces by the same parser and put back into the AST by `restoreLongStrings`.
 * A literal the pieces do not parse (a bad escape) is left in place for the parser to report.
 */
export function prepareToml(text: string, parsePiece: (src: string) => string | undefined, key?: string): TomlPrepared {
  let depth = 0;
  const long: LongString[] = [];
  const n = text.length;
  let i = 0;
  // Dots of the dotted key (or header) being read: a key starts a line, or follows `[`, `{` or `,`, and ends
  // at `=`. Past MAX_KEY_PARTS parts the file is not parsed: toml-eslint-parser builds a node per part
  // before the model's own check could refuse it (issue #18), which grew faster than the text.
  let dots = 0;
  let keyPos = true;
  // With `key` (the document's URI), the scan of a new version starts at the last line break of its last
  // version before the first changed character, with the nesting depth it had there (issue #36): the scan of
  // the text before a line break never reads past it (a string or comment ends before it, or the scan stops).
  // Only while no long string was seen: those are rare and rewritten after the scan.
  const cps: number[] = [];
  const prev = key === undefined ? undefined : scanned.get(key);
  if (prev) {
    const at = commonPrefixOf(prev.text, text);
    let k = prev.cps.length - 2;
    while (k >= 0 && prev.cps[k]! > at) k -= 2;
    if (k >= 0) {
      for (let j = 0; j < k; j++) cps.push(prev.cps[j]!);
      i = prev.cps[k]!;
      depth = prev.cps[k + 1]!;
    }
  }
  if (key !== undefined) scanned.delete(key);
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x23 /* # */) {
      const nl = text.indexOf("\n", i);
      i = nl < 0 ? n : nl;
    } else if (c === 0x2e /* . */) {
      if (keyPos && ++dots >= MAX_KEY_PARTS) return { skipped: keyPartsReason(lineOf(text, i)), parseText: text, longStrings: [] };
      i++;
    } else if (c === 0x3d /* = */) {
      keyPos = false;
      dots = 0;
      i++;
    } else if (c === 0x0a /* \n */ || c === 0x2c /* , */) {
      keyPos = true;
      dots = 0;
      i++;
      if (c === 0x0a && key !== undefined && !long.length) cps.push(i, depth);
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      depth++;
      if (depth > MAX_NESTING) return { skipped: nestingReason(MAX_NESTING, lineOf(text, i)), parseText: text, longStrings: [] };
      keyPos = true;
      dots = 0;
      i++;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      if (depth > 0) depth--;
      dots = 0;
      i++;
    } else if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
      const q = text[i]!;
      const multi = text.startsWith(q + q + q, i);
      const end = stringEnd(text, i, q, multi);
      if (end < 0) return { parseText: text, longStrings: long }; // unterminated: the parser reports it
      if (end - i >= LONG_STRING_CHARS) {
        const value = decodeInPieces(text.slice(i + (multi ? 3 : 1), end - (multi ? 3 : 1)), q, multi, parsePiece);
        if (value !== undefined) long.push({ start: i, end, placeholderEnd: 0, placeholder: "", value });
      }
      i = end;
    } else i++;
  }
  if (!long.length) {
    if (key !== undefined) {
      scanned.set(key, { text, cps });
      if (scanned.size > 4) scanned.delete(scanned.keys().next().value!);
    }
    return { parseText: text, longStrings: long };
  }
  const ids = new Map<string, string>();
  let out = "";
  let at = 0;
  for (const s of long) {
    let ph = ids.get(s.value);
    if (!ph) {
      ph = `"\uE000${ids.size}"`;
      ids.set(s.value, ph);
    }
    s.placeholder = ph.slice(1, -1);
    s.placeholderEnd = s.start + ph.length;
    out += text.slice(at, s.start) + ph + text.slice(s.start + ph.length, s.end).replace(/[^\r\n]/g, " ");
    at = s.end;
  }
  out += text.slice(at);
  return { parseText: out, longStrings: long };
}

/** The last few scans by key (document URI): each line break's offset and the nesting depth there, in pairs. */
const scanned = new Map<string, { text: string; cps: number[] }>();

/** Forgets the kept scans (tests compare incremental and fresh analyses). */
export function forgetTomlScans(): void {
  scanned.clear();
}

/** The length of the common prefix of two strings (whole blocks natively, then characters). */
function commonPrefixOf(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  for (let step = 4096; step >= 1; step >>= 4) while (i + step <= n && b.startsWith(a.slice(i, i + step), i)) i += step;
  return i;
}

function lineOf(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Offset just past the closing quote(s) of the string literal starting at `i`, or -1 when unterminated. */
function stringEnd(text: string, i: number, q: string, multi: boolean): number {
  const n = text.length;
  if (multi) {
    let j = i + 3;
    for (;;) {
      if (q === '"') {
        while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      } else {
        const k = text.indexOf("'''", j);
        j = k < 0 ? n : k;
      }
      if (j >= n) return -1;
      if (text.startsWith(q + q + q, j)) {
        // Up to two more quotes may belong to the content ("""a"""" is a + one quote).
        let e = j + 3;
        while (e < n && text[e] === q && e < j + 5) e++;
        return e;
      }
      j++;
    }
  }
  let j = i + 1;
  while (j < n) {
    const ch = text[j]!;
    if (ch === "\n") return -1;
    if (ch === q) return j + 1;
    j += q === '"' && ch === "\\" ? 2 : 1;
  }
  return -1;
}

/**
 * The value of a long string body, parsed by the real parser in pieces of about LONG_STRING_CHARS (cut
 * between escape sequences and never inside whitespace a line-ending backslash would trim).
 */
function decodeInPieces(body: string, q: string, multi: boolean, parsePiece: (src: string) => string | undefined): string | undefined {
  const open = multi ? q + q + q : q;
  let out = "";
  let from = 0;
  let first = true;
  while (from < body.length) {
    let to = Math.min(body.length, from + LONG_STRING_CHARS);
    if (to < body.length) {
      // Step back to a cut point: not inside an escape, not next to whitespace, not before a quote.
      while (to > from + 16 && !safeCut(body, to, q)) to--;
      if (to <= from + 16) to = Math.min(body.length, from + LONG_STRING_CHARS);
    }
    // Later pieces of a multi-line string start with a newline the parser trims, keeping their own.
    const piece = (multi && !first ? "\n" : "") + body.slice(from, to);
    const v = parsePiece(`x = ${open}${piece}${open}\n`);
    if (v === undefined) return undefined;
    out += v;
    from = to;
    first = false;
  }
  return out;
}

function safeCut(body: string, at: number, q: string): boolean {
  const prev = body[at - 1]!;
  const next = body[at]!;
  if (/\s/.test(prev) || /\s/.test(next) || next === q || prev === q) return false;
  if (q === "'") return true;
  // Count the backslashes before the cut and look back for an unfinished \uXXXX / \UXXXXXXXX escape.
  let k = at - 1;
  let slashes = 0;
  while (k >= 0 && body[k] === "\\") {
    slashes++;
    k--;
  }
  if (slashes % 2 === 1) return false;
  for (let back = 1; back <= 9 && at - back - 1 >= 0; back++) {
    const c = body[at - back - 1];
    const e = body[at - back];
    if (c === "\\" && (e === "u" || e === "U")) {
      let s = 0;
      for (let m = at - back - 2; m >= 0 && body[m] === "\\"; m--) s++;
      if (s % 2 === 0 && back <= (e === "u" ? 4 : 8)) return false;
    }
  }
  return true;
}

interface AstNode {
  type?: string;
  range?: [number, number];
  value?: unknown;
  resolvedKey?: (string | number)[];
  [k: string]: unknown;
}

/** Puts the real values and source ends of `prepareToml`'s long strings back into the parser's AST. */
export function restoreLongStrings(program: unknown, prepared: TomlPrepared): void {
  if (!prepared.longStrings.length) return;
  const byStart = new Map(prepared.longStrings.map((s) => [s.start, s]));
  const ends = new Map(prepared.longStrings.map((s) => [s.placeholderEnd, s.end]));
  const values = new Map(prepared.longStrings.map((s) => [s.placeholder, s.value]));
  const stack: unknown[] = [program];
  const seen = new Set<unknown>();
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== "object" || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const x of node) stack.push(x);
      continue;
    }
    const n = node as AstNode;
    if (n.range && ends.has(n.range[1])) n.range[1] = ends.get(n.range[1])!;
    if (n.range && typeof n.value === "string" && byStart.has(n.range[0])) n.value = byStart.get(n.range[0])!.value;
    if (Array.isArray(n.resolvedKey)) n.resolvedKey = n.resolvedKey.map((k) => (typeof k === "string" && values.has(k) ? values.get(k)! : k));
    for (const [k, v] of Object.entries(n)) if (k !== "parent" && k !== "loc" && k !== "tokens" && k !== "comments" && v && typeof v === "object") stack.push(v);
  }
}

/**
 * YAML's flow collections (`[...]`, `{...}`) make the `yaml` package recurse per level: a linear scan
 * bounds their nesting before parsing (quoted scalars and comments skipped). Block nesting is bounded by
 * indentation and walked with a depth limit in yaml.ts.
 */
export function yamlNestingReason(text: string): string | undefined {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text[i]!;
    if (i === 0 || text[i - 1] === "\n") {
      // Compact block collections nest on one line (`- - - - 1`, `? ? ? a`): count the indicators.
      let j = i;
      while (j < n && (text[j] === " " || text[j] === "\t")) j++;
      let indicators = 0;
      while (j + 1 < n && (text[j] === "-" || text[j] === "?" || text[j] === ":") && (text[j + 1] === " " || text[j + 1] === "\t")) {
        indicators++;
        j += 2;
        while (j < n && (text[j] === " " || text[j] === "\t")) j++;
      }
      if (indicators > MAX_NESTING) return nestingReason(MAX_NESTING, lineOf(text, i));
    }
    if (c === "#" && (i === 0 || /\s/.test(text[i - 1]!))) {
      const nl = text.indexOf("\n", i);
      if (nl < 0) break;
      i = nl;
    } else if ((c === '"' || c === "'") && (depth > 0 || i === 0 || /[\s:,\[{-]/.test(text[i - 1]!))) {
      // A quoted scalar: skip to its closing quote ('' and \" escape one).
      let j = i + 1;
      while (j < n) {
        if (c === '"' && text[j] === "\\") j += 2;
        else if (text[j] === c && c === "'" && text[j + 1] === "'") j += 2;
        else if (text[j] === c) break;
        else j++;
      }
      i = j;
    } else if (c === "[" || c === "{") {
      if (++depth > MAX_NESTING) return nestingReason(MAX_NESTING, lineOf(text, i));
    } else if ((c === "]" || c === "}") && depth > 0) depth--;
  }
  return undefined;
}

/** Python brackets, indentation levels or a run of unary operators deeper than this: the module is not parsed (issue #33). */
export const MAX_PY_NESTING = 100;

/**
 * One linear pass: the 0-based line where brackets (outside strings and comments), indentation levels or a
 * run of unary operators first nest deeper than MAX_PY_NESTING; undefined when they never do.
 */
export function pyNestingLine(text: string): number | undefined {
  return pyNestingScan(text).line;
}

/** The pass's state at the start of a line (after a line feed it counted): what the rest of the pass depends on. */
interface PyLineState {
  depth: number;
  quote: string;
  triple: boolean;
  /** Never written into once recorded (the pass copies it on change). */
  indents: readonly number[];
  unaryRun: number;
}

/**
 * A pass's record (issue #36): the offset, line and state at every line start, so the pass over an edited text
 * resumes at the last line start before the edit and stops at the first line start after it where the state is
 * the old pass's (the rest of the text, unchanged, goes on as it did). Only kept for a text that never nested
 * too deep.
 */
export interface PyNestingScan {
  text: string;
  line: number | undefined;
  starts: number[];
  lines: number[];
  states: PyLineState[];
}

function sameState(a: PyLineState, b: PyLineState): boolean {
  if (a.depth !== b.depth || a.quote !== b.quote || a.triple !== b.triple || a.unaryRun !== b.unaryRun || a.indents.length !== b.indents.length) return false;
  for (let k = 0; k < a.indents.length; k++) if (a.indents[k] !== b.indents[k]) return false;
  return true;
}

/**
 * `pyNestingLine`, with its record. With `prev` (the pass over an earlier text) and the two texts' common
 * `prefix` and `suffix` lengths, only the edited region is passed over: the line starts before it are the old
 * pass's, and after it the old pass's (moved by the length change) once a line start's state equals the old
 * one's. The answer is the full pass's (test/python-nesting-guard.test.ts compares them over random edits).
 */
export function pyNestingScan(text: string, prev?: PyNestingScan, prefix = 0, suffix = 0): PyNestingScan {
  const starts: number[] = [];
  const lines: number[] = [];
  const states: PyLineState[] = [];
  let depth = 0;
  let line = 0;
  let quote = "";
  let triple = false;
  let indents: readonly number[] = [0];
  let atLineStart = true;
  let col = 0;
  let unaryRun = 0;
  let from = 0;
  // Where the old record's line starts are valid again (in the new text), and by how much they moved.
  let resumeAfter = Number.POSITIVE_INFINITY;
  let delta = 0;
  let lineDelta = 0;
  let k0 = 0;
  if (prev && prev.line === undefined && prev.text !== text) {
    // A line start's state depends on the text before it and on the character at it (a lookahead), so a
    // record at `s` stands when s < prefix; after the edit, at s >= text.length - suffix.
    let k = 0;
    while (k < prev.starts.length && prev.starts[k]! < prefix) k++;
    if (k > 0) {
      const at = k - 1;
      for (let j = 0; j <= at; j++) (starts.push(prev.starts[j]!), lines.push(prev.lines[j]!), states.push(prev.states[j]!));
      const st = prev.states[at]!;
      from = prev.starts[at]!;
      line = prev.lines[at]!;
      depth = st.depth;
      quote = st.quote;
      triple = st.triple;
      indents = st.indents;
      unaryRun = st.unaryRun;
    }
    delta = text.length - prev.text.length;
    resumeAfter = text.length - suffix;
    k0 = k;
  }
  let i = from;
  const record = (): boolean => {
    const state: PyLineState = { depth, quote, triple, indents, unaryRun };
    if (i >= resumeAfter && prev) {
      // The old record's line start at the same place in the unchanged suffix, with the same state: the rest is the old pass's.
      const old = i - delta;
      while (k0 < prev.starts.length && prev.starts[k0]! < old) k0++;
      if (k0 < prev.starts.length && prev.starts[k0] === old && sameState(prev.states[k0]!, state)) {
        lineDelta = line - prev.lines[k0]!;
        for (let j = k0; j < prev.starts.length; j++) (starts.push(prev.starts[j]! + delta), lines.push(prev.lines[j]! + lineDelta), states.push(prev.states[j]!));
        return true;
      }
    }
    starts.push(i);
    lines.push(line);
    states.push(state);
    return false;
  };
  // Resumed: the line start at `from` is the old record's, pushed above; else the first line's.
  if (!starts.length && record()) return { text, line: undefined, starts, lines, states };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") {
      line++;
      atLineStart = true;
      col = 0;
      if (quote && !triple) quote = "";
      i++;
      const stop = record();
      i--;
      if (stop) return { text, line: undefined, starts, lines, states };
      continue;
    }
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote && (!triple || (text[i + 1] === quote && text[i + 2] === quote))) {
        if (triple) i += 2;
        quote = "";
      }
      continue;
    }
    if (atLineStart) {
      if (c === " " || c === "\t") {
        col += c === "\t" ? 8 - (col % 8) : 1;
        continue;
      }
      atLineStart = false;
      if (c !== "#" && c !== "\r" && depth === 0) {
        if (indents.length > 1 && col < indents[indents.length - 1]!) {
          let n = indents.length;
          while (n > 1 && col < indents[n - 1]!) n--;
          indents = indents.slice(0, n);
        }
        if (col > indents[indents.length - 1]!) indents = [...indents, col];
        if (indents.length > MAX_PY_NESTING) return { text, line, starts, lines, states };
      }
    }
    if (c === "#") {
      while (i + 1 < text.length && text[i + 1] !== "\n") i++;
      continue;
    }
    if (c === "'" || c === '"') {
      triple = text[i + 1] === c && text[i + 2] === c;
      if (triple) i += 2;
      quote = c;
      unaryRun = 0;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") {
      if (++depth > MAX_PY_NESTING) return { text, line, starts, lines, states };
    } else if (c === ")" || c === "]" || c === "}") {
      if (depth > 0) depth--;
    }
    if (c === "-" || c === "+" || c === "~") {
      if (++unaryRun > MAX_PY_NESTING) return { text, line, starts, lines, states };
    } else if (c === "n" && text.startsWith("not ", i) && (i === 0 || !/[A-Za-z0-9_]/.test(text[i - 1]!))) {
      if (++unaryRun > MAX_PY_NESTING) return { text, line, starts, lines, states };
      i += 2;
    } else if (c !== " " && c !== "\t" && c !== "\r") unaryRun = 0;
  }
  return { text, line: undefined, starts, lines, states };
}
