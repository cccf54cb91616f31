/**
 * TOML fast path (issue #21): one linear pass over a TOML 1.0 text that builds the same model as toml.ts's
 * toml-eslint-parser path (entries, sections, comments, values and every range, in the same order) without
 * an AST or tokens. It reads only what it is sure of and returns undefined on anything else: any syntax
 * error, any key defined twice or table defined twice, and the forms it leaves to the full parser
 * (multi-line strings, dates and times, integers of more than 15 digits, newlines inside inline tables,
 * dotted keys into a table not made by this table's own dotted keys, keys past MAX_KEY_PARTS). Then
 * parseTomlDocument parses with toml-eslint-parser as before, with its error recovery and messages.
 * test/toml-fast.test.ts compares both on every corpus file and on thousands of mutations of them.
 */
import type { ConfigComment, ConfigEntry, ConfigSection, ConfigValue } from "../model/document";
import type { LineIndex } from "../model/lineIndex";
import { MAX_KEY_PARTS } from "../model/limits";
import { setOwn } from "../model/table";
import type { Position, Range } from "../model/types";

export interface FastToml {
  entries: ConfigEntry[];
  sections: ConfigSection[];
  comments: ConfigComment[];
}

/** Thrown to leave the fast path; caught in parseTomlFast only. */
class Bail {}
const BAIL = new Bail();

/** Defined-ness of a key, enough to refuse what TOML forbids (redefinitions), as a tree mirroring the file. */
const enum Kind {
  Value,
  Table,
  ArrayOfTables,
}
const enum How {
  /** Created by a header's prefix (`[a.b]` creates `a`): may still get its own header once. */
  Implicit,
  /** Defined by its own header. */
  Header,
  /** Created by dotted keys of one table (`owner`). */
  Dotted,
}
interface Node {
  kind: Kind;
  how: How;
  owner: number;
  kids?: Map<string, Node>;
  /** The latest table of an array of tables, and how many it has. */
  last?: Node;
  count?: number;
}

const table = (how: How, owner: number): Node => ({ kind: Kind.Table, how, owner, kids: new Map() });

/** Every value's node: a value is never changed after its definition (only tables are), so one object serves. */
const VALUE: Node = { kind: Kind.Value, how: How.Header, owner: 0 };

/** What a read carries from one top-level statement to the next. */
interface ReadState {
  root: Node;
  current: Node;
  owner: number;
  /** The path of the current table's keys (with the index of each array of tables it goes through). */
  prefix: string[];
  section: ConfigSection | undefined;
  sectionStart: number;
  sectionEnd: number;
  arrayCounts: Map<string, number>;
}

function initialState(): ReadState {
  const root = table(How.Header, 0);
  return { root, current: root, owner: 0, prefix: [], section: undefined, sectionStart: 0, sectionEnd: 0, arrayCounts: new Map() };
}

/**
 * The model of `text` when it is valid TOML the fast path reads in full; undefined otherwise.
 *
 * `key` (the document's URI) turns on the incremental read (issue #36): the last few reads are kept by key
 * with a checkpoint at every top-level line start, and a read of a new version of the same document keeps
 * the previous read's entries, sections and comments that end before the first changed character (their
 * objects and ranges are identical: the text before that point is), rebuilds the definitions they made
 * (`replay`, no text read), and reads on from that line. A text the fast path bails on keeps the last read
 * it did read, which the next version is compared with. Without `key` every read is a full one.
 */
export function parseTomlFast(text: string, lines: LineIndex, key?: string): FastToml | undefined {
  const prev = key === undefined ? undefined : previous.get(key);
  try {
    const reader = new Reader(text, lines, key !== undefined);
    const read = (prev && reader.resume(prev)) ?? reader.read();
    if (key !== undefined) {
      // Newest last; a text the fast path bails on keeps the last read it did read (typing passes through those).
      previous.delete(key);
      previous.set(key, { text, read, checkpoints: reader.checkpoints });
      if (previous.size > KEPT_READS) previous.delete(previous.keys().next().value!);
    }
    return read;
  } catch (e) {
    if (e === BAIL) return undefined;
    throw e;
  }
}

