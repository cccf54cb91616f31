/**
 * TOML front end: toml-eslint-parser gives an AST with offsets for every key and value, which we flatten
 * into the format-neutral model. Chosen because it is the one maintained JS TOML parser that keeps source
 * ranges (smol-toml and @iarna/toml give values only; @taplo/lib is WASM with a slow cold start).
 */
import { ParseError, parseTOML, type AST } from "toml-eslint-parser";
import type { ConfigComment, ConfigDocument, ConfigEntry, ConfigSection, ConfigValue } from "../model/document";
import { LineIndex } from "../model/lineIndex";
import { setOwn } from "../model/table";
import { forgetTomlScans, keyPartsReason, prepareToml, restoreLongStrings, skipReason, type TomlPrepared } from "./guard";
import { MAX_KEY_PARTS } from "../model/limits";
import { FULL_RECOVERY_MAX_CHARS, markRecovered, setUnparsedKeys, type UnparsedKey } from "./partial";
import { commonPrefix, commonSuffix, forgetTomlReads, parseTomlFast } from "./tomlFast";
import { commentStart, explainTomlError, tableAbove, type TomlErrorCause } from "./tomlRecover";

/**
 * At most this many parses for a file with syntax errors, recovery included: each syntax error costs one
 * more parse (two for a broken table header, whose body is parsed on its own). A file that parses costs one.
 * Files over FULL_RECOVERY_MAX_CHARS get two parses at most.
 */
export const MAX_TOML_PARSES = 8;

export function parseTomlDocument(uri: string, text: string): ConfigDocument {
  return parseToml(uri, text, true);
}

/** The toml-eslint-parser path alone, without the fast path (for tests and the bench, which compare both). */
export function parseTomlDocumentSlow(uri: string, text: string): ConfigDocument {
  return parseToml(uri, text, false);
}

/** The last few TOML documents' line indexes by URI: a new version's is derived from its last one (issue #36). */
const recentLines = new Map<string, LineIndex>();

/** Forgets the kept line indexes and fast reads (tests compare incremental and fresh parses). */
export function forgetTomlVersions(): void {
  recentLines.clear();
  forgetTomlReads();
  forgetTomlScans();
}

/** `text`'s line index, from the last one of `uri` when most of the text is unchanged (LineIndex.afterEdit). */
function linesOf(uri: string, text: string): LineIndex {
  const prev = recentLines.get(uri);
  let lines: LineIndex | undefined;
  if (prev?.text === text) lines = prev;
  else if (prev) {
    const prefix = commonPrefix(prev.text, text);
    const suffix = commonSuffix(prev.text, text, Math.min(prev.text.length, text.length) - prefix);
    if (prefix + suffix >= text.length / 2) lines = LineIndex.afterEdit(prev, text, prefix, suffix);
  }
  lines ??= new LineIndex(text);
  recentLines.delete(uri);
  recentLines.set(uri, lines);
  if (recentLines.size > 4) recentLines.delete(recentLines.keys().next().value!);
  return lines;
}

function parseToml(uri: string, text: string, fast: boolean): ConfigDocument {
  const lines = fast ? linesOf(uri, text) : new LineIndex(text);
  const doc: ConfigDocument = { uri, format: "toml", text, lines, entries: [], sections: [], comments: [], syntaxErrors: [] };
  const skipped = skipReason(text);
  if (skipped) {
    doc.skipped = skipped;
    return doc;
  }
  // Bounded before parsing: nesting depth, and long strings parsed in pieces (see guard.ts).
  const prepared = prepareToml(text, parseStringPiece, fast ? uri : undefined);
  if (prepared.skipped) {
    doc.skipped = prepared.skipped;
    return doc;
  }
  // The fast path (tomlFast.ts) reads most valid files in one pass; anything it is unsure of goes on below.
  if (fast && !prepared.longStrings.length) {
    // Keyed by the URI: a new version of the same document reads on from its first change (tomlFast.ts).
    const read = parseTomlFast(text, lines, uri);
    if (read) {
      doc.entries = read.entries;
      doc.sections = read.sections;
      doc.comments = read.comments;
      return doc;
    }
  }
  try {
    let program: AST.TOMLProgram;
    try {
      program = parseTOML(prepared.parseText, { tomlVersion: "1.0" });
      restoreLongStrings(program, prepared);
    } catch (e) {
      // A stack overflow is no syntax error: analyzeDocument turns it into an internal-error.
      if (!(e instanceof ParseError)) throw e;
      recover(doc, lines, e, prepared);
      return doc;
    }
    for (const c of program.comments) {
      doc.comments.push({ line: c.loc.start.line - 1, text: c.value.trim(), range: lines.range(c.range[0], c.range[1]) });
    }
    addProgram(doc, lines, program, []);
  } catch (e) {
    if (!(e instanceof KeyPartsError)) throw e;
    return { uri, format: "toml", text, lines, entries: [], sections: [], comments: [], syntaxErrors: [], skipped: keyPartsReason(lines.positionAt(e.offset).line) };
  }
  return doc;
}

