/**
 * removed-key: A key that a torchtitan release removed.
 *
 * unknown-key: A key the targeted torchtitan release does not know.
 *
 * unknown-section: A table the targeted torchtitan release does not know.
 *
 * moved-key: A key that moved or was renamed between torchtitan releases.
 *
 * deprecated-key: A key torchtitan still reads but has deprecated.
 *
 * extension-section-without-module: A table from an extension module in a config that does not name the module.
 *
 * Keys and tables against the versioned schema (spec torchtitan.md §4.1–4.3):
 *  - unknown-key / unknown-section: not in the schema of the targeted release or date (schema/index.ts
 *    keysAt), nor in an extension module the config names, nor in a torchtitan config source of the
 *    workspace (a fork's job_config.py). Messages name "upstream torchtitan vX": an error from 2025-08-28
 *    on (torchtitan raises "Invalid field names in … data"); before, upstream silently ignores the key: a
 *    warning when a typo-close name or an old/new name of the key exists, else information (more likely a
 *    fork's own key). Did-you-mean: the rename map first (both directions), then edit distance among the
 *    tables and keys of that date.
 *  - moved-key: an old name of a key (rename/move map §4.3); the fix moves/renames it, inverting the value
 *    where the meaning flipped, and creating the target table when needed.
 *  - removed-key: a key that was removed with no replacement; the fix deletes the line.
 *  - deprecated-key: still accepted but deprecated (model.tokenizer_path, experimental.custom_args_module).
 *  - extension-section-without-module: a table an in-repo extension module adds, while the config does
 *    not name that module (it may come from the command line).
 */
import { detailIfLonger, diag, firstFitting, fitMessage, fix } from "../../../diagnostics/build";
import { moveKey, deleteEntry, renameTable, setKey, renameKey, headerPrefixOf, findEntryDeep, tomlValue } from "../../../edit/toml";
import type { ConfigDocument, ConfigEntry, ConfigSection } from "../../../model/document";
import type { Diagnostic, Fix, Range, Severity, TextEdit } from "../../../model/types";
import type { TitanContext, TitanRule } from "../context";
import { foldableIntoFork, foldIntoFork, forkMode, type ForkEvidence, type ForkItem } from "../fork";
import { converterNamesAt, extensionsDefining, isClearSuggestion, keyInfo, keysAt, keysOfTable, olderNameAt, renameFor, sectionsOf, suggest, type ExtensionModule, type RenameResult } from "../schema/index";
import { EXTENSIONS_SINCE, STRICT_KEYS_SINCE } from "../schema/data";
import { isKnown, withShorter } from "../../../provenance";
import { scriptPassesFlag } from "../../../workspace/index";
import { dataclassName, leafEntries, markSafe, moduleKeyAt, schemaView, type SchemaView } from "../schema/view";

export const SCHEMA_KEY_CODES = ["unknown-key", "unknown-section", "moved-key", "removed-key", "deprecated-key", "extension-section-without-module"] as const;

const cache = new WeakMap<TitanContext, { kept: Diagnostic[]; folded: ForkItem[] }>();

/** All schema-key diagnostics of a document, computed once per context (fork names folded, see fork.ts). */
export function schemaKeyDiagnostics(ctx: TitanContext): Diagnostic[] {
  return schemaKeys(ctx).kept;
}

/** The fork names the schema-key rules left to the fork-config note. */
export function schemaKeysFolded(ctx: TitanContext): ForkItem[] {
  return schemaKeys(ctx).folded;
}

function schemaKeys(ctx: TitanContext): { kept: Diagnostic[]; folded: ForkItem[] } {
  let ds = cache.get(ctx);
  if (!ds) {
    // A version that is only inferred (or the default) may be a build from before upstream rejected unknown keys.
    const assumed = isKnown(ctx.version.kind) ? undefined : { from: ctx.version.window?.from };
    const all = computeSchemaKeys(ctx.doc, ctx.version.value.date, ctx.version.value.id, ctx.workspaceSchema, ctx.fork, assumed);
    ds = foldHistoryIntoFork(ctx, foldIntoFork(forkMode(ctx), withoutModulesFromScripts(ctx, all)));
    cache.set(ctx, ds);
  }
  return ds;
}

/** Upstream's key history: what these codes say is upstream's, not a fork's. */
const HISTORY_CODES: ReadonlySet<string> = new Set(["moved-key", "removed-key", "deprecated-key"]);

/**
 * A file in a workspace that holds its own torchtitan package (workspace/forkCode.ts) whose config classes were not
 * found is a fork's: upstream's removed, moved and deprecated keys are not its history (a fork may still read
 * `model.norm_type` or `training.batch_size`), so those findings join the one fork note (issue #30 §2).
 */
