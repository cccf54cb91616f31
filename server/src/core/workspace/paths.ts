/**
 * Path helpers that work on POSIX and Windows paths alike without node:path (the core has no I/O of its
 * own: files are read through AnalysisEnv only).
 */
import type { AnalysisEnv } from "../analysis";
import type { SourceLocation } from "../model/types";

function sepOf(p: string): string {
  return p.includes("/") || !p.includes("\\") ? "/" : "\\";
}

function trimSep(p: string): string {
  return p.length > 1 && /[\\/]$/.test(p) && !/^[A-Za-z]:[\\/]$/.test(p) ? p.slice(0, -1) : p;
}

export function dirname(p: string): string {
  const t = trimSep(p);
  const i = Math.max(t.lastIndexOf("/"), t.lastIndexOf("\\"));
  if (i < 0) return ".";
  if (i === 0) return t[0]!;
  if (/^[A-Za-z]:$/.test(t.slice(0, i))) return t.slice(0, i + 1);
  return t.slice(0, i);
}

export function basename(p: string): string {
  const t = trimSep(p);
  const i = Math.max(t.lastIndexOf("/"), t.lastIndexOf("\\"));
  return i < 0 ? t : t.slice(i + 1);
}

export function join(dir: string, name: string): string {
  const s = sepOf(dir);
  return /[\\/]$/.test(dir) ? dir + name : dir + s + name;
}

function norm(p: string): string {
  return trimSep(p).replace(/\\/g, "/").toLowerCase();
}

/** True when `p` is `root` or inside it. */
export function isInside(p: string, root: string): boolean {
  const a = norm(p);
  const r = norm(root);
  return a === r || a.startsWith(r.endsWith("/") ? r : r + "/");
}

/**
 * Directories from the document's own directory up to (and including) the search root: the repository
 * root or the filesystem root the host found (env.searchRoot), else the innermost workspace root that
 * contains it; without either, at most `maxUp` levels. Empty when the document has no path.
 * Never the folder the CLI was started in: `check ../fork/configs/x.toml` from elsewhere still finds
 * the fork's torchtitan/config/job_config.py.
 */
export function ancestorDirs(env: AnalysisEnv, maxUp = 6): readonly string[] {
  // Once per environment (one analysis) and bound: every workspace reader walks the same folders (issue #36).
  let byUp = ancestorsOf.get(env);
  if (!byUp) ancestorsOf.set(env, (byUp = new Map()));
  let out = byUp.get(maxUp);
  if (!out) byUp.set(maxUp, (out = Object.freeze(ancestorDirsUncached(env, maxUp))));
  return out;
}
const ancestorsOf = new WeakMap<AnalysisEnv, Map<number, readonly string[]>>();

function ancestorDirsUncached(env: AnalysisEnv, maxUp: number): string[] {
  if (!env.documentPath) return [];
  const start = dirname(env.documentPath);
  const roots = (env.workspaceRoots ?? []).filter((r) => isInside(start, r));
  const root =
    env.searchRoot !== undefined && isInside(start, env.searchRoot)
      ? env.searchRoot
      : roots.length
        ? roots.reduce((a, b) => (norm(b).length > norm(a).length ? b : a))
        : undefined;
  const out: string[] = [];
  let d = start;
  for (let i = 0; i < 64; i++) {
    out.push(d);
    if (root ? norm(d) === norm(root) : i >= maxUp) break;
    const up = dirname(d);
    if (up === d) break;
    if (root && !isInside(up, root)) break;
    d = up;
  }
  return out;
}

/** Displays a path relative to the workspace root when inside it. */
export function displayPath(p: string, env: AnalysisEnv): string {
  const roots = (env.workspaceRoots ?? []).filter((r) => isInside(p, r));
  // Outside every workspace root: relative to the repository root the search stopped at, if any.
  if (!roots.length && env.searchRoot !== undefined && isInside(p, env.searchRoot) && dirname(env.searchRoot) !== env.searchRoot) roots.push(env.searchRoot);
  const root = roots.length ? roots.reduce((a, b) => (b.length > a.length ? b : a)) : undefined;
  if (!root) return basename(p);
  const rel = p.slice(trimSep(root).length).replace(/^[\\/]+/, "");
  return rel.replace(/\\/g, "/") || basename(p);
}

/** A file path as a file:// URI (POSIX and Windows drive paths; spaces and other specials percent-encoded). */
export function fileUri(p: string): string {
  const slashed = p.replace(/\\/g, "/");
  const path = (slashed.startsWith("/") ? slashed : `/${slashed}`).split("/").map(encodeURIComponent).join("/");
  return `file://${path.replace(/^\/([A-Za-z])%3A/, "/$1:")}`;
}

/** The whole of line `line` (zero-based) of a file, as a location for relatedInformation. */
export function lineLocation(path: string, text: string, line: number): SourceLocation {
  const l = text.split(/\r?\n/)[line] ?? "";
  return { uri: fileUri(path), range: { start: { line, character: 0 }, end: { line, character: l.length } } };
}

/**
 * `f` answered once per environment (one environment is one analysis; issue #36): for workspace lookups asked
 * several times in one analysis (the torchtitan package, the fork's code).
 */
export function oncePerAnalysis<T>(f: (env: AnalysisEnv) => T): (env: AnalysisEnv) => T {
  const memo = new WeakMap<AnalysisEnv, { value: T }>();
  return (env) => {
    let m = memo.get(env);
    if (!m) memo.set(env, (m = { value: f(env) }));
    return m.value;
  };
}
