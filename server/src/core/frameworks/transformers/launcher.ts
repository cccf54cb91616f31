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
import type { AnalysisEnv, Sourced } from "../../analysis";
import { directiveValue, parseDirectives } from "../../diagnostics/directives";
import type { ConfigDocument, ConfigEntry } from "../../model/document";
import { parseYamlDocument } from "../../parse/yaml";
import type { SourceLocation } from "../../model/types";
import { ancestorDirs, basename, displayPath, join, lineLocation } from "../../workspace/paths";
import { readLinked } from "../common/linkedFiles";
import { View } from "../common/view";
import { loadDs, type LinkedDs } from "../deepspeed/linked";

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
const TRL_ACCELERATE_CONFIGS: Readonly<Record<string, string>> = {
  zero1: "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 1\n  gradient_accumulation_steps: 1\n",
  zero2: "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 2\n",
  zero3: "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 3\n",
  fsdp1: "distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\nfsdp_config:\n  fsdp_version: 1\n",
  fsdp2: "distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\nfsdp_config:\n  fsdp_version: 2\n",
  multi_gpu: "distributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_processes: 8\n",
  single_gpu: "distributed_type: 'NO'\nmixed_precision: bf16\nnum_processes: 8\n",
};

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

/** The launcher config named by a directive, TRL's `accelerate_config` key or a run script, or undefined. */
export function findLauncher(doc: ConfigDocument, env: AnalysisEnv): AccelerateLauncher | undefined {
  const trl = trlAccelerateConfig(doc, env);
  if (trl) return trl;
  const d = directiveValue(parseDirectives(doc.comments), "accelerate-config");
  if (d && d.value) {
    const l = readLinked(env, d.value);
    if (l) return load(l.path, l.text, d.value, `\`# precision-lens: accelerate-config=${d.value}\` (line ${d.line + 1})`, "directive", env, { uri: doc.uri, range: d.range });
  }
  if (!env.documentPath) return undefined;
  const config = basename(env.documentPath);
  let read = 0;
  for (const dir of ancestorDirs(env)) {
    const names = env.listDir(dir);
    const dirs = [dir, ...(names.includes("scripts") ? [join(dir, "scripts")] : [])];
    for (const sd of dirs) {
      for (const name of [...env.listDir(sd)].filter((n) => SCRIPT.test(n)).sort()) {
        if (read++ >= MAX_SCRIPTS) return undefined;
        const path = join(sd, name);
        const text = env.readFile(path);
        if (text === undefined || text.length > 256_000 || !text.includes(config)) continue;
        const hit = launchLine(text, config, namesDocument(env.documentPath));
        if (!hit) continue;
        const l = readLinked({ ...env, documentPath: path }, hit.rel);
        if (!l) continue;
        return load(l.path, l.text, hit.rel, `${displayPath(path, env)} line ${hit.line + 1}`, "run-script", env, lineLocation(path, text, hit.line));
      }
    }
  }
  return undefined;
}

/** The `--config_file` of the first `accelerate launch` command that names the config (continued lines joined). */
export function launchLine(text: string, config: string, names: (token: string) => boolean = () => true): { rel: string; line: number } | undefined {
  const physical = text.split(/\r?\n/);
  let start = 0;
  let buf = "";
  for (let i = 0; i < physical.length; i++) {
    const raw = physical[i]!;
    if (!buf) start = i;
    if (raw.endsWith("\\")) {
      buf += `${raw.slice(0, -1)} `;
      continue;
    }
    const line = (buf + raw).replace(/(^|\s)#.*$/, "");
    buf = "";
    if (!line.includes("accelerate") || !line.includes(config)) continue;
    const tokens = line.trim().split(/\s+/);
    const at = tokens.findIndex((t, j) => t.endsWith("accelerate") && tokens[j + 1] === "launch");
    if (at < 0 || !tokens.some((t) => names(t.replace(/^--[\w-]+=/, "").replace(/^["']|["']$/g, "")))) continue;
    for (let j = at + 2; j < tokens.length; j++) {
      const t = tokens[j]!;
      const eq = /^--config[_-]file=(.+)$/.exec(t);
      const rel = eq ? eq[1] : t === "--config_file" || t === "--config-file" ? tokens[j + 1] : undefined;
      if (rel) return { rel: rel.replace(/^["']|["']$/g, ""), line: start };
    }
  }
  return undefined;
}

/** Whether a command-line token is a path that ends at this document (`recipes/x/config.yaml`, `./config.yaml`). */
function namesDocument(documentPath: string): (token: string) => boolean {
  const doc = documentPath.replace(/\\/g, "/");
  return (token) => {
    const t = token.replace(/\\/g, "/").replace(/^(\.\/)+/, "");
    if (!t || t.includes("..") || t.includes("$")) return false;
    return t.startsWith("/") ? doc === t : doc === t || doc.endsWith(`/${t}`);
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
