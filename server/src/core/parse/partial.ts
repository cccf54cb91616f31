/**
 * What a front end could not read in a file with syntax errors (issue #14): the keys of statements that
 * were set aside. The analysis treats them as absent; hovers say so. Format-neutral; empty for a file
 * that parses.
 */
import type { ConfigDocument } from "../model/document";
import type { Range } from "../model/types";

/**
 * Above this size a file with syntax errors gets at most one recovery parse (TOML) or none (YAML): a
 * parse of a 500 kB file takes about a second on a slow machine, and real configs are under 20 kB.
 */
export const FULL_RECOVERY_MAX_CHARS = 64_000;

export interface UnparsedKey {
  /** Full dotted path, e.g. ["parallelism", "tensor_parallel_degree"]. */
  path: string[];
  /** The statement that was set aside. */
  range: Range;
}

const UNPARSED = new WeakMap<ConfigDocument, UnparsedKey[]>();

export function unparsedKeys(doc: ConfigDocument): readonly UnparsedKey[] {
  return UNPARSED.get(doc) ?? [];
}

export function setUnparsedKeys(doc: ConfigDocument, keys: UnparsedKey[]): void {
  if (keys.length) UNPARSED.set(doc, keys);
}

const RECOVERED = new WeakSet<ConfigDocument>();

/**
 * Marks a document with syntax errors whose model is everything but the statements set aside (the front
 * end recovered). Only such documents are analysed; a front end that stops at the first error (JSON) leaves
 * a truncated model that would make absent keys look unset, so those get the syntax error alone.
 */
export function markRecovered(doc: ConfigDocument): void {
  RECOVERED.add(doc);
}

export function isRecovered(doc: ConfigDocument): boolean {
  return RECOVERED.has(doc);
}