function foldHistoryIntoFork(ctx: TitanContext, ds: { kept: Diagnostic[]; folded: ForkItem[] }): { kept: Diagnostic[]; folded: ForkItem[] } {
  if (ctx.workspaceSchema?.length) return withoutDeclaredHistory(ctx, ds);
  if (!ctx.forkCode) return ds;
  const at = (r: Range) => `${r.start.line}:${r.start.character}`;
  const byKey = new Map(leafEntries(ctx.doc).map((e) => [at(e.keyRange), e.path.join(".")]));
  const kept: Diagnostic[] = [];
  const folded = [...ds.folded];
  for (const d of ds.kept) {
    const path = HISTORY_CODES.has(d.code) ? byKey.get(at(d.range)) : undefined;
    if (path === undefined) kept.push(d);
    else folded.push({ kind: "key", label: path, range: d.range });
  }
  return { kept, folded };
}

/**
 * The workspace's own config classes were found (a fork's `job_config.py` / `config_manager.py`): a key they declare
 * is read by the code that runs, so upstream's history of that key (deprecated, moved, removed upstream) is not a
 * finding (a 2026 fork whose JobConfig still has `model.tokenizer_path`: issue #30 §2, found on held-back forks).
 */
function withoutDeclaredHistory(ctx: TitanContext, ds: { kept: Diagnostic[]; folded: ForkItem[] }): { kept: Diagnostic[]; folded: ForkItem[] } {
  const declared = new Set<string>();
  for (const m of ctx.workspaceSchema ?? []) if (m.sourcePath) for (const k of m.keys) declared.add(k.path);
  if (!declared.size) return ds;
  const at = (r: Range) => `${r.start.line}:${r.start.character}`;
  const byKey = new Map(leafEntries(ctx.doc).map((e) => [at(e.keyRange), e.path.join(".")]));
  const kept = ds.kept.filter((d) => !(HISTORY_CODES.has(d.code) && declared.has(byKey.get(at(d.range)) ?? "")));
  return { kept, folded: ds.folded };
}

/**
 * An extension table's module may be named on the command line instead of in the file: a run script beside the
 * config whose command passes `--job.custom_config_module` (or, before 2025-10-14,
 * `--experimental.custom_args_module`) settles it, and the table is no finding.
 */
function withoutModulesFromScripts(ctx: TitanContext, ds: Diagnostic[]): Diagnostic[] {
  if (!ds.some((d) => d.code === "extension-section-without-module")) return ds;
  const [sec, key] = moduleKeyAt(ctx.version.value.date);
  return scriptPassesFlag(ctx.env, [`${sec}.${key}`]) ? ds.filter((d) => d.code !== "extension-section-without-module") : ds;
}

function byCode(code: string): TitanRule {
  return { codes: [code], restsOn: ["version"], run: (ctx) => schemaKeyDiagnostics(ctx).filter((d) => d.code === code) };
}

export const unknownKey = byCode("unknown-key");
export const unknownSection = byCode("unknown-section");
export const movedKey = byCode("moved-key");
export const removedKey = byCode("removed-key");
export const deprecatedKey = byCode("deprecated-key");
export const extensionSectionWithoutModule = byCode("extension-section-without-module");

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function quoteSet(names: string[]): string {
  return `{${names.map((n) => `'${n}'`).join(", ")}}`;
}

/**
 * `assumed`: set when the version is only inferred from the keys (or the default), with the earliest date the
 * keys fit. When that window reaches back before STRICT_KEYS_SINCE, the strict verdict is not stated as fact:
 * builds before it silently drop unknown keys (torchtitan/config/manager.py `_dict_to_dataclass` kept known
 * fields only until eadca4835, #1644; v0.1.0 drops them, spec torchtitan.md §4.1). The error stays an error here
 * and the provenance gate (core/provenance.ts) turns it into a warning led by the assumed version.
 */
