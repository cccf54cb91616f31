/** Text edits for quick fixes in YAML/JSON configs: replace a value, remove a key, insert lines. */
import { fix } from "../../diagnostics/build";
import type { ConfigDocument, ConfigEntry, ConfigValue } from "../../model/document";
import type { Fix, Range, TextEdit } from "../../model/types";

export type { Fix };

export { fix };

export function replaceValue(e: ConfigEntry | ConfigValue, newText: string): TextEdit {
  const v = "value" in e && "keyRange" in e ? (e as ConfigEntry).value : (e as ConfigValue);
  return { range: v.range, newText };
}

/**
 * Removes one key's node (`key: value`, `"key": value`, or a section `range` with its children) together with
 * its separator, in whatever layout it is written (issue #33: a whole-line delete emptied a one-line JSON file
 * and took a YAML flow mapping's other keys with it):
 * - alone on its lines (only blanks before it; after it only blanks, a comma, a `#` comment in YAML): those
 *   lines go, and in JSON, when it was the last member, the comma before it too;
 * - inline (a flow mapping, one-line JSON, several keys on a line): the node and the comma after it, or, when
 *   it is the last of its mapping, the comma before it; the rest of the line stays.
 */
export function removeKey(doc: ConfigDocument, r: Range): TextEdit[] {
  const text = doc.text;
  const lines = doc.lines;
  const start = lines.offsetAt(r.start);
  // A range that ends at the start of a line ends with the line before it.
  let end = lines.offsetAt(r.end);
  if (r.end.character === 0 && r.end.line > r.start.line) end = lines.lineStart(r.end.line) - 1;
  while (end > start && (text[end - 1] === "\n" || text[end - 1] === "\r")) end--;
  const lineStart = lines.lineStart(r.start.line);
  const endLine = lines.positionAt(end).line;
  const lineEnd = lines.lineStart(endLine) + lines.lineText(endLine).length;
  const blank = (c: string | undefined): boolean => c === " " || c === "\t";
  let a = end;
  while (blank(text[a])) a++;
  const commaAfter = text[a] === ",";
  let afterComma = commaAfter ? a + 1 : a;
  while (blank(text[afterComma])) afterComma++;
  const rest = text.slice(afterComma, lineEnd).replace(/\r$/, "");
  const aloneBefore = /^[ \t]*$/.test(text.slice(lineStart, start));
  const aloneAfter = rest === "" || (doc.format !== "json" && rest.startsWith("#"));
  // The comma before the node (skipping blanks and line breaks), if that is what separates it.
  let p = start - 1;
  while (p >= 0 && (blank(text[p]) || text[p] === "\n" || text[p] === "\r")) p--;
  const commaBefore = text[p] === "," ? p : undefined;
  if (aloneBefore && aloneAfter) {
    const nextLine = endLine + 1 < lines.lineCount ? lines.lineStart(endLine + 1) : text.length;
    const edits: TextEdit[] = [{ range: lines.range(lineStart, nextLine), newText: "" }];
    if (doc.format === "json" && !commaAfter && commaBefore !== undefined) edits.unshift({ range: lines.range(commaBefore, commaBefore + 1), newText: "" });
    return edits;
  }
  if (commaAfter) return [{ range: lines.range(start, afterComma), newText: "" }];
  if (commaBefore !== undefined) return [{ range: lines.range(commaBefore, end), newText: "" }];
  return [{ range: lines.range(start, end), newText: "" }];
}

/** Inserts `key: value` as a new line after the line of `after`, with the same indentation as that line. */
export function insertLineAfter(doc: ConfigDocument, after: Range, text: string, indent?: string): TextEdit {
  const line = after.end.line;
  const lineText = doc.lines.lineText(line);
  const ind = indent ?? /^\s*/.exec(lineText)![0];
  const at = { line, character: lineText.length };
  return { range: { start: at, end: at }, newText: `${doc.lines.eol}${ind}${text}` };
}

/** Indentation of the line a range starts on. */
export function indentOf(doc: ConfigDocument, r: Range): string {
  return /^\s*/.exec(doc.lines.lineText(r.start.line))![0];
}

/** Inserts a line at the end of the file (adding a line break first when the file lacks one). */
export function appendLine(doc: ConfigDocument, text: string): TextEdit {
  const endOffset = doc.text.length;
  const pos = doc.lines.positionAt(endOffset);
  const needsBreak = doc.text.length > 0 && !/\r?\n$/.test(doc.text);
  return { range: { start: pos, end: pos }, newText: `${needsBreak ? doc.lines.eol : ""}${text}${doc.lines.eol}` };
}