/** Reads kept for the incremental path: one per open document is what matters; a few cover a split editor. */
const KEPT_READS = 4;

/** Per checkpoint, in this order: offset (a line start), line, entries, sections and comments before it, the open section's start and end offsets. */
const CP = 7;

interface Kept {
  text: string;
  read: FastToml;
  checkpoints: number[];
}

/** The last reads by key, oldest first. */
const previous = new Map<string, Kept>();

/** Forgets the kept reads (tests compare incremental and fresh reads). */
export function forgetTomlReads(): void {
  previous.clear();
}

/** The length of the common suffix of `a` and `b`, at most `max` (compared in chunks natively, then by character). */
export function commonSuffix(a: string, b: string, max: number): number {
  let n = 0;
  for (let step = 4096; step >= 1; step >>= 4) while (n + step <= max && a.endsWith(b.slice(b.length - n - step, b.length - n), a.length - n)) n += step;
  return n;
}

/** Length of the common prefix of `a` and `b`. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  // Whole blocks first (startsWith compares without a JS loop), then characters.
  for (let step = 4096; step >= 1; step >>= 4) while (i + step <= n && b.startsWith(a.slice(i, i + step), i)) i += step;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

const isBare = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d;
/** Characters a number, boolean, inf or nan token is made of (a date has them too and then fails the patterns). */
const isTokenChar = (c: number) => isBare(c) || c === 0x2b || c === 0x2e;

const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
const DEC_INT = /^[+-]?(?:0|[1-9](?:_?[0-9])*)$/;
const HEX_INT = /^0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*$/;
const OCT_INT = /^0o[0-7](?:_?[0-7])*$/;
const BIN_INT = /^0b[01](?:_?[01])*$/;
const FLOAT = /^[+-]?(?:0|[1-9](?:_?[0-9])*)(?:\.[0-9](?:_?[0-9])*)?(?:[eE][+-]?[0-9](?:_?[0-9])*)?$/;

class Reader {
  private i = 0;
  private readonly n: number;
  private entries: ConfigEntry[] = [];
  private sections: ConfigSection[] = [];
  private comments: ConfigComment[] = [];
  /** Inline tables being read (no newlines or comments inside them in TOML 1.0; we also refuse them in their arrays). */
  private inline = 0;

  /** Checkpoints (CP numbers each) at every top-level line start, recorded when `record`. */
  checkpoints: number[] = [];

  constructor(
    private readonly text: string,
    private readonly lines: LineIndex,
    private readonly record = false,
  ) {
    this.n = text.length;
  }

