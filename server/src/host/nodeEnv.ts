/**
 * The real AnalysisEnv for Node front ends (server and CLI): bounded, read-only file access. Nothing read
 * is executed; nothing goes to the network.
 */
import { existsSync, readdirSync, statSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AnalysisEnv } from "../core/analysis";
import { decodeUtf8, readBounded, type ReadOutcome } from "./files";

/**
 * The file-system calls this module makes (issue #21): Node's by default; a test injects a counting one to
 * prove that one run stats each path once.
 */
export interface FsReader {
  /** statSync, or undefined when the path does not exist or cannot be stat'ed. */
  stat(path: string): Pick<Stats, "isFile" | "isDirectory" | "size" | "mtimeMs"> | undefined;
  readdir(path: string): string[];
  /** A bounded read (host/files.ts readBounded). */
  read(path: string, maxBytes: number): ReadOutcome;
  exists(path: string): boolean;
}

export const NODE_FS: FsReader = {
  stat(path) {
    try {
      return statSync(path);
    } catch {
      return undefined;
    }
  },
  readdir: (path) => readdirSync(path),
  read: (path, maxBytes) => readBounded(path, maxBytes),
  exists: (path) => existsSync(path),
};

/** Neighbouring files (run scripts, DeepSpeed JSON, lock files) larger than this are not read. */
const MAX_NEIGHBOUR_BYTES = 4 * 1024 * 1024;

/**
 * Neighbouring files are re-read only when their modification time or size changed: the server analyses
 * on every edit (after the debounce), and lock files can be megabytes. Invalidation is by stat, never by
 * age, so an edited run script counts at the next analysis.
 */
const fileCache = new Map<string, { mtimeMs: number; size: number; text: string }>();
const FILE_CACHE_ENTRIES = 256;

function readCached(path: string, fs: FsReader = NODE_FS): string | undefined {
  try {
    const st = fs.stat(path);
    if (!st || !st.isFile() || st.size > MAX_NEIGHBOUR_BYTES) return undefined;
    const hit = fileCache.get(path);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.text;
    // A hard byte cap and no blocking, whatever stat said (a file swapped for a FIFO or a device).
    const read = fs.read(path, MAX_NEIGHBOUR_BYTES);
    if (!read.ok) return undefined;
    const text = decodeUtf8(read.bytes);
    if (fileCache.size >= FILE_CACHE_ENTRIES) fileCache.delete(fileCache.keys().next().value!);
    fileCache.set(path, { mtimeMs: st.mtimeMs, size: st.size, text });
    return text;
  } catch {
    return undefined;
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

  searchRootOf(dir: string): string {
    let hit = this.roots.get(dir);
    if (hit === undefined) {
      hit = searchRootWith(dir, this.fs);
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
      this.chars = 0;
      return;
    }
    for (const p of paths) {
      this.chars -= this.files.get(p)?.length ?? 0;
      this.files.delete(p);
      this.dirs.delete(p);
      this.dirs.delete(dirname(p));
    }
    // A `.git` created or removed moves repository roots: recompute them all (cheap, memoised per folder).
    if (paths.some((p) => p.endsWith("/.git") || p.endsWith("\\.git") || p.includes("/.git/"))) this.roots.clear();
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
  const root = searchRootWith(dir, NODE_FS);
  if (searchRootCache.size >= DIR_CACHE_ENTRIES) searchRootCache.delete(searchRootCache.keys().next().value!);
  searchRootCache.set(dir, root);
  return root;
}

function searchRootWith(dir: string, fs: FsReader): string {
  let d = dir;
  for (let i = 0; i < 64; i++) {
    if (fs.exists(join(d, ".git"))) return d;
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return d;
}

/**
 * The AnalysisEnv for one document. With a `snapshot`, every read goes through it (read once per workspace
 * state); without one, each read is validated by a stat (always fresh, one stat per read).
 */
export function nodeEnv(documentPath: string | undefined, workspaceRoots: string[], snapshot?: WorkspaceSnapshot): AnalysisEnv {
  const env: AnalysisEnv = {
    readFile: snapshot ? (path) => snapshot.readFile(path) : (path) => readCached(path),
    listDir(path) {
      // The same frozen array while the folder is unchanged (core/workspace/listing.ts memoises on it).
      return (snapshot ? snapshot.listDir(path) : listCached(path)) as string[];
    },
    workspaceRoots: workspaceRoots.filter((r) => documentPath === undefined || documentPath.startsWith(r)),
  };
  if (documentPath) {
    env.documentPath = documentPath;
    env.searchRoot = snapshot ? snapshot.searchRootOf(dirname(documentPath)) : searchRootOf(dirname(documentPath));
  }
  if (documentPath && env.workspaceRoots!.length === 0) env.workspaceRoots = [dirname(documentPath)];
  return env;
}

export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