/** A dotted key or header of more than MAX_KEY_PARTS parts (thrown before its paths are built). */
class KeyPartsError extends Error {
  constructor(readonly offset: number) {
    super("key parts");
  }
}

function checkParts(n: number, offset: number): void {
  if (n > MAX_KEY_PARTS) throw new KeyPartsError(offset);
}

/** Flattens one parsed program into the model. `prefix` is the table of its top-level keys (a recovered header's body). */
function addProgram(doc: ConfigDocument, lines: LineIndex, program: AST.TOMLProgram, rootPrefix: string[]): AST.TOMLProgram {
  const text = doc.text;
  const top = program.body[0];
  const arrayCounts = new Map<string, number>();
  for (const node of top.body) {
    if (node.type === "TOMLKeyValue") {
      addKeyValue(doc, lines, rootPrefix, node);
      continue;
    }
    checkParts(node.key.keys.length, node.range[0]);
    let prefix = node.resolvedKey.map(String);
    const header = node.key;
    const headerStart = node.range[0];
    // The header spans from "[" to "]"; the key node sits inside it.
    const closeBracket = text.indexOf("]", header.range[1]);
    const headerEnd = node.kind === "array" ? closeBracket + 2 : closeBracket + 1;
    const section: ConfigSection = {
      path: node.key.keys.map(keyName),
      headerRange: lines.range(headerStart, Math.max(headerEnd, header.range[1])),
      range: lines.range(node.range[0], node.range[1]),
    };
    if (node.kind === "array") {
      const k = section.path.join(".");
      const n = arrayCounts.get(k) ?? 0;
      arrayCounts.set(k, n + 1);
      section.isArrayItem = true;
      prefix = [...section.path, String(n)];
    }
    doc.sections.push(section);
    for (const kv of node.body) addKeyValue(doc, lines, prefix, kv);
  }
  return program;
}

/**
 * Error recovery (issue #14): explain the error at its cause, set the broken statement aside (blanked with
 * spaces, so offsets stay exact) and parse again, within MAX_TOML_PARSES parses in all. Everything that
 * still parses is in the model; the keys set aside are listed by `unparsedKeys`.
 */
function recover(doc: ConfigDocument, lines: LineIndex, firstError: unknown, prepared: TomlPrepared): void {
  // Parses the text as prepared by guard.ts (long strings as same-length placeholders, so offsets stay exact).
  const parse = (t: string): AST.TOMLProgram => {
    const p = parseTOML(t, { tomlVersion: "1.0" });
    restoreLongStrings(p, prepared);
    return p;
  };
  const budget = { left: (doc.text.length > FULL_RECOVERY_MAX_CHARS ? 2 : MAX_TOML_PARSES) - 1 };
  const causes: TomlErrorCause[] = [];
  const programs: AST.TOMLProgram[] = [];
  // Jobs: the document, then the bodies of broken headers (parsed on their own under the header's name).
  const jobs: { text: string; error: unknown; prefix: string[] }[] = [{ text: prepared.parseText, error: firstError, prefix: [] }];
  for (let j = 0; j < jobs.length; j++) {
    const job = jobs[j]!;
    let cur = job.text;
    let error = job.error;
    if (error === undefined) {
      if (budget.left <= 0) break;
      budget.left--;
      try {
        programs.push(addProgram(doc, lines, parse(cur), job.prefix));
        continue;
      } catch (e) {
        error = e;
      }
    }
    for (;;) {
      // A stack overflow (or any non-parse failure) is no syntax error: analyzeDocument reports it.
      if (!(error instanceof ParseError)) throw error;
      const cause = explainTomlError(cur, new LineIndex(cur), error.index, error.message);
      causes.push(cause);
      const before = cur;
      for (const [a, b] of cause.blank) cur = blankOut(cur, a, b);
      if (cause.body) jobs.push({ text: keepOnly(prepared.parseText, cause.body.start, cause.body.end), error: undefined, prefix: cause.body.path });
      if (cur === before || budget.left <= 0) break; // no progress, or out of parses: the rest stays unread
      budget.left--;
      try {
        programs.push(addProgram(doc, lines, parse(cur), job.prefix));
        break;
      } catch (e) {
        error = e;
      }
    }
  }
  for (const c of causes) {
    doc.syntaxErrors.push({ message: `TOML syntax error: ${c.message}`, range: lines.range(c.start, c.end) });
    if (c.body) {
      doc.sections.push({ path: c.body.path, headerRange: lines.range(c.body.headerStart, c.body.headerEnd), range: lines.range(c.body.headerStart, c.body.end) });
    }
  }
  if (programs.length) markRecovered(doc);
  // Source order, as for a file that parses.
  const byPos = (a: { start: { line: number; character: number } }, b: { start: { line: number; character: number } }) => a.start.line - b.start.line || a.start.character - b.start.character;
  doc.entries.sort((a, b) => byPos(a.range, b.range));
  doc.sections.sort((a, b) => byPos(a.headerRange, b.headerRange));
  doc.syntaxErrors.sort((a, b) => byPos(a.range, b.range));
  // Comments: the parsed ones, plus a line scan of what was set aside (directives still apply).
  const seen = new Set<number>();
  for (const p of programs) {
    for (const c of p.comments) {
      const line = c.loc.start.line - 1;
      if (seen.has(line)) continue;
      seen.add(line);
      doc.comments.push({ line, text: c.value.trim(), range: lines.range(c.range[0], c.range[1]) });
    }
  }
  const setAside = new Set<number>();
  for (const c of causes) for (const [a, b] of c.blank) for (let l = lines.positionAt(a).line; l <= lines.positionAt(b).line; l++) setAside.add(l);
  if (!programs.length) for (let l = 0; l < lines.lineCount; l++) setAside.add(l);
  for (const c of scanComments(lines)) if (setAside.has(c.line) && !seen.has(c.line)) doc.comments.push(c);
  doc.comments.sort((a, b) => a.line - b.line);
  const unparsed: UnparsedKey[] = [];
  for (const c of causes) {
    if (!c.key || !c.blank[0]) continue;
    const [a, b] = c.blank[0];
    const table = tableAbove(lines, lines.positionAt(a).line);
    if (table) unparsed.push({ path: [...table, ...c.key], range: lines.range(a, lines.lineEnd(lines.positionAt(a).line) > b ? b : lines.lineEnd(lines.positionAt(a).line)) });
  }
  setUnparsedKeys(doc, unparsed);
}