export function computeSchemaKeys(doc: ConfigDocument, date: string, versionId: string, workspace: readonly ExtensionModule[] = [], fork?: ForkEvidence, assumed?: { from?: string | undefined }): Diagnostic[] {
  const view = schemaView(doc, date, workspace);
  const out: Diagnostic[] = [];
  const known = new Set(sectionsOf(date, view.extensions));
  const severity: Severity = view.strict ? "error" : "warning";
  const mixed = view.strict && assumed !== undefined && (!assumed.from || assumed.from < STRICT_KEYS_SINCE);
  // Checked against upstream's schema of that version: a fork may well define the key (issue #9 §2).
  const consequence = mixed
    ? `upstream torchtitan rejects it at launch from ${STRICT_KEYS_SINCE}; a build before that (${assumed!.from ? `the keys fit dates from ${assumed!.from}` : "the version is not known"}) silently ignores it`
    : view.strict
      ? `upstream torchtitan ${versionId} rejects it at launch`
      : `upstream torchtitan ${versionId} silently ignores it`;
  const short = mixed ? `silently ignored before ${STRICT_KEYS_SINCE}, rejected at launch from then` : verdict(view.strict, versionId);
  // The shortest clause, for the provenance gate when its lead leaves little room.
  const tiny = mixed ? "ignored or rejected, by version" : undefined;
  const leaves = leafEntries(doc);
  // Keys the workspace's own config classes declare (a fork's config_manager.py / job_config.py).
  const declared = new Set(workspace.filter((m) => m.sourcePath).flatMap((m) => m.keys.map((k) => k.path)));
  const reportedSections = new Set<string>();
  const moved: { entry: ConfigEntry; r: RenameResult }[] = [];

  // Beyond this many unknown keys the file is not a hand-written config: stop explaining each one (each
  // explanation searches the schema) and report the rest in one line, so huge files stay fast.
  let unexplained = 0;
  let firstUnexplained: ConfigEntry | undefined;
  for (const e of leaves) {
    const path = e.path;
    const dotted = path.join(".");
    const spec = keyInfo(date, dotted, view.extensions);
    if (spec) {
      if (spec.deprecated && date >= spec.deprecated.since) out.push(deprecated(doc, e, spec.deprecated.advice, versionId));
      continue;
    }
    // A name upstream never had, in a file with no fork config source: the fork-config note lists it.
    if (fork?.keys.has(dotted)) continue;
    if (out.length >= MAX_EXPLAINED) {
      unexplained++;
      firstUnexplained ??= e;
      continue;
    }
    const r = forkRename(renameFor(dotted, date), dotted, declared);
    if (r) {
      if (r.removed) out.push(removed(doc, e, r, severity, consequence, date));
      else if (r.to && keyInfo(date, r.to, view.extensions)) moved.push({ entry: e, r });
      else out.push(...unknown(doc, e, date, known, view, severity, consequence, reportedSections, versionId, short));
      continue;
    }
    out.push(...unknown(doc, e, date, known, view, severity, consequence, reportedSections, versionId, short));
  }

  if (firstUnexplained) {
    out.push(
      diag(
        "unknown-key",
        severity,
        firstUnexplained.keyRange,
        fitMessage(`${unexplained} more keys from here on are not in torchtitan ${versionId}'s schema`, ` (${consequence})`),
        undefined,
        { detail: `${unexplained} more keys from here on are not in torchtitan ${versionId}'s schema (${consequence}); after ${MAX_EXPLAINED} findings they are not listed one by one.` },
      ),
    );
  }

  // Tables with no entries at all (an empty unknown table is still an unknown field).
  const withEntries = new Set<string>();
  for (const e of leaves) for (let i = 1; i < e.path.length; i++) withEntries.add(e.path.slice(0, i).join("\u0000"));
  for (const s of doc.sections) {
    const p = s.path.join(".");
    if (known.has(p) || keyInfo(date, p, view.extensions)) continue;
    if (withEntries.has(s.path.join("\u0000"))) continue;
    if (fork && [...fork.tables].some((t) => p === t || p.startsWith(t + "."))) continue;
    if (out.length >= MAX_EXPLAINED) break;
    if ([...reportedSections].some((r) => p === r || p.startsWith(r + "."))) continue;
    const top = topUnknownPrefix(s.path, known);
    if (view.unknownModule) continue;
    reportedSections.add(top.join("."));
    const emptyLong = `Unknown table [${s.path.join(".")}] (empty): ${consequence}${view.strict ? ` ("Invalid field names in ${dataclassName(top.slice(0, -1))} data: ${quoteSet([top[top.length - 1]!])}")` : ""}.`;
    const emptyMsg = fitMessage(`Unknown table [${s.path.join(".")}] (empty): ${short}`);
    const ds = diag(
      "unknown-section",
      severity,
      s.headerRange,
      emptyMsg,
      { fixes: [fix(`Remove the empty [${s.path.join(".")}] table`, [{ range: headerLines(doc, s), newText: "" }], true)] },
      detailIfLonger(emptyMsg, emptyLong),
    );
    out.push(isMovedTable(s.path, date) ? ds : markSafe(ds));
  }

  out.push(...movedDiagnostics(doc, moved, date, severity, consequence, view, mixed ? short : undefined, tiny));
  if (tiny) for (const d of out) if (d.code === "unknown-key" || d.code === "unknown-section") withShorter(d, [d.message.replace(short, tiny)]);
  return out;
}

