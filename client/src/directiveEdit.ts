/**
 * Pure text logic for the "for this file" choice of Set World Size / Set torchtitan Version: write, replace
 * or remove a `# precision-lens: key=value` directive comment. No `vscode` import (unit-tested in Node).
 */

export type DirectiveKey = "world-size" | "torchtitan-version";

/** A single replacement, in zero-based line/character positions of the original text. */
export interface LineEdit {
  start: { line: number; character: number };
  end: { line: number; character: number };
  newText: string;
}

const DIRECTIVE_LINE = /^(\s*#\s*precision-lens\s*:\s*)(.*)$/i;

/**
 * Returns the edit that makes `key` equal `value` (or removes it when `value` is null), or null when the text
 * already says so. An existing whole-line directive carrying the key is edited in place (other keys on that
 * line are kept); otherwise a new `# precision-lens: key=value` line is inserted at the top of the file.
 */
export function directiveEdit(text: string, key: DirectiveKey, value: string | null): LineEdit | null {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  const pair = new RegExp(`(^|[\\s;]+)(${key})\\s*=\\s*([^\\s;]*)`, "i");
  for (let i = 0; i < lines.length; i++) {
    const m = DIRECTIVE_LINE.exec(lines[i]!);
    if (!m) continue;
    const prefix = m[1]!;
    const body = m[2]!;
    const p = pair.exec(body);
    if (!p) continue;
    const pairStart = prefix.length + p.index; // start of the separator (or of the key at body start)
    const valueStart = prefix.length + p.index + p[0].length - p[3]!.length;
    const valueEnd = valueStart + p[3]!.length;
    if (value !== null) {
      if (p[3] === value) return null;
      return { start: { line: i, character: valueStart }, end: { line: i, character: valueEnd }, newText: value };
    }
    const rest = (body.slice(0, p.index) + body.slice(p.index + p[0].length)).trim();
    if (rest === "") {
      // Remove the whole line (with its line break).
      if (i + 1 < lines.length) return { start: { line: i, character: 0 }, end: { line: i + 1, character: 0 }, newText: "" };
      if (i > 0) return { start: { line: i - 1, character: lines[i - 1]!.length }, end: { line: i, character: lines[i]!.length }, newText: "" };
      return { start: { line: i, character: 0 }, end: { line: i, character: lines[i]!.length }, newText: "" };
    }
    // Keep the other keys: drop the separator before the pair (or the one after, at the start of the body).
    let end = valueEnd;
    let start = pairStart;
    if (p[1] === "") {
      const after = /^[\s;]*/.exec(lines[i]!.slice(valueEnd))![0].length;
      end = valueEnd + after;
      start = prefix.length + p.index;
    }
    return { start: { line: i, character: start }, end: { line: i, character: end }, newText: "" };
  }
  if (value === null) return null;
  return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 }, newText: `# precision-lens: ${key}=${value}${eol}` };
}

/** Applies a LineEdit to a string (for tests and previews). */
export function applyLineEdit(text: string, edit: LineEdit): string {
  const offsets = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") offsets.push(i + 1);
  const off = (p: { line: number; character: number }) => (offsets[p.line] ?? text.length) + p.character;
  return text.slice(0, off(edit.start)) + edit.newText + text.slice(off(edit.end));
}

/** Whether the file format has `#` comments, so a directive can be written into it. */
export function supportsDirectiveComments(languageId: string, fileName: string): boolean {
  // Python: a torchtitan registry reads `# precision-lens:` comments too (the what-if cells write them).
  if (/\.(toml|ya?ml|py)$/i.test(fileName)) return true;
  return languageId === "toml" || languageId === "yaml" || languageId === "python";
}
