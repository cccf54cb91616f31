/**
 * torchtitan config sources in the workspace (issue #9 §2): a fork's `torchtitan/config/job_config.py`
 * (or the older `torchtitan/config_manager.py`) in a folder above the config, and the module named by
 * `job.custom_config_module` (or the older `experimental.custom_args_module`) when it resolves to a file
 * of the workspace. Their dataclass fields are read as text (pyDataclass.ts) and become known keys,
 * shown in hovers as "known from <path>".
 *
 * Files go through AnalysisEnv only (the Node env re-reads a file only when its mtime or size changed);
 * the scan of a given text is memoised, so re-analysing on every edit costs a few stat calls.
 */
import { userNamedEnv } from "./boundary";
import type { AnalysisEnv, AnalysisSettings } from "../analysis";
import { findEntry, stringValue, type ConfigDocument } from "../model/document";
import type { ExtensionModule, KeySpec } from "../frameworks/torchtitan/schema/data";
import { ancestorDirs, basename, dirname, displayPath, isInside, join } from "./paths";
import { scanJobConfig, type ScannedSchema } from "./pyDataclass";
import { findTorchtitanPackage } from "./forkCode";
import { customEntryPoint, launchScripts } from "./worldSize";
import { parsePythonModule } from "../parse/python";
import { scannedPart } from "./scan";

/** Where torchtitan kept its config dataclasses, relative to the repository root (spec torchtitan.md §0). */
export const CONFIG_SOURCE_PATHS: readonly (readonly string[])[] = [
  ["torchtitan", "config", "job_config.py"],
  ["torchtitan", "config_manager.py"],
];

const scanCache = new Map<string, ScannedSchema | null>();

function scanCached(text: string): ScannedSchema | undefined {
  let s = scanCache.get(text);
  if (s === undefined) {
    s = scanJobConfig(text) ?? null;
    if (scanCache.size >= 16) scanCache.delete(scanCache.keys().next().value!);
    scanCache.set(text, s);
  }
  return s ?? undefined;
}

function joinAll(dir: string, parts: readonly string[]): string {
  return parts.reduce((d, p) => join(d, p), dir);
}

function toModule(path: string, scanned: ScannedSchema, env: AnalysisEnv, kind: string, moduleName?: string): ExtensionModule {
  const shown = displayPath(path, env);
  const keys: KeySpec[] = scanned.keys.map((k) => ({
    path: k.path,
    type: k.type ?? "any",
    doc: `Defined by \`${k.className}\` in ${shown} (line ${k.line + 1}).`,
  }));
  return { modules: moduleName ? [moduleName] : [], label: kind, keys, sourcePath: shown, openTables: scanned.openTables };
}

/**
 * The config sources the workspace offers for this document, innermost first: the fork's own schema
 * (found walking up from the config) and the custom config module it names, when that module is a file
 * of the workspace; before them, the config classes the fork's own training entry point imports.
 */
export function torchtitanConfigSources(doc: ConfigDocument, env: AnalysisEnv, settings: AnalysisSettings = {}): { schemas: ExtensionModule[]; missing?: string } {
  const configured = configuredSource(env, settings);
  if (configured && "missing" in configured) return { schemas: withEntrySource(workspaceSchemas(doc, env), env), missing: configured.missing };
  const found = withEntrySource(workspaceSchemas(doc, env), env);
  return { schemas: configured ? [configured.module, ...found] : found };
}

/** The config classes of the fork's own training entry point (entryConfigSource) add to, and come before, the rest. */
function withEntrySource(found: ExtensionModule[], env: AnalysisEnv): ExtensionModule[] {
  const fromEntry = entryConfigSource(env);
  return fromEntry && !found.some((m) => m.sourcePath === fromEntry.sourcePath) ? [fromEntry, ...found] : found;
}

function isAbsolute(p: string): boolean {
  return p.startsWith("/") || p.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(p);
}

/**
 * The config source the setting or flag names (issue #17 §3): a file, or a fork's root folder holding
 * torchtitan/config/job_config.py or torchtitan/config_manager.py.
 */
