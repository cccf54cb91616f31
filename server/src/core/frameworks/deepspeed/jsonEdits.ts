/** Text edits for DeepSpeed JSON (and YAML written as one flow mapping). */
import type { ConfigDocument } from "../../model/document";
import type { TextEdit } from "../../model/types";
import { firstContentChar, type View } from "../common/view";

/** A JSON-style key can be inserted: a JSON file, or YAML written as one flow mapping (gpt-neox). */
export function flowRoot(doc: ConfigDocument): boolean {
  return doc.format === "json" || firstContentChar(doc.text) === "{";
}

/** Adds `"key": value` to the object at `objPath` (creating it at the root when absent). */
export function jsonAddKey(doc: ConfigDocument, v: View, objPath: string[], key: string, valueText: string): TextEdit {
  const eol = doc.lines.eol;
  if (objPath.length && v.has(...objPath)) {
    const r = v.sectionRange(...objPath)!;
    const start = doc.lines.offsetAt(r.start);
    const brace = doc.text.indexOf("{", start);
    const empty = /^\{\s*\}/.test(doc.text.slice(brace));
    const at = doc.lines.positionAt(brace + 1);
    const ind = /^\s*/.exec(doc.lines.lineText(r.start.line))![0];
    return { range: { start: at, end: empty ? doc.lines.positionAt(doc.text.indexOf("}", brace)) : at }, newText: `${eol}${ind}  "${key}": ${valueText}${empty ? `${eol}${ind}` : ","}` };
  }
  const brace = doc.text.indexOf("{");
  const at = doc.lines.positionAt(brace + 1);
  const firstKey = doc.entries[0]?.keyRange ?? doc.sections[0]?.headerRange;
  const ind = firstKey ? /^\s*/.exec(doc.lines.lineText(firstKey.start.line))![0] || "  " : "  ";
  const body = objPath.length ? `"${objPath[0]}": {"${key}": ${valueText}}` : `"${key}": ${valueText}`;
  const hasOthers = doc.entries.length > 0 || doc.sections.length > 0;
  return { range: { start: at, end: at }, newText: `${eol}${ind}${body}${hasOthers ? "," : ""}` };
}
