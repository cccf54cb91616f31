/**
 * Error recovery for the TOML front end (issue #14). toml-eslint-parser stops at the first error and gives
 * an offset that often lies on the line after the cause (an unclosed `[training` is reported at the next
 * key). This module finds the statement that caused the error, words a message a person understands, and
 * says which text to set aside so the rest of the file can be parsed again.
 *
 * Setting aside = replacing every character of the broken statement except line breaks with a space, so
 * every offset, line and column of the remaining text stays exact. A broken table header
 * (`[training` without `]`) whose name is complete keeps its body: the body is parsed on its own and its
 * keys are filed under that name.
 *
 * Positions follow taplo 0.7 (`taplo lint`, the reference of Even Better TOML) where it is precise, and
 * beat it where it is not (an unterminated string is underlined from its quote to the end of the line, a
 * bare word value says it needs quotes). The comparison is in README "Broken files" and
 * test/toml-recovery.test.ts.
 */
import type { LineIndex } from "../model/lineIndex";

/** How one parse error is explained and set aside. Offsets are into the document text. */
export interface TomlErrorCause {
  message: string;
  start: number;
  end: number;
  /** Offset ranges to blank before the next parse (whole statements). */
  blank: [number, number][];
  /** A broken header whose name is complete: its body [start, end) is parsed on its own under `path`. */
  body?: { path: string[]; start: number; end: number; headerStart: number; headerEnd: number };
  /** The dotted key of a broken `key = value` statement, relative to its table (for "counts as absent"). */
  key?: string[];
}

const BARE = "[A-Za-z0-9_-]+";
const QUOTED = `"(?:[^"\\\\\\n]|\\\\.)*"|'[^'\\n]*'`;
const KEY = `(?:${BARE}|${QUOTED})`;
const DOTTED = `${KEY}(?:\\s*\\.\\s*${KEY})*`;
/** The pieces of a table header line, like a regex match: [whole, indent, open, name?, close?, comment?]. */
type HeaderMatch = [string, string, string, string | undefined, string | undefined, string | undefined];

const isWs = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);
const BARE_CHAR = /[A-Za-z0-9_-]/;
const QUOTED_AT = new RegExp(QUOTED, "y");

/** End of the key (bare or quoted) starting at `i`, or -1. */
function keyEnd(t: string, i: number): number {
  const c = t[i];
  if (c === '"' || c === "'") {
    QUOTED_AT.lastIndex = i;
    const m = QUOTED_AT.exec(t);
    return m ? i + m[0].length : -1;
  }
  let j = i;
  while (j < t.length && BARE_CHAR.test(t[j]!)) j++;
  return j > i ? j : -1;
}

function skipWs(t: string, i: number): number {
  while (isWs(t[i])) i++;
  return i;
}

/**
 * A table header line, possibly unclosed or still being typed (`[`, `[train`, `[[x`): indent, `[` or `[[`,
 * an optional dotted name (with an optional trailing dot), an optional `]`/`]]`, an optional comment.
 * A scanner, not a regex: the regex's adjacent optional runs of spaces backtracked cubically on `[`, many
 * spaces and a stray character (issue #18).
 */
function matchHeaderLine(t: string): HeaderMatch | undefined {
  let i = skipWs(t, 0);
  const indent = t.slice(0, i);
  if (t[i] !== "[") return undefined;
  const open = t[i + 1] === "[" ? "[[" : "[";
  i = skipWs(t, i + open.length);
  let name: string | undefined;
  const nameStart = i;
  let k = keyEnd(t, i);
  if (k >= 0) {
    let end = k;
    for (;;) {
      const dot = skipWs(t, end);
      if (t[dot] !== ".") break;
      const next = keyEnd(t, skipWs(t, dot + 1));
      if (next < 0) break;
      end = next;
    }
    if (t[end] === ".") end++;
    name = t.slice(nameStart, end);
    i = end;
  }
  i = skipWs(t, i);
  let close: string | undefined;
  if (t[i] === "]") {
    close = t[i + 1] === "]" ? "]]" : "]";
    i += close.length;
  }
  i = skipWs(t, i);
  let comment: string | undefined;
  if (t[i] === "#") {
    comment = t.slice(i);
    i = t.length;
  }
  if (i !== t.length) return undefined;
  return [t, indent, open, name, close, comment];
}

