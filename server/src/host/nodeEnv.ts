/**
 * The real AnalysisEnv for Node front ends (server and CLI): bounded, read-only file access. Nothing read
 * is executed; nothing goes to the network.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, readdirSync, statSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { AnalysisEnv } from "../core/analysis";
import { decodeUtf8 } from "./files";

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

function readCached(path: string): string | undefined {
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > MAX_NEIGHBOUR_BYTES) return undefined;
    const hit = fileCache.get(path);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) {
      fileCache.delete(path);
      hit.epoch = epoch;
      fileCache.set(path, hit);
      neighbourCacheStats.hits++;
      return hit.text;
    }
    // A hard byte cap and no blocking, whatever stat said (a file swapped for a FIFO or a device).
    const read = readPrefix(path, MAX_NEIGHBOUR_READ_BYTES);
    if (read === undefined) return undefined;
    neighbourCacheStats.reads++;
    const text = decodeUtf8(read);
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

function listCached(path: string): string[] {
  try {
    const st = statSync(path);
    if (!st.isDirectory()) return [];
    const hit = dirCache.get(path);
    if (hit && hit.mtimeMs === st.mtimeMs) return hit.names;
    const names = Object.freeze(readdirSync(path)) as string[];
    if (dirCache.size >= DIR_CACHE_ENTRIES) dirCache.delete(dirCache.keys().next().value!);
    dirCache.set(path, { mtimeMs: st.mtimeMs, names });
    return names;
  } catch {
    return [];
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
  let d = dir;
  let found: string | undefined;
  for (let i = 0; i < 64; i++) {
    if (existsSync(join(d, ".git"))) {
      found = d;
      break;
    }
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  const root = found ?? d;
  if (searchRootCache.size >= DIR_CACHE_ENTRIES) searchRootCache.delete(searchRootCache.keys().next().value!);
  searchRootCache.set(dir, root);
  return root;
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

/** One analysis's view of the filesystem; each call starts a new cache epoch (see readCached). */
export function nodeEnv(documentPath: string | undefined, workspaceRoots: string[], openText?: (path: string) => string | undefined): AnalysisEnv {
  epoch++;
  // An editor's open buffer of a neighbouring file (its unsaved edits) comes before the disk, within the same bound.
  const read = openText
    ? (path: string): string | undefined => {
        const t = openText(path);
        return t !== undefined && t.length <= MAX_NEIGHBOUR_BYTES ? t : readCached(path);
      }
    : readCached;
  let scanned = 0;
  let files = 0;
  const env: AnalysisEnv = {
    readFile(path) {
      if (scanned >= cacheBudget.scanChars || files >= NEIGHBOUR_FILES_PER_ANALYSIS) return undefined;
      const text = read(path);
      if (text !== undefined) {
        scanned += text.length;
        files++;
      }
      return text;
    },
    listDir(path) {
      // The same frozen array while the folder is unchanged (core/workspace/listing.ts memoises on it).
      return listCached(path) as string[];
    },
    workspaceRoots: workspaceRoots.filter((r) => documentPath === undefined || isWithin(documentPath, r)),
  };
  if (documentPath) {
    env.documentPath = documentPath;
    env.searchRoot = searchRootOf(dirname(documentPath));
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
