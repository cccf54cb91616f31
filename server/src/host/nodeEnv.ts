/**
 * The real AnalysisEnv for Node front ends (server and CLI): bounded, read-only file access. Nothing read
 * is executed; nothing goes to the network.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AnalysisEnv } from "../core/analysis";
import { decodeUtf8, readBounded } from "./files";

/** Neighbouring files (run scripts, DeepSpeed JSON, lock files) larger than this are not read. */
const MAX_NEIGHBOUR_BYTES = 4 * 1024 * 1024;

/**
 * Neighbouring files are re-read only when their modification time or size changed: the server analyses
 * on every edit (after the debounce), and lock files can be megabytes. Invalidation is by stat, never by
 * age, so an edited run script counts at the next analysis.
 */
const fileCache = new Map<string, { mtimeMs: number; size: number; text: string }>();
const FILE_CACHE_ENTRIES = 256;

function readCached(path: string): string | undefined {
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > MAX_NEIGHBOUR_BYTES) return undefined;
    const hit = fileCache.get(path);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.text;
    // A hard byte cap and no blocking, whatever stat said (a file swapped for a FIFO or a device).
    const read = readBounded(path, MAX_NEIGHBOUR_BYTES);
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

export function nodeEnv(documentPath: string | undefined, workspaceRoots: string[], openText?: (path: string) => string | undefined): AnalysisEnv {
  const env: AnalysisEnv = {
    // An editor's open buffer of a neighbouring file (its unsaved edits) comes before the disk, within the same bound.
    readFile: openText
      ? (path) => {
          const t = openText(path);
          return t !== undefined && t.length <= MAX_NEIGHBOUR_BYTES ? t : readCached(path);
        }
      : readCached,
    listDir(path) {
      // The same frozen array while the folder is unchanged (core/workspace/listing.ts memoises on it).
      return listCached(path) as string[];
    },
    workspaceRoots: workspaceRoots.filter((r) => documentPath === undefined || documentPath.startsWith(r)),
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
