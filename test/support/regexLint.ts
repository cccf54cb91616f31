/**
 * A conservative static check for regular expressions that can backtrack super-linearly (issue #18):
 *
 * - nested: an unbounded repetition of a group whose iterations can meet ambiguously (`(a+)+`, `(\d+,?)*`);
 * - adjacent: two unbounded repetitions over overlapping characters with only optional items between
 *   them (`\s*(x)?\s*`, `[^\]]*\]` is fine, `\s*[^,]*,` is not);
 * - leading: an unanchored pattern that starts with an unbounded repetition and can still fail after it
 *   (`/\s*=\s*`/g, `/\s+$/`): every start position rescans the run, quadratic in its length.
 *
 * Character sets are approximated on ASCII plus one "any non-ASCII" bit; the check errs towards a finding.
 */

type CharSet = { ascii: bigint; other: boolean };
const EMPTY: CharSet = { ascii: 0n, other: false };
const ALL: CharSet = { ascii: (1n << 128n) - 1n, other: true };
const union = (a: CharSet, b: CharSet): CharSet => ({ ascii: a.ascii | b.ascii, other: a.other || b.other });
const overlaps = (a: CharSet, b: CharSet): boolean => (a.ascii & b.ascii) !== 0n || (a.other && b.other);
const isEmpty = (a: CharSet): boolean => a.ascii === 0n && !a.other;
const complement = (a: CharSet): CharSet => ({ ascii: ALL.ascii & ~a.ascii, other: !a.other });
const ch = (c: number): CharSet => (c < 128 ? { ascii: 1n << BigInt(c), other: false } : { ascii: 0n, other: true });
const range = (lo: number, hi: number): CharSet => {
  let s = EMPTY;
  for (let c = lo; c <= Math.min(hi, 127); c++) s = union(s, ch(c));
  if (hi >= 128) s = union(s, { ascii: 0n, other: true });
  return s;
};
const DIGIT = range(48, 57);
const WORD = union(union(union(range(65, 90), range(97, 122)), DIGIT), ch(95));
const SPACE = union(union(ch(32), range(9, 13)), { ascii: 0n, other: true });
const DOT = union(complement(union(ch(10), ch(13))), EMPTY);

/** What the check knows of a node. */
interface Info {
  first: CharSet; // characters a match can start with
  last: CharSet; // characters a match can end with
  nullable: boolean;
  /** Characters of unbounded repetitions reachable from the start (resp. end) through nullable items. */
  headU: CharSet;
  tailU: CharSet;
  /** Always matches nothing but an assertion (`^`, `$`, `\b`, lookarounds). */
  assertion?: "start" | "end" | "other";
}

export interface Finding {
  kind: "nested" | "adjacent" | "leading";
  at: number;
}

class Parser {
  i = 0;
  findings: Finding[] = [];
  constructor(
    readonly src: string,
    readonly flags: string,
  ) {}

  parse(): Info {
    const info = this.alternation();
    return info;
  }

  private alternation(): Info {
    let acc = this.sequence();
    while (this.src[this.i] === "|") {
      this.i++;
      const b = this.sequence();
      acc = { first: union(acc.first, b.first), last: union(acc.last, b.last), nullable: acc.nullable || b.nullable, headU: union(acc.headU, b.headU), tailU: union(acc.tailU, b.tailU) };
    }
    return acc;
  }

  private sequence(): Info {
    const items: Info[] = [];
    while (this.i < this.src.length && this.src[this.i] !== "|" && this.src[this.i] !== ")") items.push(this.quantified());
    return this.concat(items);
  }

  private concat(items: Info[]): Info {
    let first = EMPTY;
    let headU = EMPTY;
    let nullable = true;
    let last = EMPTY;
    let tailU = EMPTY;
    let pending = EMPTY; // tailU of what precedes, through nullable items
    for (const it of items) {
      if (it.assertion) continue;
      if (overlaps(pending, it.headU)) this.findings.push({ kind: "adjacent", at: this.i });
      if (nullable) {
        first = union(first, it.first);
        headU = union(headU, it.headU);
      }
      nullable = nullable && it.nullable;
      pending = it.nullable ? union(pending, it.tailU) : it.tailU;
      last = it.nullable ? union(last, it.last) : it.last;
      tailU = it.nullable ? union(tailU, it.tailU) : it.tailU;
    }
    return { first, last, nullable, headU, tailU };
  }

