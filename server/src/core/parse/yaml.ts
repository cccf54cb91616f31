/**
 * YAML front end: the `yaml` package (2.x) parses to a CST and composes documents whose nodes keep source
 * offsets; we flatten them into the format-neutral model the same way the TOML front end does.
 *
 * What the model holds for YAML:
 * - a key whose value is a block mapping is a section (`headerRange` = the key); its keys are entries or
 *   sections with the full path;
 * - a flow mapping (`{...}`) is an entry of kind "table" (like a TOML inline table); its keys are *also*
 *   flattened into `entries`, so rules can use `findEntry` whatever the style;
 * - a sequence is an entry of kind "array"; mapping items are also sections (`isArrayItem`) with the
 *   path `[..., "<index>", key]`, and their keys are flattened like array-of-tables in TOML;
 * - only the first document that holds a mapping is the config; keys of other documents of a multi-document
 *   stream are kept under a path that starts with `(document N)` so they never match a framework key.
 *
 * Scalars are resolved the way the frameworks' loader resolves them: PyYAML (YAML 1.1) reads the plain
 * words yes/no/on/off (in their three case forms) as booleans, so we do too and keep `raw` so analysers can
 * explain it (`isYaml11Boolean`). Everything else follows the YAML 1.2 core schema, which agrees with PyYAML
 * for true/false/null/integers. Assumption (documented): `1e-5` is a float here; plain PyYAML reads it as a
 * string, OmegaConf's loader (torchtune, Hydra) as a float; no rule depends on the difference.
 *
 * Hostile input: aliases are never expanded through `toJS`. Our walk expands an alias only while a budget
 * of expanded nodes lasts (`MAX_ALIAS_EXPANSION`); past it, aliases are left unexpanded and a
 * `yaml-alias-limit` note is recorded (see `yamlParseNotes`). Nesting is bounded too.
 */
import { Composer, Parser, isAlias, isMap, isScalar, isSeq, visit, type Document, type Node, type ParsedNode, type Scalar, type YAMLMap, type YAMLSeq } from "yaml";
import type { ConfigComment, ConfigDocument, ConfigEntry, ConfigValue } from "../model/document";
import { LineIndex } from "../model/lineIndex";
import { setOwn } from "../model/table";
import type { Range, Severity } from "../model/types";
import { MAX_ANALYSED_CHARS, skipReason, yamlNestingReason } from "./guard";
import { FULL_RECOVERY_MAX_CHARS, markRecovered, setUnparsedKeys, type UnparsedKey } from "./partial";
import { recoverYaml, type YamlError } from "./yamlRecover";

/** Nodes an alias may expand to in one document, in total. Real configs stay far below (a few hundred). */
export const MAX_ALIAS_EXPANSION = 10_000;
/**
 * YAML files above this size are not analysed: the `yaml` package parses roughly 0.3–0.5 MB/s on a slow
 * 2-core machine, and real training configs are under 20 kB. The limit is the shared guard's, which
 * TOML and JSON use too.
 */
export const MAX_YAML_CHARS = MAX_ANALYSED_CHARS;
/** Deeper nesting than this is not walked (real configs nest under 10 levels). */
export const MAX_DEPTH = 64;

/** The words PyYAML's YAML 1.1 resolver turns into booleans but YAML 1.2 leaves as strings. */
const YAML11_BOOL = /^(?:yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF)$/;
const YAML11_TRUE = /^(?:yes|Yes|YES|on|On|ON)$/;

/** A parser-level finding that is not a syntax error (reported by the framework analysers). */
export interface ParseNote {
  code: "yaml-alias-limit";
  severity: Severity;
  /** One short sentence. */
  message: string;
  /** The long explanation (hover, report, JSON). */
  detail: string;
  range: Range;
}

const NOTES = new WeakMap<ConfigDocument, ParseNote[]>();

/** Notes the YAML front end recorded for `doc` (empty for other formats). */
export function yamlParseNotes(doc: ConfigDocument): readonly ParseNote[] {
  return NOTES.get(doc) ?? [];
}

/** True when `v` is a boolean that only YAML 1.1 makes a boolean (bare `no`, `NO`, `on`, `Off`...). */
export function isYaml11Boolean(v: ConfigValue): boolean {
  return v.kind === "boolean" && typeof v.raw === "string" && YAML11_BOOL.test(v.raw);
}

interface Walk {
  doc: ConfigDocument;
  lines: LineIndex;
  text: string;
  targets: Map<unknown, Node>;
  budget: number;
  limitHit?: Range;
  /** Nodes being expanded through an alias (guards against self-referencing anchors). */
  expanding: Set<unknown>;
}

