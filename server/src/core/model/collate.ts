/**
 * `a.localeCompare(b)` without ICU, for the short ASCII names the analysis sorts (diagnostic codes,
 * assumption names): the first `localeCompare` (or `toLocaleString`) of a process loads ICU's collation
 * data, 20–60 ms of the CLI's start on this machine, more than the analysis of a small file (issue #36,
 * docs/performance.md "fifth pass: CLI"). For strings made only of the characters below, the answer's sign
 * is the one `localeCompare` gives under Node's default (root) collation: compare the strings by their
 * characters' primary weights (case folded: punctuation in ICU's root order, then digits, then letters),
 * shorter prefix first; when those are all equal, the first case difference decides, lower case first.
 * Any other character sends both strings to `localeCompare` itself. `test/collate.test.ts` holds it to
 * `localeCompare` over every pair of the code and assumption tables and over random strings.
 */

/** ICU root collation's order of the ASCII punctuation this module handles, lowest first. */
const PUNCTUATION = "_-:./";
const WEIGHT = new Int16Array(128).fill(-1);
PUNCTUATION.split("").forEach((c, i) => (WEIGHT[c.charCodeAt(0)] = i));
for (let d = 0; d < 10; d++) WEIGHT[48 + d] = PUNCTUATION.length + d;
for (let l = 0; l < 26; l++) WEIGHT[97 + l] = WEIGHT[65 + l] = PUNCTUATION.length + 10 + l;

function handled(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || WEIGHT[c]! < 0) return false;
  }
  return true;
}

/** -1, 0 or 1: the sign of `a.localeCompare(b)`. */
export function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  if (!handled(a) || !handled(b)) return Math.sign(a.localeCompare(b));
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = WEIGHT[a.charCodeAt(i)]! - WEIGHT[b.charCodeAt(i)]!;
    if (d !== 0) return Math.sign(d);
  }
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  // Same letters, same length: the first case difference, lower case first.
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x > y ? -1 : 1;
  }
  return 0;
}
