/**
 * Workspace Python modules parsed once per content version (issue #33, #36): one bounded cache keyed by the
 * module's path and its whole text (the text is compared on a hit, so an edit is a new version), shared by
 * every config function, every analysed file and every edit the server analyses. A module whose brackets,
 * indentation or operator runs nest deeper than MAX_PY_NESTING (parse/guard.ts) is refused before the parser sees it (the
 * parser's time grows with nesting: 20,000 nested brackets took 3.4 s), as TOML's guard does.
 */
import { pyNestingLine, skipReason } from "./guard";
import { parsePythonModule, type PyModule } from "./python";

/** Modules kept (the oldest is dropped first)... */
export const PY_MODULE_CACHE_ENTRIES = 256;
/** ...and characters of their text kept in all. */
export const PY_MODULE_CACHE_CHARS = 16 * 1024 * 1024;

interface Entry {
  text: string;
  module: PyModule | null;
}
const cache = new Map<string, Entry>();
let chars = 0;
/** Tests and the bench: parses done and hits. */
export const pyModuleCacheStats = { parses: 0, hits: 0 };

/** Tests only: an empty cache. */
export function clearPyModuleCache(): void {
  cache.clear();
  chars = 0;
  pyModuleCacheStats.parses = 0;
  pyModuleCacheStats.hits = 0;
}

/** The parsed module of `path` with this text; undefined when refused (binary, too large, nested too deep). */
export function parsedModule(path: string, text: string): PyModule | undefined {
  const hit = cache.get(path);
  if (hit && hit.text === text) {
    pyModuleCacheStats.hits++;
    cache.delete(path);
    cache.set(path, hit);
    return hit.module ?? undefined;
  }
  if (hit) {
    cache.delete(path);
    chars -= hit.text.length;
  }
  pyModuleCacheStats.parses++;
  const module = skipReason(text) || pyNestingLine(text) !== undefined ? null : parsePythonModule(text).module;
  if (text.length <= PY_MODULE_CACHE_CHARS) {
    for (const [k, v] of cache) {
      if (cache.size < PY_MODULE_CACHE_ENTRIES && chars + text.length <= PY_MODULE_CACHE_CHARS) break;
      cache.delete(k);
      chars -= v.text.length;
    }
    cache.set(path, { text, module });
    chars += text.length;
  }
  return module ?? undefined;
}
