/**
 * Suppression comments.
 *
 *   # precision-lens: disable=CODE[,CODE...]        on its own line: the next line that is not blank or a
 *                                                    comment (diagnostics starting on that line)
 *   key = value  # precision-lens: disable=CODE      trailing: that line
 *   # precision-lens: disable-file=CODE[,CODE...]   anywhere: the whole file
 *   # precision-lens: disable=CODE                   in the comment block at the top of the file, before
 *                                                    any table or key (followed by a blank line or the
 *                                                    end of the block): the whole file
 *
 * `all` (or `*`) as a code matches every code. An old code (`transformers/HF6`, before issue #34) matches the code
 * it was renamed to (`transformers/unknown-key`, codes.ts `canonicalCode`). Codes are separated by commas and/or spaces. A `disable`
 * that suppresses nothing gets an `unused-suppression` hint (faded), so stale comments get noticed.
 */
import { diag, fitMessage } from "./build";
import { canonicalCode } from "./codes";
import { parseDirectives } from "./directives";
import type { ConfigDocument } from "../model/document";
import type { Diagnostic, Range } from "../model/types";

export const UNUSED_SUPPRESSION = "unused-suppression";

export interface Suppression {
  codes: string[];
  /** The line it applies to, or "file". */
  scope: number | "file";
  /** Range of the comment (for the unused hint). */
  range: Range;
  line: number;
}

export function parseSuppressions(doc: ConfigDocument): Suppression[] {
  const out: Suppression[] = [];
  const firstContentLine = firstContent(doc);
  for (const d of parseDirectives(doc.comments)) {
    if (d.key !== "disable" && d.key !== "disable-file") continue;
    const codes = d.value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (!codes.length) continue;
    const trailing = doc.lines.lineText(d.line).slice(0, d.range.start.character).trim() !== "";
    let scope: number | "file";
    if (d.key === "disable-file") scope = "file";
    else if (trailing) scope = d.line;
    else if (d.line < firstContentLine && isTopBlockForFile(doc, d.line, firstContentLine)) scope = "file";
    else scope = nextContentLine(doc, d.line);
    out.push({ codes, scope, range: d.range, line: d.line });
  }
  return out;
}

/** First line holding a table header or a key (not blank, not a comment). */
function firstContent(doc: ConfigDocument): number {
  for (let l = 0; l < doc.lines.lineCount; l++) {
    const t = doc.lines.lineText(l).trim();
    if (t && !t.startsWith("#")) return l;
  }
  return doc.lines.lineCount;
}

/**
 * A leading comment is file-wide unless it sits directly on top of the first content line (then it
 * reads as "disable for the next line").
 */
function isTopBlockForFile(doc: ConfigDocument, line: number, firstContentLine: number): boolean {
  for (let l = line + 1; l < firstContentLine; l++) if (doc.lines.lineText(l).trim() === "") return true;
  return firstContentLine >= doc.lines.lineCount;
}

function nextContentLine(doc: ConfigDocument, line: number): number {
  for (let l = line + 1; l < doc.lines.lineCount; l++) {
    const t = doc.lines.lineText(l).trim();
    if (t && !t.startsWith("#")) return l;
  }
  return -1;
}

/** Whether a code written in a suppression (`c`) names the diagnostic's code: itself, an old alias of it, or all. */
function names(c: string, code: string): boolean {
  return c === code || c === "all" || c === "*" || canonicalCode(c) === code;
}

function matches(codes: readonly string[], code: string): boolean {
  return codes.some((c) => names(c, code));
}

/**
 * Drops suppressed diagnostics and adds an `unused-suppression` hint per code that suppressed nothing.
 * Diagnostics about the suppression comments themselves are never suppressed.
 */