  private quantified(): Info {
    const start = this.i;
    const atom = this.atom();
    const q = this.quantifier();
    if (!q) return atom;
    if (atom.assertion) return atom;
    const unbounded = q.max === Infinity;
    if (unbounded) {
      // Iterations meet ambiguously: the end of one can also be the start of the next, or an iteration matches nothing.
      if (atom.nullable || overlaps(atom.tailU, atom.first) || overlaps(atom.last, atom.headU)) {
        if (!isEmpty(atom.tailU) || !isEmpty(atom.headU) || atom.nullable) this.findings.push({ kind: "nested", at: start });
      }
      return { first: atom.first, last: atom.last, nullable: q.min === 0 || atom.nullable, headU: union(atom.headU, atom.first), tailU: union(atom.tailU, atom.last) };
    }
    return { ...atom, nullable: q.min === 0 || atom.nullable };
  }

  private quantifier(): { min: number; max: number } | undefined {
    const c = this.src[this.i];
    let q: { min: number; max: number } | undefined;
    if (c === "*") q = { min: 0, max: Infinity };
    else if (c === "+") q = { min: 1, max: Infinity };
    else if (c === "?") q = { min: 0, max: 1 };
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return undefined;
      this.i += m[0].length - 1;
      q = { min: Number(m[1]), max: m[2] ? (m[3] ? Number(m[3]) : Infinity) : Number(m[1]) };
    }
    if (!q) return undefined;
    this.i++;
    if (this.src[this.i] === "?") this.i++; // lazy: same backtracking
    return q;
  }

  private atom(): Info {
    const c = this.src[this.i]!;
    const lit = (s: CharSet): Info => ({ first: s, last: s, nullable: false, headU: EMPTY, tailU: EMPTY });
    const assertion = (a: "start" | "end" | "other"): Info => ({ first: EMPTY, last: EMPTY, nullable: true, headU: EMPTY, tailU: EMPTY, assertion: a });
    if (c === "(") {
      this.i++;
      let look = false;
      if (this.src[this.i] === "?") {
        const m = /^\?(:|=|!|<=|<!|<[A-Za-z_][A-Za-z0-9_]*>)/.exec(this.src.slice(this.i))!;
        look = m[1] !== ":" && !m[1]!.startsWith("<") ? true : m[1] === "<=" || m[1] === "<!";
        this.i += m[0].length;
      }
      const inner = this.alternation();
      this.i++; // ')'
      return look ? assertion("other") : inner;
    }
    if (c === "^") return this.i++, assertion("start");
    if (c === "$") return this.i++, assertion("end");
    if (c === ".") return this.i++, lit(this.flags.includes("s") ? ALL : DOT);
    if (c === "[") return lit(this.cls());
    if (c === "\\") {
      const e = this.src[this.i + 1]!;
      if (e === "b" || e === "B") return (this.i += 2), assertion("other");
      if (/[1-9]/.test(e)) {
        this.i += 2;
        return lit(ALL); // a back-reference: any text
      }
      return lit(this.escape());
    }
    this.i++;
    return lit(this.folded(c.codePointAt(0)!));
  }

  private folded(code: number): CharSet {
    let s = ch(code);
    if (this.flags.includes("i")) {
      const c = String.fromCodePoint(code);
      s = union(union(s, ch(c.toLowerCase().codePointAt(0)!)), ch(c.toUpperCase().codePointAt(0)!));
    }
    return s;
  }

  /** At a backslash: the set it denotes; advances past it. */
  private escape(): CharSet {
    const e = this.src[this.i + 1]!;
    this.i += 2;
    switch (e) {
      case "d":
        return DIGIT;
      case "D":
        return complement(DIGIT);
      case "w":
        return WORD;
      case "W":
        return complement(WORD);
      case "s":
        return SPACE;
      case "S":
        return complement(SPACE);
      case "n":
        return ch(10);
      case "r":
        return ch(13);
      case "t":
        return ch(9);
      case "f":
        return ch(12);
      case "v":
        return ch(11);
      case "0":
        return ch(0);
      case "x": {
        const h = this.src.slice(this.i, this.i + 2);
        this.i += 2;
        return ch(parseInt(h, 16));
      }
      case "u": {
        if (this.src[this.i] === "{") {
          const end = this.src.indexOf("}", this.i);
          const code = parseInt(this.src.slice(this.i + 1, end), 16);
          this.i = end + 1;
          return ch(code);
        }
        const h = this.src.slice(this.i, this.i + 4);
        this.i += 4;
        return ch(parseInt(h, 16));
      }
      case "p":
      case "P": {
        const end = this.src.indexOf("}", this.i);
        this.i = end + 1;
        return ALL; // a Unicode property: assume it overlaps everything
      }
      default:
        return this.folded(e.codePointAt(0)!);
    }
  }

  private cls(): CharSet {
    this.i++; // '['
    let negate = false;
    if (this.src[this.i] === "^") {
      negate = true;
      this.i++;
    }
    let s = EMPTY;
    let firstChar = true;
    while (this.i < this.src.length && (this.src[this.i] !== "]" || (firstChar && false))) {
      firstChar = false;
      let lo: CharSet;
      let loCode: number | undefined;
      if (this.src[this.i] === "\\") {
        const e = this.src[this.i + 1]!;
        lo = this.escape();
        loCode = /[dDwWsSpP]/.test(e) ? undefined : lowest(lo);
      } else {
        loCode = this.src.codePointAt(this.i)!;
        lo = this.folded(loCode);
        this.i += loCode > 0xffff ? 2 : 1;
      }
      if (this.src[this.i] === "-" && this.src[this.i + 1] !== "]" && loCode !== undefined) {
        this.i++;
        let hiCode: number;
        if (this.src[this.i] === "\\") hiCode = lowest(this.escape()) ?? 127;
        else {
          hiCode = this.src.codePointAt(this.i)!;
          this.i += hiCode > 0xffff ? 2 : 1;
        }
        lo = range(loCode, hiCode);
        if (this.flags.includes("i")) lo = union(lo, union(range(65, 90), range(97, 122)));
      }
      s = union(s, lo);
    }
    this.i++; // ']'
    return negate ? complement(s) : s;
  }
}