function configuredSource(env: AnalysisEnv, settings: AnalysisSettings): { module: ExtensionModule } | { missing: string } | undefined {
  const raw = settings.torchtitanConfigSource?.trim();
  if (!raw) return undefined;
  let path = raw;
  if (!isAbsolute(raw)) {
    const roots = (env.workspaceRoots ?? []).filter((r) => !env.documentPath || isInside(env.documentPath, r));
    const base = roots[roots.length - 1] ?? (env.documentPath ? dirname(env.documentPath) : undefined);
    if (!base) return { missing: raw };
    path = join(base, raw);
  }
  const label = settings.origin === "cli" ? "--torchtitan-config-source" : "precisionLens.torchtitanConfigSource";
  // A path the user names in a setting or flag, not one a config names: read wherever it is (boundary.ts).
  const host = userNamedEnv(env);
  for (const p of [path, ...CONFIG_SOURCE_PATHS.map((rel) => joinAll(path, rel))]) {
    const text = host.readFile(p);
    if (text === undefined) continue;
    const scanned = scanCached(text);
    if (!scanned) continue;
    return { module: toModule(p, scanned, env, `torchtitan config source (${label})`) };
  }
  return { missing: raw };
}

export function workspaceSchemas(doc: ConfigDocument, env: AnalysisEnv): ExtensionModule[] {
  const dirs = ancestorDirs(env);
  if (!dirs.length) return [];
  const out: ExtensionModule[] = [];
  search: for (const dir of dirs) {
    const candidates = [...CONFIG_SOURCE_PATHS];
    // The package folder itself opened as the workspace (…/torchtitan/config/job_config.py from inside).
    if (basename(dir) === "torchtitan") candidates.push(["config", "job_config.py"], ["config_manager.py"]);
    for (const rel of candidates) {
      const path = joinAll(dir, rel);
      const text = env.readFile(path);
      if (text === undefined) continue;
      const scanned = scanCached(text);
      if (!scanned) continue;
      out.push(toModule(path, scanned, env, "torchtitan config source"));
      break search;
    }
  }
  if (!out.length) {
    const followed = followedConfigSource(env);
    if (followed) out.push(followed);
  }
  const name = (stringValue(findEntry(doc, "job", "custom_config_module")) ?? stringValue(findEntry(doc, "experimental", "custom_args_module")))?.trim();
  if (name && /^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*$/.test(name)) {
    const parts = name.split(".");
    modules: for (const dir of dirs) {
      for (const rel of [[...parts.slice(0, -1), parts[parts.length - 1]! + ".py"], [...parts, "__init__.py"]]) {
        const path = joinAll(dir, rel);
        const text = env.readFile(path);
        if (text === undefined) continue;
        const scanned = scanCached(text);
        if (scanned) out.push(toModule(path, scanned, env, "custom config module", name));
        break modules;
      }
    }
  }
  return out;
}

/** Imports followed from the config manager, at most. */
const MAX_FOLLOWED_IMPORTS = 16;

/**
 * A fork's config classes where upstream does not keep them (issue #30 §2): the workspace's torchtitan package's
 * config manager (`torchtitan/config/manager.py`, or the older `torchtitan/config_manager.py`) is read as Python and
 * the modules it imports are followed, when they are files of the workspace (absolute imports resolved from the
 * folder above the package, relative ones from the manager's folder); the first that declares dataclass fields
 * (a JobConfig subclass or a replacement) is the fork's config source. Nothing is imported or run.
 */
function followedConfigSource(env: AnalysisEnv): ExtensionModule | undefined {
  const pkg = findTorchtitanPackage(env);
  if (!pkg) return undefined;
  const root = dirname(pkg);
  for (const managerPath of [join(join(pkg, "config"), "manager.py"), join(pkg, "config_manager.py")]) {
    const text = env.readFile(managerPath);
    if (text === undefined) continue;
    const found = followImports(managerPath, text, root, env);
    if (found) return found;
  }
  return undefined;
}

/**
 * The first module `fromPath` imports a `…Config…` name from that declares config dataclass fields (absolute imports
 * resolved from `root`, relative ones from the importing file's folder), at most MAX_FOLLOWED_IMPORTS imports.
 */
