/**
 * Fork mode (issue #17 §3): names in a config that upstream torchtitan never had at any date of the TOML
 * era — keys, tables, optimizer names, model converters — and that are not a typo of an upstream name.
 * When no fork config source is found (workspace/forkSchema.ts, or the precisionLens.torchtitanConfigSource
 * setting / --torchtitan-config-source flag), such a file is a fork's: the schema rules do not report those
 * names one by one (as "rejected at launch" or "invalid"); the `fork-config` rule reports them in one
 * information note that says how to point Precision Lens at the fork's config source.
 *
 * What is NOT fork evidence (stays with its own rule): a key upstream had at another date (a version
 * question), an old name in the rename map, a table an in-repo extension module adds, a name within a clear
 * edit distance of an upstream name (a typo), a converter of another release.
 */
import { stringValue, findEntry, type ConfigDocument, type ConfigEntry } from "../../model/document";
import type { Diagnostic, Range } from "../../model/types";
import { converters } from "./schema/facts";
import {
  converterRenameFor,
  extensionsDefining,
  isClearSuggestion,
  keyInfo,
  keysAt,
  keysOfTable,
  renamedEver,
  sectionsOf,
  suggest,
  upstreamConverterEver,
  upstreamConverterNames,
  upstreamKeyEver,
  upstreamTableEver,
  upstreamTablesEver,
  type ExtensionModule,
} from "./schema/index";
import { leafEntries, schemaView } from "./schema/view";

export interface ForkItem {
  kind: "table" | "key" | "optimizer" | "converter" | "value";
  /** How the note names it: `[infra]`, `parallelism.prefetch_distance`, `optimizer.name = "Muon"`. */
  label: string;
  range: Range;
}

/**
 * Until c1c2f55d1 (#767, "Typed JobConfig", 2025-04-18) torchtitan's argparse JobConfig merged the whole TOML into
 * its namespace (`args_dict[k] |= v`, then `setattr(self, k, class_type())` per section, config_manager.py): a key
 * no parser argument declares is still an attribute the code can read (spec torchtitan.md §4.1).
 */
export const TOML_NAMESPACE_UNTIL = "2025-04-18";

export interface ForkEvidence {
  /**
   * Set when the fork's config source was found but the version passes every TOML key to the code
   * (TOML_NAMESPACE_UNTIL): the names are ones neither upstream nor that source declares. The sources' paths.
   */
  passedThrough?: string[];
  items: ForkItem[];
  /** Dotted leaf paths the schema rules leave to the fork note. */
  keys: ReadonlySet<string>;
  /** Dotted table paths (the topmost unknown one) left to the fork note. */
  tables: ReadonlySet<string>;
  /** optimizer.name's value when it is a fork's optimizer. */
  optimizer?: string;
  /** Converter names left to the fork note. */
  converters: ReadonlySet<string>;
  /** The custom config module the config names that could not be found, if any. */
  unknownModule?: string;
}

/** Upstream optimizer names of the TOML era (build_optimizers: Adam and AdamW only; schema/data.ts). */
function upstreamOptimizers(date: string): readonly string[] {
  return keyInfo(date, "optimizer.name")?.choices ?? ["Adam", "AdamW"];
}

function isTypoOf(word: string, candidates: Iterable<string>): boolean {
  const names = suggest(word, new Set(candidates));
  return names.some((n) => n.toLowerCase() === word.toLowerCase()) || isClearSuggestion(word, names);
}

/** The leaf names of the schema's keys at `date`, once per schema (keysAt is memoised per date). */
const leafNamesCache = new WeakMap<ReadonlyMap<string, unknown>, ReadonlySet<string>>();
function leafNamesAt(date: string): ReadonlySet<string> {
  const keys = keysAt(date);
  let names = leafNamesCache.get(keys);
  if (!names) {
    names = new Set([...keys.keys()].map((k) => k.slice(k.lastIndexOf(".") + 1)));
    leafNamesCache.set(keys, names);
  }
  return names;
}

/** The topmost table of `table` that upstream never had. */
function topForkTable(table: readonly string[]): string[] | undefined {
  for (let i = 1; i <= table.length; i++) if (!upstreamTableEver(table.slice(0, i).join("."))) return table.slice(0, i);
  return undefined;
}

/**
 * The fork evidence of a document at `date`, against upstream plus the extension modules it names;
 * undefined when there is none. `workspace` is the config sources found: with one, the file is checked
 * against it and this returns undefined.
 */
