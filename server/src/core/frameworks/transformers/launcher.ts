/**
 * The accelerate config a TrainingArguments file is launched with, when the file does not choose DeepSpeed or
 * FSDP itself. TRL and recipe repos launch `accelerate launch --config_file recipes/accelerate_configs/zero3.yaml
 * scripts/sft.py --config recipes/x/sft/config.yaml`, so the launcher lives in another file, named by:
 *  1. a `# precision-lens: accelerate-config=PATH` directive in this file (explicit), or
 *  2. a run script (`.sh`, `.bash`, `.slurm`, `.sbatch`) in this file's folder, a folder above it (up to the
 *     workspace root, 6 levels without one) or a `scripts/` folder of one of those, whose one logical command
 *     names this file (a token that is a path ending at it) and runs `accelerate launch --config_file X` (or
 *     `--config-file`). Read, never run.
 * The launcher's config is resolved like every other link (common/linkedFiles.ts `readLinked`), from the
 * script's folder upwards. Bounded: at most 40 scripts read, each under 256 kB.
 */
import { linkName, linkOutside } from "../../workspace/boundary";
import type { AnalysisEnv, Sourced } from "../../analysis";
import { directiveValue, parseDirectives } from "../../diagnostics/directives";
import type { ConfigDocument, ConfigEntry } from "../../model/document";
import { parseYamlDocument } from "../../parse/yaml";
import type { SourceLocation } from "../../model/types";
import { ancestorDirs, basename, displayPath, join, lineLocation } from "../../workspace/paths";
import { readLinked } from "../common/linkedFiles";
import { View } from "../common/view";
import { loadDs, type LinkedDs } from "../deepspeed/linked";
import { findLaunchCommand, type LaunchCommand, type LauncherKind } from "./launchLine";
import { table } from "../../model/table";

export interface AccelerateLauncher {
  /** Absolute path of the accelerate YAML. */
  path: string;
  /** As written (directive or `--config_file` argument). */
  rel: string;
  /** Where the link came from, user-facing: "`# precision-lens: accelerate-config=…` (line 1)" or "scripts/train.sh line 4". */
  how: string;
  /** "directive", "run-script", or "file" (TRL's `accelerate_config` key in this file). */
  source: "directive" | "run-script" | "file";
  location?: SourceLocation;
  doc: ConfigDocument;
  v: View;
  /** `distributed_type`, upper-cased (`NO` for a YAML 1.1 false). */
  distType: string | undefined;
  /** `mixed_precision` as accelerate reads it, with its entry. */
  mixed: string | undefined;
  mixedEntry: ConfigEntry | undefined;
  /** `fsdp_config.fsdp_version` (accelerate's default is 1). */
  fsdpVersion: 1 | 2;
  /** `deepspeed_config.deepspeed_config_file`, resolved from the accelerate YAML. */
  dsRel: string | undefined;
  ds: LinkedDs | undefined;
  /** `deepspeed_config.zero_stage` when there is no file. */
  zeroStage: number | undefined;
  numProcesses: Sourced<number> | undefined;
  /** The launcher program of the command line (`accelerate`, `torchrun`, `deepspeed`, `trl`, …), when a launch line named it. */
  command?: LauncherKind;
  /** The config file the command names but that was not found (or is not an accelerate config): a broken link. */
  missing?: string;
  /** `missing` lies outside the workspace: it was not read (and `missing` is its file name only). */
  missingOutside?: boolean;
  /** The named config is a DeepSpeed JSON, passed where accelerate wants its own config. */
  isDeepSpeedJson?: boolean;
  /** No config file and no flag says the distributed type: accelerate's default config on the machine decides (assumed multi-GPU). */
  guessed?: boolean;
  /** Command-line flags that override the config file's values, for the header. */
  flagNotes?: string[];
  /** The training script the launch line runs, when it is a workspace file (read as text, never run). */
  entry?: { path: string; rel: string; text: string };
}

const SCRIPT = /\.(sh|bash|slurm|sbatch)$/i;
const MAX_SCRIPTS = 40;

/**
 * The accelerate configs the TRL CLI ships (trl/accelerate_configs/*.yaml, the same at v0.19.0 and v1.9.0), as
 * the facts this product reads from them: every one sets `mixed_precision: bf16` and `num_processes: 8`.
 * `trl <cmd> --config x.yaml` passes the config's keys its dataclasses do not declare on to `accelerate launch`,
 * and turns `accelerate_config NAME` into `--config_file` (a path if it is a file, else one of these names;
 * trl/cli/accelerate_config.py@v1.9.0, trl/cli.py:52-76@v0.19.0).
 */
