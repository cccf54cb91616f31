/**
 * Document symbols (outline) and folding ranges for TOML configs. Plain data; the server maps kinds to
 * LSP SymbolKind (table → Namespace, key → Property) and FoldingRangeKind (region / comment).
 */
import type { ConfigDocument } from "./model";
import type { Range } from "./types";
import { headerPrefixOf } from "./edit/toml";

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

/** One symbol per table header (dotted name), its keys as children; root keys first. */
export function documentSymbols(doc: ConfigDocument): DocSymbol[] {
  const out: DocSymbol[] = [];
  const sectionSyms = doc.sections.map((s) => {
    const sym: DocSymbol = { name: s.isArrayItem ? `[[${s.path.join(".")}]]` : s.path.join("."), kind: "table", range: s.range, selectionRange: s.headerRange, children: [] };
    return { s, sym };
  });
  for (const e of doc.entries) {
    const prefix = headerPrefixOf(doc, e);
    const written = e.path.slice(prefix.length).join(".");
    const sym: DocSymbol = { name: written, kind: "key", detail: shorten(e.value.raw ?? JSON.stringify(e.value.value)), range: e.range, selectionRange: e.keyRange, children: [] };
    const owner = sectionSyms.filter(({ s }) => s.headerRange.start.line <= e.keyRange.start.line).pop();
    if (!owner) out.push(sym);
    else owner.sym.children.push(sym);
  }
  for (const { sym } of sectionSyms) out.push(sym);
  return out;
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