/** Schema findings explained one by one, per document (a real config has a handful). */
export const MAX_EXPLAINED = 200;

function isMovedTable(path: readonly string[], date: string): boolean {
  return renameFor(path.join(".") + ".x", date)?.to !== undefined;
}

function headerLines(doc: ConfigDocument, s: ConfigSection): Range {
  const line = s.headerRange.start.line;
  if (line + 1 < doc.lines.lineCount) return { start: { line, character: 0 }, end: { line: line + 1, character: 0 } };
  return doc.lines.range(line > 0 ? doc.lines.lineEnd(line - 1) : 0, doc.lines.lineEnd(line));
}

function topUnknownPrefix(table: readonly string[], known: Set<string>): string[] {
  for (let i = 1; i <= table.length; i++) {
    const p = table.slice(0, i);
    if (!known.has(p.join("."))) return p;
  }
  return table.slice();
}

function unknown(
  doc: ConfigDocument,
  e: ConfigEntry,
  date: string,
  known: Set<string>,
  view: SchemaView,
  severity: Severity,
  consequence: string,
  reportedSections: Set<string>,
  versionId: string,
  short: string,
): Diagnostic[] {
  const table = e.path.slice(0, -1);
  const leaf = e.path[e.path.length - 1]!;
  const tableKnown = table.length === 0 ? false : known.has(table.join("."));
  if (!tableKnown) {
    // A key at the root is an unknown top-level section as far as torchtitan is concerned.
    const top = table.length ? topUnknownPrefix(table, known) : [leaf];
    const topName = top.join(".");
    if (reportedSections.has(topName)) return [];
    reportedSections.add(topName);
    if (view.unknownModule) return [];
    const header = doc.sections.find((s) => s.path.length >= top.length && samePath(s.path.slice(0, top.length), top));
    const range = header && table.length ? header.headerRange : e.keyRange;
    // Before custom_args_module (2025-03-20) no module could extend the schema: a table is then just unknown.
    // An extension's table only when the file's keys under it are the extension's (a fork's own [data] with
    // dataset/tokenizer keys is not the VLM module's [data]); a table with no keys of its own proves nothing.
    const defining = date >= EXTENSIONS_SINCE ? extensionsDefining(topName) : [];
    const own = defining.length ? leafEntries(doc).filter((x) => x.path.length > top.length && samePath(x.path.slice(0, top.length), top)).map((x) => x.path.join(".")) : [];
    const exts = defining.filter((m) => !own.length || own.some((k) => m.keys.some((s) => s.path === k)));
    if (exts.length) {
      const ext = exts[0]!;
      const [sec, key] = moduleKeyAt(date);
      const module = ext.modules[0]!;
      const d = diag(
        "extension-section-without-module",
        "warning",
        range,
        firstFitting([`[${topName}] needs the ${ext.label} extension module: unless ${sec}.${key} is passed at launch, ${consequence}`, `[${topName}] needs the ${ext.label} module: without ${sec}.${key} at launch, ${short}`, `[${topName}] needs the ${ext.label} module: without ${sec}.${key} at launch, ${short.replace(/^upstream torchtitan /, "")}`, `[${topName}] needs an extension module: without ${sec}.${key} at launch, ${short.replace(/^upstream torchtitan /, "")}`, `[${topName}] needs the ${ext.label} extension module, unless ${sec}.${key} is passed at launch`, `[${topName}] needs an extension module, unless ${sec}.${key} is passed at launch`]),
        { fixes: [fix(`Add ${sec}.${key} = "${module}"`, setKey(doc, [sec], key, JSON.stringify(module)), true)] },
        { detail: `[${topName}] comes from the ${ext.label} extension module ${module}, which this config does not name: unless ${sec}.${key} is given on the command line, ${consequence}.` },
      );
      return [d];
    }
    const parent = top.slice(0, -1);
    // A table that only exists later (the rename map read backwards): say where its keys are at this date.
    const older = table.length ? olderNameAt(e.path, date) : undefined;
    const candidates = sectionsOf(date, view.extensions).filter((s) => s.split(".").length === top.length && samePath(s.split(".").slice(0, -1), parent));
    const names = older ? [] : suggest(topName, candidates);
    // Renaming onto a table the file already has would define it twice (a TOML error): no rename fix then.
    const free = names.filter((n) => !doc.sections.some((s) => !s.isArrayItem && s.path.join(".") === n));
    const fixes: Fix[] = [];
    if (header && samePath(header.path, top) && table.length) {
      for (const n of free) fixes.push(fix(`Rename [${topName}] to [${n}]`, renameTable(doc, header, n.split(".")), fixes.length === 0));
    } else if (!table.length) {
      // A root key that matches a known key name somewhere: a missing table header.
      const homes = [...keysAt(date).keys()].filter((k) => k.endsWith("." + leaf));
      for (const h of homes.slice(0, 3)) {
        const parts = h.split(".");
        fixes.push(fix(`Move to [${parts.slice(0, -1).join(".")}]`, moveKey(doc, e, parts.slice(0, -1)), fixes.length === 0));
      }
    }
    const what = table.length ? `Unknown table [${topName}]` : `Unknown top-level key "${leaf}"`;
    const tc = view.strict ? ` ("Invalid field names in ${dataclassName(parent)} data: ${quoteSet([top[top.length - 1]!])}")` : "";
    const hint =
      (older ? ` [${topName}] is newer: at ${versionId} ${e.path.join(".")} is ${older.path} (moved on ${older.rule.date}).` : names.length ? ` Did you mean [${names[0]}]?` : "") +
      (older || (names.length && !view.workspace.length) ? "" : forkHint(view));
    const sectionSeverity: Severity = !view.strict && !older && fixes.length === 0 ? "information" : severity;
    const sectionHint = older ? `; here it is ${older.path}` : names.length ? `; did you mean [${names[0]}]?` : forkHintShort(view);
    const sectionMsg = withHint(`${what}: ${short}`, sectionHint);
    const d = diag("unknown-section", sectionSeverity, range, sectionMsg, fixes.length ? { fixes } : undefined, detailIfLonger(sectionMsg, `${what}: ${consequence}${tc}.${hint}`));
    // A quiet note (no close name, no other date's name): in fork mode, one of the fork's tables.
    if (sectionSeverity === "information") foldableIntoFork(d, { kind: table.length ? "table" : "key", label: table.length ? `[${topName}]` : leaf, range });
    return [fixes.length === 1 && isClearSuggestion(topName, names) ? markSafe(d) : d];
  }

  // Known table, unknown key. The rename map first: a later name of a key that exists at this date.
  const older = olderNameAt(e.path, date);
  const olderParts = older?.path.split(".");
  const olderHere = olderParts && samePath(olderParts.slice(0, -1), table);
  const inTable = keysOfTable(date, table.join("."), view.extensions).map((k) => k.path.split(".").pop()!);
  const names = olderHere ? [olderParts[olderParts.length - 1]!] : older ? [] : suggest(leaf, inTable);
  const fixes: Fix[] = names.map((n, i) => fix(`Rename to ${n}`, renameOrReplace(doc, e, table, n), i === 0));
  if (older && !olderHere && olderParts && !findEntryDeep(doc, olderParts)) {
    fixes.push(fix(`Move to [${olderParts.slice(0, -1).join(".")}]`, moveKey(doc, e, olderParts.slice(0, -1), { newKey: olderParts[olderParts.length - 1]! }), true));
  }
  // The same key name in another table (a key written in the wrong table).
  if (!names.length) {
    const homes = [...keysAt(date).keys()].filter((k) => k.endsWith("." + leaf) && k !== e.path.join("."));
    for (const h of homes.slice(0, 2)) {
      const parts = h.split(".");
      if (findEntryDeep(doc, parts)) continue;
      fixes.push(fix(`Move to [${parts.slice(0, -1).join(".")}]`, moveKey(doc, e, parts.slice(0, -1)), fixes.length === 0));
    }
  }
  // Before torchtitan rejected unknown keys, a key with no close name is more likely a fork's own than a
  // typo: say so quietly. A typo-close name (edit distance <= 2) or an old/new name of the key stays a
  // warning; from 2025-08-28 upstream rejects the key (error).
  const likelyTypo = older !== undefined || isClearSuggestion(leaf, names);
  const sev: Severity = view.unknownModule || (!view.strict && !likelyTypo) ? "information" : severity;
  const because = view.unknownModule ? `it is valid only if the custom module ${view.unknownModule.name} adds it; otherwise ${consequence}` : consequence;
  const tc = view.strict ? ` ("Invalid field names in ${dataclassName(table)} data: ${quoteSet([leaf])}")` : "";
  const renamedNote = older ? ` (${older.path} became ${e.path.join(".")} on ${older.rule.date})` : "";
  const hint =
    (older ? ` Did you mean ${older.path}?${renamedNote}` : fixes.length ? ` Did you mean ${fixes[0]!.title.replace(/^Rename to |^Move to /, "")}?` : "") +
    (view.unknownModule || (fixes.length && !view.workspace.length) ? "" : forkHint(view));
  const becauseShort = view.unknownModule ? `valid only if ${view.unknownModule.name} adds it` : short;
  const keyHint = older ? `; did you mean ${older.path}?` : fixes.length ? `; did you mean ${fixes[0]!.title.replace(/^Rename to |^Move to /, "")}?` : view.unknownModule ? "" : forkHintShort(view);
  const keyMsg = withHint(`Unknown key "${leaf}" in [${table.join(".")}]: ${becauseShort}`, keyHint);
  const d = diag("unknown-key", sev, e.keyRange, keyMsg, fixes.length ? { fixes } : undefined, detailIfLonger(keyMsg, `Unknown key "${leaf}" in [${table.join(".")}]: ${because}${tc}.${hint}`));
  // A quiet note (no typo-close name, no other date's name), or a key left to a custom module that was not
  // found: in fork mode, one of the fork's keys.
  if (sev === "information" && !likelyTypo) foldableIntoFork(d, { kind: "key", label: e.path.join("."), range: e.keyRange });
  return [(older && fixes.length === 1) || (names.length && fixes.length === names.length && isClearSuggestion(leaf, names)) ? markSafe(d) : d];
}