const TRL_ACCELERATE_CONFIGS: Readonly<Record<string, string>> = table({
  zero1: "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 1\n  gradient_accumulation_steps: 1\n",
  zero2: "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 2\n",
  zero3: "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 3\n",
  fsdp1: "distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\nfsdp_config:\n  fsdp_version: 1\n",
  fsdp2: "distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\nfsdp_config:\n  fsdp_version: 2\n",
  multi_gpu: "distributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_processes: 8\n",
  single_gpu: "distributed_type: 'NO'\nmixed_precision: bf16\nnum_processes: 8\n",
});

/** TRL's `accelerate_config` key (a TRL `--config` file launched by `trl <cmd>`): a file, or a config TRL ships. */
function trlAccelerateConfig(doc: ConfigDocument, env: AnalysisEnv): AccelerateLauncher | undefined {
  const v = new View(doc);
  const name = v.str("accelerate_config");
  const e = v.entry("accelerate_config");
  if (!name || !e) return undefined;
  const how = `\`accelerate_config: ${name}\` in this file (the TRL CLI)`;
  const loc = { uri: doc.uri, range: e.value.range };
  const l = readLinked(env, name);
  if (l) return load(l.path, l.text, name, how, "file", env, loc);
  const shipped = TRL_ACCELERATE_CONFIGS[name];
  return shipped ? load(`trl/accelerate_configs/${name}.yaml`, shipped, `TRL's ${name} accelerate config`, how, "file", env, loc) : undefined;
}

/** The launcher config named by a directive, TRL's `accelerate_config` key or a launch line, or undefined. */
export function findLauncher(doc: ConfigDocument, env: AnalysisEnv): AccelerateLauncher | undefined {
  const trl = trlAccelerateConfig(doc, env);
  if (trl) return trl;
  const d = directiveValue(parseDirectives(doc.comments), "accelerate-config");
  if (d && d.value) {
    const l = readLinked(env, d.value);
    if (l) return load(l.path, l.text, d.value, `\`# precision-lens: accelerate-config=${d.value}\` (line ${d.line + 1})`, "directive", env, { uri: doc.uri, range: d.range });
  }
  if (!env.documentPath) return undefined;
  const config = stem(basename(env.documentPath));
  const names = namesDocument(env.documentPath);
  let read = 0;
  for (const path of candidateFiles(env)) {
    if (read++ >= MAX_SCRIPTS) return undefined;
    const text = env.readFile(path);
    if (text === undefined || text.length > 256_000 || !text.includes(config)) continue;
    const cmd = findLaunchCommand(text, config, names);
    if (!cmd) continue;
    return fromCommand(cmd, path, text, env);
  }
  return undefined;
}

/** The file name without its extension: a script may build the path from a variable (`$NAME.yaml`). */
const stem = (name: string): string => name.replace(/\.[^.]+$/, "");

const MAX_DIRS = 80;
const SKIP_DIRS = new Set(["node_modules", "venv", "env", "site-packages", "__pycache__", "data", "datasets", "outputs", "output", "saves", "checkpoints", "wandb", "logs", "dist", "build"]);
const isLaunchFile = (n: string): boolean =>
  SCRIPT.test(n) || (/^(?:run|train|launch|finetune|sft|dpo)[\w.-]*$/i.test(n) && !/\.(?:py|ya?ml|json|toml|md|cfg|lock|ipynb)$/i.test(n)) || /^readme(?:\.md|\.rst|\.txt)?$/i.test(n) || n === "Makefile";

/**
 * Files that may hold a launch line, nearest first: run scripts (`.sh`, `.bash`, `.slurm`, `.sbatch`, or a
 * name starting with run/train/launch/finetune/sft/dpo whatever its extension), README and Makefile, in this
 * file's folder, the folders above it (to the workspace root) and their `scripts/`, then below the top one,
 * breadth first, folders up to 3 levels deep (skipping hidden folders, node_modules, virtual environments, data
 * and output folders). Bounded: 80 folders listed.
 */
