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
