/**
 * In-file directives: comments of the form `# precision-lens: key=value key2=value2` (or a bare flag such
 * as `off`). The one parser of this syntax: analysis settings (world-size, torchtitan-version, framework,
 * off) and suppressions (disable, disable-file) all read its output.
 */
import type { ConfigComment } from "../model/document";
import type { Range } from "../model/types";

export interface Directive {
  key: string;
  value: string;
  /** The comment's line and the range of the whole comment. */
  line: number;
  range: Range;
}

const PREFIX = /^precision-lens\s*:/i;
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
    // `key = value` is written with or without spaces; pairs are separated by spaces or ';'. One linear
    // pass (a regex over the spaces would rescan a long run of them from every position).
    for (const token of directiveTokens(c.text.slice(m[0].length))) {
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

/**
 * The tokens of a directive body: `a = b` joined into `a=b` (spaces around '=' dropped), then split at
 * runs of spaces and ';'. One linear pass: a global regex of spaces, "=" and spaces rescans a long run of spaces from every
 * position of it (quadratic; issue #18).
 */
export function directiveTokens(body: string): string[] {
  let joined = "";
  const n = body.length;
  const ws = (c: string | undefined) => c !== undefined && /\s/.test(c);
  for (let i = 0; i < n; ) {
    const c = body[i]!;
    if (ws(c)) {
      let j = i;
      while (ws(body[j])) j++;
      if (body[j] !== "=") joined += body.slice(i, j);
      i = j;
    } else if (c === "=") {
      joined += "=";
      i++;
      while (ws(body[i])) i++;
    } else {
      joined += c;
      i++;
    }
  }
  return joined.split(/[;\s]+/).filter((t) => t !== "");
}

export function directiveValue(ds: readonly Directive[], key: string): Directive | undefined {
  return ds.find((d) => d.key === key);
}
