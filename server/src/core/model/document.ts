/**
 * The format-neutral config model. TOML, YAML and JSON front ends all produce a `ConfigDocument`; rules,
 * hovers and the precision engine read only this. Every key and value keeps its source range.
 */
import type { LineIndex } from "./lineIndex";
import type { Range } from "./types";

export type ConfigFormat = "toml" | "yaml" | "json" | "python" | "shell";

export type ValueKind = "string" | "integer" | "float" | "boolean" | "datetime" | "null" | "array" | "table";

export interface ConfigValue {
  kind: ValueKind;
  /** Plain JS value: string/number/boolean/null for scalars, arrays and objects for containers. */
  value: unknown;
  /** Range of the value text (for strings, including the quotes). */
  range: Range;
  /** Array items, in order. */
  items?: ConfigValue[];
  /** Inline-table / mapping entries. */
  entries?: ConfigEntry[];
  /** The source text of a scalar exactly as written (e.g. `"bf16"`, `-1`, `0x10`). */
  raw?: string;
}

export interface ConfigEntry {
  /** Full key path from the document root, e.g. ["parallelism", "tensor_parallel_degree"]. */
  path: string[];
  /** Range of the key as written on its line (for dotted keys, the whole dotted key). */
  keyRange: Range;
  /** Range of the whole `key = value` (or `key: value`) entry. */
  range: Range;
  value: ConfigValue;
}

/** A table header (`[training]`), an array-of-tables header, or a YAML mapping key that opens a block. */
export interface ConfigSection {
  path: string[];
  /** Range of the header text (`[training]`), or of the mapping key. */
  headerRange: Range;
  /** Range of the whole section including its entries. */
  range: Range;
  isArrayItem?: boolean;
}

export interface ConfigComment {
  line: number;
  /** Text after the comment marker, trimmed. */
  text: string;
  range: Range;
}

export interface SyntaxError {
  message: string;
  range: Range;
}

export interface ConfigDocument {
  uri: string;
  format: ConfigFormat;
  text: string;
  lines: LineIndex;
  /** Every key-value entry with a scalar or array value, and inline tables, flattened, in source order. */
  entries: ConfigEntry[];
  sections: ConfigSection[];
  comments: ConfigComment[];
  /** Empty when the document parsed. Otherwise the model holds what still parses (see parse/partial.ts for what was set aside). */
  syntaxErrors: SyntaxError[];
  /** Set when the text was not analysed at all (binary, too large); the reason is user-facing. */
  skipped?: string;
}

/** Dotted-path lookup helpers over a parsed document. */
export function keyOf(path: readonly string[]): string {
  return path.join(".");
}

/** Entries by dotted path, built once per document (documents are immutable after parsing). */
const entryIndex = new WeakMap<readonly ConfigEntry[], Map<string, ConfigEntry>>();

export function findEntry(doc: ConfigDocument, ...path: string[]): ConfigEntry | undefined {
  let index = entryIndex.get(doc.entries);
  if (!index) {
    index = new Map();
    // Last definition wins (YAML duplicate keys; TOML rejects duplicates at parse time).
    for (const e of doc.entries) index.set(keyOf(e.path), e);
    entryIndex.set(doc.entries, index);
  }
  return index.get(keyOf(path));
}

export function findSection(doc: ConfigDocument, ...path: string[]): ConfigSection | undefined {
  const k = keyOf(path);
  return doc.sections.find((s) => keyOf(s.path) === k);
}

export function hasSection(doc: ConfigDocument, name: string): boolean {
  return doc.sections.some((s) => s.path[0] === name) || doc.entries.some((e) => e.path[0] === name);
}

export function entriesUnder(doc: ConfigDocument, ...prefix: string[]): ConfigEntry[] {
  return doc.entries.filter((e) => prefix.every((p, i) => e.path[i] === p) && e.path.length > prefix.length);
}

export function stringValue(e: ConfigEntry | undefined): string | undefined {
  return e && e.value.kind === "string" ? (e.value.value as string) : undefined;
}

export function intValue(e: ConfigEntry | undefined): number | undefined {
  return e && e.value.kind === "integer" ? (e.value.value as number) : undefined;
}

export function boolValue(e: ConfigEntry | undefined): boolean | undefined {
  return e && e.value.kind === "boolean" ? (e.value.value as boolean) : undefined;
}
