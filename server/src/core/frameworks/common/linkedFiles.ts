/** Cross-file links: finding a file a config names by a relative path (paths joined by hand: no node:path in the core). */
import type { AnalysisEnv } from "../../analysis";
import { linkName, linkOutside, OUTSIDE_WORKSPACE } from "../../workspace/boundary";

export interface Linked {
  /** Absolute path of the linked file. */
  path: string;
  text: string;
}

export function dirname(p: string): string {
  const i = Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\"));
  return i <= 0 ? (i === 0 ? "/" : ".") : p.slice(0, i);
}

/** The last path component ("../deepspeed/zero2.json" → "zero2.json"), for messages short of room. */
export function baseName(p: string): string {
  let end = p.length;
  while (end > 0 && (p[end - 1] === "/" || p[end - 1] === "\\")) end--;
  return p.slice(0, end).split(/[\\/]/).pop() ?? p;
}

export function joinPath(base: string, rel: string): string {
  if (/^([A-Za-z]:[\\/]|\/)/.test(rel)) return normalize(rel);
  return normalize(`${base}/${rel}`);
}

function normalize(p: string): string {
  const abs = p.startsWith("/");
  const drive = /^[A-Za-z]:/.exec(p)?.[0] ?? "";
  const parts = p.slice(drive.length).split(/[\\/]+/);
  const out: string[] = [];
  for (const x of parts) {
    if (!x || x === ".") continue;
    if (x === "..") {
      if (out.length && out[out.length - 1] !== "..") out.pop();
      else if (!abs) out.push("..");
    } else out.push(x);
  }
  return `${drive}${abs ? "/" : ""}${out.join("/")}`;
}

/**
 * Finds a file a config names by a relative path. Tried in order: relative to the document's folder (the
 * spec's rule), then each enclosing folder up to 6 levels, then the workspace roots (Assumption
 * `link-search-upward`: Axolotl resolves `deepspeed:` from the working directory, usually the repo root,
 * e.g. `deepspeed_configs/zero2.json` from `examples/llama-3/x.yaml`). Only exact paths are read.
 */
export function readLinked(env: AnalysisEnv, rel: string): Linked | undefined {
  if (!env.documentPath || !rel || rel.includes("${")) return undefined;
  const tried = new Set<string>();
  let dir = dirname(env.documentPath);
  for (let i = 0; i < 7; i++) {
    const p = joinPath(dir, rel);
    if (!tried.has(p)) {
      tried.add(p);
      const text = env.readFile(p);
      if (text !== undefined) return { path: p, text };
    }
    if (/^\/?$/.test(dir) || /^[A-Za-z]:\/?$/.test(dir) || /^\.\.?$/.test(dir)) break;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  for (const r of env.workspaceRoots ?? []) {
    const p = joinPath(r, rel);
    if (tried.has(p)) continue;
    const text = env.readFile(p);
    if (text !== undefined) return { path: p, text };
  }
  return undefined;
}

/**
 * A link a config names that was not read, as output says it (issue #33): outside the workspace, by its file
 * name only (never a host path) and `why` = OUTSIDE_WORKSPACE; else by the name
 * written and "was not found". `short` fits a layout name: "outside the workspace" / "not found".
 */
export function unreadLink(env: AnalysisEnv, rel: string): { name: string; outside: boolean; why: string; short: string } {
  if (linkOutside(env, rel)) return { name: linkName(rel), outside: true, why: OUTSIDE_WORKSPACE, short: "outside the workspace" };
  return { name: rel, outside: false, why: "was not found", short: "not found" };
}

/** A link as output names it: as written, or by its file name only when it lies outside the workspace. */
export function shownLink(env: AnalysisEnv, rel: string): string {
  return linkOutside(env, rel) ? linkName(rel) : rel;
}
