/**
 * Completion for torchtitan TOML configs from the versioned schema: table names inside `[...]`, keys
 * of the current table (with type, default and doc; keys already present are left out), and values
 * after `=` (allowed choices, booleans, the default, converter names inside `converters = [...]`).
 *
 * Plain data: the server maps these onto LSP CompletionItems (kind section → Module, key → Property,
 * value → Value/EnumMember; documentation is Markdown; `textEdit` replaces `range` with `insertText`).
 */
import type { KeyCompletion } from "../analysis";
import type { ConfigDocument } from "../model/document";
import type { Position, Range } from "../model/types";
import { CONVERTER_DOCS, type ExtensionModule } from "../frameworks/torchtitan/schema/data";
import { choicesAt, converterNamesAt, effectiveDefault, extensionOf, keyInfo, keysAt, keysOfTable, sectionsOf, type When } from "../frameworks/torchtitan/schema/index";
import { defaultText, specMarkdown, typeLabel } from "../frameworks/torchtitan/schema/hover";
import { leafEntries, schemaView } from "../frameworks/torchtitan/schema/view";
import { tomlValue } from "../edit/toml";

export type CompletionKind = "section" | "key" | "value";

export interface CompletionItem {
  label: string;
  kind: CompletionKind;
  detail?: string;
  /** Markdown. */
  documentation?: string;
  insertText: string;
  /** When set, `insertText` replaces this range (otherwise the word at the cursor). */
  range?: Range;
  /** Sort key (lower first). */
  sortText?: string;
  /** The value is the default (editors may preselect it). */
  preselect?: boolean;
}

/**
 * The name between the brackets of a table header line (`[a.b]`, `[[a.b]]`, a comment after it allowed),
 * trimmed; undefined when the line is not one (`nonEmpty`: `[]` is not one either). By hand, not a
 * regex: the lazy name between two runs of blanks was quadratic on a long line (issue #18).
 */
export function headerName(line: string, nonEmpty: boolean): string | undefined {
  const t = line.trimStart();
  if (t[0] !== "[") return undefined;
  let open = t[1] === "[" ? 2 : 1;
  const close = t.indexOf("]", open);
  if (close < 0) return undefined;
  // `[[]`: with a name required, the second `[` is the name.
  if (nonEmpty && close === open && open === 2) open--;
  if (nonEmpty && close === open) return undefined;
  const inner = t.slice(open, close);
  const rest = t.slice(t[close + 1] === "]" ? close + 2 : close + 1).trimStart();
  return rest === "" || rest[0] === "#" ? inner.trim() : undefined;
}

/**
 * `key = value-so-far` before the cursor: the key as written (dotted, blanks only around its dots) and what
 * follows `=` (leading blanks dropped); undefined otherwise. By hand, linear (issue #18).
 */