/** head + hint in one short message; when both do not fit, "upstream " gives way before the hint does. */
function withHint(head: string, hint: string): string {
  const m = fitMessage(head, hint);
  return !hint || m.endsWith(hint) ? m : fitMessage(head.replace("upstream torchtitan ", "torchtitan "), hint);
}

/** The schema verdict as a clause for the one-sentence message. */
function verdict(strict: boolean, versionId: string): string {
  return strict ? `upstream torchtitan ${versionId} rejects it at launch` : `upstream torchtitan ${versionId} ignores it`;
}

/** forkHint as a clause for the one-sentence message. */
function forkHintShort(view: SchemaView): string {
  return view.workspace.length ? " (nor in the workspace's torchtitan config)" : " (a fork may define it)";
}

/** What a fork user is told about a key upstream does not have. */
function forkHint(view: SchemaView): string {
  if (view.workspace.length) return ` It is not defined in ${view.workspace.map((w) => w.sourcePath).join(" or ")} either.`;
  return " A torchtitan fork may define it (Precision Lens reads a fork's torchtitan/config/job_config.py from the workspace).";
}

/** Rename in place, or when the target already exists, delete this line (keeping the existing one). */
function renameOrReplace(doc: ConfigDocument, e: ConfigEntry, table: string[], newLeaf: string) {
  if (findEntryDeep(doc, [...table, newLeaf])) return deleteEntry(doc, e);
  return renameKey(doc, e, newLeaf);
}

