import type { ConfigDocument } from "../model/document";
import { DIAGNOSTIC_SOURCE, type Diagnostic, type DiagnosticData, type Fix, type Range, type RelatedInformation, type Severity, type TextEdit } from "../model/types";
import { table } from "../model/table";
import { codeSortKey } from "./codes";
import { compareNames } from "../model/collate";

/** What a rule may add beyond the short message: the long explanation and what decided the diagnostic. */
export interface DiagExtra {
  detail?: string;
  related?: RelatedInformation[];
}

/** A diagnostic message is one sentence of at most this many characters (issue #12); the rest goes to `detail`. */
export const MAX_MESSAGE = 120;

/**
 * A message is never cut mid-word (issue #34: "…the Trainer r…" in a CI log): one whose head is longer than
 * MAX_MESSAGE stays whole up to this many characters, a bound only a hostile key or path (thousands of
 * characters) reaches; such a head is cut at a word boundary, and the full text is in the detail.
 */
export const MAX_WHOLE_MESSAGE = 400;

/** `s` cut to at most `max` characters at a word boundary, with "…" (never inside a word). */
export function cutAtWord(s: string, max: number): string {
  if (s.length <= max) return s;
  const room = s.slice(0, max - 1);
  const space = room.search(/\s\S*$/);
  return (space > max / 2 ? room.slice(0, space) : room).trimEnd() + " …";
}

/**
 * One short message: `head`, then each optional clause (already punctuated, e.g. "; did you mean x?") that
 * still fits MAX_MESSAGE. A head longer than that stays whole (the message is never cut mid-word), up to
 * MAX_WHOLE_MESSAGE; the full text is always in the diagnostic's detail.
 */
export function fitMessage(head: string, ...optional: (string | undefined | false)[]): string {
  let m = cutAtWord(head, MAX_WHOLE_MESSAGE);
  for (const o of optional) if (o && m.length + o.length <= MAX_MESSAGE) m += o;
  return m;
}

/** The first candidate that fits in one short message (the last one, cut, when none does). */
export function firstFitting(candidates: readonly string[]): string {
  return candidates.find((c) => c.length <= MAX_MESSAGE && !/\n/.test(c)) ?? fitMessage(candidates[candidates.length - 1]!);
}

/** The detail to attach: the long text when it says more than the message, else nothing. */
export function detailIfLonger(message: string, long: string): DiagExtra | undefined {
  return long !== message && long !== `${message}.` ? { detail: long } : undefined;
}

/**
 * A long text from elsewhere (a parser's error, a guard's reason) as one short message plus the full text
 * as detail: the message is its first line, cut at the first "; " or ". " when that is still too long.
 */
export function briefOf(text: string): { message: string; extra?: DiagExtra } {
  if (text.length <= MAX_MESSAGE && !/\n/.test(text)) return { message: text };
  let head = text.split(/\r?\n/)[0]!.trimEnd();
  if (head.length > MAX_MESSAGE) {
    const cut = head.search(/(;|\.) /);
    if (cut > 0) head = head.slice(0, cut);
  }
  if (head.length > MAX_MESSAGE) {
    // Still long: up to the last ": " that keeps the message whole ("TOML syntax error: invalid escape `\d`").
    const colon = head.slice(0, MAX_MESSAGE).lastIndexOf(": ");
    if (colon >= 40) head = head.slice(0, colon);
  }
  const message = fitMessage(head.replace(/[.:]$/, ""));
  return { message, extra: { detail: text } };
}

/** Builds a diagnostic with our source; keeps call sites short. */
/** Line breaks (a TOML key `"a\nb"`, a YAML value with U+2028): never part of a message or detail. */
const LINE_BREAKS = /[\r\n\u0085\u2028\u2029]/g;

/**
 * A message or detail is one paragraph whatever the config holds (issue #18): a line break that came from a
 * key or value is written as `\x0a` / `\u2028`, so no channel (the editor's Markdown, `explain`, a CI log)
 * gets a line the config chose. Other controls are escaped by each front end for its own channel.
 */
export function oneLine(s: string): string {
  return s.replace(LINE_BREAKS, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
  });
}

export function diag(code: string, severity: Severity, range: Range, message: string, data?: DiagnosticData, extra?: DiagExtra): Diagnostic {
  const d: Diagnostic = { code, severity, message: oneLine(message), range, source: DIAGNOSTIC_SOURCE };
  // `facts` first: a rule's fixes may be a lazy value (model/lazy.ts), computed only when something reads them.
  if (data && (data.facts || data.fixes?.length)) d.data = data;
  if (extra?.detail) d.detail = oneLine(extra.detail);
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

const SEVERITY_ORDER: Readonly<Record<Severity, number>> = table({ error: 0, warning: 1, information: 2, hint: 3 });

/**
 * Stable order for output: by position, then severity, then code (a renamed code sorts by its old code, so the
 * order of findings on one range is what it was before the readable names of issue #34). Codes compare in
 * `localeCompare` order without loading ICU (`compareNames`, model/collate.ts; issue #36).
 */
export function sortDiagnostics(ds: Diagnostic[]): Diagnostic[] {
  return ds.sort(
    (a, b) =>
      a.range.start.line - b.range.start.line ||
      a.range.start.character - b.range.start.character ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      compareNames(codeSortKey(a.code), codeSortKey(b.code)),
  );
}