export function parseYamlDocument(uri: string, text: string): ConfigDocument {
  const lines = new LineIndex(text);
  const doc: ConfigDocument = { uri, format: "yaml", text, lines, entries: [], sections: [], comments: [], syntaxErrors: [] };
  const skipped = skipReason(text) ?? yamlNestingReason(text);
  if (skipped) {
    doc.skipped = skipped;
    return doc;
  }
  let docs: Document.Parsed[];
  let tokens;
  try {
    ({ tokens, docs } = compose(text));
  } catch (e) {
    // A stack overflow is no syntax error: analyzeDocument turns it into an internal-error.
    if (e instanceof RangeError) throw e;
    doc.syntaxErrors.push({ message: `YAML syntax error: ${e instanceof Error ? e.message : String(e)}`, range: lines.range(0, 0) });
    return doc;
  }
  const errors = errorsOfDocs(docs);
  const overflow = errors.find((e) => /Maximum call stack/.test(e.message));
  if (overflow) throw new RangeError(overflow.message);
  // Issue #14: set the broken lines aside and compose again, so the rest is analysed with exact offsets.
  const recovered = errors.length && text.length <= FULL_RECOVERY_MAX_CHARS ? recoverYaml(text, lines, errors, (t) => errorsOfText(t)) : undefined;
  if (recovered) {
    ({ tokens, docs } = compose(recovered.text));
    markRecovered(doc);
    const keys: UnparsedKey[] = [];
    for (const a of recovered.setAside) if (a.path) keys.push({ path: a.path, range: lines.range(lines.lineStart(a.first), lines.lineEnd(a.first)) });
    setUnparsedKeys(doc, keys);
  }
  collectComments(tokens, doc, lines);
  for (const err of recovered ? recovered.errors : errors) {
    // The package reports its own stack overflow as a document error: that is no syntax error.
    if (/Maximum call stack/.test(err.message)) throw new RangeError(err.message);
    doc.syntaxErrors.push({ message: `YAML syntax error: ${firstLine(err.message)}`, range: lines.range(err.start, Math.max(err.end, err.start)) });
  }
  // Even a document with errors is walked: the partial model lets detection recognise a broken config.
  const w: Walk = { doc, lines, text, targets: new Map(), budget: MAX_ALIAS_EXPANSION, expanding: new Set() };
  let primary = true;
  docs.forEach((d, i) => {
    if (!d.contents) return;
    resolveAnchors(d, w.targets);
    const isConfig = primary && isMap(d.contents);
    const prefix = isConfig ? [] : [`(document ${i + 1})`];
    if (isConfig) primary = false;
    if (isMap(d.contents)) walkMap(w, d.contents, prefix, 0);
    else if (isSeq(d.contents)) toValue(w, d.contents, prefix, 0, undefined, true);
  });
  if (w.limitHit) {
    NOTES.set(doc, [
      {
        code: "yaml-alias-limit",
        severity: "warning",
        range: w.limitHit,
        message: `Aliases expand to more than ${MAX_ALIAS_EXPANSION} nodes: Precision Lens stopped expanding them here (alias bomb guard)`,
        detail: `This file's aliases expand to more than ${MAX_ALIAS_EXPANSION} nodes, so Precision Lens stopped expanding them here (a protection against "billion laughs" alias bombs). Keys reached only through later aliases are not analysed, and PyYAML-based loaders may hang or run out of memory on this file.`,
      },
    ]);
  }
  return doc;
}

function compose(text: string): { tokens: ReturnType<Parser["parse"]> extends Iterable<infer T> ? T[] : never; docs: Document.Parsed[] } {
  const tokens = [...new Parser().parse(text)];
  const docs = [...new Composer({ version: "1.2", schema: "core", merge: false, uniqueKeys: false, prettyErrors: false, strict: false }).compose(tokens, true, text.length)];
  return { tokens, docs };
}

function errorsOfDocs(docs: Document.Parsed[]): YamlError[] {
  return docs.flatMap((d) => d.errors.map((e) => ({ start: e.pos[0], end: e.pos[1], message: e.message })));
}

function errorsOfText(text: string): YamlError[] | undefined {
  try {
    return errorsOfDocs(compose(text).docs);
  } catch {
    return undefined;
  }
}

function firstLine(s: string): string {
  return s.split("\n")[0]!.trim();
}

/** For each alias node, the node its anchor names: the last one defined before it, in document order. */
function resolveAnchors(d: Document.Parsed, targets: Map<unknown, Node>): void {
  const anchors = new Map<string, Node>();
  visit(d, {
    Node(_key, node) {
      if (isAlias(node)) {
        const t = anchors.get(node.source);
        if (t) targets.set(node, t);
      } else if ((node as { anchor?: string }).anchor) {
        anchors.set((node as { anchor: string }).anchor, node as Node);
      }
    },
  });
}