function removed(doc: ConfigDocument, e: ConfigEntry, r: RenameResult, severity: Severity, consequence: string, date: string): Diagnostic {
  const rule = r.removed!;
  const dotted = e.path.join(".");
  // The float8 boolean became a converter name (2025-02-15, #823): migrate instead of dropping it.
  const converter = dotted === "float8.enable_float8_linear" && e.value.value === true ? float8LinearConverter(date) : undefined;
  if (converter) {
    const d = diag(
      "removed-key",
      severity,
      e.keyRange,
      fitMessage(`${dotted} was removed on ${rule.date}: ${consequence.replace(" silently ", " ").replace("upstream torchtitan ", "torchtitan ")}, so float8 training is off`),
      { fixes: [fix(`Replace with "${converter}" in model.converters`, [...deleteEntry(doc, e), ...addConverter(doc, converter)], true)] },
      { detail: `${dotted} was removed from torchtitan on ${rule.date}${rule.commit ? ` (${rule.commit})` : ""}: ${consequence}, so float8 training is off. Float8 linears are now turned on by the converter "${converter}" in model.converters.` },
    );
    return markSafe(d);
  }
  const removedLong = `${dotted} was removed from torchtitan on ${rule.date}${rule.commit ? ` (${rule.commit})` : ""}: ${consequence}.${rule.advice ? ` Instead: ${rule.advice}.` : ""}`;
  const removedMsg = fitMessage(`${dotted} was removed from torchtitan on ${rule.date}: ${consequence.replace(" silently ", " ")}`);
  const d = diag("removed-key", severity, e.keyRange, removedMsg, { fixes: [fix(`Remove ${dotted}`, deleteEntry(doc, e), true)] }, detailIfLonger(removedMsg, removedLong));
  // Deleting is safe when the value only turned something off, or the key never affected training.
  const v = e.value.value;
  const harmless = v === false || (Array.isArray(v) && v.length === 0) || dotted === "job.use_for_integration_test" || dotted === "checkpoint.interval_type";
  return harmless ? markSafe(d) : d;
}

/** The float8 linear converter's registered name at `date`, if that era has one. */
function float8LinearConverter(date: string): string | undefined {
  return converterNamesAt(date).find((n) => /(^|\.)float8$/.test(n) && !/grouped_mm|moe/.test(n));
}

