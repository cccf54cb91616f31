/**
 * TOML text edits that keep comments and layout: set (or insert) a key in a table, creating the table
 * when needed; delete an entry's line(s); rename a key; move a key to another table. Used by quick fixes
 * and by `check --fix`. Every function returns LSP-style TextEdits against the document as it is; the
 * edits of one call never overlap each other.
 *
 * Conventions:
 *  - `tablePath` is a full table path from the root (`["quantize", "linear", "float8"]`), `[]` for the root.
 *  - `valueText` is TOML source text (`"\"bfloat16\""`, `8`, `["float8"]`), written as given.
 *  - Keys are written bare when they can be, quoted otherwise.
 *  - New lines copy the indentation of the entry they follow and the document's line break.
 */
import type { ConfigDocument, ConfigEntry, ConfigSection } from "../model/document";
import type { Position, Range, TextEdit } from "../model/types";

type Doc = Pick<ConfigDocument, "text" | "lines" | "entries" | "sections">;

const BARE = /^[A-Za-z0-9_-]+$/;

/** A key segment as TOML source: bare when possible, else a basic string. */
export function tomlKey(segment: string): string {
  return BARE.test(segment) ? segment : JSON.stringify(segment);
}

/** A dotted key as TOML source. */
export function tomlDottedKey(segments: readonly string[]): string {
  return segments.map(tomlKey).join(".");
}

/** A JS value as TOML value source (strings, numbers, booleans, arrays of those). */
export function tomlValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : Number.isFinite(v) ? String(v) : v > 0 ? "inf" : v < 0 ? "-inf" : "nan";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(", ")}]`;
  if (v && typeof v === "object") {
    return `{ ${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${tomlKey(k)} = ${tomlValue(x)}`)
      .join(", ")} }`;
  }
  return '""';
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((s, i) => s === path[i]);
}

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

/** Sections in source order, per document: binary search keeps header lookups O(log n) on huge files. */
const sortedSections = new WeakMap<readonly ConfigSection[], ConfigSection[]>();