function candidateFiles(env: AnalysisEnv): string[] {
  const ancestors = ancestorDirs(env);
  const out: string[] = [];
  const seen = new Set<string>();
  let listed = 0;
  const visit = (dir: string): readonly string[] => {
    if (seen.has(dir) || listed >= MAX_DIRS) return [];
    seen.add(dir);
    listed++;
    const names = env.listDir(dir);
    for (const n of [...names].filter(isLaunchFile).sort()) out.push(join(dir, n));
    return names;
  };
  for (const dir of ancestors) {
    const names = visit(dir);
    if (names.includes("scripts")) visit(join(dir, "scripts"));
  }
  const top = ancestors[ancestors.length - 1];
  let level = top ? [top] : [];
  for (let depth = 0; depth < 3 && level.length && listed < MAX_DIRS; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      for (const n of [...env.listDir(dir)].sort()) {
        if (listed >= MAX_DIRS) break;
        if (n.startsWith(".") || SKIP_DIRS.has(n) || n.includes(".")) continue;
        const sub = join(dir, n);
        if (seen.has(sub)) {
          next.push(sub);
          continue;
        }
        if (visit(sub).length) next.push(sub);
      }
    }
    level = next;
  }
  return out;
}

/** A path from a launch line, read from the script's folder upwards; an absolute path from another machine by its tail inside the workspace. */
function readFromScript(env: AnalysisEnv, scriptPath: string, rel: string): { path: string; text: string } | undefined {
  const e = { ...env, documentPath: scriptPath };
  const l = readLinked(e, rel);
  if (l) return l;
  const parts = rel.replace(/\\/g, "/").split("/").filter((x) => x && x !== ".");
  for (let k = Math.min(parts.length - 1, 4); k >= 1; k--) {
    const t = readLinked(e, parts.slice(parts.length - k).join("/"));
    if (t) return t;
  }
  return undefined;
}

/** The accelerate config (or its stand-in) a launch command gives, with its flags over the file's values. */
function fromCommand(cmd: LaunchCommand, path: string, text: string, env: AnalysisEnv): AccelerateLauncher {
  const how = `${displayPath(path, env)} line ${cmd.line + 1}`;
  const loc = lineLocation(path, text, cmd.line);
  let base: AccelerateLauncher | undefined;
  if (cmd.configFile) {
    const l = readFromScript(env, path, cmd.configFile);
    const shipped = cmd.kind === "trl" ? TRL_ACCELERATE_CONFIGS[cmd.configFile] : undefined;
    if (l) base = load(l.path, l.text, cmd.configFile, how, "run-script", env, loc);
    else if (shipped) base = load(`trl/accelerate_configs/${cmd.configFile}.yaml`, shipped, `TRL's ${cmd.configFile} accelerate config`, how, "run-script", env, loc);
    if (!base) {
      // Named but not found, or not an accelerate config: a broken link; the launcher stays unknown.
      const broken = stub(cmd, how, loc, path, env);
      // Outside the workspace: not read, and named by its file name only (core/workspace/boundary.ts).
      const outside = linkOutside({ ...env, documentPath: path }, cmd.configFile);
      broken.missing = outside ? linkName(cmd.configFile) : cmd.configFile;
      if (outside) broken.missingOutside = true;
      broken.isDeepSpeedJson = !!l && /"zero_optimization"|"train_micro_batch_size_per_gpu"|"train_batch_size"/.test(l.text);
      return broken;
    }
    base.command = cmd.kind;
  } else base = stub(cmd, how, loc, path, env);
  // Flags on the command line win over the config file (accelerate commands/launch.py `_validate_launch_command`).
  if (cmd.mixedPrecision && ["no", "fp16", "bf16", "fp8"].includes(cmd.mixedPrecision)) {
    if (cmd.configFile && base.mixed !== cmd.mixedPrecision) base.flagNotes = [`\`--mixed_precision ${cmd.mixedPrecision}\` on the command line overrides the config's \`mixed_precision: ${base.mixed ?? "unset"}\``];
    base.mixed = cmd.mixedPrecision;
    base.mixedEntry = undefined;
  }
  if (cmd.script) {
    const e = readFromScript(env, path, cmd.script);
    if (e && e.text.length <= 256_000) base.entry = { path: e.path, rel: cmd.script, text: e.text };
  }
  if (cmd.numProcesses) {
    const what = cmd.kind === "torchrun" ? "`--nproc_per_node` × `--nnodes`" : cmd.kind === "deepspeed" ? "`--num_gpus`" : cmd.kind === "llamafactory-cli" ? "`NPROC_PER_NODE` × `NNODES`" : cmd.kind === "python" ? "one process" : "`--num_processes`";
    base.numProcesses = { value: cmd.numProcesses, source: "launcher", kind: "run-script", detail: `${what} on ${how}` };
  }
  return base;
}

