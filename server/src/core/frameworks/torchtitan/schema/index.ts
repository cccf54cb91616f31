/**
 * Lookups over the versioned torchtitan schema (data.ts): which keys and tables exist at a release or
 * main-branch date, a key's effective default, the rename/move chain of an old key, extension modules,
 * converter names, and did-you-mean suggestions. Everything else (rules, completion, hover, JSON Schema)
 * reads the schema only through here.
 */
import { compareNames } from "../../../model/collate";
import { RELEASES, type Release } from "../versions";
import {
  CONVERTER_ERAS,
  CONVERTER_RENAMES,
  EXTENSIONS,
  KEYS,
  RENAMES,
  STRICT_KEYS_SINCE,
  type ExtensionModule,
  type KeySpec,
  type RenameRule,
} from "./data";

export * from "./data";

/** A release name or a main-branch date (YYYY-MM-DD). */
export type When = Release | string;

export function dateOf(when: When): string {
  return when in RELEASES ? RELEASES[when as Release].date : when;
}

function exists(spec: { since?: string; until?: string }, date: string): boolean {
  return (!spec.since || spec.since <= date) && (!spec.until || date < spec.until);
}

const keysCache = new Map<string, Map<string, KeySpec>>();

/**
 * Every base-schema key at that release/date, by dotted path: the dated keys of data.ts, then the
 * rename/move map undone from the newest rule back to the date, so a key that moved after the date is
 * at its old place (`training.batch_size` before 2025-06-05, `[training]` parallel degrees before
 * 2025-03-18) and a key removed after the date still exists (`float8.scaling_type_*` before 2025-01-31).
 */
export function keysAt(when: When): Map<string, KeySpec> {
  const date = dateOf(when);
  let m = keysCache.get(date);
  if (!m) {
    m = deriveKeysAt(date);
    if (keysCache.size > 512) keysCache.clear();
    keysCache.set(date, m);
  }
  return m;
}

const DATED_PATHS = new Set(KEYS.map((k) => k.path));

function deriveKeysAt(date: string): Map<string, KeySpec> {
  const m = new Map(KEYS.filter((k) => exists(k, date)).map((k): [string, KeySpec] => [k.path, k]));
  const later = RENAMES.filter((r) => r.date > date).sort((a, b) => compareNames(b.date, a.date));
  const oldSpec = (rule: RenameRule, from: string, to: KeySpec | undefined): KeySpec | undefined => {
    if (rule.fromSince && !(rule.fromSince <= date)) return undefined;
    const type = rule.fromType ?? (to && !rule.convert && !rule.changedMeaning ? to.type : "any");
    const base: KeySpec = to
      ? { ...to, path: from, type, renamedTo: { path: to.path, date: rule.date } }
      : { path: from, type, doc: `A key of this version that torchtitan removed later, on ${rule.date}${rule.commit ? ` (${rule.commit})` : ""}${rule.advice ? `; after that: ${rule.advice}` : ""}.` };
    delete base.deprecated;
    if (to && rule.changedMeaning) delete base.choices;
    base.until = rule.date;
    if (rule.fromSince) base.since = rule.fromSince;
    else if (base.since && base.since >= rule.date) delete base.since;
    return base;
  };
  for (const rule of later) {
    if (rule.from.endsWith(".*")) {
      if (!rule.to) continue;
      const fromPrefix = rule.from.slice(0, -1);
      const toPrefix = rule.to.slice(0, -1);
      for (const [path, spec] of [...m]) {
        if (!path.startsWith(toPrefix)) continue;
        const from = fromPrefix + path.slice(toPrefix.length);
        m.delete(path);
        if (DATED_PATHS.has(from)) continue; // data.ts dates the old key itself
        const old = oldSpec(rule, from, spec);
        if (old && !m.has(from)) m.set(from, old);
      }
      continue;
    }
    if (DATED_PATHS.has(rule.from)) continue; // data.ts dates the old key itself
    if (!rule.to) {
      const old = oldSpec(rule, rule.from, undefined);
      if (old) m.set(rule.from, old);
      continue;
    }
    // The new key, as it is at the date, or as data.ts has it when this rename created it.
    const to = m.get(rule.to) ?? KEYS.find((k) => k.path === rule.to && k.since === rule.date);
    if (!to) continue;
    m.delete(rule.to);
    const old = oldSpec(rule, rule.from, to);
    if (old) m.set(rule.from, old);
  }
  return m;
}