/** Replaces every character of text[a, b) except line breaks with a space. */
function blankOut(text: string, a: number, b: number): string {
  if (b <= a) return text;
  const mid = text.slice(a, b).replace(/[^\r\n]/g, " ");
  return text.slice(0, a) + mid + text.slice(b);
}

/** The text with everything outside [a, b) blanked. */
function keepOnly(text: string, a: number, b: number): string {
  return blankOut(blankOut(text, b, text.length), 0, a);
}

/** The value of `x = "<piece>"`, for guard.ts's long strings; undefined when the piece does not parse. */
function parseStringPiece(src: string): string | undefined {
  try {
    const kv = parseTOML(src, { tomlVersion: "1.0" }).body[0].body[0];
    return kv?.type === "TOMLKeyValue" && kv.value.type === "TOMLValue" && kv.value.kind === "string" ? kv.value.value : undefined;
  } catch {
    return undefined;
  }
}

function keyName(k: AST.TOMLBare | AST.TOMLQuoted): string {
  return k.type === "TOMLBare" ? k.name : k.value;
}

function addKeyValue(doc: ConfigDocument, lines: LineIndex, prefix: string[], kv: AST.TOMLKeyValue): void {
  checkParts(prefix.length + kv.key.keys.length, kv.range[0]);
  const path = [...prefix, ...kv.key.keys.map(keyName)];
  const value = toValue(doc, lines, path, kv.value);
  const entry: ConfigEntry = {
    path,
    keyRange: lines.range(kv.key.range[0], kv.key.range[1]),
    range: lines.range(kv.range[0], kv.range[1]),
    value,
  };
  doc.entries.push(entry);
}

function toValue(doc: ConfigDocument, lines: LineIndex, path: string[], node: AST.TOMLContentNode): ConfigValue {
  const range = lines.range(node.range[0], node.range[1]);
  const raw = doc.text.slice(node.range[0], node.range[1]);
  switch (node.type) {
    case "TOMLArray": {
      const items = node.elements.map((el, i) => toValue(doc, lines, [...path, String(i)], el));
      return { kind: "array", value: items.map((i) => i.value), range, items, raw };
    }
    case "TOMLInlineTable": {
      const entries: ConfigEntry[] = [];
      const obj: Record<string, unknown> = {};
      for (const kv of node.body) {
        checkParts(path.length + kv.key.keys.length, kv.range[0]);
        const sub = [...path, ...kv.key.keys.map(keyName)];
        const v = toValue(doc, lines, sub, kv.value);
        entries.push({ path: sub, keyRange: lines.range(kv.key.range[0], kv.key.range[1]), range: lines.range(kv.range[0], kv.range[1]), value: v });
        setOwn(obj, sub.slice(path.length).join("."), v.value);
      }
      return { kind: "table", value: obj, range, entries, raw };
    }
    default:
      switch (node.kind) {
        case "string":
          return { kind: "string", value: node.value, range, raw };
        case "integer":
          return { kind: "integer", value: node.value, range, raw };
        case "float":
          return { kind: "float", value: node.value, range, raw };
        case "boolean":
          return { kind: "boolean", value: node.value, range, raw };
        default:
          return { kind: "datetime", value: node.datetime, range, raw };
      }
  }
}

/** A line scan for `#` comments, used only when the parser failed. Ignores `#` inside quoted strings. */
function scanComments(lines: LineIndex): ConfigComment[] {
  const out: ConfigComment[] = [];
  for (let line = 0; line < lines.lineCount; line++) {
    const t = lines.lineText(line);
    const i = commentStart(t);
    if (i < 0) continue;
    const start = lines.lineStart(line) + i;
    out.push({ line, text: t.slice(i + 1).trim(), range: lines.range(start, start + t.length - i) });
  }
  return out;
}
