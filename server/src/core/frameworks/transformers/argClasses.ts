/**
 * The project's own argument dataclasses: a training script that parses this file with
 * `HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))` (or TRL's `TrlParser`) accepts the fields
 * of every dataclass it names, so a key declared there is known (issue #31: a project field was "unknown, did you
 * mean `local_rank`?"). Read as text (workspace/pyDataclass.ts), never imported: the Python files of this file's
 * folder, the folders above it (to the workspace root) and one level below each of those; the classes named in a
 * parser call are looked up in all of them, and in the workspace modules the calling script imports them from
 * (`from alignment import ScriptArguments` → `src/alignment/__init__.py` → `from .configs import …` →
 * `src/alignment/configs.py`; `from simpo_config import SimPOConfig` next to the script), two imports deep. A call in
 * a `#` comment is no call. Bounded: 60 files, each under 256 kB, and 20 more reached through imports.
 * A class imported from alignment-handbook's `alignment` package when that package is not in the workspace (installed)
 * gets the fields the package declares (alignmentHandbook.ts): at the release an `alignment-handbook` pin names, or
 * those of every version read when none is pinned.
 */
import type { AnalysisEnv } from "../../analysis";
import { scanClasses } from "../../workspace/pyDataclass";
import { ancestorDirs, dirname, join } from "../../workspace/paths";
import { packagePin } from "../../workspace/packagePin";
import { own } from "../../model/table";
import { alignmentClasses } from "./alignmentHandbook";
import { vendoredLlamaFactory } from "./llamafactoryBounds";

const MAX_FILES = 60;
/** Files read by following a parser script's imports (module → file), beyond MAX_FILES. */
const MAX_IMPORTED = 20;
/**
 * A parser call: the classes handed to HfArgumentParser / TrlParser, or to a subclass of them handed a tuple or list
 * of classes (alignment-handbook's `H4ArgumentParser((DataArguments, ModelConfig, DPOConfig))`; argparse's own
 * `ArgumentParser` takes no such tuple).
 */