/**
 * The dates at which the base schema changes (each key's since/until and each rename), sorted. Between
 * two of them the key set is constant, so these are the only dates version inference needs to test.
 */
export function schemaChangeDates(): readonly string[] {
  if (!changeDates) {
    const set = new Set<string>();
    for (const k of KEYS) {
      if (k.since) set.add(k.since);
      if (k.until) set.add(k.until);
    }
    for (const r of RENAMES) {
      set.add(r.date);
      if (r.fromSince) set.add(r.fromSince);
    }
    changeDates = [...set].sort();
  }
  return changeDates;
}
let changeDates: string[] | undefined;

const windowCache = new Map<string, { from?: string; until?: string } | null>();
let everKnown: Set<string> | undefined;

/**
 * The main-branch dates between which the base schema has this key ([from, until); a missing bound is
 * open), from the schema at each change date. Undefined when the key exists over the whole TOML era or
 * never existed upstream. Assumes one contiguous span (true of every key in the map).
 */
export function keyWindow(path: string): { from?: string; until?: string } | undefined {
  let w = windowCache.get(path);
  if (w === undefined) {
    if (!everKeys().has(path)) return undefined; // a fork's key, or a typo: no evidence, no caching
    const dates = ["0000-01-01", ...schemaChangeDates()];
    const valid = dates.map((d) => keysAt(d).has(path));
    const first = valid.indexOf(true);
    if (first < 0 || valid.every(Boolean)) w = null;
    else {
      const end = valid.indexOf(false, first);
      w = { ...(first > 0 ? { from: dates[first]! } : {}), ...(end > 0 ? { until: dates[end]! } : {}) };
    }
    if (windowCache.size > 4096) windowCache.clear();
    windowCache.set(path, w);
  }
  return w ?? undefined;
}

/** Schema entry of a key at that release/date (base schema plus the given extension modules). */
export function keyInfo(when: When, path: string | readonly string[], extensions: readonly ExtensionModule[] = []): KeySpec | undefined {
  const p = typeof path === "string" ? path : path.join(".");
  const base = keysAt(when).get(p);
  if (base) return base;
  for (const e of extensions) {
    const k = e.keys.find((x) => x.path === p && exists(x, dateOf(when)));
    if (k) return k;
  }
  for (const e of extensions) {
    const open = e.openTables?.find((t) => p.startsWith(t + "."));
    if (open) return openTableKey(e, open, p);
  }
  return undefined;
}

const openKeyCache = new WeakMap<ExtensionModule, Map<string, KeySpec>>();

/** A key under a table whose dataclass a workspace config source imports from elsewhere: accepted as is. */
function openTableKey(e: ExtensionModule, table: string, path: string): KeySpec {
  let m = openKeyCache.get(e);
  if (!m) openKeyCache.set(e, (m = new Map()));
  let k = m.get(path);
  if (!k) {
    k = { path, type: "any", doc: `[${table}] is declared in ${e.sourcePath ?? e.modules[0]} with a dataclass defined elsewhere; its keys are not checked.` };
    m.set(path, k);
  }
  return k;
}

/** The extension module (or workspace config source) a key comes from, when not from the base schema. */
export function extensionOf(when: When, path: string, extensions: readonly ExtensionModule[]): ExtensionModule | undefined {
  if (keysAt(when).has(path)) return undefined;
  const d = dateOf(when);
  return extensions.find((e) => e.keys.some((k) => k.path === path && exists(k, d))) ?? extensions.find((e) => e.openTables?.some((t) => path.startsWith(t + ".")));
}