export function forkEvidence(doc: ConfigDocument, date: string, workspace: readonly ExtensionModule[] = []): ForkEvidence | undefined {
  // With the fork's config source found, its schema is the truth, except before TOML_NAMESPACE_UNTIL: the argparse
  // JobConfig then set every TOML key as an attribute of its section, so a fork's code may read names its config
  // source never declares (ZH-Haoran/PC-Layer-torchtitan's [model] precondition_* keys).
  const passedThrough = workspace.length > 0 && date < TOML_NAMESPACE_UNTIL;
  if (workspace.length && !passedThrough) return undefined;
  const view = schemaView(doc, date, passedThrough ? workspace : []);
  const items: ForkItem[] = [];
  const keys = new Set<string>();
  const tables = new Set<string>();
  const sections = sectionsOf(date, view.extensions);
  const leafNames = leafNamesAt(date);
  // A table named within a clear edit distance of an upstream table at that depth ([paralelism], [float9]).
  const tableIsTypo = (top: readonly string[]) => {
    const parent = top.slice(0, -1);
    const siblings = [...new Set([...sections, ...upstreamTablesEver()])].filter((s) => s.split(".").length === top.length && s.startsWith(parent.length ? parent.join(".") + "." : ""));
    return isTypoOf(top[top.length - 1]!, siblings.map((s) => s.split(".").pop()!));
  };
  const tableItem = (top: string[], range: Range) => {
    const name = top.join(".");
    if (tables.has(name)) return;
    tables.add(name);
    items.push({ kind: "table", label: `[${name}]`, range });
  };
  const headerRange = (top: readonly string[], fallback: Range) =>
    doc.sections.find((s) => s.path.length >= top.length && top.every((p, i) => s.path[i] === p))?.headerRange ?? fallback;

  const leaves = leafEntries(doc);
  for (const e of leaves) {
    const dotted = e.path.join(".");
    if (keyInfo(date, dotted, view.extensions) || upstreamKeyEver(dotted) || renamedEver(dotted)) continue;
    const table = e.path.slice(0, -1);
    const leaf = e.path[e.path.length - 1]!;
    const top = topForkTable(table);
    if (top) {
      const name = top.join(".");
      if (extensionsDefining(name).length) continue;
      if (!tables.has(name) && tableIsTypo(top)) continue;
      keys.add(dotted);
      tableItem(top, headerRange(top, e.keyRange));
      continue;
    }
    // A key named like an upstream key of another table (or, at the root, a missing header): misplaced, not a fork's.
    if (leafNames.has(leaf)) continue;
    if (table.length && isTypoOf(leaf, keysOfTable(date, table.join("."), view.extensions).map((k) => k.path.split(".").pop()!))) continue;
    keys.add(dotted);
    items.push({ kind: "key", label: dotted, range: e.keyRange });
  }
  // Empty tables upstream never had.
  const withEntries = new Set<string>();
  for (const e of leaves) for (let i = 1; i < e.path.length; i++) withEntries.add(e.path.slice(0, i).join("\u0000"));
  for (const s of doc.sections) {
    const top = topForkTable(s.path);
    if (!top || tables.has(top.join(".")) || extensionsDefining(top.join(".")).length || tableIsTypo(top)) continue;
    if (withEntries.has(top.join("\u0000"))) continue;
    tableItem(top, s.headerRange);
  }

  let optimizer: string | undefined;
  const opt = findEntry(doc, "optimizer", "name");
  const optName = stringValue(opt);
  if (opt && optName !== undefined && optName.trim() !== "") {
    const names = upstreamOptimizers(date);
    if (!names.includes(optName) && !isTypoOf(optName, names)) {
      optimizer = optName;
      items.push({ kind: "optimizer", label: `optimizer.name = "${optName}"`, range: (opt as ConfigEntry).value.range });
    }
  }

  const convs = new Set<string>();
  for (const c of converters(doc, date)) {
    if (c.known || convs.has(c.name) || upstreamConverterEver(c.name) || converterRenameFor(c.name, date)) continue;
    // Registered names of every release: a close one is a typo the unknown-converter rule fixes.
    if (isTypoOf(c.name, upstreamConverterNames())) continue;
    convs.add(c.name);
    items.push({ kind: "converter", label: `converter "${c.name}"`, range: c.range });
  }

  if (!items.length) return undefined;
  items.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  const out: ForkEvidence = { items, keys, tables, converters: convs };
  if (optimizer !== undefined) out.optimizer = optimizer;
  if (view.unknownModule) out.unknownModule = view.unknownModule.name;
  if (passedThrough) out.passedThrough = workspace.map((w) => w.sourcePath ?? w.label);
  return out;
}

// ------------------------------------------------------------------ one fork note per file (issue #17 §3)

const foldable = new WeakMap<Diagnostic, ForkItem>();

/**
 * Marks a finding that, in fork mode, is a fork's name rather than a mistake: an information note on a key or
 * table "a fork may define", a key "valid only if" a custom module that was not found adds it, a value outside
 * upstream's choices with no close upstream name (a fork-registered compile component). `foldIntoFork` folds
 * it into the file's one fork-config note.
 */
export function foldableIntoFork(d: Diagnostic, item: ForkItem): Diagnostic {
  foldable.set(d, item);
  return d;
}

/**
 * In fork mode (fork evidence, or a custom config module the config names that was not found), the foldable
 * findings leave the list and become items of the fork note; otherwise everything stays.
 */
export function foldIntoFork(forkMode: boolean, ds: readonly Diagnostic[]): { kept: Diagnostic[]; folded: ForkItem[] } {
  if (!forkMode) return { kept: [...ds], folded: [] };
  const kept: Diagnostic[] = [];
  const folded: ForkItem[] = [];
  for (const d of ds) {
    const item = foldable.get(d);
    if (item) folded.push(item);
    else kept.push(d);
  }
  return { kept, folded };
}

/** The fork note item a diagnostic would become in fork mode (foldableIntoFork), if any. */
export function foldableItem(d: Diagnostic): ForkItem | undefined {
  return foldable.get(d);
}

/** The part of a torchtitan context fork mode is decided on (context.ts TitanContext). */
interface ForkModeInput {
  doc: ConfigDocument;
  version: { value: { date: string } };
  fork?: ForkEvidence;
  workspaceSchema?: readonly ExtensionModule[];
}

/**
 * Fork mode: names upstream never had with no fork config source found, or a custom config module the config
 * names whose source was not found (its keys cannot be checked either).
 */
export function forkMode(ctx: ForkModeInput): boolean {
  return ctx.fork !== undefined || unfoundModule(ctx) !== undefined;
}

/** The custom config module the config names, when no config source for it (or the fork) was found. */
export function unfoundModule(ctx: ForkModeInput): string | undefined {
  if (ctx.fork) return ctx.fork.unknownModule;
  if (ctx.workspaceSchema?.length) return undefined;
  return schemaView(ctx.doc, ctx.version.value.date).unknownModule?.name;
}