/** A launcher from the command line alone (no accelerate config file): what the launcher program and its flags say. */
function stub(cmd: LaunchCommand, how: string, loc: SourceLocation, scriptPath: string, env: AnalysisEnv): AccelerateLauncher {
  let distType: string;
  let guessed = false;
  if (cmd.useDeepspeed || cmd.kind === "deepspeed" || cmd.deepspeedFile) distType = "DEEPSPEED";
  else if (cmd.useFsdp) distType = "FSDP";
  else if (cmd.kind === "python" || cmd.numProcesses === 1) distType = "NO";
  else if (cmd.kind === "torchrun" || cmd.kind === "llamafactory-cli" || (cmd.numProcesses ?? 0) > 1) distType = "MULTI_GPU";
  else {
    // `accelerate launch` / `trl` without a config file or flags: accelerate's default config on the machine decides.
    distType = "MULTI_GPU";
    guessed = true;
  }
  const lines = [`distributed_type: ${distType}`];
  if (cmd.mixedPrecision) lines.push(`mixed_precision: ${cmd.mixedPrecision}`);
  if (distType === "DEEPSPEED" && cmd.zeroStage !== undefined) lines.push("deepspeed_config:", `  zero_stage: ${cmd.zeroStage}`);
  if (distType === "FSDP") lines.push("fsdp_config:", `  fsdp_version: ${cmd.fsdpVersion ?? 1}`);
  const out = load(`${scriptPath}#launch`, `${lines.join("\n")}\n`, `the \`${cmd.kind}\` command line`, how, "run-script", env, loc)!;
  if (cmd.deepspeedFile) {
    out.dsRel = cmd.deepspeedFile;
    const l = readFromScript(env, scriptPath, cmd.deepspeedFile);
    const ds = l ? loadDs({ ...env, documentPath: l.path }, basename(l.path)) : undefined;
    if (ds) out.ds = ds;
  }
  out.command = cmd.kind;
  if (guessed) out.guessed = true;
  if (distType !== "NO") out.numProcesses = undefined;
  return out;
}

/** Whether a command-line token is a path that ends at this document (`recipes/x/config.yaml`, `./config.yaml`, or an absolute path from another machine whose last two components match). */
function namesDocument(documentPath: string): (token: string) => boolean {
  const doc = documentPath.replace(/\\/g, "/");
  const segs = doc.split("/");
  return (token) => {
    const t = token.replace(/\\/g, "/").replace(/^(\.\/)+/, "");
    if (!t || t.includes("..") || t.includes("$")) return false;
    if (doc === t || doc.endsWith(`/${t}`)) return true;
    if (!t.startsWith("/")) return false;
    const ts = t.split("/");
    const k = Math.min(2, ts.length - 1, segs.length - 1);
    return k >= 1 && ts.slice(ts.length - k).join("/") === segs.slice(segs.length - k).join("/");
  };
}

function load(path: string, text: string, rel: string, how: string, source: AccelerateLauncher["source"], env: AnalysisEnv, location?: SourceLocation): AccelerateLauncher | undefined {
  if (text.length > 512_000) return undefined;
  const doc = parseYamlDocument(`file://${path}`, text);
  if (doc.syntaxErrors.length) return undefined;
  const v = new View(doc);
  if (!v.has("distributed_type")) return undefined;
  const de = v.entry("distributed_type");
  const distType = de?.value.kind === "string" ? (de.value.value as string).toUpperCase() : de?.value.kind === "boolean" && de.value.value === false ? "NO" : undefined;
  const mixedEntry = v.entry("mixed_precision");
  const mixed = mixedEntry?.value.kind === "string" ? (mixedEntry.value.value as string).toLowerCase() : mixedEntry?.value.kind === "boolean" && mixedEntry.value.value === false ? "no" : undefined;
  const fv = v.scalar("fsdp_config", "fsdp_version");
  const fsdpVersion = Number(fv) === 2 ? 2 : 1;
  const dsRel = distType === "DEEPSPEED" ? v.str("deepspeed_config", "deepspeed_config_file") : undefined;
  const ds = dsRel ? loadDs({ ...env, documentPath: path }, dsRel) : undefined;
  const zs = v.int("deepspeed_config", "zero_stage");
  const n = v.int("num_processes");
  const numProcesses: Sourced<number> | undefined = n && n > 0 ? { value: n, source: "launcher", kind: "run-script", detail: `\`num_processes: ${n}\` in the accelerate config ${rel} (${how})` } : distType === "NO" ? { value: 1, source: "launcher", kind: "run-script", detail: `\`distributed_type: NO\` in ${rel}` } : undefined;
  const out: AccelerateLauncher = { path, rel, how, source, doc, v, distType, mixed, mixedEntry, fsdpVersion, dsRel, ds, zeroStage: zs, numProcesses };
  if (location) out.location = location;
  return out;
}
