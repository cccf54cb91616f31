/**
 * Config functions' results kept across analyses of the same document (issue #36): an edit inside one function
 * re-evaluates that function and the functions that read it; every other function reuses its result
 * (resolution, headline, diagnostics) from the analysis before.
 *
 * A result is reused only when everything it was computed from is the same:
 *  - per document (`documentKey`): the uri, the settings, the directives, the version context (a pin, the
 *    workspace's torchtitan code), the document's path and workspace roots (where imports are looked for), the
 *    module's imports and classes (Trainer.Config's names);
 *  - per function (`CachedFunction`): its own name, position and text; the signature of every module-level name of
 *    the document its evaluation read (evaluate.ts `ReadSet`: the function, assignment and import the lookup
 *    found, with their text and position), so an edit of a shared helper or of a base function re-evaluates
 *    every function that reads it, directly or through another function or a constant; the text of every
 *    workspace module it used (read again through the host, so the server still watches them); the run scripts
 *    that launch it (`launchOf`, read every time: world size and flags).
 * What the rules read besides the function's own view is the document's text for TOML insertions, which a Python
 * config drops (titanContext.ts `pythonFixes` keeps only edits of the function's literals).
 *
 * Two budgets are shared by all functions of an analysis; the cache keeps results equal to a fresh analysis's
 * under both: the evaluation budget (`MAX_ANALYSIS_STEPS`): each entry carries a bound of what its fresh
 * evaluation would charge (`ReadSet.cost`); when the reused bounds and the work done could pass the budget, the
 * analysis runs again without the cache, and no entry is kept from an analysis that passed it. The host's read
 * budget (`AnalysisEnv.readsRefused`): no entry is kept from an analysis that had a read refused.
 *
 * Bounded: the entries of the last `MAX_CACHED_DOCUMENTS` documents, and per document only the functions of
 * its last analysis. A reused function's diagnostics are the same objects (and array) as the analysis before's:
 * nothing after the rules writes into a diagnostic (the merge of findings shared between functions makes a new
 * one, analyzer.ts `mergeShared`; code tags set the same flags again), so an unchanged function costs its
 * checks, not a copy (issue #36).
 */
import type { AnalysisEnv, AnalysisSettings } from "../../../analysis";
import type { Directive } from "../../../diagnostics/directives";
import type { ConfigDocument } from "../../../model/document";
import { LineIndex } from "../../../model/lineIndex";
import type { Diagnostic } from "../../../model/types";
import type { PyModule } from "../../../parse/python";
import type { PyContext, PyResolution } from "./context";
import { moduleHeaderSignature, type ModuleSet, type ReadSet } from "./evaluate";

/** Documents whose functions are kept (the server's open registries; the CLI analyses each file once). */
export const MAX_CACHED_DOCUMENTS = 8;

export interface CachedFunction {
  reads: ReadSet;
  /** `launchOf`'s answer for the function, as JSON. */
  launch: string;
  /** The resolution, its view holding no document (`withDocument` gives it the current one). */
  r: PyResolution;
  headline: string;
  /** Handed out as they are on each reuse: never written into after the rules ran. */
  diagnostics: Diagnostic[];
}

interface DocumentEntry {
  key: string;
  functions: Map<string, CachedFunction>;
}

const documents = new Map<string, DocumentEntry>();

/** Tests and the bench: switch the cache off (every analysis fresh), count what it did. */
export const pyFunctionCache = { enabled: true, hits: 0, misses: 0 };

/** Tests only: forget every entry. */
export function clearPyFunctionCache(): void {
  documents.clear();
  pyFunctionCache.hits = 0;
  pyFunctionCache.misses = 0;
}

/** What every function of the document is computed from besides its own reads. */
export function documentKey(doc: ConfigDocument, module: PyModule, settings: AnalysisSettings, env: AnalysisEnv, directives: readonly Directive[], ctx: PyContext): string {
  return JSON.stringify([doc.uri, doc.format, settings, directives, ctx, env.documentPath ?? null, env.workspaceRoots ?? null, env.searchRoot ?? null, moduleHeaderSignature(module)]);
}

/** The entries kept for this document under this key (none when the key changed). */
export function cachedFunctions(uri: string, key: string): ReadonlyMap<string, CachedFunction> | undefined {
  if (!pyFunctionCache.enabled) return undefined;
  const e = documents.get(uri);
  return e && e.key === key ? e.functions : undefined;
}

/** Keeps this analysis's functions as the document's entries (the least recently analysed document goes first). */
export function keepFunctions(uri: string, key: string, functions: Map<string, CachedFunction>): void {
  if (!pyFunctionCache.enabled) return;
  documents.delete(uri);
  documents.set(uri, { key, functions });
  for (const k of documents.keys()) {
    if (documents.size <= MAX_CACHED_DOCUMENTS) break;
    documents.delete(k);
  }
}

/** Drops the document's entries (an analysis whose results may not be a fresh one's). */
export function forgetFunctions(uri: string): void {
  documents.delete(uri);
}

/**
 * True when the entry's reads give the same answers now: each name of the document resolves to the same text
 * at the same place, each workspace module reads the same text (read through the host, which records it).
 */
export function stillValid(c: CachedFunction, module: PyModule, shared: ModuleSet, env: AnalysisEnv, launch: string): boolean {
  if (c.launch !== launch) return false;
  for (const [name, sig] of c.reads.names) if (shared.signature(module, name) !== sig) return false;
  for (const [path, text] of c.reads.modules) if (env.readFile(path) !== text) return false;
  return true;
}

/** The resolution as kept: its view holds the function's entries and no document (no old text kept alive). */
export function withoutDocument(r: PyResolution): PyResolution {
  return withDocument(r, { uri: r.view.uri, format: r.view.format, text: "", lines: NO_LINES, entries: [], sections: [], comments: [], syntaxErrors: [] });
}

const NO_LINES = new LineIndex("");

/** The resolution with its view on `doc` (the view is the document with the function's entries). */
export function withDocument(r: PyResolution, doc: ConfigDocument): PyResolution {
  return { ...r, view: { ...doc, entries: r.view.entries, sections: r.view.sections } };
}
