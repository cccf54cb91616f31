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

/** The model of `text` when it is valid TOML the fast path reads in full; undefined otherwise. */
export function parseTomlFast(text: string, lines: LineIndex): FastToml | undefined {
  try {
    return new Reader(text, lines).read();
  } catch (e) {
    if (e === BAIL) return undefined;
    throw e;
  }
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
  private readonly entries: ConfigEntry[] = [];
  private readonly sections: ConfigSection[] = [];
  private readonly comments: ConfigComment[] = [];
  /** Inline tables being read (no newlines or comments inside them in TOML 1.0; we also refuse them in their arrays). */
  private inline = 0;

  constructor(
    private readonly text: string,
    private readonly lines: LineIndex,
  ) {
    this.n = text.length;
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

  read(): FastToml {
    const text = this.text;
    const root = table(How.Header, 0);
    let current = root;
    let owner = 0;
    let prefix: string[] = [];
    let section: ConfigSection | undefined;
    let sectionStart = 0;
    let sectionEnd = 0;
    const arrayCounts = new Map<string, number>();
    const close = () => {
      if (section) section.range = this.range(sectionStart, sectionEnd);
    };
    while (this.i < this.n) {
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
        owner++;
        const resolved: string[] = [];
        current = this.header(root, keys, isArray, owner, resolved);
        const path = keys.slice();
        section = { path, headerRange: this.range(start, end), range: undefined as unknown as Range };
        if (isArray) {
          const k = path.join(".");
          const count = arrayCounts.get(k) ?? 0;
          arrayCounts.set(k, count + 1);
          section.isArrayItem = true;
          prefix = [...path, String(count)];
        } else prefix = resolved;
        this.sections.push(section);
        sectionStart = start;
        sectionEnd = end;
        this.ws();
        if (text.charCodeAt(this.i) === 0x23) this.comment();
        this.eol();
      } else {
        const start = this.i;
        const keys = this.key();
        const keyEnd = this.i;
        if (prefix.length + keys.length > MAX_KEY_PARTS) throw BAIL;
        this.ws();
        if (text.charCodeAt(this.i) !== 0x3d /* = */) throw BAIL;
        this.i++;
        this.ws();
        const path = prefix.length ? [...prefix, ...keys] : keys;
        const target = this.dotted(current, keys, owner);
        const value = this.value(path);
        this.define(target, keys[keys.length - 1]!);
        const end = this.i;
        this.entries.push({ path, keyRange: this.range(start, keyEnd), range: this.range(start, end), value });
        sectionEnd = end;
        this.ws();
        if (text.charCodeAt(this.i) === 0x23) this.comment();
        this.eol();
      }
    }
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
    t.kids!.set(name, { kind: Kind.Value, how: How.Header, owner: 0 });
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
