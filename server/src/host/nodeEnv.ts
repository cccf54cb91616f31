/**
 * The real AnalysisEnv for Node front ends (server and CLI): bounded, read-only file access. Nothing read
 * is executed; nothing goes to the network.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { AnalysisEnv } from "../core/analysis";

/** Neighbouring files (run scripts, DeepSpeed JSON, lock files) larger than this are not read. */
const MAX_NEIGHBOUR_BYTES = 4 * 1024 * 1024;

export function nodeEnv(documentPath: string | undefined, workspaceRoots: string[]): AnalysisEnv {
  const env: AnalysisEnv = {
    readFile(path) {
      try {
        const st = statSync(path);
        if (!st.isFile() || st.size > MAX_NEIGHBOUR_BYTES) return undefined;
        return readFileSync(path, "utf8");
      } catch {
        return undefined;
      }
    },
    listDir(path) {
      try {
        return readdirSync(path);
      } catch {
        return [];
      }
    },
    workspaceRoots: workspaceRoots.filter((r) => documentPath === undefined || documentPath.startsWith(r)),
  };
  if (documentPath) env.documentPath = documentPath;
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
