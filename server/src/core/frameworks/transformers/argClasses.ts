/**
 * The project's own argument dataclasses: a training script that parses this file with
 * `HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))` (or TRL's `TrlParser`) accepts the fields
 * of every dataclass it names, so a key declared there is known (issue #31: a project field was "unknown, did you
 * mean `local_rank`?"). Read as text (workspace/pyDataclass.ts), never imported: the Python files of this file's
 * folder, the folders above it (to the workspace root) and one level below each of those; the classes named in a
 * parser call are looked up in all of them. Bounded: 60 files, each under 256 kB.
 */
import type { AnalysisEnv } from "../../analysis";
import { scanClasses } from "../../workspace/pyDataclass";
import { ancestorDirs, join } from "../../workspace/paths";

const MAX_FILES = 60;
const SKIP = new Set(["node_modules", "venv", "env", "site-packages", "__pycache__", "data", "datasets", "outputs", "output", "wandb", "tests", "test"]);

export interface ProjectArgs {
  /** Field names of the dataclasses the parser calls name. */
  fields: Set<string>;
  /** Where the parser call was found, for messages. */
  where: string;
}

/** The fields of the dataclasses a workspace script hands to HfArgumentParser / TrlParser, or undefined when none is found. */
export function projectArgs(env: AnalysisEnv): ProjectArgs | undefined {
  const files: string[] = [];
  const seen = new Set<string>();
  const add = (dir: string, depth: number) => {
    if (seen.has(dir) || files.length >= MAX_FILES) return;
    seen.add(dir);
    for (const n of [...env.listDir(dir)].sort()) {
      if (files.length >= MAX_FILES) return;
      if (n.endsWith(".py")) files.push(join(dir, n));
      else if (depth > 0 && !n.startsWith(".") && !n.includes(".") && !SKIP.has(n)) add(join(dir, n), depth - 1);
    }
  };
  for (const dir of ancestorDirs(env)) add(dir, 1);
  const texts = new Map<string, string>();
  const named = new Set<string>();
  let where: string | undefined;
  for (const f of files) {
    const t = env.readFile(f);
    if (t === undefined || t.length > 256_000) continue;
    texts.set(f, t);
    for (const m of t.matchAll(/\b(?:HfArgumentParser|TrlParser)\s*\(([\w\s,.([\]]*)/g)) {
      for (const name of m[1]!.split(/[\s,()[\]]+/)) if (/^[A-Za-z_]\w*$/.test(name.replace(/^.*\./, ""))) named.add(name.replace(/^.*\./, ""));
      where ??= f;
    }
  }
  if (!where || named.size === 0) return undefined;
  const fields = new Set<string>();
  for (const t of texts.values()) {
    if (!t.includes("class ")) continue;
    for (const c of scanClasses(t)) if (named.has(c.name)) for (const f of c.fields) fields.add(f.name);
  }
  return { fields, where };
}