/** Edits adding `name` to `model.converters` (appending to the list, or creating the key). */
function addConverter(doc: ConfigDocument, name: string): TextEdit[] {
  const list = findEntryDeep(doc, ["model", "converters"]);
  if (list && list.value.kind === "array") {
    const items = list.value.items ?? [];
    if ((list.value.value as unknown[]).includes(name)) return [];
    const last = items[items.length - 1];
    if (last) return [{ range: { start: last.range.end, end: last.range.end }, newText: `, ${JSON.stringify(name)}` }];
    return [{ range: list.value.range, newText: `[${JSON.stringify(name)}]` }];
  }
  return setKey(doc, ["model"], "converters", `[${JSON.stringify(name)}]`);
}

function deprecated(doc: ConfigDocument, e: ConfigEntry, advice: string, versionId: string): Diagnostic {
  const dotted = e.path.join(".");
  const fixes: Fix[] = [];
  if (dotted === "model.tokenizer_path" && e.value.kind === "string") {
    const v = e.value.value as string;
    const dir = /[\\/]?tokenizer\.model$/.test(v) || /\.model$/.test(v) ? v.replace(/[\\/][^\\/]*$/, "") || "." : v;
    if (!findEntryDeep(doc, ["model", "hf_assets_path"])) fixes.push(fix(`Replace with hf_assets_path = "${dir}"`, moveKey(doc, e, ["model"], { newKey: "hf_assets_path", valueText: JSON.stringify(dir) }), true));
    else fixes.push(fix("Remove tokenizer_path (hf_assets_path is set)", deleteEntry(doc, e), true));
  } else if (dotted === "experimental.custom_args_module") {
    if (!findEntryDeep(doc, ["job", "custom_config_module"])) fixes.push(fix("Move to job.custom_config_module", moveKey(doc, e, ["job"], { newKey: "custom_config_module" }), true));
  }
  const deprecatedMsg = fitMessage(`${dotted} is deprecated in torchtitan ${versionId}`, `: ${advice.split(";")[0]!}`);
  return diag("deprecated-key", "warning", e.keyRange, deprecatedMsg, fixes.length ? { fixes } : undefined, detailIfLonger(deprecatedMsg, `${dotted} is deprecated in torchtitan ${versionId}: ${advice}.`));
}

// ---------------------------------------------------------------------------------------- moved keys

/**
 * A key's new name as the workspace's own config classes have it: where they declare a name along upstream's rename
 * chain, the chain stops there (a fork taken between two renames reads `checkpoint.last_save_model_weights_only`,
 * not the later `last_save_model_only`; held-back cakeng fork, issue #30). Unchanged when they declare none of them.
 */
function forkRename(r: RenameResult | undefined, from: string, declared: ReadonlySet<string>): RenameResult | undefined {
  if (!r?.to || r.steps.length < 2 || !declared.size || declared.has(r.to)) return r;
  for (let i = 0; i < r.steps.length - 1; i++) {
    const partial = renameFor(from, r.steps[i]!.date);
    if (partial?.to && declared.has(partial.to)) return partial;
  }
  return r;
}