const sectionsCache = new Map<string, readonly string[]>();

function addParents(set: Set<string>, path: string): void {
  const parts = path.split(".");
  for (let i = 1; i < parts.length; i++) set.add(parts.slice(0, i).join("."));
}

/** Every table path (dotted) at that release/date, including intermediate ones ("quantize", "quantize.linear"). */
export function sectionsOf(when: When, extensions: readonly ExtensionModule[] = []): readonly string[] {
  // The base schema's tables, once per date (issue #21: hovers and rules asked per table header).
  const date = dateOf(when);
  let base = sectionsCache.get(date);
  if (!base) {
    const b = new Set<string>();
    for (const k of keysAt(when).keys()) addParents(b, k);
    base = [...b];
    if (sectionsCache.size > 512) sectionsCache.clear();
    sectionsCache.set(date, base);
  }
  if (!extensions.length) return base;
  const set = new Set<string>(base);
  const add = (path: string) => addParents(set, path);
  for (const e of extensions) {
    for (const k of e.keys) if (exists(k, dateOf(when))) add(k.path);
    for (const t of e.openTables ?? []) add(t + ".x");
  }
  return [...set];
}

/** Keys directly in a table (leaf names), base plus extensions. */
export function keysOfTable(when: When, table: string, extensions: readonly ExtensionModule[] = []): KeySpec[] {
  const out: KeySpec[] = [];
  const prefix = table ? table + "." : "";
  const consider = (k: KeySpec) => {
    if (!k.path.startsWith(prefix)) return;
    if (k.path.slice(prefix.length).includes(".")) return;
    out.push(k);
  };
  for (const k of keysAt(when).values()) consider(k);
  for (const e of extensions) for (const k of e.keys) if (exists(k, dateOf(when)) && !out.some((o) => o.path === k.path)) consider(k);
  return out;
}

/** The default in effect at that date (undefined = None). */
export function effectiveDefault(spec: KeySpec, when: When): unknown {
  const date = dateOf(when);
  for (const d of spec.defaultBefore ?? []) if (date < d.until) return d.value;
  return spec.default;
}

/** Choices valid at that date. */
export function choicesAt(spec: KeySpec, when: When): string[] {
  const date = dateOf(when);
  return (spec.choices ?? []).filter((c) => !spec.choiceSince?.[c] || spec.choiceSince[c]! <= date);
}

/** True when torchtitan rejects unknown keys at that release/date (ValueError "Invalid field names"). */
export function rejectsUnknownKeys(when: When): boolean {
  return dateOf(when) >= STRICT_KEYS_SINCE;
}

/** The first release (or date) a key appears in, for hovers: "v0.2.0", "2025-10-14 (v0.2.0)". */
export function sinceLabel(spec: KeySpec): string {
  if (spec.sinceRelease) return spec.sinceRelease;
  if (!spec.since) return "v0.1.0 or earlier";
  const first = (Object.entries(RELEASES) as [Release, { date: string }][]).find(([, r]) => r.date >= spec.since!);
  return first ? `${spec.since} (first release ${first[0]})` : spec.since;
}

// ------------------------------------------------------------------------------------------ extensions

export function extensionByModule(module: string): ExtensionModule | undefined {
  return EXTENSIONS.find((e) => e.modules.includes(module.trim()));
}

/** Extension modules that define a key under this table path (for "which module adds [encoder]?"). */
export function extensionsDefining(pathPrefix: string): ExtensionModule[] {
  // A copy: callers may sort or filter what they get.
  return extensionsByPrefix().get(pathPrefix)?.slice() ?? [];
}