const PARSER_CALL = /\b(?:HfArgumentParser|TrlParser)\s*\(([\w\s,.([\]]*)|\b\w+ArgumentParser\s*\(\s*([([][\w\s,.]*[)\]])/g;
/** `from pkg.mod import A, B` or `from .mod import (A,\n B)`: the module and the names. */
const FROM_IMPORT = /^[ \t]*from[ \t]+([\w.]+)[ \t]+import\b/gm;

/** What follows `import` at `at`: a parenthesised list (several lines) or the rest of the line. */
function importedNames(t: string, at: number): string {
  const rest = t.slice(at, at + 4096).replace(/^[ \t]+/, "");
  if (rest.startsWith("(")) {
    const close = rest.indexOf(")");
    return close < 0 ? rest.split("\n", 1)[0]! : rest.slice(0, close + 1);
  }
  return rest.split("\n", 1)[0]!;
}

/** Python text with `#` comment lines blanked (a commented-out parser call is no call). */
const uncommented = (t: string): string => t.replace(/^[ \t]*#.*$/gm, "");

/**
 * The workspace files a module name may be (`a.b` → `a/b.py`, `a/b/__init__.py`, also under `src/`), looked for next
 * to the importing file and in each folder from this file's up to the workspace root; a relative module (`.configs`)
 * only next to the importing file's package.
 */
function moduleFiles(env: AnalysisEnv, from: string, mod: string): string[] {
  const dots = /^\.*/.exec(mod)![0].length;
  const rel = mod.slice(dots).split(".").filter(Boolean).join("/");
  let bases: string[];
  if (dots > 0) {
    let d = dirname(from);
    for (let i = 1; i < dots; i++) d = dirname(d);
    bases = [d];
  } else bases = [dirname(from), ...ancestorDirs(env).flatMap((d) => [d, join(d, "src")])];
  const out: string[] = [];
  for (const b of bases) {
    const p = rel ? join(b, rel) : b;
    for (const f of rel ? [`${p}.py`, join(p, "__init__.py")] : [join(p, "__init__.py")]) if (env.readFile(f) !== undefined) { out.push(f); break; }
    if (out.length) break;
  }
  return out;
}
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
  /**
   * A vendored LLaMA-Factory whose parser hands HfArgumentParser more than its own argument lists (a fork's
   * `_TRAIN_ARGS + [peft_args_class]`, classes built on another package's config): the keys it accepts are then not
   * all known. The call as written.
   */
  vendoredExtra?: string;
  /** A vendored LLaMA-Factory whose parser has the Megatron path (`_TRAIN_MCA_ARGS`, taken with USE_MCA=1); false: read, without it. */
  vendoredMca?: boolean;
  /** The alignment-handbook classes taken from its release table (not in the workspace), and at which release. */
  alignment?: { classes: string[]; release?: string };
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
  const lfPkg = vendoredLlamaFactory(env);
  if (lfPkg) {
    const hp = join(lfPkg, "hparams");
    const names = [...env.listDir(hp)].filter((n) => n.endsWith(".py")).sort().slice(0, 20);
    for (const n of names) if (!files.includes(join(hp, n))) { files.push(join(hp, n)); vendoredFiles.add(join(hp, n)); vendored = true; }
  }
  const texts = new Map<string, string>();
  const named = new Set<string>();
  let where: string | undefined;
  const callers: string[] = [];
  for (const f of files) {
    const t = env.readFile(f);
    if (t === undefined || t.length > 256_000) continue;
    texts.set(f, t);
    let calls = false;
    for (const m of uncommented(t).matchAll(PARSER_CALL)) {
      for (const name of (m[1] ?? m[2]!).split(/[\s,()[\]]+/)) if (/^[A-Za-z_]\w*$/.test(name.replace(/^.*\./, ""))) named.add(name.replace(/^.*\./, ""));
      where ??= f;
      calls = true;
    }
    if (calls) callers.push(f);
  }
  if ((!where || named.size === 0) && !vendored) return undefined;
  // The modules the calling scripts import from, when they are workspace files: a class handed to the parser (or a
  // subclass of TRL's `ScriptArguments` under the same name) is declared there. Two imports deep (a package's
  // `__init__.py` re-exporting from `.configs`), at most MAX_IMPORTED files.
  let frontier = callers;
  let imported = 0;
  // Classes a calling script imports from alignment-handbook's package when it is not a workspace module.
  const fromAlignment = new Set<string>();
  for (let depth = 0; depth < 3 && frontier.length && imported < MAX_IMPORTED; depth++) {
    const next: string[] = [];
    for (const f of frontier) {
      const t = texts.get(f);
      if (!t) continue;
      const u = uncommented(t);
      for (const m of u.matchAll(FROM_IMPORT)) {
        const names = importedNames(u, m.index! + m[0].length).replace(/[()]/g, " ").split(/[\s,]+/).filter((n) => n === "*" || /^[A-Za-z_]\w*$/.test(n));
        // Only imports of a class the parser call names (`*` may re-export one).
        if (!names.some((n) => n === "*" || named.has(n))) continue;
        const modules = moduleFiles(env, f, m[1]!);
        if (depth === 0 && modules.length === 0 && /^alignment(?:\.configs)?$/.test(m[1]!)) for (const n of names) if (named.has(n)) fromAlignment.add(n);
        for (const file of modules) {
          if (texts.has(file) || imported >= MAX_IMPORTED) continue;
          const body = env.readFile(file);
          if (body === undefined || body.length > 256_000) continue;
          texts.set(file, body);
          imported++;
          next.push(file);
        }
      }
    }
    frontier = next;
  }
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
  let alignment: ProjectArgs["alignment"];
  const external = [...fromAlignment].filter((n) => !found.has(n));
  if (external.length) {
    const { classes, release } = alignmentClasses(packagePin(env, "alignment-handbook")?.version);
    const known = external.filter((n) => own(classes, n) !== undefined);
    for (const n of known) {
      for (const f of own(classes, n)!) fields.add(f);
      found.add(n);
    }
    if (known.length) alignment = { classes: known, ...(release ? { release } : {}) };
  }
  const unresolved = [...named].find((n) => !found.has(n) && !LIBRARY_CLASSES.has(n));
  // LLaMA-Factory's own parser calls name only its argument lists (`_TRAIN_ARGS`, `_INFER_ARGS`, `_EVAL_ARGS`,
  // `_TRAIN_MCA_ARGS`) or `RayArguments`; anything else in a vendored copy's call is a fork's addition.
  let vendoredExtra: string | undefined;
  for (const f of vendoredFiles) {
    const t = texts.get(f);
    if (!t || !t.includes("HfArgumentParser(")) continue;
    for (const m of uncommented(t).matchAll(/\bHfArgumentParser\(([^()\n]{1,200})\)/g)) {
      const arg = m[1]!.trim();
      if (!/^(?:_[A-Z_]+_ARGS|RayArguments)$/.test(arg)) vendoredExtra ??= arg;
    }
  }
  const vendoredMca = vendored ? [...vendoredFiles].some((f) => texts.get(f)?.includes("_TRAIN_MCA_ARGS") === true) : undefined;
  return { fields, where: where ?? "src/llamafactory/hparams", ...(unresolved ? { unresolved } : {}), ...(vendoredExtra ? { vendoredExtra } : {}), ...(vendoredMca !== undefined ? { vendoredMca } : {}), ...(alignment ? { alignment } : {}) };
}
