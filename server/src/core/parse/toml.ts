/**
 * TOML front end: toml-eslint-parser gives an AST with offsets for every key and value, which we flatten
 * into the format-neutral model. Chosen because it is the one maintained JS TOML parser that keeps source
 * ranges (smol-toml and @iarna/toml give values only; @taplo/lib is WASM with a slow cold start).
 */
import { ParseError, parseTOML, type AST } from "toml-eslint-parser";
import type { ConfigComment, ConfigDocument, ConfigEntry, ConfigSection, ConfigValue } from "../model";
import { LineIndex } from "../text";
import { prepareToml, restoreLongStrings, skipReason } from "./guard";

export function parseTomlDocument(uri: string, text: string): ConfigDocument {
  const lines = new LineIndex(text);
  const doc: ConfigDocument = { uri, format: "toml", text, lines, entries: [], sections: [], comments: [], syntaxErrors: [] };
  const skipped = skipReason(text);
  if (skipped) {
    doc.skipped = skipped;
    return doc;
  }
  // Bounded before parsing: nesting depth, and long strings parsed in pieces (see guard.ts).
  const prepared = prepareToml(text, parseStringPiece);
  if (prepared.skipped) {
    doc.skipped = prepared.skipped;
    return doc;
  }
  let program: AST.TOMLProgram;
  try {
    program = parseTOML(prepared.parseText, { tomlVersion: "1.0" });
    restoreLongStrings(program, prepared);
  } catch (e) {
    // A stack overflow is no syntax error: analyzeDocument turns it into an internal-error.
    if (!(e instanceof ParseError)) throw e;
    doc.syntaxErrors.push(toSyntaxError(e, lines));
    // Comments still matter for directives (world size, suppressions) in a broken file.
    doc.comments = scanComments(lines);
    return doc;
  }
  for (const c of program.comments) {
    doc.comments.push({ line: c.loc.start.line - 1, text: c.value.trim(), range: lines.range(c.range[0], c.range[1]) });
  }
  const top = program.body[0];
  const arrayCounts = new Map<string, number>();
  for (const node of top.body) {
    if (node.type === "TOMLKeyValue") {
      addKeyValue(doc, lines, [], node);
      continue;
    }
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
  return doc;
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
        const sub = [...path, ...kv.key.keys.map(keyName)];
        const v = toValue(doc, lines, sub, kv.value);
        entries.push({ path: sub, keyRange: lines.range(kv.key.range[0], kv.key.range[1]), range: lines.range(kv.range[0], kv.range[1]), value: v });
        obj[sub.slice(path.length).join(".")] = v.value;
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

function toSyntaxError(e: unknown, lines: LineIndex): { message: string; range: ConfigDocument["syntaxErrors"][number]["range"] } {
  if (e instanceof ParseError) {
    const start = Math.max(0, Math.min(e.index, lines.text.length));
    // Underline the offending token (up to the end of the word) or one character.
    let end = start;
    while (end < lines.text.length && !/[\s,\]\}=]/.test(lines.text[end]!)) end++;
    if (end === start) end = Math.min(start + 1, lines.text.length);
    return { message: `TOML syntax error: ${e.message}`, range: lines.range(start, end) };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { message: `TOML syntax error: ${message}`, range: lines.range(0, 0) };
}

/** A line scan for `#` comments, used only when the parser failed. Ignores `#` inside quoted strings. */
function scanComments(lines: LineIndex): ConfigComment[] {
  const out: ConfigComment[] = [];
  for (let line = 0; line < lines.lineCount; line++) {
    const t = lines.lineText(line);
    let quote: string | undefined;
    for (let i = 0; i < t.length; i++) {
      const c = t[i]!;
      if (quote) {
        if (c === "\\" && quote === '"') i++;
        else if (c === quote) quote = undefined;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === "#") {
        const start = lines.lineStart(line) + i;
        out.push({ line, text: t.slice(i + 1).trim(), range: lines.range(start, start + t.length - i) });
        break;
      }
    }
  }
  return out;
}
