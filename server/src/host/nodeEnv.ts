/**
 * The real AnalysisEnv for Node front ends (server and CLI): bounded, read-only file access. Nothing read
 * is executed; nothing goes to the network.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { AnalysisEnv } from "../core/analysis";
import { boundToWorkspace } from "../core/workspace/boundary";
import { decodeUtf8, type ReadOutcome } from "./files";

/**
 * The file-system calls this module makes (issue #21): Node's by default; a test injects a counting one to
 * prove that one run stats each path once.
 */
export interface FsReader {
  /** statSync, or undefined when the path does not exist or cannot be stat'ed. */
  stat(path: string): Pick<Stats, "isFile" | "isDirectory" | "size" | "mtimeMs"> | undefined;
  readdir(path: string): string[];
  /** The first `maxBytes` bytes of a regular file (non-blocking open, fstat after opening). */
  read(path: string, maxBytes: number): ReadOutcome;
  exists(path: string): boolean;
  /** realpathSync (symbolic links resolved), or undefined when the path does not exist. */
  realpath?(path: string): string | undefined;
}

export const NODE_FS: FsReader = {
  stat(path) {
    try {
      // A missing path answers undefined without an exception (issue #21: most stats of a run are misses).
      return statSync(path, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
  },
  readdir: (path) => readdirSync(path),
  read(path, maxBytes) {
    const bytes = readPrefix(path, maxBytes);
    return bytes ? { ok: true, bytes, mtimeMs: 0, size: bytes.length } : { ok: false, error: "not a readable regular file" };
  },
  exists: (path) => existsSync(path),
  realpath(path) {
    try {
      // A missing path (most of those the workspace readers look for) answers from a stat, without the
      // exception realpath throws for it (issue #36); a dangling link is missing to both.
      if (!statSync(path, { throwIfNoEntry: false })) return undefined;
      return realpathSync.native(path);
    } catch {
      return undefined;
    }
  },
};

/** Neighbouring files (run scripts, DeepSpeed JSON, lock files) larger than this are not read. */
export const MAX_NEIGHBOUR_BYTES = 4 * 1024 * 1024;
/**
 * Of a neighbouring file, only the first this many bytes are read (issue #18): the pattern scanners look at
 * the first 256 k characters (core/workspace/scan.ts) and a linked DeepSpeed JSON over 512,000 characters
 * is not analysed anyway. 1 MiB holds both, whatever the encoding.
 */
export const MAX_NEIGHBOUR_READ_BYTES = 1024 * 1024;
/** The neighbour-file cache holds at most this many bytes of text (UTF-16: two bytes a character)... */
export const NEIGHBOUR_CACHE_BYTES = 32 * 1024 * 1024;
/** ...and at most this many files. */
export const NEIGHBOUR_CACHE_ENTRIES = 4096;
/**
 * The scanning budget of one analysis (issue #18): the neighbour files one document's analysis reads (cached
 * or not) add up to at most this many characters and this many files; past it, a file reads as absent.
 * Real repositories need a few files of a few kB; 300 run scripts of 1 MiB each would otherwise be 300 MiB
 * of pattern scanning on every keystroke.
 */
export const NEIGHBOUR_SCAN_CHARS_PER_ANALYSIS = 8 * 1024 * 1024;
export const NEIGHBOUR_FILES_PER_ANALYSIS = 1024;

/**
 * Neighbouring files are re-read only when their modification time or size changed: the server analyses
 * on every edit (after the debounce), and lock files can be megabytes. Invalidation is by stat, never by
 * age, so an edited run script counts at the next analysis.
 *
 * Bounded in bytes and entries. Eviction is least recently used, but never of a file the current analysis
 * (the current `nodeEnv`) has already read: when one analysis reads more than the cache holds, the files
 * that fit stay cached and only the rest is read again at the next keystroke (a plain LRU or FIFO would
 * re-read every file each time).
 */
interface CachedFile {
  mtimeMs: number;
  size: number;
  text: string;
  cost: number;
  epoch: number;
}
const fileCache = new Map<string, CachedFile>();
let cachedBytes = 0;
let epoch = 0;
let cacheBudget = { bytes: NEIGHBOUR_CACHE_BYTES, entries: NEIGHBOUR_CACHE_ENTRIES, scanChars: NEIGHBOUR_SCAN_CHARS_PER_ANALYSIS };
/** Counters for tests and the bench: reads from disk, and what the cache holds. */
export const neighbourCacheStats = { reads: 0, hits: 0, get bytes(): number { return cachedBytes; }, get entries(): number { return fileCache.size; } };

/** Tests only: another budget (and an empty cache). */
export function setNeighbourCacheBudget(bytes = NEIGHBOUR_CACHE_BYTES, entries = NEIGHBOUR_CACHE_ENTRIES, scanChars = NEIGHBOUR_SCAN_CHARS_PER_ANALYSIS): void {
  cacheBudget = { bytes, entries, scanChars };
  fileCache.clear();
  cachedBytes = 0;
  neighbourCacheStats.reads = 0;
  neighbourCacheStats.hits = 0;
}

function costOf(path: string, text: string): number {
  return 2 * (path.length + text.length) + 64;
}

function remember(path: string, entry: CachedFile): void {
  const old = fileCache.get(path);
  if (old) {
    fileCache.delete(path);
    cachedBytes -= old.cost;
  }
  if (entry.cost > cacheBudget.bytes) return;
  // Oldest first (Map order is use order: a hit re-inserts); stop at a file this analysis already read.
  for (const [k, v] of fileCache) {
    if (cachedBytes + entry.cost <= cacheBudget.bytes && fileCache.size < cacheBudget.entries) break;
    if (v.epoch === epoch) return;
    fileCache.delete(k);
    cachedBytes -= v.cost;
  }
  if (cachedBytes + entry.cost > cacheBudget.bytes || fileCache.size >= cacheBudget.entries) return;
  fileCache.set(path, entry);
  cachedBytes += entry.cost;
}

function readCached(path: string, fs: FsReader = NODE_FS): string | undefined {
  try {
    const st = fs.stat(path);
    if (!st || !st.isFile() || st.size > MAX_NEIGHBOUR_BYTES) return undefined;
    const hit = fileCache.get(path);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) {
      fileCache.delete(path);
      hit.epoch = epoch;
      fileCache.set(path, hit);
      neighbourCacheStats.hits++;
      return hit.text;
    }
    // A hard byte cap and no blocking, whatever stat said (a file swapped for a FIFO or a device).
    const read = fs.read(path, MAX_NEIGHBOUR_READ_BYTES);
    if (!read.ok) return undefined;
    neighbourCacheStats.reads++;
    const text = decodeUtf8(read.bytes);
    remember(path, { mtimeMs: st.mtimeMs, size: st.size, text, cost: costOf(path, text), epoch });
    return text;
  } catch {
    return undefined;
  }
}

/** The first `maxBytes` bytes of a regular file (non-blocking open, fstat after opening), or undefined. */
function readPrefix(path: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.allocUnsafe(maxBytes);
    let total = 0;
    while (total < maxBytes) {
      const n = readSync(fd, buf, total, maxBytes - total, null);
      if (n === 0) break;
      total += n;
    }
    return Buffer.from(buf.subarray(0, total));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Folder listings, re-read only when the folder's mtime changes: checking N configs in one folder must not
 * list it N times (that made a monorepo walk quadratic).
 */
const dirCache = new Map<string, { mtimeMs: number; names: string[] }>();
const DIR_CACHE_ENTRIES = 256;

function listCached(path: string, fs: FsReader = NODE_FS): string[] {
  try {
    const st = fs.stat(path);
    if (!st || !st.isDirectory()) return [];
    const hit = dirCache.get(path);
    if (hit && hit.mtimeMs === st.mtimeMs) return hit.names;
    const names = Object.freeze(fs.readdir(path)) as string[];
    if (dirCache.size >= DIR_CACHE_ENTRIES) dirCache.delete(dirCache.keys().next().value!);
    dirCache.set(path, { mtimeMs: st.mtimeMs, names });
    return names;
  } catch {
    return [];
  }
}

/**
 * What one workspace state reads (issue #21 "work once"): each file's text (or its absence) and each
 * folder's listing, read once and kept until `invalidate`. The CLI keeps one per run (cli/checkCommand.ts
 * and explain: nothing changes under it, except what `--fix` writes, which it invalidates); the language
 * server keeps one per workspace state and invalidates it on the client's file events (server.ts), and
 * goes back to stat-validated reads (below) when the client sends none. Bounded: past the budget, reads are
 * stat-validated again instead of kept.
 */
export class WorkspaceSnapshot {
  private readonly files = new Map<string, string | undefined>();
  private readonly dirs = new Map<string, readonly string[]>();
  private readonly roots = new Map<string, string>();
  /** Whether each looked-for `.git` exists, for searchRootOf. */
  private readonly gits = new Map<string, boolean>();
  /** Each path's real path (symbolic links resolved), for the workspace boundary's checks (issue #36). */
  private readonly reals = new Map<string, string | undefined>();
  private chars = 0;
  /** Bumped by every invalidate: results computed from an older generation are stale. */
  generation = 0;
  static readonly MAX_CHARS = 64 * 1024 * 1024;
  static readonly MAX_ENTRIES = 16_384;

  /**
   * `covers`: the paths whose changes the owner hears about (the server: inside its workspace folders, which
   * the client watches); others are read stat-validated every time. Default: every path (a CLI run).
   */
  constructor(
    readonly fs: FsReader = NODE_FS,
    private readonly covers: (path: string) => boolean = () => true,
  ) {}

  readFile(path: string): string | undefined {
    if (this.files.has(path)) return this.files.get(path);
    const text = readCached(path, this.fs);
    if (this.covers(path) && this.files.size < WorkspaceSnapshot.MAX_ENTRIES && this.chars + (text?.length ?? 0) <= WorkspaceSnapshot.MAX_CHARS) {
      this.files.set(path, text);
      this.chars += text?.length ?? 0;
    }
    return text;
  }

  listDir(path: string): readonly string[] {
    const hit = this.dirs.get(path);
    if (hit) return hit;
    const names = listCached(path, this.fs);
    if (this.covers(path) && this.dirs.size < WorkspaceSnapshot.MAX_ENTRIES) this.dirs.set(path, names);
    return names;
  }

  /**
   * `fs.realpath`, once per path while nothing is invalidated: the workspace boundary resolves every path an
   * analysis reads (core/workspace/boundary.ts), and each file of a CLI run reads the same neighbours (issue
   * #36: 9% of the corpus run's samples were these calls). Paths outside `covers` are resolved every time.
   */
  realpath(path: string): string | undefined {
    if (this.reals.has(path)) return this.reals.get(path);
    const real = this.fs.realpath?.(path);
    if (this.covers(path) && this.reals.size < WorkspaceSnapshot.MAX_ENTRIES) this.reals.set(path, real);
    return real;
  }

  searchRootOf(dir: string): string {
    let hit = this.roots.get(dir);
    if (hit === undefined) {
      // Each `.git` looked for once per run: configs of sibling folders share their ancestors (issue #21).
      hit = searchRootWith(dir, (p) => {
        let has = this.gits.get(p);
        if (has === undefined) {
          has = this.fs.exists(p);
          if (this.gits.size < WorkspaceSnapshot.MAX_ENTRIES) this.gits.set(p, has);
        }
        return has;
      });
      if (this.roots.size < WorkspaceSnapshot.MAX_ENTRIES) this.roots.set(dir, hit);
    }
    return hit;
  }

  /** Forget everything (a file changed, was created or deleted); `paths`: only these, and their folders' listings. */
  invalidate(paths?: readonly string[]): void {
    this.generation++;
    if (!paths) {
      this.files.clear();
      this.dirs.clear();
      this.roots.clear();
      this.gits.clear();
      this.reals.clear();
      this.chars = 0;
      return;
    }
    // A link created, moved or removed anywhere can change the real path of paths below it: forget them all.
    this.reals.clear();
    for (const p of paths) {
      this.chars -= this.files.get(p)?.length ?? 0;
      this.files.delete(p);
      this.dirs.delete(p);
      this.dirs.delete(dirname(p));
    }
    // A `.git` created or removed moves repository roots: recompute them all (cheap, memoised per folder).
    if (paths.some((p) => p.endsWith("/.git") || p.endsWith("\\.git") || p.includes("/.git/"))) {
      this.roots.clear();
      this.gits.clear();
    }
  }
}

const searchRootCache = new Map<string, string>();

/**
 * Where the upward search for config sources, pins and run scripts stops (issue #17 §3): the nearest folder
 * above `dir` (itself included) holding `.git` (a folder, or a worktree's file), else the filesystem root.
 * Memoised per folder: checking N configs of one folder stats its ancestors once.
 */
export function searchRootOf(dir: string): string {
  const hit = searchRootCache.get(dir);
  if (hit !== undefined) return hit;
  const root = searchRootWith(dir, NODE_FS.exists);
  if (searchRootCache.size >= DIR_CACHE_ENTRIES) searchRootCache.delete(searchRootCache.keys().next().value!);
  searchRootCache.set(dir, root);
  return root;
}

function searchRootWith(dir: string, exists: (path: string) => boolean): string {
  let d = dir;
  for (let i = 0; i < 64; i++) {
    if (exists(join(d, ".git"))) return d;
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return d;
}

/**
 * True when `path` is `root` or inside it, by path segments: `/ws/proj-x` is not inside `/ws/proj`
 * (issue #18; a bare startsWith let a document read the run scripts of a sibling folder).
 */
export function isWithin(path: string, root: string, separator: string = sep): boolean {
  const r = root.length > 1 && (root.endsWith("/") || root.endsWith(separator)) ? root.slice(0, -1) : root;
  if (path === r) return true;
  const prefix = r.endsWith("/") || r.endsWith(separator) ? r : r + separator;
  return path.startsWith(prefix) || (separator !== "/" && path.startsWith(r + "/"));
}

/**
 * One analysis's view of the filesystem; each call starts a new cache epoch (see readCached). With a
 * `snapshot`, every read goes through it (read once per workspace state, issue #21); without one, each read
 * is validated by a stat. `openText`: an editor's open buffer of a neighbouring file (its unsaved edits)
 * comes before the disk, within the same bounds.
 */
export function nodeEnv(documentPath: string | undefined, workspaceRoots: string[], snapshot?: WorkspaceSnapshot, openText?: (path: string) => string | undefined): AnalysisEnv {
  epoch++;
  const disk = snapshot ? (path: string) => snapshot.readFile(path) : (path: string) => readCached(path);
  const read = openText
    ? (path: string): string | undefined => {
        const t = openText(path);
        return t !== undefined && t.length <= MAX_NEIGHBOUR_BYTES ? t : disk(path);
      }
    : disk;
  let scanned = 0;
  let files = 0;
  let refused = false;
  // A file read again in the same analysis (each config function of a registry reads its run scripts) costs
  // nothing and reads the same (issue #33): the budget counts distinct files, so no function's answer depends
  // on how many functions came before it.
  const seen = new Map<string, string | undefined>();
  const listed = new Map<string, readonly string[]>();
  const env: AnalysisEnv = {
    readFile(path) {
      if (seen.has(path)) return seen.get(path);
      if (scanned >= cacheBudget.scanChars || files >= NEIGHBOUR_FILES_PER_ANALYSIS) {
        refused = true;
        return undefined;
      }
      const text = read(path);
      if (text !== undefined) {
        scanned += text.length;
        files++;
      }
      seen.set(path, text);
      return text;
    },
    listDir(path) {
      // Once per analysis (each config function of a registry looks for its run scripts in the same folders,
      // issue #36); the same frozen array while the folder is unchanged (core/workspace/listing.ts memoises on it).
      let names = listed.get(path);
      if (!names) listed.set(path, (names = snapshot ? snapshot.listDir(path) : listCached(path)));
      return names as string[];
    },
    readsRefused: () => refused,
    workspaceRoots: workspaceRoots.filter((r) => documentPath === undefined || isWithin(documentPath, r)),
  };
  if (documentPath) {
    env.documentPath = documentPath;
    env.searchRoot = snapshot ? snapshot.searchRootOf(dirname(documentPath)) : searchRootOf(dirname(documentPath));
  }
  if (documentPath && env.workspaceRoots!.length === 0) env.workspaceRoots = [dirname(documentPath)];
  const fs = snapshot?.fs ?? NODE_FS;
  if (fs.realpath) env.realPath = snapshot ? (path) => snapshot.realpath(path) : (path) => fs.realpath!(path);
  // Reads stay inside the document's workspace (or its repository): core/workspace/boundary.ts (issue #33).
  return boundToWorkspace(env);
}

export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