function followImports(fromPath: string, text: string, root: string, env: AnalysisEnv): ExtensionModule | undefined {
  const imports = parsePythonModule(scannedPart(text)).module.imports.filter((imp) => imp.names.some((n) => /Config/.test(n.name))).slice(0, MAX_FOLLOWED_IMPORTS);
  for (const imp of imports) {
    const dots = /^\.*/.exec(imp.module)![0].length;
    const parts = imp.module.slice(dots).split(".").filter(Boolean);
    let base = dots ? dirname(fromPath) : root;
    for (let i = 1; i < dots; i++) base = dirname(base);
    for (const rel of [[...parts.slice(0, -1), `${parts[parts.length - 1] ?? "__init__"}.py`], [...parts, "__init__.py"]]) {
      const path = joinAll(base, rel);
      if (path === fromPath) continue;
      const t = env.readFile(path);
      if (t === undefined) continue;
      const scanned = scanCached(t);
      if (scanned?.keys.length) return toModule(path, scanned, env, `torchtitan config source (imported by ${displayPath(fromPath, env)})`);
    }
  }
  return undefined;
}

/**
 * A fork's config classes reached from the training entry point of the run script that runs this config (issue #30
 * §2): `torchrun … -m timelyfreeze.train --job.config_file …` (workspace/worldSize.ts `customEntryPoint`) is read
 * from the workspace (a module from the script's folder or a folder above it, a `.py` path from the same folders),
 * and the modules it imports `…Config…` names from are followed as from the config manager (a subclass of
 * torchtitan's JobConfig declares the tables the fork adds). Nothing is imported or run.
 */
function entryConfigSource(env: AnalysisEnv): ExtensionModule | undefined {
  return entrySource(env, launchScripts(env)) ?? entrySource(env, launchScripts(env, ".toml")) ?? besideTrainer(env);
}

/**
 * A fork's own `train.py` in a folder that holds the config (`timelyfreeze/train.py` above
 * `timelyfreeze/train_configs/x.toml`), torchtitan's own package folder excluded: its `…Config…` imports are
 * followed as an entry point's, absolute imports from the folder above the workspace's torchtitan package (else the
 * workspace's root). Known keys only: it removes findings.
 */
function besideTrainer(env: AnalysisEnv): ExtensionModule | undefined {
  const dirs = ancestorDirs(env);
  const pkg = findTorchtitanPackage(env);
  const root = pkg ? dirname(pkg) : dirs[dirs.length - 1];
  if (root === undefined) return undefined;
  for (const dir of dirs) {
    if (basename(dir) === "torchtitan" || dir === root) continue;
    const path = join(dir, "train.py");
    const text = env.readFile(path);
    if (text === undefined) continue;
    const found = followImports(path, text, root, env);
    if (found) return found;
  }
  return undefined;
}

/**
 * The config classes of the first custom entry point among `scripts`. Called first with the scripts that run this
 * config, then with those beside it or above it that run any TOML config through their own entry point (a fork's
 * `logs/run1/run.sh` runs `config_1101.toml` of the folder with `-m timelyfreeze.train`; the folder's other configs
 * are that trainer's too): config classes only add known keys, so the wider search can only remove findings.
 */
function entrySource(env: AnalysisEnv, scripts: Iterable<{ path: string; text: string; config: string }>): ExtensionModule | undefined {
  for (const { path: script, text, config } of scripts) {
    const entry = customEntryPoint(text, config);
    if (!entry) continue;
    const module = entry.startsWith("-m ");
    const parts = (module ? entry.slice(3).split(".") : entry.split("/")).filter((p) => p && p !== ".");
    if (!parts.length || parts.includes("..")) return undefined;
    const rels = module ? [[...parts.slice(0, -1), `${parts[parts.length - 1]!}.py`], [...parts, "__init__.py"]] : [parts];
    for (const dir of [dirname(script), ...ancestorDirs(env)]) {
      for (const rel of rels) {
        const path = joinAll(dir, rel);
        const t = env.readFile(path);
        if (t === undefined) continue;
        return followImports(path, t, dir, env);
      }
    }
    return undefined;
  }
  return undefined;
}
