/**
 * In-file directives: comments of the form `# precision-lens: key=value key2=value2` (or a bare flag such
 * as `off`). The one parser of this syntax: analysis settings (world-size, torchtitan-version, framework,
 * off) and suppressions (disable, disable-file) all read its output.
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
/** Keys whose value is a list: further bare words extend it (`disable=a b` = `disable=a,b`). */
const LIST_KEYS = new Set(["disable", "disable-file"]);

/** Parsed once per document: comments are immutable after parsing. */
const cache = new WeakMap<readonly ConfigComment[], Directive[]>();

export function parseDirectives(comments: readonly ConfigComment[]): Directive[] {
  const hit = cache.get(comments);
  if (hit) return hit;
  const out: Directive[] = [];
  for (const c of comments) {
    const m = PREFIX.exec(c.text);
    if (!m) continue;
    let current: Directive | undefined;
    // `key = value` is written with or without spaces; pairs are separated by spaces or ';'.
    for (const token of m[1]!.replace(/\s*=\s*/g, "=").split(/[;\s]+/)) {
      if (!token) continue;
      const eq = token.indexOf("=");
      if (eq >= 0) {
        current = { key: token.slice(0, eq).toLowerCase(), value: token.slice(eq + 1), line: c.line, range: c.range };
        out.push(current);
      } else if (current && LIST_KEYS.has(current.key)) {
        current.value = current.value ? `${current.value},${token}` : token;
      } else {
        current = { key: token.toLowerCase(), value: "", line: c.line, range: c.range };
        out.push(current);
      }
    }
  }
  cache.set(comments, out);
  return out;
}

export function directiveValue(ds: readonly Directive[], key: string): Directive | undefined {
  return ds.find((d) => d.key === key);
}
