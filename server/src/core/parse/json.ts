/**
 * JSON front end (DeepSpeed configs). A small recursive-descent parser that keeps the offset of every key
 * and value, because JSON.parse gives values only. Objects become sections (their keys are entries with
 * full paths, like YAML block mappings); `{}` is an entry of kind "table"; arrays are entries of kind
 * "array" with items.
 *
 * Leniency (documented): `//` and `/* *\/` comments are accepted and kept (DeepSpeed also reads HJSON, and
 * they let `// precision-lens: off` work); everything else is strict JSON. Duplicate keys are kept in source
 * order (`findEntry` returns the last) and listed by `jsonDuplicateKeys`, since DeepSpeed rejects them.
 */
import type { ConfigComment, ConfigDocument, ConfigEntry, ConfigValue } from "../model/document";
import { LineIndex } from "../model/lineIndex";
import type { Range } from "../model/types";
import { skipReason, nestingReason } from "./guard";
import { setOwn, table } from "../model/table";

export const MAX_DEPTH = 256;
/** JSON's one-character escapes. */
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = table({ '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" });

interface Dup {
  path: string[];
  range: Range;
}
const DUPS = new WeakMap<ConfigDocument, Dup[]>();

/** Keys defined twice in the same object (DeepSpeed raises on them). */
export function jsonDuplicateKeys(doc: ConfigDocument): readonly Dup[] {
  return DUPS.get(doc) ?? [];
}

class JsonError extends Error {
  constructor(
    message: string,
    readonly at: number,
    readonly end: number,
  ) {
    super(message);
  }
}

export function parseJsonDocument(uri: string, text: string): ConfigDocument {
  const lines = new LineIndex(text);
  const doc: ConfigDocument = { uri, format: "json", text, lines, entries: [], sections: [], comments: [], syntaxErrors: [] };
  const skipped = skipReason(text);
  if (skipped) {
    doc.skipped = skipped;
    return doc;
  }
  const p = new JsonParser(text, lines, doc);
  try {
    p.skipWs();
    if (p.pos >= text.length) throw new JsonError("the file is empty; a DeepSpeed config is one JSON object", 0, 0);
    if (text[p.pos] === "{") p.object([], 0, true);
    else p.value([], 0);
    p.skipWs();
    if (p.pos < text.length) throw new JsonError("unexpected text after the end of the JSON value", p.pos, p.pos + 1);
  } catch (e) {
    if (e instanceof JsonError) doc.syntaxErrors.push({ message: `JSON syntax error: ${e.message}`, range: lines.range(e.at, Math.max(e.at, Math.min(e.end, text.length))) });
    // Past the depth bound the file is not analysed (a valid file never gets a syntax error); any other
    // RangeError (a stack overflow) becomes an internal-error in analyzeDocument.
    else if (e instanceof RangeError && e.message === "depth") doc.skipped = nestingReason(MAX_DEPTH);
    else throw e;
    // Keep comments found up to the error (directives still apply), plus a scan of the rest.
  }
  doc.comments = p.comments;
  if (p.dups.length) DUPS.set(doc, p.dups);
  return doc;
}

class JsonParser {
  pos = 0;
  comments: ConfigComment[] = [];
  dups: Dup[] = [];
  constructor(
    private readonly text: string,
    private readonly lines: LineIndex,
    private readonly doc: ConfigDocument,
  ) {}

  skipWs(): void {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.pos);
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) this.pos++;
      else if (c === 47 /* / */ && t[this.pos + 1] === "/") {
        const start = this.pos;
        let end = t.indexOf("\n", start);
        if (end < 0) end = t.length;
        if (t[end - 1] === "\r") end--;
        this.addComment(start, end, t.slice(start + 2, end));
        this.pos = end;
      } else if (c === 47 && t[this.pos + 1] === "*") {
        const start = this.pos;
        const close = t.indexOf("*/", start + 2);
        if (close < 0) throw new JsonError("unterminated /* comment", start, start + 2);
        this.addComment(start, close + 2, t.slice(start + 2, close));
        this.pos = close + 2;
      } else return;
    }
  }

  private addComment(start: number, end: number, body: string): void {
    this.comments.push({ line: this.lines.positionAt(start).line, text: body.trim(), range: this.lines.range(start, end) });
  }

  private fail(message: string): never {
    const c = this.text[this.pos];
    throw new JsonError(c === undefined ? `${message}, but the file ends` : `${message}, found ${JSON.stringify(c)}`, this.pos, this.pos + 1);
  }

  /** Parses an object. At the root or as a non-empty nested value, its keys are flattened as entries. */
  object(path: string[], depth: number, asSection: boolean): ConfigValue {
    if (depth > MAX_DEPTH) throw new RangeError("depth");
    const start = this.pos;
    this.pos++; // {
    const entries: ConfigEntry[] = [];
    const obj: Record<string, unknown> = {};
    const seen = new Set<string>();
    this.skipWs();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return { kind: "table", value: obj, range: this.lines.range(start, this.pos), entries, raw: this.text.slice(start, this.pos) };
    }
    for (;;) {
      this.skipWs();
      if (this.text[this.pos] !== '"') this.fail('expected a key in double quotes');
      const keyStart = this.pos;
      const key = this.string();
      const keyRange = this.lines.range(keyStart, this.pos);
      const sub = [...path, key];
      if (seen.has(key)) this.dups.push({ path: sub, range: keyRange });
      seen.add(key);
      this.skipWs();
      if (this.text[this.pos] !== ":") this.fail("expected ':' after the key");
      this.pos++;
      this.skipWs();
      const valueStart = this.pos;
      const nested = this.text[this.pos] === "{";
      if (nested && asSection && !this.emptyObjectAhead()) {
        const sectionIndex = this.doc.sections.length;
        this.doc.sections.push({ path: sub, headerRange: keyRange, range: keyRange });
        const v = this.object(sub, depth + 1, true);
        this.doc.sections[sectionIndex]!.range = this.lines.range(keyStart, this.pos);
        entries.push({ path: sub, keyRange, range: this.lines.range(keyStart, this.pos), value: v });
        setOwn(obj, key, v.value);
      } else {
        const v = this.value(sub, depth + 1);
        const e: ConfigEntry = { path: sub, keyRange, range: this.lines.range(keyStart, this.lines.offsetAt(v.range.end)), value: v };
        entries.push(e);
        if (asSection) this.doc.entries.push(e);
        setOwn(obj, key, v.value);
      }
      void valueStart;
      this.skipWs();
      const c = this.text[this.pos];
      if (c === ",") {
        this.pos++;
        this.skipWs();
        if (this.text[this.pos] === "}") throw new JsonError("trailing comma before '}' (not allowed in JSON)", this.pos - 1, this.pos);
        continue;
      }
      if (c === "}") {
        this.pos++;
        break;
      }
      this.fail("expected ',' or '}'");
    }
    return { kind: "table", value: obj, range: this.lines.range(start, this.pos), entries, raw: undefined };
  }

  private emptyObjectAhead(): boolean {
    const m = /^\{\s*\}/.exec(this.text.slice(this.pos, this.pos + 64));
    return m !== null;
  }

  value(path: string[], depth: number): ConfigValue {
    if (depth > MAX_DEPTH) throw new RangeError("depth");
    const t = this.text;
    const start = this.pos;
    const c = t[this.pos];
    if (c === "{") return this.object(path, depth, false);
    if (c === "[") {
      this.pos++;
      const items: ConfigValue[] = [];
      this.skipWs();
      if (t[this.pos] === "]") this.pos++;
      else
        for (;;) {
          this.skipWs();
          items.push(this.value([...path, String(items.length)], depth + 1));
          this.skipWs();
          if (t[this.pos] === ",") {
            this.pos++;
            this.skipWs();
            if (t[this.pos] === "]") throw new JsonError("trailing comma before ']' (not allowed in JSON)", this.pos - 1, this.pos);
            continue;
          }
          if (t[this.pos] === "]") {
            this.pos++;
            break;
          }
          this.fail("expected ',' or ']'");
        }
      return { kind: "array", value: items.map((i) => i.value), range: this.lines.range(start, this.pos), items, raw: t.slice(start, this.pos) };
    }
    if (c === '"') {
      const s = this.string();
      return { kind: "string", value: s, range: this.lines.range(start, this.pos), raw: t.slice(start, this.pos) };
    }
    const m = /^(?:true|false|null|-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?)/.exec(t.slice(this.pos, this.pos + 400));
    if (!m || /[A-Za-z0-9_]/.test(t[this.pos + m[0].length] ?? "")) {
      let end = this.pos;
      while (end < t.length && /[^\s,\]\}:]/.test(t[end]!)) end++;
      const word = t.slice(this.pos, Math.max(end, this.pos + 1));
      throw new JsonError(`unexpected ${JSON.stringify(word)}; expected a value (string, number, true, false, null, object or array)`, this.pos, Math.max(end, this.pos + 1));
    }
    this.pos += m[0].length;
    const raw = m[0];
    const range = this.lines.range(start, this.pos);
    if (raw === "true" || raw === "false") return { kind: "boolean", value: raw === "true", range, raw };
    if (raw === "null") return { kind: "null", value: null, range, raw };
    const isInt = !m[1] && !m[2];
    return { kind: isInt ? "integer" : "float", value: Number(raw), range, raw };
  }

  private string(): string {
    const t = this.text;
    const start = this.pos;
    this.pos++;
    let out = "";
    for (;;) {
      const i = this.pos;
      const c = t[i];
      if (c === undefined || c === "\n") throw new JsonError("unterminated string", start, i);
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c === "\\") {
        const e = t[i + 1];
        if (e !== undefined && e in SIMPLE_ESCAPES) {
          out += SIMPLE_ESCAPES[e];
          this.pos += 2;
        } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(t.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(t.slice(i + 2, i + 6), 16));
          this.pos += 6;
        } else throw new JsonError("invalid escape in string", i, i + 2);
        continue;
      }
      out += c;
      this.pos++;
    }
  }
}