/**
 * Every dotted prefix of every extension key (the key itself included) → the modules defining a key under
 * it, in EXTENSIONS order: the answer of `extensionsDefining` for any path, built once from the constant
 * table. An index, not a memo of past questions: a file of 20,000 distinct keys costs one lookup per key
 * on every edit (a bounded memo of 4,096 entries thrashed there, issue #36).
 */
let extensionsByPrefixIndex: Map<string, ExtensionModule[]> | undefined;
function extensionsByPrefix(): Map<string, ExtensionModule[]> {
  if (!extensionsByPrefixIndex) {
    extensionsByPrefixIndex = new Map();
    for (const e of EXTENSIONS) {
      for (const k of e.keys) {
        const parts = k.path.split(".");
        for (let i = 1; i <= parts.length; i++) {
          const prefix = parts.slice(0, i).join(".");
          const list = extensionsByPrefixIndex.get(prefix);
          if (!list) extensionsByPrefixIndex.set(prefix, [e]);
          else if (list.at(-1) !== e) list.push(e);
        }
      }
    }
  }
  return extensionsByPrefixIndex;
}

// ------------------------------------------------------------------------------------------ renames

export interface RenameResult {
  /** The key at the target date, when the chain ends in a key (undefined: removed). */
  to?: string;
  /** The rules applied, oldest first. */
  steps: RenameRule[];
  /** The removal rule, when the chain ends in a removal. */
  removed?: RenameRule;
  /** The value flips meaning an odd number of times. */
  invert: boolean;
  /** Set when any step changed the key's meaning (the move then needs a choice). */
  changedMeaning?: string;
  /** Other targets (from the last step that had alternatives). */
  alternatives: string[];
  convert?: (value: unknown) => string | undefined;
}

function matchRule(rule: RenameRule, path: string): string | undefined | null {
  if (rule.from.endsWith(".*")) {
    const prefix = rule.from.slice(0, -1); // keeps the dot
    if (!path.startsWith(prefix)) return null;
    const leaf = path.slice(prefix.length);
    return rule.to ? rule.to.slice(0, -1) + leaf : undefined;
  }
  if (rule.from !== path) return null;
  return rule.to;
}

/**
 * Follows the rename/move map from an old key to what it is at `when`. Returns undefined when no rule
 * applies (the key was never renamed before that date). Exact rules win over table moves (`float8.*`).
 */
export function renameFor(path: string | readonly string[], when: When): RenameResult | undefined {
  const date = dateOf(when);
  let cur = typeof path === "string" ? path : path.join(".");
  let cursor = "";
  const res: RenameResult = { steps: [], invert: false, alternatives: [] };
  for (let guard = 0; guard < 20; guard++) {
    const candidates = RENAMES.filter((r) => r.date > cursor && r.date <= date && matchRule(r, cur) !== null);
    if (!candidates.length) break;
    candidates.sort((a, b) => compareNames(a.date, b.date) || Number(a.from.endsWith(".*")) - Number(b.from.endsWith(".*")));
    const rule = candidates[0]!;
    const next = matchRule(rule, cur);
    res.steps.push(rule);
    cursor = rule.date;
    if (rule.invert) res.invert = !res.invert;
    if (rule.changedMeaning) res.changedMeaning = rule.changedMeaning;
    if (rule.alternatives) res.alternatives = rule.alternatives.slice();
    if (rule.convert) res.convert = rule.convert;
    if (next === undefined || next === null) {
      res.removed = rule;
      delete res.to;
      return res;
    }
    cur = next;
    res.to = cur;
  }
  return res.steps.length ? res : undefined;
}

/**
 * The rename map read backwards: the name a newer key had at `when` (e.g. `training.local_batch_size` was
 * `training.batch_size` before 2025-06-05; `parallelism.tensor_parallel_degree` was in `[training]` before
 * 2025-03-18). Undefined when the key is not a later name of a key that exists at that date.
 */
