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
/** The frameworks' own argument classes a parser call may name (their fields are in the key tables). */
const LIBRARY_CLASSES: ReadonlySet<string> = new Set(["TrainingArguments", "Seq2SeqTrainingArguments", "ScriptArguments", "ModelConfig", "SFTConfig", "DPOConfig", "GRPOConfig", "KTOConfig", "ORPOConfig", "CPOConfig", "PPOConfig", "RewardConfig", "RLOOConfig", "OnlineDPOConfig", "GKDConfig", "PRMConfig", "BCOConfig", "XPOConfig", "NashMDConfig", "DatasetMixtureConfig", "TrlParser", "HfArgumentParser"]);
const SKIP = new Set(["node_modules", "venv", "env", "site-packages", "__pycache__", "data", "datasets", "outputs", "output", "wandb", "tests", "test"]);

export interface ProjectArgs {
  /**
   * Field names the project's code may parse: the dataclasses the parser calls name, every dataclass of the
   * scripts read (a parser call may name its classes through a variable, `TrlParser((ScriptArguments, config_cls,
   * ModelConfig))`), and a vendored LLaMA-Factory's own `hparams` (a fork adds fields there).
   */
  fields: Set<string>;
  /**
   * A class a parser call names that is neither found in the workspace nor one of the frameworks' own (a variable,
   * an import from a package not in the workspace): which keys the script accepts is then not known.
   */
  unresolved?: string;
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
  // A vendored LLaMA-Factory (`src/llamafactory/hparams/*.py` in the workspace): its own argument classes.
  let vendored = false;
  const vendoredFiles = new Set<string>();
  for (const dir of ancestorDirs(env)) {
    const hp = join(dir, "src/llamafactory/hparams");
    const names = [...env.listDir(hp)].filter((n) => n.endsWith(".py")).sort().slice(0, 20);
    for (const n of names) if (!files.includes(join(hp, n))) { files.push(join(hp, n)); vendoredFiles.add(join(hp, n)); vendored = true; }
    if (names.length) break;
  }
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
  if ((!where || named.size === 0) && !vendored) return undefined;
  const fields = new Set<string>();
  const found = new Set<string>();
  for (const t of texts.values()) {
    if (!t.includes("class ")) continue;
    for (const c of scanClasses(t)) {
      found.add(c.name);
      if (c.fields.length) for (const f of c.fields) fields.add(f.name);
    }
  }
  // A vendored copy's classes are all LLaMA-Factory's argument classes (some with bases over several lines, which
  // the dataclass scan does not follow): every annotated attribute at class-body indent is a field.
  for (const f of vendoredFiles) {
    const t = texts.get(f);
    if (t) for (const m of t.matchAll(/^ {4}([A-Za-z_]\w*) *:/gm)) fields.add(m[1]!);
  }
  const unresolved = [...named].find((n) => !found.has(n) && !LIBRARY_CLASSES.has(n));
  return { fields, where: where ?? "src/llamafactory/hparams", ...(unresolved ? { unresolved } : {}) };
}