function rangeOf(w: Walk, n: { range?: [number, number, number] | null }): Range {
  const r = n.range ?? [0, 0, 0];
  return w.lines.range(r[0], trimEnd(w, r[0], r[1]));
}

/** Block collections end after their last line break; ranges stop at the last non-space character. */
function trimEnd(w: Walk, start: number, end: number): number {
  let e = end;
  while (e > start && /\s/.test(w.text[e - 1]!)) e--;
  return e;
}

/**
 * Follows an alias to its target, charging the target's size to the budget. Returns undefined when the
 * alias does not resolve, refers to itself, or the budget is spent.
 */
function deref(w: Walk, n: unknown): Node | undefined {
  if (!isAlias(n)) return n as Node;
  const t = w.targets.get(n);
  if (!t || w.expanding.has(t)) return undefined;
  const cost = sizeOf(t, w.budget + 1);
  if (cost > w.budget) {
    w.budget = 0;
    w.limitHit ??= rangeOf(w, n as ParsedNode);
    return undefined;
  }
  w.budget -= cost;
  return t;
}

/** Node count of `n` with aliases counted at their expanded size, stopping early past `cap`. */
function sizeOf(n: unknown, cap: number, seen: Set<unknown> = new Set()): number {
  let count = 0;
  const stack: unknown[] = [n];
  while (stack.length && count <= cap) {
    const x = stack.pop();
    count++;
    if (isMap(x)) for (const p of x.items) stack.push(p.key, p.value);
    else if (isSeq(x)) for (const it of x.items) stack.push(it);
    else if (isAlias(x)) {
      // Aliases inside the target are charged again when expanded; count them as one node here.
      if (seen.has(x)) continue;
      seen.add(x);
    }
  }
  return count;
}

function keyText(w: Walk, k: unknown): string | undefined {
  const n = deref(w, k);
  if (isScalar(n)) return n.value === null ? "null" : String(n.value);
  return undefined;
}

