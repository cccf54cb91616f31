/**
 * Lookup tables over names that come from input (a file's values and keys, directives, flags, settings).
 * A plain object literal inherits Object.prototype, so `"constructor" in T` is true and `T["toString"]` is a
 * function: a name from a config would reach an entry that is not there (issue #18). `table()` copies the
 * entries into a frozen object without a prototype; `own()` reads only an own entry of any object.
 * `test/prototype-keys.test.ts` rejects a `Record<…>` literal in server/src that is not built by `table()`.
 */

/** A frozen, prototype-free copy of `entries`: only the names written in it are in it. */
export function table<K extends string, T>(entries: Record<K, T>): Readonly<Record<K, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<K, T>, entries));
}

/** `t[k]` when `k` is an own entry of `t`, undefined otherwise (never an Object.prototype member). */
export function own<T>(t: Readonly<Record<string, T>>, k: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(t, k) ? t[k] : undefined;
}

/**
 * `obj[k] = v` as an own, enumerable property whatever `k` is: a key `__proto__` from a config would
 * otherwise set the object's prototype instead of adding an entry (the parsers build values with this).
 */
export function setOwn(obj: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
  else obj[k] = v;
}
