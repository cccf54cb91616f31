/**
 * The workspace boundary (issue #33): the one place that decides which files an analysis may read. Every
 * file the workspace readers follow (a DeepSpeed JSON named by a TrainingArguments, accelerate, TRL,
 * LLaMA-Factory, Axolotl or Lightning config; an accelerate config named by a launch line; run scripts; pins;
 * a fork's code; an imported Python module) is read through `AnalysisEnv.readFile`, and `boundToWorkspace`
 * wraps that once per analysis (`analyzeDocument`, and `host/nodeEnv.ts` for its direct users): a path
 * outside the workspace reads as absent and is never opened.
 *
 * The workspace is the union of the workspace roots that contain the document and the document's own git
 * repository root (`env.searchRoot`, when it is a repository root and not the filesystem root). A path is
 * inside when it is, after `..` and `.` are resolved, and (where the host resolves symbolic links,
 * `env.realPath`) its real path is too: a symbolic link inside the workspace that points outside it is
 * outside. An environment that names no workspace at all (no roots, no search root: an in-memory host) has
 * no boundary.
 *
 * A link a config names that lies outside is an unknown fact: `linkOutside` tells the framework, which says
 * `OUTSIDE_WORKSPACE` (never the path itself: the host's absolute paths stay out of every output).
 */
import type { AnalysisEnv } from "../analysis";
import { basename, dirname, isInside } from "./paths";

/** The reason given for a link outside the workspace (in a header assumption or an information diagnostic). */
export const OUTSIDE_WORKSPACE = "is outside the workspace and was not read";

/** Marks an environment already bounded (wrapping twice changes nothing). */
const BOUNDED = Symbol.for("precision-lens.workspace-bounded");

/** The environment a bounded one wraps. */
const UNBOUNDED = Symbol.for("precision-lens.workspace-unbounded");

type Bounded = AnalysisEnv & { [BOUNDED]?: (path: string) => boolean; [UNBOUNDED]?: AnalysisEnv };

/**
 * True for an absolute POSIX path that is already in normal form (no `\\`, no empty, `.` or `..` segment, no
 * trailing `/`): `normalizePath` returns it unchanged. Most paths an analysis reads are such; splitting and
 * joining each was ~4% of a CLI run over the corpus (issue #36, docs/performance.md "fifth pass: CLI").
 */
function alreadyNormal(p: string): boolean {
  if (p.charCodeAt(0) !== 47 /* / */) return false;
  if (p.length === 1) return true;
  if (p.charCodeAt(p.length - 1) === 47 || p.includes("\\") || p.includes("//") || p.includes("/./") || p.includes("/../")) return false;
  return !p.endsWith("/.") && !p.endsWith("/..");
}

/** `p` with `.` and `..` segments resolved and separators made `/` (a relative path stays relative). */
export function normalizePath(p: string): string {
  if (alreadyNormal(p)) return p;
  const s = p.replace(/\\/g, "/");
  const drive = /^[A-Za-z]:/.exec(s)?.[0] ?? "";
  const rest = s.slice(drive.length);
  const abs = rest.startsWith("/");
  const out: string[] = [];
  for (const x of rest.split("/")) {
    if (!x || x === ".") continue;
    if (x === "..") {
      if (out.length && out[out.length - 1] !== "..") out.pop();
      else if (!abs) out.push("..");
    } else out.push(x);
  }
  return `${drive}${abs ? "/" : ""}${out.join("/")}` || (abs ? "/" : ".");
}

/** True when the normalised path `p` is the normalised folder `root` or inside it (a relative `.` holds every relative path not starting with `..`). */
function contains(root: string, p: string): boolean {
  if (root === ".") return !p.startsWith("/") && !/^[A-Za-z]:/.test(p) && p !== ".." && !p.startsWith("../");
  return isInside(p, root);
}