export function keyAssignment(before: string): { key: string; value: string } | undefined {
  const eq = before.indexOf("=");
  if (eq < 0) return undefined;
  const key = before.slice(0, eq).trim();
  // The key's language, (K|.)+ (\s* . \s* K+)* with K = [A-Za-z0-9_"-], run as a set of states, one pass:
  // 1 = in the first part, 2 = blanks before a dot, 4 = blanks after a dot, 8 = in a part after a dot.
  let states = 0;
  for (let i = 0; i < key.length; i++) {
    const c = key[i]!;
    const k = /[A-Za-z0-9_"-]/.test(c);
    const dot = c === ".";
    const blank = /\s/.test(c);
    let next = 0;
    if (i === 0) next = k || dot ? 1 : 0;
    else {
      if (states & 1 && (k || dot)) next |= 1;
      if (states & (1 | 8) && blank) next |= 2;
      if (states & (1 | 2 | 8) && dot) next |= 4;
      if (states & 2 && blank) next |= 2;
      if (states & 4 && blank) next |= 4;
      if (states & (4 | 8) && k) next |= 8;
    }
    states = next;
    if (!states) return undefined;
  }
  if (!(states & (1 | 8))) return undefined;
  return { key, value: before.slice(eq + 1).trimStart() };
}

/** The table the cursor line belongs to: the last header at or above it (root = []). */
function tableAt(doc: ConfigDocument, line: number): string[] {
  // Headers are recognised from the text so completion works while the file does not parse.
  for (let l = line; l >= 0; l--) {
    const name = headerName(doc.lines.lineText(l), false);
    if (name !== undefined && l !== line) return name.split(".").map((s) => s.trim().replace(/^["']|["']$/g, ""));
    if (name !== undefined && l === line) continue;
  }
  return [];
}

/** Tables and keys written in the text, read line by line so a file that does not parse still counts. */
function scanWritten(doc: ConfigDocument): { tables: Set<string>; keys: Set<string> } {
  const tables = new Set(doc.sections.map((s) => s.path.join(".")));
  const keys = new Set(leafEntries(doc).map((e) => e.path.join(".")));
  let table: string[] = [];
  for (let l = 0; l < doc.lines.lineCount; l++) {
    const t = doc.lines.lineText(l);
    const h = headerName(t, true);
    if (h !== undefined) {
      table = h.split(".").map((x) => x.trim().replace(/^["']|["']$/g, ""));
      tables.add(table.join("."));
      continue;
    }
    const k = /^\s*([A-Za-z0-9_.-]+)\s*=/.exec(t);
    if (k) keys.add([...table, ...k[1]!.split(".")].join("."));
  }
  return { tables, keys };
}

export function complete(doc: ConfigDocument, release: When, position: Position, workspace: readonly ExtensionModule[] = []): CompletionItem[] {
  const lineText = doc.lines.lineText(position.line);
  const before = lineText.slice(0, position.character);
  const view = schemaView(doc, release, workspace);

  // [table header]
  const hm = /^\s*\[\[?\s*([A-Za-z0-9_."-]*)$/.exec(before);
  if (hm) {
    const typed = hm[1]!;
    const startChar = position.character - typed.length;
    const after = lineText.slice(position.character);
    const endInLine = /^[A-Za-z0-9_."-]*/.exec(after)![0].length;
    const range: Range = { start: { line: position.line, character: startChar }, end: { line: position.line, character: position.character + endInLine } };
    const closes = /^[A-Za-z0-9_."-]*\s*\]/.test(after);
    const existing = scanWritten(doc).tables;
    const names = sectionsOf(release, view.extensions).filter((s) => !existing.has(s) && hasDirectKeys(release, s, view));
    return names.sort().map((n) => ({ label: n, kind: "section" as const, detail: "table", insertText: closes ? n : `${n}]`, range, sortText: n }));
  }

  // value after `key =`
  const vm = keyAssignment(before);
  if (vm) {
    const written = vm.key.split(".").map((s) => s.trim().replace(/^["']|["']$/g, ""));
    const path = [...tableAt(doc, position.line), ...written];
    return valueItems(release, path, vm.value, lineText.slice(position.character), position, view.extensions);
  }

  // key at the start of a line
  const km = /^\s*([A-Za-z0-9_.-]*)$/.exec(before);
  if (!km) return [];
  const table = tableAt(doc, position.line);
  const typed = km[1]!;
  const range: Range = { start: { line: position.line, character: position.character - typed.length }, end: position };
  const written = scanWritten(doc);
  const present = written.keys;
  const items: CompletionItem[] = [];
  if (table.length === 0) {
    // Root: offer tables as headers.
    const existing = written.tables;
    for (const s of sectionsOf(release, view.extensions)) {
      if (existing.has(s) || !hasDirectKeys(release, s, view)) continue;
      items.push({ label: `[${s}]`, kind: "section", detail: "table", insertText: `[${s}]`, range, sortText: s });
    }
    return items;
  }
  const prefix = table.join(".") + ".";
  const candidates = [...keysAt(release).values(), ...view.extensions.flatMap((e) => e.keys)].filter((k) => k.path.startsWith(prefix) && keyInfo(release, k.path, view.extensions) === k);
  const seen = new Set<string>();
  for (const spec of candidates) {
    if (present.has(spec.path) || seen.has(spec.path)) continue;
    seen.add(spec.path);
    const rel = spec.path.slice(prefix.length);
    // Keys of a sub-table that has its own header in the file belong there.
    if (rel.includes(".") && [...written.tables].some((t) => spec.path.startsWith(t + ".") && t.split(".").length > table.length)) continue;
    const def = effectiveDefault(spec, release);
    const ext = extensionOf(release, spec.path, view.extensions);
    const valueText = def === undefined ? (spec.type === "str" ? '""' : spec.type === "bool" ? "false" : spec.type.startsWith("list") ? "[]" : "") : tomlValue(def);
    items.push({
      label: rel,
      kind: "key",
      detail: ext?.sourcePath ? `${spec.type} · ${ext.sourcePath}` : `${typeLabel(spec)} = ${defaultText(spec, release)}`,
      documentation: specMarkdown(spec, release, ext),
      insertText: `${rel} = ${valueText}`,
      range,
      sortText: `${rel.includes(".") ? "1" : "0"}${rel}`,
    });
  }
  return items;
}

function hasDirectKeys(release: When, table: string, view: ReturnType<typeof schemaView>): boolean {
  return keysOfTable(release, table, view.extensions).length > 0;
}

function valueItems(release: When, path: string[], typedValue: string, rest: string, position: Position, extensions: ReturnType<typeof schemaView>["extensions"]): CompletionItem[] {
  const spec = keyInfo(release, path, extensions);
  if (!spec) return [];
  // Inside an array: complete the current item.
  const inArray = typedValue.trimStart().startsWith("[");
  let token = typedValue;
  if (inArray) token = typedValue.slice(typedValue.lastIndexOf("[") + 1).split(",").pop()!.trimStart();
  const tokenStart = position.character - token.length;
  // Inside quotes: replace the closing quote too, so `"bf|"` becomes `"bfloat16"`, not `"bfloat16""`.
  const closing = /^["']/.test(token) && rest.startsWith(token[0]!) ? 1 : 0;
  const range: Range = { start: { line: position.line, character: tokenStart }, end: { line: position.line, character: position.character + closing } };
  const items: CompletionItem[] = [];
  const def = effectiveDefault(spec, release);
  const push = (label: string, insert: string, doc?: string, isDefault = false) =>
    items.push({ label, kind: "value", detail: isDefault ? `default of ${spec.path}` : spec.path, ...(doc ? { documentation: doc } : {}), insertText: insert, range, sortText: `${isDefault ? "0" : "1"}${label}`, ...(isDefault ? { preselect: true } : {}) });
  if (spec.path === "model.converters") {
    for (const n of converterNamesAt(release)) push(`"${n}"`, JSON.stringify(n), CONVERTER_DOCS[n]);
    if (!inArray) return items.map((i) => ({ ...i, insertText: `[${i.insertText}]`, label: `[${i.label}]` }));
    return items;
  }
  const choices = choicesAt(spec, release);
  if (choices.length) {
    for (const c of choices) {
      const isDef = def === c || (Array.isArray(def) && def.includes(c));
      push(`"${c}"`, JSON.stringify(c), undefined, isDef);
    }
    if (spec.type === "list[str]" && !inArray) return items.map((i) => ({ ...i, insertText: `[${i.insertText}]`, label: `[${i.label}]` }));
    return items;
  }
  if (spec.type === "bool") {
    push("true", "true", undefined, def === true);
    push("false", "false", undefined, def === false);
    return items;
  }
  if (def !== undefined && !inArray) push(tomlValue(def), tomlValue(def), undefined, true);
  return items;
}

/**
 * Top-level keys of a YAML/JSON config from the framework's key table at the versions in effect (transformers:
 * `keyCompletions`): at the start of a YAML line with no indentation, or a JSON line indented like the file's
 * top-level keys (after its opening quote). Keys already written on other lines are left out.
 */
export function topLevelKeyItems(doc: ConfigDocument, format: "yaml" | "json", keys: readonly KeyCompletion[], position: Position): CompletionItem[] {
  const before = doc.lines.lineText(position.line).slice(0, position.character);
  const top = doc.entries.filter((e) => e.path.length === 1);
  let typed: string;
  let start: number;
  let json = false;
  if (format === "yaml") {
    const m = /^([A-Za-z0-9_]*)$/.exec(before);
    if (!m) return [];
    typed = m[1]!;
    start = 0;
  } else {
    const m = /^(\s*)"([A-Za-z0-9_]*)$/.exec(before);
    const indent = top.find((e) => e.keyRange.start.line !== position.line)?.keyRange.start.character;
    if (!m || (indent !== undefined && m[1]!.length !== indent)) return [];
    typed = m[2]!;
    start = m[1]!.length;
    json = true;
  }
  const present = new Set(top.filter((e) => e.keyRange.start.line !== position.line).map((e) => e.path[0]!));
  // JSON: an editor's auto-closed quote after the cursor is replaced too.
  const closing = json && doc.lines.lineText(position.line).charAt(position.character) === '"' ? 1 : 0;
  const range: Range = { start: { line: position.line, character: start }, end: { line: position.line, character: position.character + closing } };
  const items: CompletionItem[] = [];
  for (const k of keys) {
    if (present.has(k.key) || !k.key.startsWith(typed)) continue;
    items.push({ label: k.key, kind: "key", detail: k.detail, documentation: k.documentation, insertText: json ? `"${k.key}": ` : `${k.key}: `, range, sortText: k.key });
  }
  return items;
}