/** A complete header line: `[`, anything but `]` and `,`, `]` (or `]]`), an optional comment. Linear. */
function isClosedHeaderLine(t: string): boolean {
  let i = skipWs(t, 0);
  if (t[i] !== "[") return false;
  let j = i + 1;
  while (j < t.length && t[j] !== "]" && t[j] !== ",") j++;
  if (t[j] !== "]") return false;
  j++;
  if (t[j] === "]") j++;
  j = skipWs(t, j);
  return j === t.length || t[j] === "#";
}

const HEADER_LINE = { test: (t: string) => matchHeaderLine(t) !== undefined, exec: matchHeaderLine };
/** A `key =` line (the value may be missing or broken). */
const KV_LINE = new RegExp(`^(\\s*)(${DOTTED})(\\s*)=`);
/** A key being typed: a bare dotted key alone on its line (not a literal that could end an array). */
const KEY_ONLY_LINE = /^\s*([A-Za-z_][A-Za-z0-9_-]*(?:\s*\.\s*[A-Za-z0-9_-]+)*)\s*(#.*)?$/;
const LITERAL_WORDS = new Set(["true", "false", "inf", "nan"]);

/** For tests: the header scanner's pieces. */
export const __headerLine = matchHeaderLine;
export const __closedHeaderLine = isClosedHeaderLine;

export function isHeaderLine(t: string): boolean {
  return HEADER_LINE.test(t);
}

function isStatementStart(t: string): boolean {
  if (HEADER_LINE.test(t) || KV_LINE.test(t)) return true;
  const m = KEY_ONLY_LINE.exec(t);
  return !!m && !LITERAL_WORDS.has(m[1]!);
}

function isBlankOrComment(t: string): boolean {
  return /^\s*(#.*)?$/.test(t);
}

/** Splits a dotted key as written into its parts, unquoting quoted parts. */
export function splitKey(k: string): string[] {
  const out: string[] = [];
  // Sticky: each part is matched where the previous one ended, never searched for (issue #18).
  const re = new RegExp(`\\s*(${KEY})\\s*\\.?`, "y");
  let m: RegExpExecArray | null;
  while ((m = re.exec(k)) && m[0].length) {
    const p = m[1]!;
    out.push(p.startsWith('"') ? p.slice(1, -1).replace(/\\(.)/g, "$1") : p.startsWith("'") ? p.slice(1, -1) : p);
  }
  return out;
}

/** Index of the `#` that starts a line's comment, outside quoted strings; -1 when the line has none. */
export function commentStart(t: string): number {
  let quote: string | undefined;
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#") return i;
  }
  return -1;
}

/** Offset of the end of a line's content before a trailing comment and trailing blanks (string-aware enough for headers and keys). */
function contentEnd(t: string): number {
  const hash = commentStart(t);
  return (hash < 0 ? t : t.slice(0, hash)).trimEnd().length;
}

interface Statement {
  first: number;
  last: number;
}

/**
 * Explains the parse error at `index` in `text` (the text as parsed, with earlier causes already blanked)
 * and says what to set aside. `parserMessage` is toml-eslint-parser's message.
 */
export function explainTomlError(text: string, lines: LineIndex, index: number, parserMessage: string): TomlErrorCause {
  const at = Math.max(0, Math.min(index, text.length));
  const errLine = lines.positionAt(at).line;
  const line = (n: number) => lines.lineText(n);
  const start = (n: number) => lines.lineStart(n);

  if (/multiple times/.test(parserMessage)) return duplicate(text, lines, at, errLine);

  // An unterminated multi-line string runs to the end of the file: find its opener.
  if (/Unterminated string/.test(parserMessage)) {
    const ml = unclosedMultiline(lines, errLine);
    if (ml) return ml;
  }

  // The parser often stops at the first token after an incomplete statement (`tp =` then the next key):
  // then the cause is the statement before.
  const lt = line(errLine);
  const col = at - start(errLine);
  const firstTok = lt.length - lt.trimStart().length;
  let culprit = errLine;
  const atLineStart = col <= firstTok && (isStatementStart(lt) || isBlankOrComment(lt));
  if (atLineStart || (col >= lt.length && isBlankOrComment(lt))) {
    let p = errLine - (col <= firstTok ? 1 : 0);
    while (p >= 0 && isBlankOrComment(line(p))) p--;
    if (p >= 0) culprit = p;
  }
  const st = statementAround(lines, culprit);
  const head = line(st.first);
  const h = HEADER_LINE.exec(head);
  if (h && !KV_LINE.test(head)) return brokenHeader(lines, st.first, h, parserMessage, at);
  return brokenKeyValue(lines, st, at, parserMessage);
}

/** The statement containing `n`: from the nearest statement start at or above it to the line before the next one. */
function statementAround(lines: LineIndex, n: number): Statement {
  let first = n;
  while (first > 0 && !isStatementStart(lines.lineText(first))) first--;
  // A line that starts no statement belongs to the one above only when that one opens a multi-line value.
  if (first < n && !opensMultiline(lines.lineText(first))) first = n;
  let next = Math.max(first, n) + 1;
  while (next < lines.lineCount && !isStatementStart(lines.lineText(next))) next++;
  let last = next - 1;
  while (last > Math.max(first, n) && isBlankOrComment(lines.lineText(last))) last--;
  return { first, last };
}

function opensMultiline(t: string): boolean {
  const kv = KV_LINE.exec(t);
  if (!kv) return false;
  const rest = t.slice(kv[0].length).trim();
  if (rest.startsWith('"""') || rest.startsWith("'''")) return rest.length < 6 || !rest.slice(3).includes(rest.slice(0, 3));
  if (rest.startsWith("[")) return closingOf(rest, 0, rest.length, "[", "]") < 0;
  return false;
}

function lineRange(lines: LineIndex, first: number, last: number): [number, number] {
  return [lines.lineStart(first), lines.lineEnd(last)];
}

function brokenHeader(lines: LineIndex, n: number, h: HeaderMatch, parserMessage: string, at: number): TomlErrorCause {
  const t = lines.lineText(n);
  const s = lines.lineStart(n);
  const open = h[2]!;
  const name = h[3];
  const close = h[4];
  // The body: up to the next line that is a complete header.
  let next = n + 1;
  while (next < lines.lineCount && !isClosedHeaderLine(lines.lineText(next))) next++;
  const bodyStart = n + 1 < lines.lineCount ? lines.lineStart(n + 1) : lines.lineEnd(n);
  const bodyEnd = next < lines.lineCount ? lines.lineStart(next) : lines.text.length;
  const whole: [number, number] = [s, bodyEnd];
  const want = open === "[[" ? "]]" : "]";
  if (!name || /\.\s*$/.test(name)) {
    const pos = s + (name ? h[1]!.length + open.length + t.slice(h[1]!.length + open.length).indexOf(name) + name.trimEnd().length : h[1]!.length + open.length);
    return { message: `table header without a name: expected a key after "${open}"${name ? " and its dot" : ""}`, start: pos, end: pos, blank: [whole] };
  }
  if (close !== want) {
    const end = s + contentEnd(t);
    const keyEnd = s + t.indexOf(name, h[1]!.length + open.length) + name.trimEnd().length;
    const pos = close ? end : keyEnd;
    const message = `unclosed table header: expected "${want}" after ${open}${name.trim()}`;
    if (open === "[" && !close) {
      return { message, start: pos, end: pos, blank: [whole], body: { path: splitKey(name), start: bodyStart, end: bodyEnd, headerStart: s + h[1]!.length, headerEnd: end } };
    }
    return { message, start: pos, end: pos, blank: [whole] };
  }
  // A well-formed header the parser still rejects (e.g. a key already defined as a value).
  return { message: reword(parserMessage), start: at, end: tokenEnd(lines.text, at), blank: [whole] };
}

function brokenKeyValue(lines: LineIndex, st: Statement, at: number, parserMessage: string): TomlErrorCause {
  const text = lines.text;
  const n = st.first;
  const t = lines.lineText(n);
  const s = lines.lineStart(n);
  const blank = [lineRange(lines, st.first, st.last)];
  const kv = KV_LINE.exec(t);
  if (!kv) {
    const ko = KEY_ONLY_LINE.exec(t);
    if (ko) {
      const keyEnd = s + t.indexOf(ko[1]!) + ko[1]!.length;
      return { message: `expected "=" and a value after the key \`${ko[1]!.trim()}\``, start: keyEnd, end: keyEnd, blank, key: splitKey(ko[1]!) };
    }
    // A key followed by something other than "=" (`tp 8`).
    const k = new RegExp(`^(\\s*)(${DOTTED})(\\s+)(\\S)`).exec(t);
    if (k && at >= s && at <= lines.lineEnd(n)) {
      const p = s + k[1]!.length + k[2]!.length + k[3]!.length;
      return { message: `expected "=" between the key \`${k[2]}\` and its value`, start: p, end: p + 1, blank, key: splitKey(k[2]!) };
    }
    return { message: reword(parserMessage), start: at, end: tokenEnd(text, at), blank };
  }
  const key = splitKey(kv[2]!);
  const after = t.slice(kv[0].length);
  const lead = after.length - after.trimStart().length;
  const v = s + kv[0].length + lead; // value start
  const rest = after.trimStart();
  const c = rest[0];
  if (c === undefined || c === "#") {
    const pos = c === "#" ? v : lines.lineEnd(n);
    return { message: `missing value: \`${kv[2]!.trim()} =\` needs a value`, start: pos, end: pos, blank, key };
  }
  if (c === '"' || c === "'") {
    if (rest.startsWith(c.repeat(3))) return { message: reword(parserMessage), start: at, end: tokenEnd(text, at), blank, key };
    // Scan the single-line string for its closing quote and for invalid escapes.
    for (let i = 1; i < rest.length; i++) {
      const ch = rest[i]!;
      if (c === '"' && ch === "\\") {
        const e = rest[i + 1];
        if (e === "u" || e === "U") {
          const digits = e === "u" ? 4 : 8;
          const hex = /^[0-9A-Fa-f]*/.exec(rest.slice(i + 2, i + 2 + digits))![0];
          if (!new RegExp(`^[0-9A-Fa-f]{${digits}}$`).test(hex)) {
            const p = v + i;
            return { message: `invalid escape \`\\${e}${hex}\`: \\${e} needs ${digits} hexadecimal digits`, start: p, end: p + 2 + hex.length, blank, key };
          }
          i += 1 + digits;
          continue;
        }
        if (e === undefined || !'btnfr"\\'.includes(e)) {
          const p = v + i;
          const shown = e === undefined ? "\\" : `\\${e}`;
          return {
            message: `invalid escape \`${shown}\` in a string: TOML allows \\b \\t \\n \\f \\r \\" \\\\ \\uXXXX \\UXXXXXXXX (write \\\\ for a backslash, or use a 'literal string')`,
            start: p,
            end: p + shown.length,
            blank,
            key,
          };
        }
        i++;
        continue;
      }
      if (ch === c) return { message: reword(parserMessage), start: at, end: tokenEnd(text, at), blank, key };
    }
    const end = lines.lineEnd(n);
    return { message: `unterminated string: the closing ${c} is missing`, start: v, end: end, blank, key };
  }
  if (c === "=") return { message: `unexpected "=": expected a value after \`${kv[2]!.trim()} =\``, start: v, end: v + 1, blank, key };
  if (c === "[") {
    const close = closingOf(text, v, lines.lineEnd(st.last), "[", "]");
    if (close < 0) {
      const lastContent = lastContentEnd(lines, st);
      return { message: `unclosed array: expected "]" (the array opens at line ${n + 1}, column ${v - s + 1})`, start: lastContent, end: lastContent, blank, key };
    }
  }
  if (c === "{") {
    const close = closingOf(text, v, lines.lineEnd(n), "{", "}");
    if (close < 0) {
      const pos = s + contentEnd(t);
      return { message: `unclosed inline table: expected "}" (an inline table must close on the line it opens)`, start: pos, end: pos, blank, key };
    }
  }
  const word = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(rest);
  if (word && !LITERAL_WORDS.has(word[0]) && !/^[+-]?(inf|nan)$/.test(word[0])) {
    return { message: `invalid value \`${word[0]}\`: a string needs quotes ("${word[0]}")`, start: v, end: v + word[0].length, blank, key };
  }
  if (at > v && at <= lines.lineEnd(st.last) && /newline/i.test(parserMessage) && /\s/.test(text[at - 1]!)) {
    return { message: `unexpected \`${text.slice(at, tokenEnd(text, at))}\` after the value: expected the end of the line (one \`key = value\` per line)`, start: at, end: tokenEnd(text, at), blank, key };
  }
  // Anything else (a malformed number or date...): the parser's words at the token it stopped on, or at the value.
  const p = at >= v && at <= lines.lineEnd(st.last) ? valueTokenStart(text, v, at) : v;
  const tok = text.slice(p, tokenEnd(text, p));
  const why = /newline|unexpected character/i.test(parserMessage) ? "not a TOML value (a string needs quotes, a number only digits)" : reword(parserMessage);
  return { message: `invalid value \`${tok}\`: ${why}`, start: p, end: p + tok.length, blank, key };
}

function duplicate(text: string, lines: LineIndex, at: number, n: number): TomlErrorCause {
  const t = lines.lineText(n);
  const s = lines.lineStart(n);
  const h = HEADER_LINE.exec(t);
  if (h && h[3] && !KV_LINE.test(t)) {
    const name = h[3].trim();
    const ks = s + t.indexOf(name);
    let first = -1;
    for (let i = 0; i < n; i++) {
      const o = HEADER_LINE.exec(lines.lineText(i));
      if (o && o[3] && o[2] === h[2] && splitKey(o[3]).join(".") === splitKey(name).join(".")) {
        first = i;
        break;
      }
    }
    let next = n + 1;
    while (next < lines.lineCount && !isClosedHeaderLine(lines.lineText(next))) next++;
    const bodyEnd = next < lines.lineCount ? lines.lineStart(next) : text.length;
    const where = first >= 0 ? ` (first defined on line ${first + 1})` : " (a key of that name is already defined)";
    return { message: `duplicate table [${name}]${where}: TOML allows each table once`, start: ks, end: ks + name.length, blank: [[s, bodyEnd]] };
  }
  const kv = KV_LINE.exec(t);
  const st = statementAround(lines, n);
  const blank = [lineRange(lines, st.first, st.last)];
  if (!kv) return { message: "duplicate key: TOML allows each key once per table", start: at, end: tokenEnd(text, at), blank };
  const name = kv[2]!.trim();
  const key = splitKey(name);
  // The first definition: the same key earlier in the same table.
  let first = -1;
  for (let i = n - 1; i >= 0; i--) {
    const o = lines.lineText(i);
    if (HEADER_LINE.test(o) && !KV_LINE.test(o)) break;
    const m = KV_LINE.exec(o);
    if (m && splitKey(m[2]!).join(".") === key.join(".")) first = i;
  }
  const ks = s + kv[1]!.length;
  const where = first >= 0 ? ` (first defined on line ${first + 1}; this one is ignored)` : "";
  return { message: `duplicate key \`${name}\`${where}: TOML allows each key once per table`, start: ks, end: ks + name.length, blank };
}

/** An unterminated `"""` / `'''` string: the first opener in the text without a closer. */
function unclosedMultiline(lines: LineIndex, errLine: number): TomlErrorCause | undefined {
  const text = lines.text;
  for (let n = 0; n <= errLine && n < lines.lineCount; n++) {
    const t = lines.lineText(n);
    const kv = KV_LINE.exec(t);
    if (!kv) continue;
    const rest = t.slice(kv[0].length).trimStart();
    const q = rest.startsWith('"""') ? '"""' : rest.startsWith("'''") ? "'''" : undefined;
    if (!q) continue;
    const v = lines.lineStart(n) + t.indexOf(q, kv[0].length);
    const close = text.indexOf(q, v + 3);
    if (close >= 0) {
      n = lines.positionAt(close).line;
      continue;
    }
    // Guess where it was meant to end: before the next line that looks like a statement.
    let next = n + 1;
    while (next < lines.lineCount && !isStatementStart(lines.lineText(next))) next++;
    return {
      message: `unterminated multi-line string: the closing ${q} is missing`,
      start: v,
      end: v + 3,
      blank: [lineRange(lines, n, Math.max(n, next - 1))],
      key: splitKey(kv[2]!),
    };
  }
  return undefined;
}

/** The offset of the bracket closing the one at `open`, or -1 before `limit`. Skips strings and comments. */
function closingOf(text: string, open: number, limit: number, o: string, c: string): number {
  let depth = 0;
  for (let i = open; i < limit; i++) {
    const ch = text[i]!;
    if (ch === '"' || ch === "'") {
      const triple = text.startsWith(ch.repeat(3), i);
      const q = triple ? ch.repeat(3) : ch;
      let j = i + q.length;
      for (; j < limit; j++) {
        if (ch === '"' && text[j] === "\\") j++;
        else if (text.startsWith(q, j)) break;
        else if (!triple && text[j] === "\n") break;
      }
      i = j + q.length - 1;
    } else if (ch === "#") {
      while (i < limit && text[i] !== "\n") i++;
    } else if (ch === o) {
      depth++;
    } else if (ch === c) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function lastContentEnd(lines: LineIndex, st: Statement): number {
  for (let n = st.last; n >= st.first; n--) {
    const t = lines.lineText(n);
    if (!isBlankOrComment(t)) return lines.lineStart(n) + contentEnd(t);
  }
  return lines.lineEnd(st.first);
}

function valueTokenStart(text: string, v: number, at: number): number {
  let p = at;
  while (p > v && !/[\s,=[\]{}]/.test(text[p - 1]!)) p--;
  return p;
}

function tokenEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && !/[\s,\]}=#]/.test(text[end]!)) end++;
  return end === start ? Math.min(start + 1, text.length) : end;
}

/** toml-eslint-parser's messages, in the words of this product (lower case, no jargon where avoidable). */
function reword(m: string): string {
  const known: [RegExp, string][] = [
    [/Underscores are allowed between digits/, "underscores in a number must stand between digits"],
    [/Unexpected invalid date/, "not a valid date"],
    [/Empty bare keys/, "a key cannot be empty"],
    [/Unterminated string/, "unterminated string"],
  ];
  for (const [re, s] of known) if (re.test(m)) return s;
  return m.charAt(0).toLowerCase() + m.slice(1);
}

/** The table a line belongs to: the path of the nearest header above it ([] for the root, undefined for an array of tables). */
export function tableAbove(lines: LineIndex, n: number): string[] | undefined {
  for (let i = n - 1; i >= 0; i--) {
    const t = lines.lineText(i);
    const h = HEADER_LINE.exec(t);
    if (h && !KV_LINE.test(t)) return h[2] === "[[" || !h[3] ? undefined : splitKey(h[3]);
  }
  return [];
}
