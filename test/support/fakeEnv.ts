import type { AnalysisEnv } from "../../server/src/core/analysis";

/** A file system in memory for the analysis: absolute path → text; folders are the paths' prefixes. */
export function fakeEnv(files: Record<string, string>, documentPath?: string, workspaceRoots?: string[]): AnalysisEnv {
  return {
    readFile: (p) => files[p],
    listDir: (dir) => {
      const prefix = dir.endsWith("/") ? dir : `${dir}/`;
      const names = new Set<string>();
      for (const p of Object.keys(files)) if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split("/")[0]!);
      return [...names];
    },
    ...(documentPath ? { documentPath } : {}),
    ...(workspaceRoots ? { workspaceRoots } : {}),
  };
}