function lowest(s: CharSet): number | undefined {
  for (let c = 0; c < 128; c++) if ((s.ascii >> BigInt(c)) & 1n) return c;
  return s.other ? 128 : undefined;
}

/** The findings for one pattern (empty: no super-linear shape found). */
export function lintRegex(source: string, flags = ""): Finding[] {
  const p = new Parser(source, flags);
  const items: Info[] = [];
  // Top level: split alternatives ourselves to check "leading" per alternative.
  const top = p.parse();
  const findings = [...p.findings];
  // Leading: unanchored, starts with an unbounded repetition and something after it can fail.
  for (const alt of splitTop(source)) {
    // A sticky regex matches only at lastIndex: no start position is retried.
    if (flags.includes("y")) break;
    if (alt.startsWith("^") || alt.startsWith("(?<=") || alt.startsWith("\\b")) continue;
    const q = new Parser(alt, flags);
    const lead = leadingUnboundedThenFallible(q, alt);
    if (lead) findings.push({ kind: "leading", at: 0 });
  }
  void top;
  void items;
  return findings;
}

function splitTop(src: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      out.push(src.slice(start, i));
      start = i + 1;
    }
  }
  out.push(src.slice(start));
  return out;
}

/** The first item is an unbounded repetition (of a single character class) and the rest can fail. */
function leadingUnboundedThenFallible(p: Parser, alt: string): boolean {
  // Parse the first item alone.
  const first = (p as unknown as { quantified(): Info }).quantified.call(p);
  if (first.assertion || isEmpty(first.headU)) return false;
  const firstEnd = p.i;
  if (firstEnd >= alt.length) return false;
  const rest = new Parser(alt.slice(firstEnd), p.flags).parse();
  // The rest can fail when it must match at least one character, or it ends in `$`/lookaround.
  return !rest.nullable || /\$$|\(\?[=!]/.test(alt.slice(firstEnd));
}