  /**
   * Reads `text` reusing `prev` up to the last checkpoint at or before the first character that differs;
   * undefined when there is none to reuse (then `read` reads it all). The reused prefix was read without
   * looking past its checkpoint (every statement ends at its line break), so reading it again would give
   * the same objects; only the definitions it made are rebuilt, from its sections and entries.
   */
  resume(prev: Kept): FastToml | undefined {
    const at = commonPrefix(prev.text, this.text);
    const cps = prev.checkpoints;
    // The last checkpoint at or before `at` (binary search over the offsets).
    let lo = 0;
    let hi = cps.length / CP - 1;
    if (hi < 1 || cps[CP]! > at) return undefined;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (cps[mid * CP]! <= at) lo = mid;
      else hi = mid - 1;
    }
    const c = lo * CP;
    const [offset, line, nEntries, nSections, nComments, sectionStart, sectionEnd] = cps.slice(c, c + CP) as [number, number, number, number, number, number, number];
    if (offset === 0) return undefined;
    // The checkpoints before this one (the read records this one again, at its loop's top).
    this.checkpoints = cps.slice(0, c);
    this.entries = prev.read.entries.slice(0, nEntries);
    this.sections = prev.read.sections.slice(0, nSections);
    this.comments = prev.read.comments.slice(0, nComments);
    this.i = offset;
    this.line = line;
    this.lineStart = offset;
    const state = this.replay();
    // The open section's range is set when it closes: a copy, so the previous read's object stays as it was.
    if (state.section) {
      state.section = { ...state.section };
      this.sections[nSections - 1] = state.section;
    }
    state.sectionStart = sectionStart;
    state.sectionEnd = sectionEnd;
    return this.read(state);
  }

  /** The definitions the reused sections and entries made, in source order, and the state after them. */
  private replay(): ReadState {
    const state = initialState();
    const { entries, sections } = this;
    let e = 0;
    for (let s = 0; s <= sections.length; s++) {
      const next = sections[s];
      const until = next ? next.headerRange.start.line : Infinity;
      for (; e < entries.length && entries[e]!.range.start.line < until; e++) {
        const path = entries[e]!.path;
        const keys = state.prefix.length ? path.slice(state.prefix.length) : path;
        this.define(this.dotted(state.current, keys, state.owner), keys[keys.length - 1]!);
      }
      if (next) this.openSection(state, next.path, next.isArrayItem === true, next);
    }
    return state;
  }

  /** A header's effect on the state: its table, its owner number, the prefix of its keys. */
  private openSection(state: ReadState, keys: string[], isArray: boolean, section: ConfigSection): void {
    state.owner++;
    const resolved: string[] = [];
    state.current = this.header(state.root, keys, isArray, state.owner, resolved);
    if (isArray) {
      const k = keys.join(".");
      const count = state.arrayCounts.get(k) ?? 0;
      state.arrayCounts.set(k, count + 1);
      state.prefix = [...keys, String(count)];
    } else state.prefix = resolved;
    state.section = section;
  }

  /** Line of `i`, and its start: every line break is read by `eol`, so offsets at or after `lineStart` are on `line`. */
  private line = 0;
  private lineStart = 0;

  private at(offset: number): Position {
    return offset >= this.lineStart ? { line: this.line, character: offset - this.lineStart } : this.lines.positionAt(offset);
  }

  /** The same as `lines.range(a, b)` for a ≤ b ≤ i, without its binary searches on the current line. */
  private range(a: number, b: number): Range {
    return { start: this.at(a), end: this.at(b) };
  }

  read(state: ReadState = initialState()): FastToml {
    const text = this.text;
    const close = () => {
      if (state.section) state.section.range = this.range(state.sectionStart, state.sectionEnd);
    };
    const record = () => {
      if (this.record) this.checkpoints.push(this.i, this.line, this.entries.length, this.sections.length, this.comments.length, state.sectionStart, state.sectionEnd);
    };
    while (this.i < this.n) {
      record();
      this.ws();
      if (this.i >= this.n) break;
      const c = text.charCodeAt(this.i);
      if (c === 0x23 /* # */) {
        this.comment();
        this.eol();
      } else if (c === 0x0a || c === 0x0d) {
        this.eol();
      } else if (c === 0x5b /* [ */) {
        close();
        const start = this.i;
        const isArray = text.charCodeAt(this.i + 1) === 0x5b;
        this.i += isArray ? 2 : 1;
        this.ws();
        const keys = this.key();
        this.ws();
        if (text.charCodeAt(this.i) !== 0x5d) throw BAIL;
        this.i++;
        if (isArray) {
          if (text.charCodeAt(this.i) !== 0x5d) throw BAIL;
          this.i++;
        }
        const end = this.i;
        if (keys.length > MAX_KEY_PARTS) throw BAIL;
        const section: ConfigSection = { path: keys.slice(), headerRange: this.range(start, end), range: undefined as unknown as Range };
        if (isArray) section.isArrayItem = true;
        this.openSection(state, keys, isArray, section);
        this.sections.push(section);
        state.sectionStart = start;
        state.sectionEnd = end;
        this.ws();
        if (text.charCodeAt(this.i) === 0x23) this.comment();
        this.eol();
      } else {
        const start = this.i;
        const keys = this.key();
        const keyEnd = this.i;
        const prefix = state.prefix;
        if (prefix.length + keys.length > MAX_KEY_PARTS) throw BAIL;
        this.ws();
        if (text.charCodeAt(this.i) !== 0x3d /* = */) throw BAIL;
        this.i++;
        this.ws();
        const path = prefix.length ? [...prefix, ...keys] : keys;
        const target = this.dotted(state.current, keys, state.owner);
        const value = this.value(path);
        this.define(target, keys[keys.length - 1]!);
        const end = this.i;
        this.entries.push({ path, keyRange: this.range(start, keyEnd), range: this.range(start, end), value });
        state.sectionEnd = end;
        this.ws();
        if (text.charCodeAt(this.i) === 0x23) this.comment();
        this.eol();
      }
    }
    // A checkpoint at the end too when the text ends with a line break (an edit appending lines resumes there).
    if (this.n > 0 && text.charCodeAt(this.n - 1) === 0x0a) record();
    close();
    return { entries: this.entries, sections: this.sections, comments: this.comments };
  }

  /**
   * Resolves a header's table, creating what it implies; bails on a redefinition or a conflict. `resolved`
   * gets the table's path with the index of each array of tables it goes through (toml-eslint-parser's
   * `resolvedKey`, the prefix of a standard table's keys).
   */
  private header(root: Node, keys: string[], isArray: boolean, owner: number, resolved: string[]): Node {
    let cur = root;
    for (let k = 0; k < keys.length - 1; k++) {
      const name = keys[k]!;
      resolved.push(name);
      let next = cur.kids!.get(name);
      if (!next) {
        next = table(How.Implicit, owner);
        cur.kids!.set(name, next);
      } else if (next.kind === Kind.ArrayOfTables) {
        resolved.push(String(next.count! - 1));
        next = next.last!;
      } else if (next.kind !== Kind.Table) throw BAIL;
      cur = next;
    }
    resolved.push(keys[keys.length - 1]!);
    const name = keys[keys.length - 1]!;
    const found = cur.kids!.get(name);
    if (isArray) {
      const item = table(How.Header, owner);
      if (!found) cur.kids!.set(name, { kind: Kind.ArrayOfTables, how: How.Header, owner, last: item, count: 1 });
      else if (found.kind === Kind.ArrayOfTables) {
        found.last = item;
        found.count!++;
      } else throw BAIL;
      return item;
    }
    if (!found) {
      const t = table(How.Header, owner);
      cur.kids!.set(name, t);
      return t;
    }
    if (found.kind === Kind.Table && found.how === How.Implicit) {
      found.how = How.Header;
      return found;
    }
    throw BAIL;
  }

  /** The table a dotted key's last part goes in, creating the tables its other parts name. */
  private dotted(cur: Node, keys: string[], owner: number): Node {
    for (let k = 0; k < keys.length - 1; k++) {
      const name = keys[k]!;
      let next = cur.kids!.get(name);
      if (!next) {
        next = table(How.Dotted, owner);
        cur.kids!.set(name, next);
      } else if (next.kind !== Kind.Table || next.how !== How.Dotted || next.owner !== owner) throw BAIL;
      cur = next;
    }
    return cur;
  }

  private define(t: Node, name: string): void {
    if (t.kids!.has(name)) throw BAIL;
    t.kids!.set(name, VALUE);
  }

  /** Spaces and tabs. */
  private ws(): void {
    const text = this.text;
    while (this.i < this.n) {
      const c = text.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09) this.i++;
      else break;
    }
  }

  /** A line break or the end of the text; anything else bails. */
  private eol(): void {
    if (this.i >= this.n) return;
    const c = this.text.charCodeAt(this.i);
    if (c === 0x0a) this.i++;
    else if (c === 0x0d && this.text.charCodeAt(this.i + 1) === 0x0a) this.i += 2;
    else throw BAIL;
    this.line++;
    this.lineStart = this.i;
  }

  /** A `#` comment up to (not including) its line break. */
  private comment(): void {
    const text = this.text;
    const start = this.i;
    const nl = text.indexOf("\n", start);
    let end = nl < 0 ? this.n : nl;
    if (nl > 0 && text.charCodeAt(nl - 1) === 0x0d) end--;
    const body = text.slice(start + 1, end);
    // Control characters other than tab (a carriage return not before a line feed among them).
    if (CONTROL.test(body)) throw BAIL;
    this.i = end;
    this.comments.push({ line: this.line, text: body.trim(), range: this.range(start, end) });
  }

  /** A (dotted) key; leaves `i` just past its last part. */
  private key(): string[] {
    const keys: string[] = [];
    for (;;) {
      keys.push(this.simpleKey());
      const save = this.i;
      this.ws();
      if (this.text.charCodeAt(this.i) !== 0x2e /* . */) {
        this.i = save;
        return keys;
      }
      this.i++;
      this.ws();
    }
  }

  private simpleKey(): string {
    const text = this.text;
    const c = text.charCodeAt(this.i);
    if (c === 0x22) {
      if (text.charCodeAt(this.i + 1) === 0x22 && text.charCodeAt(this.i + 2) === 0x22) throw BAIL;
      return this.basicString();
    }
    if (c === 0x27) {
      if (text.charCodeAt(this.i + 1) === 0x27 && text.charCodeAt(this.i + 2) === 0x27) throw BAIL;
      return this.literalString();
    }
    const start = this.i;
    while (this.i < this.n && isBare(text.charCodeAt(this.i))) this.i++;
    if (this.i === start) throw BAIL;
    return text.slice(start, this.i);
  }

  /** A one-line basic string at `i` (its opening quote); returns its value, `i` past the closing quote. */
  private basicString(): string {
    const text = this.text;
    let j = this.i + 1;
    let from = j;
    let out = "";
    for (;;) {
      if (j >= this.n) throw BAIL;
      const c = text.charCodeAt(j);
      if (c === 0x22) break;
      if ((c < 0x20 && c !== 0x09) || c === 0x7f) throw BAIL;
      if (c !== 0x5c) {
        j++;
        continue;
      }
      out += text.slice(from, j);
      const e = text.charCodeAt(j + 1);
      let len = 2;
      switch (e) {
        case 0x62 /* b */:
          out += "\b";
          break;
        case 0x74 /* t */:
          out += "\t";
          break;
        case 0x6e /* n */:
          out += "\n";
          break;
        case 0x66 /* f */:
          out += "\f";
          break;
        case 0x72 /* r */:
          out += "\r";
          break;
        case 0x22:
          out += '"';
          break;
        case 0x5c:
          out += "\\";
          break;
        case 0x75 /* u */:
        case 0x55 /* U */: {
          const digits = e === 0x75 ? 4 : 8;
          const hex = text.slice(j + 2, j + 2 + digits);
          if (hex.length !== digits || !/^[0-9A-Fa-f]+$/.test(hex)) throw BAIL;
          const cp = parseInt(hex, 16);
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw BAIL;
          out += String.fromCodePoint(cp);
          len = 2 + digits;
          break;
        }
        default:
          throw BAIL;
      }
      j += len;
      from = j;
    }
    out += text.slice(from, j);
    this.i = j + 1;
    return out;
  }

  private literalString(): string {
    const text = this.text;
    const start = this.i + 1;
    let j = start;
    for (;;) {
      if (j >= this.n) throw BAIL;
      const c = text.charCodeAt(j);
      if (c === 0x27) break;
      if ((c < 0x20 && c !== 0x09) || c === 0x7f) throw BAIL;
      j++;
    }
    this.i = j + 1;
    return text.slice(start, j);
  }

  private value(path: string[]): ConfigValue {
    const text = this.text;
    const start = this.i;
    const c = text.charCodeAt(start);
    if (c === 0x22 || c === 0x27) {
      if (text.charCodeAt(start + 1) === c && text.charCodeAt(start + 2) === c) throw BAIL; // multi-line: full parser
      const value = c === 0x22 ? this.basicString() : this.literalString();
      return { kind: "string", value, range: this.range(start, this.i), raw: text.slice(start, this.i) };
    }
    if (c === 0x5b) return this.array(path);
    if (c === 0x7b) return this.inlineTable(path);
    let j = start;
    while (j < this.n && isTokenChar(text.charCodeAt(j))) j++;
    if (j === start) throw BAIL;
    const tok = text.slice(start, j);
    this.i = j;
    const range = this.range(start, j);
    if (tok === "true" || tok === "false") return { kind: "boolean", value: tok === "true", range, raw: tok };
    if (DEC_INT.test(tok)) {
      const digits = tok.replace(/_/g, "");
      if (digits.length > 15) throw BAIL;
      const v = Number(digits);
      return { kind: "integer", value: v === 0 ? 0 : v, range, raw: tok };
    }
    if (tok.length > 2 && tok.charCodeAt(0) === 0x30) {
      const p = tok.charCodeAt(1);
      const re = p === 0x78 ? HEX_INT : p === 0x6f ? OCT_INT : p === 0x62 ? BIN_INT : undefined;
      if (re && re.test(tok)) {
        const digits = tok.slice(2).replace(/_/g, "");
        if (digits.length > 12) throw BAIL;
        return { kind: "integer", value: parseInt(digits, p === 0x78 ? 16 : p === 0x6f ? 8 : 2), range, raw: tok };
      }
    }
    if (FLOAT.test(tok)) return { kind: "float", value: Number(tok.replace(/_/g, "")), range, raw: tok };
    const bare = tok.charCodeAt(0) === 0x2b || tok.charCodeAt(0) === 0x2d ? tok.slice(1) : tok;
    if (bare === "inf") return { kind: "float", value: tok.charCodeAt(0) === 0x2d ? -Infinity : Infinity, range, raw: tok };
    if (bare === "nan") return { kind: "float", value: NaN, range, raw: tok };
    throw BAIL;
  }

  /** Whitespace, line breaks and comments between array items. */
  private arraySpace(): void {
    const text = this.text;
    for (;;) {
      this.ws();
      if (this.i >= this.n) throw BAIL;
      const c = text.charCodeAt(this.i);
      if (c === 0x0a || c === 0x0d || c === 0x23) {
        if (this.inline) throw BAIL;
        if (c === 0x23) this.comment();
        this.eol();
      } else return;
    }
  }

  private array(path: string[]): ConfigValue {
    const text = this.text;
    const start = this.i;
    this.i++;
    const items: ConfigValue[] = [];
    for (;;) {
      this.arraySpace();
      if (text.charCodeAt(this.i) === 0x5d) break;
      items.push(this.value([...path, String(items.length)]));
      this.arraySpace();
      const c = text.charCodeAt(this.i);
      if (c === 0x2c) {
        this.i++;
        continue;
      }
      if (c === 0x5d) break;
      throw BAIL;
    }
    this.i++;
    return { kind: "array", value: items.map((x) => x.value), range: this.range(start, this.i), items, raw: text.slice(start, this.i) };
  }

  private inlineTable(path: string[]): ConfigValue {
    const text = this.text;
    const start = this.i;
    this.i++;
    this.inline++;
    const entries: ConfigEntry[] = [];
    const obj: Record<string, unknown> = {};
    const tree = table(How.Header, -1);
    this.ws();
    if (text.charCodeAt(this.i) !== 0x7d) {
      for (;;) {
        this.ws();
        const kStart = this.i;
        const keys = this.key();
        const kEnd = this.i;
        if (path.length + keys.length > MAX_KEY_PARTS) throw BAIL;
        this.ws();
        if (text.charCodeAt(this.i) !== 0x3d) throw BAIL;
        this.i++;
        this.ws();
        const sub = [...path, ...keys];
        const target = this.dotted(tree, keys, -1);
        const v = this.value(sub);
        this.define(target, keys[keys.length - 1]!);
        entries.push({ path: sub, keyRange: this.range(kStart, kEnd), range: this.range(kStart, this.i), value: v });
        setOwn(obj, keys.join("."), v.value);
        this.ws();
        const c = text.charCodeAt(this.i);
        if (c === 0x2c) {
          this.i++;
          continue;
        }
        if (c === 0x7d) break;
        throw BAIL;
      }
    }
    this.i++;
    this.inline--;
    return { kind: "table", value: obj, range: this.range(start, this.i), entries, raw: text.slice(start, this.i) };
  }
}
