/** Text edits for quick fixes in YAML/JSON configs: replace a value, delete or insert lines. */
import { fix } from "../../diagnostics/build";
import type { ConfigDocument, ConfigEntry, ConfigValue } from "../../model/document";
import type { Fix, Range, TextEdit } from "../../model/types";

export type { Fix };

export { fix };

export function replaceValue(e: ConfigEntry | ConfigValue, newText: string): TextEdit {
  const v = "value" in e && "keyRange" in e ? (e as ConfigEntry).value : (e as ConfigValue);
  return { range: v.range, newText };
}

/** Deletes the whole lines an entry (or section) spans, including the line break. */
export function deleteLines(doc: ConfigDocument, r: Range): TextEdit {
  const start = { line: r.start.line, character: 0 };
  const endLine = r.end.line + 1;
  const end = endLine < doc.lines.lineCount ? { line: endLine, character: 0 } : { line: r.end.line, character: doc.lines.lineText(r.end.line).length };
  return { range: { start, end }, newText: "" };
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
