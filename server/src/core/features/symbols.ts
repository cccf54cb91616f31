/**
 * Document symbols (outline) and folding ranges. TOML symbols hang under the section header above them;
 * YAML and JSON symbols follow the document's own nesting (a key belongs to the mapping it is written in). Plain data; the server maps kinds to
 * LSP SymbolKind (table → Namespace, key → Property) and FoldingRangeKind (region / comment).
 */
import type { ConfigDocument } from "../model/document";
import type { Range } from "../model/types";
import { headerPrefixOf } from "../edit/toml";

export interface DocSymbol {
  name: string;
  kind: "table" | "key" | "function";
  /** Value text for keys (shortened). */
  detail?: string;
  range: Range;
  selectionRange: Range;
  children: DocSymbol[];
}

export interface FoldRange {
  startLine: number;
  endLine: number;
  kind: "region" | "comment";
}

function shorten(s: string, n = 40): string {
  const one = s.replace(/\s+/g, " ");
  return one.length > n ? one.slice(0, n - 1) + "…" : one;
}

/** The outline: each format's own nesting. Never an empty name (LSP clients reject one). */
export function documentSymbols(doc: ConfigDocument): DocSymbol[] {
  return doc.format === "toml" ? tomlSymbols(doc) : nestedSymbols(doc);
}

/** A name an LSP client accepts: an empty key shows as `""`. */
function nameOf(parts: readonly string[], arrayItem = false): string {
  if (arrayItem && parts.length > 0 && /^\d+$/.test(parts[parts.length - 1]!)) {
    return `${parts.length > 1 ? nameOf(parts.slice(0, -1)) : ""}[${parts[parts.length - 1]}]`;
  }
  const name = parts.map((p) => (p === "" ? '""' : p)).join(".");
  return name === "" ? '""' : name;
}

/** TOML: one symbol per table header (dotted name), its keys as children; root keys first. */
function tomlSymbols(doc: ConfigDocument): DocSymbol[] {
  const out: DocSymbol[] = [];
  const sectionSyms = doc.sections.map((s) => {
    const sym: DocSymbol = { name: s.isArrayItem ? `[[${nameOf(s.path)}]]` : nameOf(s.path), kind: "table", range: s.range, selectionRange: s.headerRange, children: [] };
    return { s, sym };
  });
  for (const e of doc.entries) {
    const prefix = headerPrefixOf(doc, e);
    const sym: DocSymbol = { name: nameOf(e.path.slice(prefix.length)), kind: "key", detail: shorten(e.value.raw ?? JSON.stringify(e.value.value)), range: e.range, selectionRange: e.keyRange, children: [] };
    const owner = sectionSyms.filter(({ s }) => s.headerRange.start.line <= e.keyRange.start.line).pop();
    if (!owner) out.push(sym);
    else owner.sym.children.push(sym);
  }
  for (const { sym } of sectionSyms) out.push(sym);
  return out;
}

/**
 * YAML / JSON: a symbol's parent is the symbol of the longest proper prefix of its path (the mapping it is
 * written in, an array item, or a flow mapping's key); its name is the rest of the path. Siblings in source order.
 */
function nestedSymbols(doc: ConfigDocument): DocSymbol[] {
  const byPath = new Map<string, { sym: DocSymbol; depth: number }>();
  const nodes: { path: readonly string[]; sym: DocSymbol }[] = [];
  const add = (path: readonly string[], sym: DocSymbol): void => {
    const k = path.join("\u0000");
    if (byPath.has(k)) return; // a YAML merge (`<<`) can name the same mapping twice: the first wins
    byPath.set(k, { sym, depth: path.length });
    nodes.push({ path, sym });
  };
  for (const s of doc.sections) add(s.path, { name: "", kind: "table", range: s.range, selectionRange: s.headerRange, children: [] });
  for (const e of doc.entries) add(e.path, { name: "", kind: "key", detail: shorten(e.value.raw ?? JSON.stringify(e.value.value)), range: e.range, selectionRange: e.keyRange, children: [] });
  const sections = new Set(doc.sections.filter((s) => s.isArrayItem).map((s) => s.path.join("\u0000")));
  const roots: DocSymbol[] = [];
  for (const { path, sym } of nodes) {
    let depth = path.length - 1;
    while (depth > 0 && !byPath.has(path.slice(0, depth).join("\u0000"))) depth--;
    sym.name = nameOf(path.slice(depth), sections.has(path.join("\u0000")));
    if (depth === 0) roots.push(sym);
    else byPath.get(path.slice(0, depth).join("\u0000"))!.sym.children.push(sym);
  }
  const order = (list: DocSymbol[]): DocSymbol[] => {
    list.sort((a, b) => a.selectionRange.start.line - b.selectionRange.start.line || a.selectionRange.start.character - b.selectionRange.start.character);
    for (const s of list) order(s.children);
    return list;
  };
  return order(roots);
}

/** torchtitan Python registries: one symbol per config function, with its resolved headline. */
export function configFunctionSymbols(fns: readonly { name: string; range: Range; selectionRange: Range; detail: string }[]): DocSymbol[] {
  return fns.map((f) => ({ name: `${f.name}()`, kind: "function", detail: shorten(f.detail, 80), range: f.range, selectionRange: f.selectionRange, children: [] }));
}

/** Folding: each table (header to its last non-blank line), multi-line values, and comment blocks. */
export function foldingRanges(doc: ConfigDocument): FoldRange[] {
  const out: FoldRange[] = [];
  const headers = doc.sections.map((s) => s.headerRange.start.line).sort((a, b) => a - b);
  headers.forEach((start, i) => {
    let end = (i + 1 < headers.length ? headers[i + 1]! : doc.lines.lineCount) - 1;
    while (end > start && doc.lines.lineText(end).trim() === "") end--;
    // Comments right above the next header belong to it.
    while (end > start && doc.lines.lineText(end).trim().startsWith("#") && i + 1 < headers.length) end--;
    while (end > start && doc.lines.lineText(end).trim() === "") end--;
    if (end > start) out.push({ startLine: start, endLine: end, kind: "region" });
  });
  for (const e of doc.entries) {
    if (e.range.end.line > e.range.start.line) out.push({ startLine: e.range.start.line, endLine: e.range.end.line, kind: "region" });
  }
  let blockStart = -1;
  for (let l = 0; l <= doc.lines.lineCount; l++) {
    const isComment = l < doc.lines.lineCount && doc.lines.lineText(l).trim().startsWith("#");
    if (isComment && blockStart < 0) blockStart = l;
    if (!isComment && blockStart >= 0) {
      if (l - 1 > blockStart) out.push({ startLine: blockStart, endLine: l - 1, kind: "comment" });
      blockStart = -1;
    }
  }
  return out.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
}
