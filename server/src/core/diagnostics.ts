import type { ConfigDocument } from "./model";
import { DIAGNOSTIC_SOURCE, type Diagnostic, type DiagnosticData, type Fix, type Range, type RelatedInformation, type Severity, type TextEdit } from "./types";

/** What a rule may add beyond the short message: the long explanation and what decided the diagnostic. */
export interface DiagExtra {
  detail?: string;
  related?: RelatedInformation[];
}

/** Builds a diagnostic with our source; keeps call sites short. */
export function diag(code: string, severity: Severity, range: Range, message: string, data?: DiagnosticData, extra?: DiagExtra): Diagnostic {
  const d: Diagnostic = { code, severity, message, range, source: DIAGNOSTIC_SOURCE };
  if (data && (data.fixes?.length || data.facts)) d.data = data;
  if (extra?.detail) d.detail = extra.detail;
  if (extra?.related?.length) d.related = extra.related;
  return d;
}

/** Replace the value text of an entry (keeps the key, spacing and trailing comment). */
export function replaceRange(range: Range, newText: string): TextEdit {
  return { range, newText };
}

export function fix(title: string, edits: TextEdit[], isPreferred = false): Fix {
  return isPreferred ? { title, edits, isPreferred } : { title, edits };
}

/** Applies non-overlapping edits to a text (used by tests and by `check --fix`). Edits may come in any order. */
export function applyEdits(doc: Pick<ConfigDocument, "text" | "lines">, edits: readonly TextEdit[]): string {
  const withOffsets = edits
    .map((e) => ({ start: doc.lines.offsetAt(e.range.start), end: doc.lines.offsetAt(e.range.end), text: e.newText }))
    .sort((a, b) => b.start - a.start || b.end - a.end);
  let out = doc.text;
  let lastStart = Infinity;
  for (const e of withOffsets) {
    if (e.end > lastStart) throw new Error("overlapping edits");
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
    lastStart = e.start;
  }
  return out;
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, information: 2, hint: 3 };

/** Stable order for output: by position, then severity, then code. */
export function sortDiagnostics(ds: Diagnostic[]): Diagnostic[] {
  return ds.sort(
    (a, b) =>
      a.range.start.line - b.range.start.line ||
      a.range.start.character - b.range.start.character ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      a.code.localeCompare(b.code),
  );
}