function movedDiagnostics(
  doc: ConfigDocument,
  moved: { entry: ConfigEntry; r: RenameResult }[],
  date: string,
  severity: Severity,
  consequence: string,
  view: SchemaView,
  mixedShort?: string,
  tiny?: string,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  // Whole-table moves: every entry under a header moves by table rules to one new table that is not in
  // the file yet → one fix renames the header.
  const tableFix = new Map<ConfigSection, Fix | null>();
  const headerOf = (e: ConfigEntry) => {
    const prefix = headerPrefixOf(doc, e);
    return doc.sections.find((s) => !s.isArrayItem && samePath(s.path, prefix));
  };
  for (const { entry, r } of moved) {
    const from = entry.path.join(".");
    const to = r.to!;
    const toParts = to.split(".");
    const toTable = toParts.slice(0, -1);
    const toLeaf = toParts[toParts.length - 1]!;
    const fixes: Fix[] = [];
    let safe = !r.changedMeaning && r.alternatives.length === 0;
    const header = headerOf(entry);
    if (header && samePath(header.path, entry.path.slice(0, -1))) {
      if (!tableFix.has(header)) tableFix.set(header, wholeTableFix(doc, header, moved));
      const tf = tableFix.get(header);
      if (tf) fixes.push(tf);
    }
    if (!fixes.length) {
      const target = findEntryDeep(doc, toParts);
      let valueText = doc.text.slice(doc.lines.offsetAt(entry.value.range.start), doc.lines.offsetAt(entry.value.range.end));
      if (r.invert) {
        if (entry.value.kind === "boolean") valueText = tomlValue(!(entry.value.value as boolean));
        else safe = false;
      }
      if (r.convert) {
        const c = r.convert(entry.value.value);
        if (c !== undefined) valueText = c;
        else safe = false;
      }
      if (target) {
        const sameValue = JSON.stringify(target.value.value) === JSON.stringify(r.invert && typeof entry.value.value === "boolean" ? !entry.value.value : entry.value.value);
        fixes.push(fix(`Remove ${from} (${to} is already set${sameValue ? " to the same value" : ""})`, deleteEntry(doc, entry), true));
        if (!sameValue) {
          safe = false;
          fixes.push(fix(`Use this value for ${to} and remove ${from}`, moveKey(doc, entry, toTable, { newKey: toLeaf, valueText }), false));
        }
      } else {
        const title = samePath(toTable, entry.path.slice(0, -1)) ? `Rename to ${toLeaf}` : `Move to ${to}`;
        fixes.push(fix(`${title}${r.invert ? ` (value inverted: ${valueText})` : ""}`, moveKey(doc, entry, toTable, { newKey: toLeaf, valueText }), true));
        for (const alt of r.alternatives) {
          const ap = alt.split(".");
          if (!keyInfo(date, alt, view.extensions)) continue;
          fixes.push(fix(`Move to ${alt}`, moveKey(doc, entry, ap.slice(0, -1), { newKey: ap[ap.length - 1]! }), false));
        }
      }
    }
    const last = r.steps[r.steps.length - 1]!;
    const when = r.steps.length > 1 ? `through ${r.steps.length} renames, the last on ${last.date}` : `on ${last.date}${last.commit ? ` (${last.commit})` : ""}`;
    const meaning = r.invert ? " The meaning is inverted: the fix negates the value." : "";
    const changed = r.changedMeaning ? ` Careful: ${r.changedMeaning}.` : "";
    const inverted = r.invert ? " (meaning inverted)" : "";
    const mixedCandidates = mixedShort && tiny ? [`${from} was renamed to ${to} on ${last.date}: ${mixedShort}${inverted}`, `${from} is now ${to}: ${mixedShort}${inverted}`, `${from} is now ${to}: ${tiny}${inverted}`] : [];
    const movedMsg = firstFitting(
      [
        ...mixedCandidates,
        `${from} was renamed to ${to} ${r.steps.length > 1 ? `(last on ${last.date})` : `on ${last.date}`}: ${consequence.replace(" silently ", " ")}${inverted}`,
        `${from} was renamed to ${to}: ${consequence.replace(" silently ", " ").replace("upstream torchtitan ", "torchtitan ")}${inverted}`,
        `${from} is now ${to}: ${consequence.replace(" silently ", " ").replace("upstream torchtitan ", "torchtitan ")}${inverted}`,
        `${from} was renamed to ${to}${inverted}`,
        ...(toLeaf === entry.path[entry.path.length - 1] ? [`${from} moved to [${toTable.join(".")}]${inverted}`] : []),
      ],
    );
    const d = diag("moved-key", severity, entry.keyRange, movedMsg, { fixes, facts: { movedTo: to } }, detailIfLonger(movedMsg, `${from} was renamed to ${to} ${when}: as ${from}, ${consequence}.${meaning}${changed}`));
    if (mixedCandidates.length) withShorter(d, mixedCandidates.slice(1));
    out.push(safe && fixes.length === 1 ? markSafe(d) : d);
  }
  return out;
}

/** One fix renaming a whole table header, when every entry under it moves by a table rule to one new table. */
function wholeTableFix(doc: ConfigDocument, header: ConfigSection, moved: { entry: ConfigEntry; r: RenameResult }[]): Fix | null {
  const under = leafEntries(doc).filter((e) => samePath(headerPrefixOf(doc, e), header.path));
  if (!under.length) return null;
  let newTable: string | undefined;
  for (const e of under) {
    const m = moved.find((x) => x.entry === e);
    if (!m) return null;
    const r = m.r;
    if (r.invert || r.convert || r.changedMeaning || !r.steps.every((s) => s.from.endsWith(".*"))) return null;
    const t = r.to!.split(".").slice(0, -(e.path.length - header.path.length)).join(".");
    if (newTable === undefined) newTable = t;
    else if (newTable !== t) return null;
  }
  if (!newTable) return null;
  const np = newTable.split(".");
  // The target table must not exist in the file yet (no header, no entries).
  if (doc.sections.some((s) => samePath(s.path.slice(0, np.length), np)) || doc.entries.some((e) => samePath(e.path.slice(0, np.length), np))) return null;
  return fix(`Move [${header.path.join(".")}] to [${newTable}]`, renameTable(doc, header, np), true);
}