export function applySuppressions(doc: ConfigDocument, diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const sups = parseSuppressions(doc);
  if (!sups.length) return diagnostics.slice();
  const used = sups.map(() => new Set<string>());
  const kept: Diagnostic[] = [];
  for (const d of diagnostics) {
    let suppressed = false;
    sups.forEach((s, i) => {
      if (s.scope !== "file" && s.scope !== d.range.start.line) return;
      if (!matches(s.codes, d.code)) return;
      suppressed = true;
      for (const c of s.codes) if (names(c, d.code)) used[i]!.add(c);
    });
    if (!suppressed) kept.push(d);
  }
  sups.forEach((s, i) => {
    const unused = s.codes.filter((c) => !used[i]!.has(c));
    if (!unused.length) return;
    const where = s.scope === "file" ? "in this file" : s.scope < 0 ? "(there is no line after it)" : `on line ${s.scope + 1}`;
    const h = diag(
      UNUSED_SUPPRESSION,
      "hint",
      s.range,
      fitMessage(
        unused.length === 1 ? `This suppression is unused: no \`${unused[0]!}\` diagnostic ${where}` : `This suppression is unused for ${unused.length} codes (\`${unused[0]!}\`, …) ${where}`,
      ),
      {
        fixes: [
          {
            title: unused.length === s.codes.length ? "Remove the unused suppression" : `Remove ${unused.join(", ")} from the suppression`,
            edits: [removalEdit(doc, s, unused)],
          },
        ],
      },
    );
    h.detail = `This suppression is unused: no ${unused.map((c) => `\`${c}\``).join(", ")} diagnostic ${where}. Remove ${unused.length === s.codes.length ? "the comment" : "the unused code"}.`;
    h.unnecessary = true;
    kept.push(h);
  });
  return kept;
}

const isBlank = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);
const isKeyChar = (c: string | undefined): boolean => c !== undefined && /[a-z-]/i.test(c);

/**
 * Where the codes of the first `disable=` / `disable-file=` in a suppression comment are: from after
 * `=` and its blanks to before the blanks that precede `;`, the end, or the next `key=`. By hand, linear
 * (issue #18: the lazy list before a lookahead that starts with a run of blanks was quadratic).
 */
export function disableList(text: string): { start: number; end: number } | undefined {
  const re = /disable(?:-file)?\s*=/gi;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let start = m.index + m[0].length;
    while (isBlank(text[start])) start++;
    let q = start;
    while (q < text.length && text[q] !== ";" && text[q] !== "=") q++;
    let end = q;
    if (text[q] === "=") {
      // The list stops before ` key=`: blanks, a word that starts with a letter, blanks.
      let e = q;
      while (e > start && isBlank(text[e - 1])) e--;
      let w = e;
      while (w > start && isKeyChar(text[w - 1])) w--;
      if (w === e || !/[a-z]/i.test(text[w]!)) continue;
      // The old regex backtracked into the blanks after `=` to capture no codes; without blanks it failed here.
      if (w === start) {
        if (start > m.index + m[0].length) return { start, end: start };
        continue;
      }
      if (!isBlank(text[w - 1])) continue;
      end = w;
    }
    while (end > start && isBlank(text[end - 1])) end--;
    return { start, end };
  }
  return undefined;
}

function removalEdit(doc: ConfigDocument, s: Suppression, unused: string[]) {
  if (unused.length < s.codes.length) {
    const keep = s.codes.filter((c) => !unused.includes(c));
    const text = doc.text.slice(doc.lines.offsetAt(s.range.start), doc.lines.offsetAt(s.range.end));
    const list = disableList(text);
    const replaced = list && text.slice(list.start, list.end).split(/[,\s]+/).some((c) => unused.includes(c)) ? text.slice(0, list.start) + keep.join(",") + text.slice(list.end) : text;
    return { range: s.range, newText: replaced };
  }
  const lineText = doc.lines.lineText(s.line);
  const before = lineText.slice(0, s.range.start.character);
  if (before.trim() !== "") {
    // Trailing comment: remove it and the spaces before it.
    const start = doc.lines.lineStart(s.line) + before.trimEnd().length;
    return { range: doc.lines.range(start, doc.lines.offsetAt(s.range.end)), newText: "" };
  }
  // Own line: remove the whole line.
  if (s.line + 1 < doc.lines.lineCount) return { range: { start: { line: s.line, character: 0 }, end: { line: s.line + 1, character: 0 } }, newText: "" };
  return { range: doc.lines.range(s.line > 0 ? doc.lines.lineEnd(s.line - 1) : 0, doc.lines.lineEnd(s.line)), newText: "" };
}