export function olderNameAt(path: string | readonly string[], when: When): { path: string; rule: RenameRule } | undefined {
  const date = dateOf(when);
  const keys = keysAt(date);
  let cur = typeof path === "string" ? path : path.join(".");
  let first: RenameRule | undefined;
  let cursor = "9999";
  for (let guard = 0; guard < 20; guard++) {
    const rule = RENAMES.filter((r) => r.to && r.date > date && r.date < cursor && reverseMatch(r, cur) !== undefined).sort((a, b) => compareNames(b.date, a.date))[0];
    if (!rule) return undefined;
    cur = reverseMatch(rule, cur)!;
    cursor = rule.date;
    first ??= rule;
    if (keys.has(cur)) return { path: cur, rule: first };
  }
  return undefined;
}

function reverseMatch(rule: RenameRule, path: string): string | undefined {
  if (!rule.to) return undefined;
  if (rule.to.endsWith(".*")) {
    const prefix = rule.to.slice(0, -1);
    return path.startsWith(prefix) ? rule.from.slice(0, -1) + path.slice(prefix.length) : undefined;
  }
  return rule.to === path ? rule.from : undefined;
}

// ------------------------------------------------------------------------------------------ converters

/** Registered converter names at that release/date (empty before 2025-02-15). */
export function converterNamesAt(when: When): readonly string[] {
  const date = dateOf(when);
  return CONVERTER_ERAS.find((e) => exists(e, date))?.names ?? [];
}

/** The name a converter of another era has at `when` (undefined when it has no counterpart). */
export function converterRenameFor(name: string, when: When): string | undefined {
  const info = CONVERTER_RENAMES[name];
  if (!info) return undefined;
  const names = converterNamesAt(when);
  return names.find((n) => {
    const i = CONVERTER_RENAMES[n]!;
    return i.float8OrMx === info.float8OrMx && i.grouped === info.grouped;
  });
}

// ------------------------------------------------------------------------------------------ suggestions

/**
 * Levenshtein distance, for did-you-mean. Strings that differ in length by more than 32, or whose table
 * would exceed a million cells (a hostile 100 kB value), count as entirely different (the longer length):
 * no suggestion is ever that far, and the cost stays bounded whatever the file holds.
 */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 32 || a.length * b.length > 1_000_000) return Math.max(a.length, b.length);
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagPrev = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diagPrev + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagPrev = tmp;
    }
  }
  return prev[b.length]!;
}

/**
 * Did-you-mean candidates for `word` among `candidates`, best first: edit distance within a third of
 * the length (at least 2), or one contains the other with a separator. At most 3.
 */
export function suggest(word: string, candidates: Iterable<string>): string[] {
  const w = word.toLowerCase();
  const scored: { c: string; d: number }[] = [];
  for (const c of candidates) {
    const lc = c.toLowerCase();
    if (lc === w) continue;
    const d = editDistance(w, lc);
    const limit = Math.max(2, Math.floor(Math.max(w.length, lc.length) / 3));
    if (d <= limit) scored.push({ c, d });
    // One name inside the other only counts when the shorter is at least half the longer: "warmup_steps"
    // is not a misspelling of "steps".
    else if (w.length >= 4 && lc.length >= 4 && (lc.includes(w) || w.includes(lc)) && 2 * Math.min(w.length, lc.length) >= Math.max(w.length, lc.length)) scored.push({ c, d: limit + 1 });
  }
  scored.sort((a, b) => a.d - b.d || compareNames(a.c, b.c));
  return scored.slice(0, 3).map((s) => s.c);
}

/** True when exactly one suggestion is clearly better than the rest (safe to apply without a choice). */
export function isClearSuggestion(word: string, suggestions: readonly string[]): boolean {
  if (suggestions.length === 0) return false;
  const d0 = editDistance(word.toLowerCase(), suggestions[0]!.toLowerCase());
  if (d0 > 2) return false;
  if (suggestions.length === 1) return true;
  const d1 = editDistance(word.toLowerCase(), suggestions[1]!.toLowerCase());
  return d1 > d0;
}

// ------------------------------------------------------------------------------- upstream at any date

