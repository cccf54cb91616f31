/**
 * Lazy features (issue #21): an AnalysisResult carries what diagnostics need as plain data; its hovers,
 * inlay hints and report Markdown (and, for torchtitan, the throughput alternatives) are enumerable getters
 * computed once on first read, from the context the analysis already built. The LSP reads them on request;
 * the CLI's `check` never reads them, so it never builds them.
 *
 * The getter memoises in its closure, so a copy made with `copyLazy` (property descriptors kept) shares the
 * one computation. A plain spread (`{ ...r }`) or `JSON.stringify` still works: it reads, hence computes,
 * every feature, which is correct but costs what laziness saves; the assembly points use `copyLazy` instead.
 */

/** How many times each lazy feature was computed in this process (tests spy on it; never reset by the core). */
export const lazyComputations: Record<string, number> = Object.create(null) as Record<string, number>;

/**
 * Makes `obj[key]` an enumerable getter that runs `compute` on first read and returns that value after.
 * Redefining an existing key keeps its place in the key order (JSON output stays byte-identical). A write
 * replaces the getter with the plain value. `counted: false` for a getter that only decorates another lazy value.
 */
export function defineLazy<T extends object, K extends keyof T>(obj: T, key: K, compute: () => T[K], opts: { counted?: boolean } = {}): T {
  let done = false;
  let value: T[K];
  Object.defineProperty(obj, key, {
    enumerable: true,
    configurable: true,
    get(): T[K] {
      if (!done) {
        if (opts.counted !== false) lazyComputations[key as string] = (lazyComputations[key as string] ?? 0) + 1;
        value = compute();
        done = true;
      }
      return value;
    },
    set(this: T, v: T[K]) {
      Object.defineProperty(this, key, { value: v, enumerable: true, configurable: true, writable: true });
    },
  });
  return obj;
}

/** A shallow copy that keeps getters as getters (a spread would compute them). */
export function copyLazy<T extends object>(obj: T): T {
  return Object.defineProperties(Object.create(Object.getPrototypeOf(obj) as object | null) as T, Object.getOwnPropertyDescriptors(obj));
}

/** Reads `obj[key]` through its getter later: the thunk a derived lazy value builds on. */
export function lazyValue<T extends object, K extends keyof T>(obj: T, key: K): () => T[K] {
  const d = Object.getOwnPropertyDescriptor(obj, key);
  if (d?.get) {
    const get = d.get.bind(obj) as () => T[K];
    return get;
  }
  const v = obj[key];
  return () => v;
}

/** `Object.assign` that copies getters as getters (a key already in `target` keeps its place). */
export function assignLazy<T extends object>(target: T, ...sources: object[]): T {
  for (const s of sources) for (const [k, d] of Object.entries(Object.getOwnPropertyDescriptors(s))) Object.defineProperty(target, k, { ...d, configurable: true });
  return target;
}