/** The last section whose header starts at or before `pos`. */
function sectionAt(doc: Doc, pos: Position): ConfigSection | undefined {
  let sorted = sortedSections.get(doc.sections);
  if (!sorted) {
    sorted = [...doc.sections].sort((a, b) => (before(a.headerRange.start, b.headerRange.start) ? -1 : before(b.headerRange.start, a.headerRange.start) ? 1 : 0));
    sortedSections.set(doc.sections, sorted);
  }
  let lo = 0;
  let hi = sorted.length - 1;
  let found: ConfigSection | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (!before(pos, sorted[mid]!.headerRange.start)) {
      found = sorted[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * The table prefix an entry was written under: the path of the table header above it (with the
 * array-of-tables index for `[[x]]` items), or `[]` for root entries.
 */
export function headerPrefixOf(doc: Doc, entry: ConfigEntry): string[] {
  const sec = sectionAt(doc, entry.keyRange.start);
  if (!sec) return [];
  if (!sec.isArrayItem) return sec.path;
  // The entry path carries the index right after the array-of-tables path.
  return entry.path.slice(0, sec.path.length + 1);
}

/** The key as it should be written on the entry's own line for a full `path` under `prefix`. */
function writtenKey(path: readonly string[], prefix: readonly string[]): string {
  return tomlDottedKey(path.slice(prefix.length));
}

/** The entry with exactly this path (last one wins), top-level or inside an inline table. */
export function findEntryDeep(doc: Doc, path: readonly string[]): ConfigEntry | undefined {
  let found: ConfigEntry | undefined;
  const visit = (e: ConfigEntry): void => {
    if (samePath(e.path, path)) found = e;
    if (e.value.kind === "table" && e.value.entries && startsWith(path, e.path)) for (const sub of e.value.entries) visit(sub);
  };
  for (const e of doc.entries) visit(e);
  return found;
}

function indentOf(doc: Doc, line: number): string {
  return /^[ \t]*/.exec(doc.lines.lineText(line))![0];
}

function insertAt(doc: Doc, offset: number, text: string): TextEdit {
  const p = doc.lines.positionAt(offset);
  return { range: { start: p, end: p }, newText: text };
}

/**
 * Sets `key` in table `tablePath` to `valueText`.
 *  1. The key exists (in its `[table]`, as a dotted key in a parent table, or in an inline table):
 *     its value text is replaced; key, spacing and trailing comment stay.
 *  2. The table has entries: a line `key = value` is inserted after the last of them, written relative
 *     to the header that entry sits under (so a dotted-key table gets a dotted key).
 *  3. The table has a header but no entries: the line goes right after the header.
 *  4. The table is an inline table value: `, key = value` is added before its closing brace.
 *  5. Otherwise a new `[table]` with the line is appended at the end of the file (root keys go before
 *     the first table header).
 */
export function setKey(doc: Doc, tablePath: readonly string[], key: string, valueText: string): TextEdit[] {
  const full = [...tablePath, key];
  const existing = findEntryDeep(doc, full);
  if (existing) return [{ range: existing.value.range, newText: valueText }];

  const eol = doc.lines.eol;
  // Inline table holding the table (or an ancestor that would hold it).
  const inline = findInlineContainer(doc, tablePath);
  if (inline) {
    const rel = full.slice(inline.path.length);
    const v = inline.value;
    const closeOffset = doc.lines.offsetAt(v.range.end) - 1; // the "}"
    const hasEntries = (v.entries ?? []).length > 0;
    let inner = closeOffset;
    while (inner > 0 && /[ \t]/.test(doc.text[inner - 1]!)) inner--;
    const text = `${hasEntries ? ", " : " "}${tomlDottedKey(rel)} = ${valueText}${hasEntries ? "" : " "}`;
    return [insertAt(doc, hasEntries ? inner : closeOffset, hasEntries ? text : text.trimEnd() + " ")];
  }

  // Top-level entries under the table (not counting entries of inline tables, which sit on their parent's line).
  const under = doc.entries.filter((e) => startsWith(e.path, tablePath) && e.path.length > tablePath.length);
  const usable = under.filter((e) => {
    const prefix = headerPrefixOf(doc, e);
    return startsWith(tablePath, prefix) || samePath(prefix, tablePath);
  });
  if (usable.length) {
    const last = usable.reduce((a, b) => (before(a.range.end, b.range.end) ? b : a));
    const prefix = headerPrefixOf(doc, last);
    const line = last.range.end.line;
    const text = `${eol}${indentOf(doc, last.range.start.line)}${writtenKey(full, prefix)} = ${valueText}`;
    return [insertAt(doc, doc.lines.lineEnd(line), text)];
  }

  const header = doc.sections.find((s) => !s.isArrayItem && samePath(s.path, tablePath));
  if (header) {
    const line = header.headerRange.end.line;
    const text = `${eol}${indentOf(doc, header.headerRange.start.line)}${tomlDottedKey([key])} = ${valueText}`;
    return [insertAt(doc, doc.lines.lineEnd(line), text)];
  }

  if (tablePath.length === 0) {
    // Root key: before the first header (after any leading comments directly above it stay with the header).
    const first = doc.sections[0];
    if (first) {
      let line = first.headerRange.start.line;
      while (line > 0 && doc.lines.lineText(line - 1).trim().startsWith("#")) line--;
      return [insertAt(doc, doc.lines.lineStart(line), `${tomlKey(key)} = ${valueText}${eol}${line > 0 ? "" : eol}`)];
    }
    const lead = doc.text.length && !/\r?\n$/.test(doc.text) ? eol : "";
    return [insertAt(doc, doc.text.length, `${lead}${tomlKey(key)} = ${valueText}${eol}`)];
  }

  return [insertAt(doc, doc.text.length, newTableText(doc, tablePath, [`${tomlKey(key)} = ${valueText}`]))];
}

/** Text that appends `[tablePath]` with `lines` at the end of the document (blank line before it). */
function newTableText(doc: Doc, tablePath: readonly string[], lines: string[]): string {
  const eol = doc.lines.eol;
  let lead = "";
  if (doc.text.length) {
    if (!/\r?\n$/.test(doc.text)) lead = eol + eol;
    else if (!/\r?\n\s*\r?\n$/.test(doc.text) && doc.text.trim().length) lead = eol;
  }
  return `${lead}[${tomlDottedKey(tablePath)}]${eol}${lines.map((l) => l + eol).join("")}`;
}

function findInlineContainer(doc: Doc, tablePath: readonly string[]): ConfigEntry | undefined {
  for (let n = tablePath.length; n > 0; n--) {
    const e = findEntryDeep(doc, tablePath.slice(0, n));
    if (e) return e.value.kind === "table" ? e : undefined;
  }
  return undefined;
}

/** True when the entry's lines hold nothing but the entry (plus indentation and a trailing comment). */
function ownsItsLines(doc: Doc, entry: ConfigEntry): boolean {
  const startLine = entry.range.start.line;
  const endLine = entry.range.end.line;
  const head = doc.lines.lineText(startLine).slice(0, entry.range.start.character);
  if (head.trim() !== "") return false;
  const tail = doc.lines.lineText(endLine).slice(entry.range.end.character).trim();
  return tail === "" || tail.startsWith("#");
}

/** Range of the whole line(s) of an entry including the line break (the previous one at end of file). */
export function entryLinesRange(doc: Doc, entry: ConfigEntry): Range {
  const startLine = entry.range.start.line;
  const endLine = entry.range.end.line;
  if (endLine + 1 < doc.lines.lineCount) {
    return { start: { line: startLine, character: 0 }, end: { line: endLine + 1, character: 0 } };
  }
  // Last line of the file: also remove the line break before it.
  const start = startLine > 0 ? doc.lines.positionAt(doc.lines.lineEnd(startLine - 1)) : { line: 0, character: 0 };
  return { start, end: doc.lines.positionAt(doc.lines.lineEnd(endLine)) };
}

/**
 * Removes an entry: its whole line(s), trailing comment included, when it is alone on them; otherwise
 * (an entry inside an inline table) the entry and one adjacent comma.
 */
export function deleteEntry(doc: Doc, entry: ConfigEntry): TextEdit[] {
  if (ownsItsLines(doc, entry)) return [{ range: entryLinesRange(doc, entry), newText: "" }];
  let s = doc.lines.offsetAt(entry.range.start);
  let e = doc.lines.offsetAt(entry.range.end);
  const after = /^\s*,\s*/.exec(doc.text.slice(e));
  if (after) e += after[0].length;
  else {
    const beforeText = doc.text.slice(0, s);
    const m = /,\s*$/.exec(beforeText);
    if (m) s -= m[0].length;
  }
  return [{ range: doc.lines.range(s, e), newText: "" }];
}

/** Renames the last segment of an entry's key (as written: dotted keys keep their other segments). */
export function renameKey(doc: Doc, entry: ConfigEntry, newKey: string): TextEdit[] {
  const written = doc.text.slice(doc.lines.offsetAt(entry.keyRange.start), doc.lines.offsetAt(entry.keyRange.end));
  const segs = splitWrittenKey(written);
  const n = segs.length;
  const prefixPath = entry.path.slice(0, entry.path.length - n);
  const newText = writtenKey([...entry.path.slice(0, -1), newKey], prefixPath);
  return [{ range: entry.keyRange, newText }];
}

/** Splits written key text (`a."b.c" . d`) into its segments' count-preserving raw parts. */
function splitWrittenKey(text: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      cur += c;
      if (c === "\\" && quote === '"') cur += text[++i] ?? "";
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
      cur += c;
    } else if (c === ".") {
      out.push(cur.trim());
      cur = "";
    } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

export interface MoveOptions {
  /** The key name in the target table (default: the entry's own key name). */
  newKey?: string;
  /** Replacement value text (default: the value as written). */
  valueText?: string;
  /**
   * When the key already exists in the target table: "replace" its value (default) or "keep" it and
   * just delete the old entry.
   */
  onExisting?: "replace" | "keep";
}

/**
 * Moves an entry to table `toTable` (creating the table if needed), optionally under a new name and
 * with a new value; the old line goes, its trailing comment travels with it. When the target table is
 * the entry's own table this is a rename (plus a value replacement).
 */
export function moveKey(doc: Doc, entry: ConfigEntry, toTable: readonly string[], opts: MoveOptions = {}): TextEdit[] {
  const key = opts.newKey ?? entry.path[entry.path.length - 1]!;
  const valueText = opts.valueText ?? doc.text.slice(doc.lines.offsetAt(entry.value.range.start), doc.lines.offsetAt(entry.value.range.end));
  const fromTable = entry.path.slice(0, -1);
  if (samePath(fromTable, toTable)) {
    const target = findEntryDeep(doc, [...toTable, key]);
    if (target && target !== entry) {
      const del = deleteEntry(doc, entry);
      return opts.onExisting === "keep" ? del : [...del, { range: target.value.range, newText: valueText }];
    }
    const edits = key === entry.path[entry.path.length - 1] ? [] : renameKey(doc, entry, key);
    if (opts.valueText !== undefined) edits.push({ range: entry.value.range, newText: valueText });
    return edits;
  }
  const target = findEntryDeep(doc, [...toTable, key]);
  const del = deleteEntry(doc, entry);
  if (target && opts.onExisting === "keep") return del;
  // Keep the trailing comment of a line-owning entry with the moved line.
  let comment = "";
  if (ownsItsLines(doc, entry)) {
    const tail = doc.lines.lineText(entry.range.end.line).slice(entry.range.end.character);
    if (tail.trim().startsWith("#")) comment = tail.trimEnd();
  }
  const set = setKey(withoutEntry(doc, entry), toTable, key, valueText + (target ? "" : comment));
  // An insertion point inside the deleted line(s) would overlap: move it to the start of the deletion.
  const delRange = del[0]!.range;
  const adjusted = set.map((e) => (isInsideRange(e.range.start, delRange) && !samePos(e.range.start, delRange.start) ? { ...e, range: { start: delRange.start, end: delRange.start }, newText: e.newText.replace(/^\r?\n/, "") + doc.lines.eol } : e));
  return [...del, ...adjusted];
}

function samePos(a: Position, b: Position): boolean {
  return a.line === b.line && a.character === b.character;
}

function isInsideRange(p: Position, r: Range): boolean {
  return !before(p, r.start) && before(p, r.end);
}

/** A view of the document without one entry (for choosing where to insert a moved key). */
function withoutEntry(doc: Doc, entry: ConfigEntry): Doc {
  return { ...doc, entries: doc.entries.filter((e) => e !== entry) };
}

/**
 * Renames a whole table header (`[float8]` → `[quantize.linear.float8]`). Only the header text changes,
 * so entries and comments under it stay as they are. Dotted keys elsewhere that write into the old
 * table are not touched (callers move them with moveKey).
 */
export function renameTable(_doc: Doc, section: ConfigSection, newPath: readonly string[]): TextEdit[] {
  const open = section.isArrayItem ? "[[" : "[";
  const close = section.isArrayItem ? "]]" : "]";
  return [{ range: section.headerRange, newText: `${open}${tomlDottedKey(newPath)}${close}` }];
}