let everTables: Set<string> | undefined;

/**
 * Every key upstream ever had, each with its keyWindow answer as [path, from, until] ("" = open; both ""
 * = the whole TOML era), derived from this module by scripts/build.mjs and put into the bundles with
 * esbuild's `define` (issue #21: deriving the schema at all 84 change dates took ~30 ms of every CLI run).
 * Undefined when run from the sources (tests, tsx): then derived on first use, as keyWindowTable() does.
 */
declare const __PRECISION_LENS_KEY_WINDOWS__: readonly (readonly [string, string, string])[] | undefined;

function everKeys(): Set<string> {
  if (everKnown) return everKnown;
  const built = typeof __PRECISION_LENS_KEY_WINDOWS__ === "undefined" ? undefined : __PRECISION_LENS_KEY_WINDOWS__;
  if (!built) return (everKnown = new Set(["0000-01-01", ...schemaChangeDates()].flatMap((d) => [...keysAt(d).keys()])));
  everKnown = new Set();
  for (const [path, from, until] of built) {
    everKnown.add(path);
    windowCache.set(path, from || until ? { ...(from ? { from } : {}), ...(until ? { until } : {}) } : null);
  }
  return everKnown;
}

/** keyWindow's answer for every key upstream ever had, derived from the dated schema (what the build embeds). */
export function keyWindowTable(): [string, string, string][] {
  return [...everKeys()].sort().map((path) => {
    const w = keyWindow(path);
    return [path, w?.from ?? "", w?.until ?? ""];
  });
}

/** True when upstream torchtitan had this key (dotted) at some date of the TOML era. */
export function upstreamKeyEver(path: string): boolean {
  return everKeys().has(path);
}

/** True when upstream torchtitan had this table (dotted, intermediate tables included) at some date. */
export function upstreamTableEver(table: string): boolean {
  return upstreamTablesEver().has(table);
}

/** Every table (dotted) upstream torchtitan had at some date of the TOML era. */
export function upstreamTablesEver(): ReadonlySet<string> {
  if (!everTables) {
    everTables = new Set();
    for (const k of everKeys()) {
      const parts = k.split(".");
      for (let i = 1; i < parts.length; i++) everTables.add(parts.slice(0, i).join("."));
    }
  }
  return everTables;
}

/** True when a rule of the rename/move map applies to this key at some date (an old name, moved or removed). */
export function renamedEver(path: string): boolean {
  const { exact, tables } = renameIndex();
  if (exact.has(path)) return true;
  for (const prefix of tables) if (path.startsWith(prefix)) return true;
  return false;
}

/**
 * matchRule's two cases over the whole rename map, built once: the exact `from` paths, and the table
 * moves' prefixes (`float8.*` → "float8."). `renamedEver` is asked of every key of every file by
 * detection; an index answers it without a per-path memo (issue #36: a 4,096-entry memo thrashed on a
 * file of more distinct keys).
 */
let renameIndexCache: { exact: Set<string>; tables: string[] } | undefined;
function renameIndex(): { exact: Set<string>; tables: string[] } {
  if (!renameIndexCache) {
    const exact = new Set<string>();
    const tables = new Set<string>();
    for (const r of RENAMES) {
      if (r.from.endsWith(".*")) tables.add(r.from.slice(0, -1));
      else exact.add(r.from);
    }
    renameIndexCache = { exact, tables: [...tables] };
  }
  return renameIndexCache;
}

/** Every converter name some torchtitan release registered. */
export function upstreamConverterNames(): string[] {
  return [...new Set([...Object.keys(CONVERTER_RENAMES), ...CONVERTER_ERAS.flatMap((e) => e.names)])];
}

/** True when some torchtitan release registered a model converter of this name. */
export function upstreamConverterEver(name: string): boolean {
  return CONVERTER_RENAMES[name] !== undefined || CONVERTER_ERAS.some((e) => e.names.includes(name));
}
