/**
 * In-file directives: comments of the form `# precision-lens: key=value, key2=value2` (or a bare `off`).
 * Known keys: world-size, torchtitan-version, framework, disable (codes, comma or space separated), off.
 */
import type { ConfigComment } from "./model";
import type { Range } from "./types";

export interface Directive {
  key: string;
  value: string;
  /** The comment's line and the range of the whole comment. */
  line: number;
  range: Range;
}

const PREFIX = /^precision-lens\s*:\s*(.*)$/i;

export function parseDirectives(comments: readonly ConfigComment[]): Directive[] {
  const out: Directive[] = [];
  for (const c of comments) {
    const m = PREFIX.exec(c.text);
    if (!m) continue;
    const body = m[1]!.trim();
    // `disable=a,b` keeps its commas; other pairs are separated by whitespace or ';'.
    for (const part of body.split(/[;\s]+(?=[a-z-]+(?:=|$))/i)) {
      const p = part.trim();
      if (!p) continue;
      const eq = p.indexOf("=");
      if (eq < 0) out.push({ key: p.toLowerCase(), value: "", line: c.line, range: c.range });
      else out.push({ key: p.slice(0, eq).trim().toLowerCase(), value: p.slice(eq + 1).trim(), line: c.line, range: c.range });
    }
  }
  return out;
}

export function directiveValue(ds: readonly Directive[], key: string): Directive | undefined {
  return ds.find((d) => d.key === key);
}
