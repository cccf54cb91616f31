/**
 * Text for a terminal from untrusted strings (keys, values, file names): control characters and
 * bidirectional overrides are escaped so a config cannot clear the screen, move the cursor, forge
 * colours or reorder what the reader sees (Trojan Source). JSON output needs none of this.
 */

// C0 controls but tab, DEL, C1 controls, and the Unicode bidi/zero-width format controls and line separators.
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

export function escapeControls(s: string): string {
  return s.replace(UNSAFE, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
  });
}

/**
 * One line for a CI log (the text output, explain, every stderr message): `escapeControls` (so it stays
 * one line), and nothing a GitHub Actions runner reads as a workflow command: it trims leading white space
 * and takes a line starting with `::` as a v2 command, and `##[` anywhere in a line as a v1 command
 * (actions/runner src/Runner.Common/ActionCommand.cs@258d6c857:62-63 and 132). The first `:` and the second
 * `#` are written as `\x3a` and `\x23`, like the other escapes.
 */
export function logLine(s: string): string {
  return escapeControls(s).replace(/^(\s*):/, "$1\\x3a").replace(/##\[/g, "#\\x23[");
}

/** Each line of a multi-line text (Markdown, a report) through `logLine`, keeping its own newlines. */
export function logLines(s: string): string {
  return s.split("\n").map(logLine).join("\n");
}

/** A `precision-lens: PATH: MESSAGE` line for stderr; the message may quote the raw path (Node's errors do). */
export function stderrLine(path: string, message: string): string {
  return `${logLine(`precision-lens: ${path}: ${message}`)}\n`;
}