function walkMap(w: Walk, map: YAMLMap, prefix: string[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  w.expanding.add(map);
  try {
    // Merge keys (`<<: *base`, supported by PyYAML): merged keys first, so explicit keys win (last wins).
    for (const pair of map.items) {
      if (!(isScalar(pair.key) && pair.key.value === "<<" && (pair.key as Scalar).type === "PLAIN")) continue;
      const v = pair.value;
      const sources = isSeq(v) ? v.items : [v];
      for (const s of sources) {
        const target = deref(w, s);
        if (isMap(target)) walkMap(w, target, prefix, depth + 1);
      }
    }
    for (const pair of map.items) {
      if (isScalar(pair.key) && pair.key.value === "<<" && (pair.key as Scalar).type === "PLAIN") continue;
      const key = keyText(w, pair.key);
      if (key === undefined) continue;
      const path = [...prefix, key];
      const keyNode = pair.key as ParsedNode;
      const keyRange = rangeOf(w, keyNode);
      const valueNode = pair.value as ParsedNode | null;
      const start = keyNode.range?.[0] ?? 0;
      const end = valueNode?.range ? valueNode.range[1] : (keyNode.range?.[1] ?? start);
      const entryRange = w.lines.range(start, trimEnd(w, start, Math.max(start, end)));
      const value = deref(w, valueNode);
      if (isMap(value) && !isFlow(value) && value.items.length > 0) {
        w.doc.sections.push({ path, headerRange: keyRange, range: entryRange });
        walkMap(w, value, path, depth + 1);
        continue;
      }
      const v = valueNode === null || valueNode === undefined ? nullValue(w, keyNode) : toValue(w, value, path, depth + 1, valueNode, !isMap(value));
      w.doc.entries.push({ path, keyRange, range: entryRange, value: v });
      if (isMap(value)) walkMap(w, value, path, depth + 1);
    }
  } finally {
    w.expanding.delete(map);
  }
}

function isFlow(n: YAMLMap | YAMLSeq): boolean {
  return n.flow === true;
}

function nullValue(w: Walk, keyNode: ParsedNode): ConfigValue {
  const end = keyNode.range?.[1] ?? 0;
  // An empty value sits right after the colon.
  let colon = w.text.indexOf(":", end);
  if (colon < 0 || colon > end + 8) colon = end;
  const at = w.lines.range(colon + 1, colon + 1);
  return { kind: "null", value: null, range: at, raw: "" };
}

/**
 * Converts a node to a ConfigValue. `at` is the node as written (an alias, when the value came through
 * one): scalars reached through an alias take the alias's range so edits land where the user wrote them.
 */
function toValue(w: Walk, n: Node | undefined, path: string[], depth: number, at?: ParsedNode, flatten = false): ConfigValue {
  const range = at ? rangeOf(w, at) : n ? rangeOf(w, n as ParsedNode) : w.lines.range(0, 0);
  const raw = at?.range ? w.text.slice(at.range[0], trimEnd(w, at.range[0], at.range[1])) : undefined;
  if (n === undefined || depth > MAX_DEPTH) return { kind: "null", value: null, range, raw: raw ?? "" };
  if (isScalar(n)) return scalarValue(n, range, raw ?? sourceOf(w, n));
  if (isSeq(n)) {
    w.expanding.add(n);
    const items: ConfigValue[] = [];
    n.items.forEach((it, i) => {
      const itemPath = [...path, String(i)];
      const target = deref(w, it);
      const item = toValue(w, target, itemPath, depth + 1, it as ParsedNode, flatten);
      items.push(item);
      if (flatten && isMap(target)) {
        const r = rangeOf(w, it as ParsedNode);
        if (!isFlow(target)) w.doc.sections.push({ path: itemPath, headerRange: w.lines.range(w.lines.offsetAt(r.start), w.lines.offsetAt(r.start)), range: r, isArrayItem: true });
        walkMap(w, target, itemPath, depth + 1);
      }
    });
    w.expanding.delete(n);
    return { kind: "array", value: items.map((i) => i.value), range, items, raw };
  }
  if (isMap(n)) {
    const entries: ConfigEntry[] = [];
    const obj: Record<string, unknown> = {};
    for (const pair of n.items) {
      const k = keyText(w, pair.key);
      if (k === undefined) continue;
      const keyNode = pair.key as ParsedNode;
      const valueNode = pair.value as ParsedNode | null;
      const target = deref(w, valueNode);
      const v = valueNode ? toValue(w, target, [...path, k], depth + 1, valueNode) : nullValue(w, keyNode);
      const s = keyNode.range?.[0] ?? 0;
      const e = valueNode?.range?.[1] ?? keyNode.range?.[1] ?? s;
      entries.push({ path: [...path, k], keyRange: rangeOf(w, keyNode), range: w.lines.range(s, trimEnd(w, s, e)), value: v });
      setOwn(obj, k, v.value);
    }
    return { kind: "table", value: obj, range, entries, raw };
  }
  return { kind: "null", value: null, range, raw: raw ?? "" };
}

function sourceOf(w: Walk, n: Scalar): string | undefined {
  const r = (n as ParsedNode).range;
  return r ? w.text.slice(r[0], r[1]) : undefined;
}

function scalarValue(n: Scalar, range: Range, raw: string | undefined): ConfigValue {
  const v = n.value;
  const plain = n.type === "PLAIN";
  const src = (n as { source?: string }).source;
  if (plain && typeof v === "string" && YAML11_BOOL.test(v)) {
    return { kind: "boolean", value: YAML11_TRUE.test(v), range, raw: raw ?? src ?? v };
  }
  if (v === null || v === undefined) return { kind: "null", value: null, range, raw: raw ?? "" };
  if (typeof v === "boolean") return { kind: "boolean", value: v, range, raw };
  if (typeof v === "number") {
    const text = (raw ?? "").trim();
    const isInt = Number.isInteger(v) && /^[-+]?(?:0x[0-9a-fA-F]+|0o[0-7]+|[0-9]+)$/.test(text);
    return { kind: isInt ? "integer" : "float", value: v, range, raw };
  }
  if (typeof v === "bigint") return { kind: "integer", value: Number(v), range, raw };
  return { kind: "string", value: String(v), range, raw };
}

/** Comments with positions, from the CST (so `#` inside strings and block scalars is never a comment). */
function collectComments(tokens: unknown[], doc: ConfigDocument, lines: LineIndex): void {
  const out: ConfigComment[] = [];
  const stack: unknown[] = [...tokens].reverse();
  let guard = 0;
  while (stack.length && guard++ < 1_000_000) {
    const t = stack.pop();
    if (!t || typeof t !== "object") continue;
    if (Array.isArray(t)) {
      for (let i = t.length - 1; i >= 0; i--) stack.push(t[i]);
      continue;
    }
    const tok = t as { type?: string; source?: string; offset?: number };
    if (tok.type === "comment" && typeof tok.source === "string" && typeof tok.offset === "number") {
      const start = tok.offset;
      out.push({ line: lines.positionAt(start).line, text: tok.source.replace(/^#/, "").trim(), range: lines.range(start, start + tok.source.length) });
      continue;
    }
    const children = Object.entries(t as Record<string, unknown>)
      .filter(([k, v]) => v && typeof v === "object" && k !== "srcToken")
      .map(([, v]) => v);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  out.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  doc.comments = out;
}