/** The folders that make up the document's workspace, or undefined when the environment names none. */
export function workspaceRootsOf(env: AnalysisEnv): string[] | undefined {
  if (env.workspaceRoots === undefined && env.searchRoot === undefined) return undefined;
  const doc = env.documentPath ? normalizePath(env.documentPath) : undefined;
  const roots = (env.workspaceRoots ?? []).map(normalizePath).filter((r) => doc === undefined || contains(r, doc));
  if (env.searchRoot !== undefined) {
    const s = normalizePath(env.searchRoot);
    // The filesystem root is where the upward search stops without a repository: no workspace of its own.
    if (!/^([A-Za-z]:)?\/?$/.test(s) && (doc === undefined || contains(s, doc))) roots.push(s);
  }
  if (!roots.length && doc !== undefined) roots.push(dirname(doc));
  return roots;
}

/**
 * The environment `env` with every read and listing bounded to the document's workspace. Applied once per
 * analysis; the wrapper keeps every other field, so a copy made with a spread (`{ ...env, documentPath }`)
 * stays bounded to the same workspace.
 */
export function boundToWorkspace(env: AnalysisEnv): AnalysisEnv {
  if ((env as Bounded)[BOUNDED]) return env;
  const roots = workspaceRootsOf(env);
  if (!roots) return env;
  const realRoots = new Map<string, string | undefined>();
  const realOf = (p: string): string | undefined => {
    if (!env.realPath) return p;
    if (!realRoots.has(p)) realRoots.set(p, env.realPath(p));
    return realRoots.get(p);
  };
  const within = (p: string, rs: readonly string[]): boolean => rs.some((r) => contains(r, p));
  // The roots and their real paths, resolved on the first path that needs them (once per analysis, not per read).
  let withReal: string[] | undefined;
  const rootsAndReal = (): string[] => (withReal ??= [...roots, ...roots.map(realOf).filter((r): r is string => r !== undefined).map(normalizePath)]);
  const verdicts = new Map<string, boolean>();
  /** True when `path` may be read: inside by its name and, where links are resolved, by its real path. */
  const inside = (path: string): boolean => {
    const hit = verdicts.get(path);
    if (hit !== undefined) return hit;
    const p = normalizePath(path);
    let ok = within(p, roots);
    if (ok && env.realPath) {
      const real = env.realPath(p);
      // Not there (or a dangling link): nothing to read; the read below answers absent as before.
      if (real !== undefined) ok = within(normalizePath(real), rootsAndReal());
    }
    if (verdicts.size < 4096) verdicts.set(path, ok);
    return ok;
  };
  const bounded: Bounded = {
    ...env,
    readFile: (path) => (inside(path) ? env.readFile(path) : undefined),
    listDir: (path) => (inside(path) ? env.listDir(path) : []),
  };
  Object.defineProperty(bounded, BOUNDED, { value: inside, enumerable: true });
  Object.defineProperty(bounded, UNBOUNDED, { value: env, enumerable: true });
  return bounded;
}

/**
 * The environment without the boundary, for the one path the user names themself rather than a config:
 * precisionLens.torchtitanConfigSource / --torchtitan-config-source (workspace/forkSchema.ts). Nothing a
 * config file says may be read through it.
 */
export function userNamedEnv(env: AnalysisEnv): AnalysisEnv {
  return (env as Bounded)[UNBOUNDED] ?? env;
}

/** True when `path` lies outside the workspace `env` is bounded to (false for an unbounded environment). */
export function isOutsideWorkspace(env: AnalysisEnv, path: string): boolean {
  const inside = (env as Bounded)[BOUNDED];
  return inside ? !inside(path) : false;
}

/**
 * True when a link a config names (`rel`, relative to the document's folder, or absolute) points outside the
 * workspace: it is not read, and the fact it stands for is unknown for that reason.
 */
export function linkOutside(env: AnalysisEnv, rel: string): boolean {
  if (!env.documentPath || !rel) return false;
  const s = rel.replace(/\\/g, "/");
  const abs = s.startsWith("/") || /^[A-Za-z]:\//.test(s);
  return isOutsideWorkspace(env, normalizePath(abs ? s : `${dirname(normalizePath(env.documentPath))}/${s}`));
}

/** How a link that was not read is named in output: its file name only, never a host path. */
export function linkName(rel: string): string {
  return basename(rel.replace(/\\/g, "/")) || rel;
}
