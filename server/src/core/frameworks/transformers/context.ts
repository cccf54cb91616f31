/**
 * Everything a transformers rule reads, computed once per document version: the dialect, the pinned versions,
 * each precision fact with its source (the file, a version-dependent default, an assumption), the launcher
 * (DeepSpeed from `deepspeed:`, FSDP from `fsdp`/`fsdp_config`, else plain/DDP) and the linked DeepSpeed file.
 */
import type { AnalysisEnv, AnalysisSettings, Sourced } from "../../analysis";
import type { FactValue } from "../../provenance";
import type { ConfigDocument, ConfigEntry } from "../../model/document";
import type { DType } from "../../model/types";
import { packagePin } from "../../workspace/packagePin";
import { displayPath } from "../../workspace/paths";
import { versionAtLeast } from "../../workspace/packagePin";
import { settingWorldSize } from "../common/resolvedLayout";
import type { FrameworkRule } from "../common/rule";
import { View } from "../common/view";
import { dsFacts } from "../deepspeed/facts";
import type { LinkedDs } from "../deepspeed/linked";
import { deepspeedLink } from "../common/deepspeedLinks";
import { parseJsonDocument } from "../../parse/json";
import { defaultFsdpVersion, FLASH_ATTN, NEWEST, TRL_DTYPE_FP32_SINCE, trlBf16DefaultTrue, TRL_BF16_DEFAULT_SINCE } from "./data";
import { detectDialect, type Dialect } from "./detect";
import { findLauncher, type AccelerateLauncher } from "./launcher";
import { table } from "../../model/table";
import { parseGpu, type GpuId } from "../../engine/gpus";
import { directiveValue, parseDirectives } from "../../diagnostics/directives";

export interface Versions {
  transformers: Sourced<string>;
  trl: Sourced<string>;
  llamafactory: Sourced<string>;
  accelerate: Sourced<string>;
  /** True where the value is a pin (else the newest read is assumed). */
  pinned: { transformers: boolean; trl: boolean; llamafactory: boolean; accelerate: boolean };
  /**
   * A package pinned to a git commit (`trl @ git+…@69ad852e…`): the version is fixed by the workspace but its release
   * is not known (named assumption `git-commit-pin`). A fresh install gets that commit, not the newest release, so
   * what only the newest releases reject is no warning about this run (information that names the commit).
   */
  commits?: Partial<Record<VersionedPackage, string>>;
}

export type LoadDtype = DType | "auto" | "unknown";

export interface TransformersContext {
  doc: ConfigDocument;
  settings: AnalysisSettings;
  env: AnalysisEnv;
  v: View;
  dialect: Dialect;
  reason: string;
  versions: Versions;
  bf16E: ConfigEntry | undefined;
  fp16E: ConfigEntry | undefined;
  /** The `bf16` the Trainer runs with, with where it came from (`source`: "file", "default", "assumed"). */
  bf16: Sourced<boolean>;
  fp16: Sourced<boolean>;
  /**
   * The mixed precision the Accelerator runs with: TrainingArguments `fp16`/`bf16` when true override the
   * launcher's `mixed_precision`, which is kept otherwise (training_args.py:1873-1878@4.57.1).
   */
  amp: Sourced<"bf16" | "fp16" | "no">;
  /** The accelerate config this file is launched with (directive or run script), when found. */
  accel: AccelerateLauncher | undefined;
  /** Run by the TRL CLI (`trl <cmd>`): TRL's own script loads the model, with ModelConfig's dtype. */
  trlCli: boolean;
  /** LLaMA-Factory `pure_bf16`. */
  pureBf16: boolean;
  /** The dtype the model is loaded in, with the key that set it. */
  load: Sourced<LoadDtype> & { entry?: ConfigEntry };
  /** Trainable adapters (TRL `use_peft`, LLaMA-Factory `finetuning_type` other than full/freeze). */
  adapters: string | undefined;
  quantized: boolean;
  attn: { value: string; entry: ConfigEntry } | undefined;
  /** The launcher this file selects: DeepSpeed (`deepspeed`), FSDP (`fsdp`/`fsdp_config`), else plain/DDP. */
  launcher: "deepspeed" | "fsdp" | "plain";
  /** Where the launcher came from: this file's keys, the accelerate config, or nothing (plain assumed). */
  launcherFrom: "file" | "accelerate" | "assumed";
  fsdpVersion: Sourced<1 | 2> | undefined;
  dsEntry: ConfigEntry | undefined;
  dsRel: string | undefined;
  ds: LinkedDs | undefined;
  dsSource: "inline" | "file" | "missing" | "launcher" | undefined;
  worldSize: Sourced<number> | undefined;
  /** `bf16` is TRL's version-dependent default (not written here): a finding on it rests on the TRL version. */
  bf16FromVersion: boolean;
  /** The load dtype is a version-dependent default (TRL's ModelConfig, or from_pretrained's in transformers 4). */
  loadFromVersion: boolean;
  /**
   * The GPU type when one is named (`--gpu`, a `# precision-lens: gpu=…` directive, the precisionLens.gpu setting, in
   * that order); undefined when none is: the default GPU is no fact, and a rule on the GPU then stays silent unless
   * its conclusion holds for every GPU.
   */
  gpu: Sourced<GpuId> | undefined;
  /**
   * Set on the contexts candidates.ts builds for an unknown launcher: the candidate launcher's name. Absent on the
   * context of the analysis itself.
   */
  candidate?: string;
  /** The facts the rules rest on, for the central gate (core/provenance.ts); `version` is per package. */
  facts: { launcher: FactValue; linkedConfig: FactValue | undefined; versions: Record<VersionedPackage, FactValue> };
}

/** A transformers rule: `versionOf` names the package whose version its `version` fact is (default: the dialect's). */
export interface TransformersRule extends FrameworkRule<TransformersContext> {
  versionOf?: VersionedPackage;
  /** The rule's verdicts do not read the load dtype: its version fact is TRL's alone, never joined with transformers'. */
  loadFree?: true;
}

/** The packages whose pinned version a rule may rest on. */
export type VersionedPackage = "transformers" | "trl" | "llamafactory" | "accelerate";

const PACKAGE_LABEL: Readonly<Record<VersionedPackage, string>> = table({ transformers: "transformers", trl: "TRL", llamafactory: "LLaMA-Factory", accelerate: "accelerate" });

/** A release version as pins write it (1.2.3, 0.9.6.dev0, 1.0rc1, 2.1.0+cu121); a commit hash is none. */
const RELEASE = /^\d+(?:\.\d+)*(?:\.?(?:a|b|rc|dev|post)\d*)?(?:\+[\w.]+)?$/i;

function pin(env: AnalysisEnv, pkgs: string[], newest: string, name: string): [Sourced<string>, boolean, string?] {
  for (const p of pkgs) {
    const found = packagePin(env, p);
    // A pin to a git commit (`trl @ git+…@69ad852e…`) names no release: the version it holds is unknown, so it is
    // no pin a rule may rest on (named assumption `git-commit-pin`), and the newest release read stands in, inferred.
    if (found && !RELEASE.test(found.version)) {
      const fact: Sourced<string> = { value: newest, source: "assumed", kind: "inferred", detail: `${name} is pinned to a git commit (${found.version.slice(0, 12)}, ${found.where}), not a release; assuming the newest release read (${newest})` };
      // A hex commit fixes the code; a branch (`@main`) follows it, so a fresh install gets the newest.
      return [fact, false, /^[0-9a-f]{7,40}$/i.test(found.version) ? found.version.slice(0, 12) : undefined];
    }
    if (found) return [{ value: found.version, source: "pin", kind: "workspace-pin", detail: found.where }, true];
  }
  return [{ value: newest, source: "assumed", kind: "inferred", detail: `no ${name} pin found in the workspace; assuming the newest release read (${newest})` }, false];
}

export function versionsOf(env: AnalysisEnv): Versions {
  const [transformers, a, ca] = pin(env, ["transformers"], NEWEST.transformers, "transformers");
  const [trl, b, cb] = pin(env, ["trl"], NEWEST.trl, "TRL");
  const [llamafactory, c] = pin(env, ["llamafactory", "llamafactory-cli"], NEWEST.llamafactory, "LLaMA-Factory");
  const [accelerate, d] = pin(env, ["accelerate"], NEWEST.accelerate, "accelerate");
  const commits: Partial<Record<VersionedPackage, string>> = {};
  if (ca) commits.transformers = ca;
  if (cb) commits.trl = cb;
  return { transformers, trl, llamafactory, accelerate, pinned: { transformers: a, trl: b, llamafactory: c, accelerate: d }, ...(ca || cb ? { commits } : {}) };
}

const DTYPES: Readonly<Record<string, DType>> = table({ bfloat16: "bfloat16", bf16: "bfloat16", float16: "float16", fp16: "float16", half: "float16", float32: "float32", fp32: "float32", float: "float32" });

export function transformersContext(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): TransformersContext {
  const v = new View(doc);
  const det = detectDialect(doc) ?? { dialect: "trainer" as Dialect, reason: "set by a `# precision-lens: framework=...` comment" };
  const dialect = det.dialect;
  const versions = versionsOf(env);
  const bf16E = v.entry("bf16");
  const fp16E = v.entry("fp16");
  const fp16: Sourced<boolean> = v.bool("fp16") !== undefined ? { value: v.bool("fp16")!, source: "file", kind: "file", detail: "`fp16` in this file" } : { value: false, source: "default", kind: "default", detail: "TrainingArguments default `fp16: false`" };
  let bf16: Sourced<boolean>;
  if (v.bool("bf16") !== undefined) bf16 = { value: v.bool("bf16")!, source: "file", kind: "file", detail: "`bf16` in this file" };
  else if (dialect === "trl") {
    const on = trlBf16DefaultTrue(versions.trl.value) && !fp16.value;
    bf16 = { value: on, source: versions.pinned.trl ? "default" : "assumed", kind: versions.pinned.trl ? "default" : "inferred", detail: on ? `TRL's default \`bf16: true\` when \`fp16\` is not set (TRL ≥ ${TRL_BF16_DEFAULT_SINCE}; ${versions.trl.detail})` : fp16.value ? "TRL's default `bf16 = not fp16`" : `TrainingArguments default \`bf16: false\` (TRL < ${TRL_BF16_DEFAULT_SINCE}; ${versions.trl.detail})` };
  } else bf16 = { value: false, source: "default", kind: "default", detail: "TrainingArguments default `bf16: false`" };
  const pureBf16 = dialect === "llamafactory" && v.bool("pure_bf16") === true;

  // Adapters and quantization.
  let adapters: string | undefined;
  if (dialect === "llamafactory") {
    const ft = v.str("finetuning_type") ?? "lora";
    if (ft !== "full" && ft !== "freeze") adapters = ft;
  } else if (v.bool("use_peft") === true) adapters = "lora";
  const quantized = v.has("quantization_bit") && v.scalar("quantization_bit") !== null ? true : v.bool("load_in_4bit") === true || v.bool("load_in_8bit") === true;

  // The launcher first: the TRL CLI (`trl sft`, or TRL's `accelerate_config` key, which only the CLI reads) runs
  // TRL's own script, which loads the model with ModelConfig's dtype whatever `model_init_kwargs` says.
  const accel = findLauncher(doc, env);
  const trlCli = dialect === "trl" && !!accel && (accel.command === "trl" || accel.source === "file");
  const fromFile = loadDtype(v, dialect, versions, bf16.value, fp16.value, pureBf16, trlCli);
  // Not set here: the training script the launch line runs may choose it (`from_pretrained(…, torch_dtype=torch.float16)`).
  const load = fromFile.value === "unknown" && accel?.entry ? (scriptLoadDtype(accel.entry, env) ?? fromFile) : fromFile;

  const attnE = v.entry("attn_implementation") ?? v.entry("model_init_kwargs", "attn_implementation") ?? (dialect === "llamafactory" ? v.entry("flash_attn") : undefined);
  const attn = attnE && attnE.value.kind === "string" ? { value: attnE.value.value as string, entry: attnE } : undefined;

  // Launcher: this file's `deepspeed`/`fsdp` keys, else the accelerate config it is launched with (found above).
  const dsEntry = v.entry("deepspeed");
  const dsRel = v.str("deepspeed");
  const dsInline = v.isSection("deepspeed");
  let { ds, dsSource }: { ds: LinkedDs | undefined; dsSource: TransformersContext["dsSource"] } = deepspeedLink(v, doc, env);
  const fsdpRaw = v.entry("fsdp");
  const fsdpOn = fsdpRaw !== undefined && ((fsdpRaw.value.kind === "string" && (fsdpRaw.value.value as string).trim() !== "") || (fsdpRaw.value.kind === "boolean" && fsdpRaw.value.value === true) || (fsdpRaw.value.kind === "array" && v.entriesUnder("fsdp").length > 0));
  let launcher: TransformersContext["launcher"] = dsRel || dsInline ? "deepspeed" : fsdpOn ? "fsdp" : "plain";
  let launcherFrom: TransformersContext["launcherFrom"] = launcher !== "plain" ? "file" : "assumed";
  let fsdpVersion: Sourced<1 | 2> | undefined;
  if (launcherFrom === "assumed" && accel && !accel.missing) {
    launcherFrom = "accelerate";
    if (accel.distType === "DEEPSPEED") {
      launcher = "deepspeed";
      if (accel.ds) ds = accel.ds;
      else {
        // accelerate builds the DeepSpeed config from `deepspeed_config` (DeepSpeedPlugin.__post_init__ without a
        // file, utils/dataclasses.py:1296-1318@v1.14.0): the stage, and `gradient_accumulation_steps` /
        // `gradient_clipping` as the launcher passes them (ACCELERATE_GRADIENT_ACCUMULATION_STEPS, "auto" when
        // unset); the mixed precision is filled in by set_mixed_precision.
        // No `zero_stage`: launch exports none and DeepSpeedPlugin defaults to 2 (utils/dataclasses.py:1236@v1.14.0); a
        // `--zero_stage` flag is in `zeroStage` already.
        const stage = accel.zeroStage ?? (accel.dsRel ? "auto" : 2);
        const gas = accel.v.num("deepspeed_config", "gradient_accumulation_steps");
        const clip = accel.v.num("deepspeed_config", "gradient_clipping");
        ds = acceleratorBuiltDs(stage, gas, clip, `the accelerate config ${accel.rel} (\`deepspeed_config\`)`, !!accel.dsRel);
      }
      dsSource = "launcher";
    } else if (accel.distType === "FSDP") {
      launcher = "fsdp";
      fsdpVersion = { value: accel.fsdpVersion, source: "launcher", kind: "run-script", detail: `\`fsdp_config.fsdp_version\` in ${accel.rel} (${accel.how})` };
    }
  }
  if (launcher === "fsdp" && !fsdpVersion) {
    const raw = v.int("fsdp_config", "version") ?? v.int("fsdp_config", "fsdp_version");
    if (raw === 1 || raw === 2) fsdpVersion = { value: raw, source: "file", kind: "file", detail: "`fsdp_config.version` in this file" };
    else {
      const d = defaultFsdpVersion(versions.transformers.value);
      fsdpVersion = { value: d, source: versions.pinned.transformers ? "default" : "assumed", kind: versions.pinned.transformers ? "default" : "inferred", detail: `no \`fsdp_config.version\`: transformers ${versions.transformers.value} defaults to FSDP${d} (${versions.transformers.detail})` };
    }
  }
  const amp: Sourced<"bf16" | "fp16" | "no"> =
    fp16.value ? { value: "fp16", source: fp16.source, kind: fp16.kind, detail: fp16.detail }
    : bf16.value || pureBf16 ? { value: "bf16", source: pureBf16 ? "file" : bf16.source, kind: pureBf16 ? "file" : bf16.kind, detail: pureBf16 ? "`pure_bf16` in this file" : bf16.detail }
    : accel?.mixed === "bf16" || accel?.mixed === "fp16" ? { value: accel.mixed, source: "launcher", kind: "run-script", detail: `\`mixed_precision: ${accel.mixed}\` in ${accel.rel} (kept: \`bf16\`/\`fp16\` are off here)` }
    : { value: "no", source: bf16.source === "file" && fp16.source === "file" ? "file" : bf16.source, kind: bf16.source === "file" && fp16.source === "file" ? "file" : bf16.kind, detail: bf16.source === "file" ? "`bf16: false` in this file" : bf16.detail };
  const worldSize = settingWorldSize(settings.worldSize) ?? accel?.numProcesses;
  const bf16FromVersion = dialect === "trl" && bf16.source !== "file" && !fp16.value;
  const loadFromVersion = load.source !== "file" && (load.value === "float32" || load.value === "auto") && dialect === "trl";
  const facts = transformersFacts(versions, launcher, launcherFrom, accel, ds, dsSource, dsRel, fsdpVersion);
  const gpu = statedGpu(doc, settings);
  return { doc, settings, env, v, dialect, reason: det.reason, gpu, trlCli, versions, bf16E, fp16E, bf16, fp16, amp, accel, pureBf16, load, adapters, quantized, attn, launcher, launcherFrom, fsdpVersion, dsEntry, dsRel, ds, dsSource, worldSize, bf16FromVersion, loadFromVersion, facts };
}

/**
 * The DeepSpeed config accelerate builds from an accelerate config's `deepspeed_config` section when it names no
 * file (DeepSpeedPlugin.__post_init__, utils/dataclasses.py:1296-1318@v1.14.0): the ZeRO stage, the mixed
 * precision left `"auto"` for set_mixed_precision / the Trainer to fill from `bf16`/`fp16`, and the gradient
 * accumulation / clipping as the launcher passes them. Also the DeepSpeed candidates of an unknown launcher
 * (candidates.ts).
 */
export function acceleratorBuiltDs(stage: number | "auto", gas: number | undefined, clip: number | undefined, path: string, missing = false): LinkedDs {
  // One literal (table() freezes what it makes): the gradient clipping only when the accelerate config sets it.
  const built: Record<string, unknown> = table<string, unknown>({ zero_optimization: { stage }, bf16: { enabled: "auto" }, fp16: { enabled: "auto" }, gradient_accumulation_steps: gas ?? "auto", ...(clip ? { gradient_clipping: clip } : {}) });
  const view = new View(parseJsonDocument("transformers-launcher:deepspeed.json", JSON.stringify(built)));
  return { path, doc: view.doc, view, facts: dsFacts(view), ...(missing ? { missing: "unknown" as const } : {}) };
}

/**
 * The facts transformers findings rest on: the launcher (this file's `deepspeed`/`fsdp` keys, the accelerate
 * config named by a directive or a run script, else the single GPU / DDP default), the linked DeepSpeed config
 * (read from disk, written inline, or built by the accelerate config) and each package's version (a pin, else
 * the newest release read, inferred).
 */
function transformersFacts(versions: Versions, launcher: TransformersContext["launcher"], launcherFrom: TransformersContext["launcherFrom"], accel: AccelerateLauncher | undefined, ds: LinkedDs | undefined, dsSource: TransformersContext["dsSource"], dsRel: string | undefined, fsdpVersion: Sourced<1 | 2> | undefined): TransformersContext["facts"] {
  const name = launcher === "deepspeed" ? "DeepSpeed" : launcher === "fsdp" ? `FSDP${fsdpVersion?.value ?? ""}` : "single-GPU/DDP";
  const launcherFact: FactValue =
    launcherFrom === "file" ? { value: name, kind: "file", detail: `\`${launcher === "deepspeed" ? "deepspeed" : "fsdp"}\` in this file` }
    : launcherFrom === "accelerate" ? { value: name, kind: accel!.guessed ? "inferred" : accel!.source === "directive" ? "directive" : accel!.source === "file" ? "file" : "run-script", detail: accel!.guessed ? `${accel!.how}, no config file: accelerate's default config decides` : `${accel!.rel} (${accel!.how})` }
    : accel?.missing ? { value: name, kind: "default", detail: `not found: ${accel.how} names ${accel.missing}` }
    : { value: name, kind: "default", detail: "none found" };
  let linkedConfig: FactValue | undefined;
  if (ds && (dsSource === "file" || dsSource === "inline")) linkedConfig = { value: dsSource === "inline" ? "the inline `deepspeed:` mapping" : dsRel, kind: "file", detail: dsSource === "inline" ? "written in this file" : `read from ${ds.path}` };
  else if (ds && dsSource === "launcher" && accel) linkedConfig = { value: accel.dsRel ?? accel.rel, kind: ds.missing ? "inferred" : accel.source === "directive" ? "directive" : "run-script", detail: accel.ds ? `named by ${accel.rel} (${accel.how})` : `built by accelerate from ${accel.rel}` };
  const fact = (p: VersionedPackage): FactValue => {
    const s = versions[p];
    return { value: `${PACKAGE_LABEL[p]} ${s.value}`, kind: versions.pinned[p] ? "workspace-pin" : "inferred", detail: versions.pinned[p] ? s.detail : "unpinned, newest read" };
  };
  return { launcher: launcherFact, linkedConfig, versions: { transformers: fact("transformers"), trl: fact("trl"), llamafactory: fact("llamafactory"), accelerate: fact("accelerate") } };
}

/** The GPU a user named for this file (CLI > directive > setting), as torchtitan's resolver orders them; none by default. */
function statedGpu(doc: ConfigDocument, settings: AnalysisSettings): Sourced<GpuId> | undefined {
  const raw = settings.gpu?.trim();
  const set = raw && raw !== "auto" ? parseGpu(raw) : undefined;
  if (set && settings.origin === "cli") return { value: set, source: "setting", kind: "cli", detail: `--gpu ${raw} on the command line` };
  const d = directiveValue(parseDirectives(doc.comments), "gpu");
  const fromDirective = d ? parseGpu(d.value) : undefined;
  if (d && fromDirective) return { value: fromDirective, source: "directive", kind: "directive", detail: `set by \`# precision-lens: gpu=${d.value}\` on line ${d.line + 1}` };
  if (set) return { value: set, source: "setting", kind: "setting", detail: `set by the precisionLens.gpu setting to ${raw}` };
  return undefined;
}

/** The load dtype and the key that set it (or the default that applies). */
function loadDtype(v: View, dialect: Dialect, versions: Versions, bf16: boolean, fp16: boolean, pureBf16: boolean, trlCli: boolean): Sourced<LoadDtype> & { entry?: ConfigEntry } {
  if (dialect === "llamafactory") {
    // LLaMA-Factory loads in `compute_dtype` = bf16 if `bf16`/`pure_bf16`, fp16 if `fp16` (hparams/parser.py:512-515@v0.9.5),
    // else `infer_dtype` / the checkpoint's dtype (model/patcher.py:321-325@v0.9.5).
    if (bf16 || pureBf16) return { value: "bfloat16", source: "file", kind: "file", detail: `LLaMA-Factory loads in the compute dtype (\`${pureBf16 ? "pure_bf16" : "bf16"}\`)` };
    if (fp16) return { value: "float16", source: "file", kind: "file", detail: "LLaMA-Factory loads in the compute dtype (`fp16`)" };
    const inf = v.str("infer_dtype");
    if (inf && DTYPES[inf]) return { value: DTYPES[inf]!, source: "file", kind: "file", detail: "`infer_dtype`", entry: v.entry("infer_dtype")! };
    // No compute dtype: the loader takes `infer_optim_dtype(checkpoint dtype)`, which on a CUDA GPU is bf16 (a bf16-capable
    // GPU and a bf16 checkpoint; newer releases also for an unknown one) or else fp16, fp32 only without a GPU
    // (extras/misc.py `infer_optim_dtype`, model/patcher.py:321-325@v0.9.5). Assumed: a bf16-capable GPU and checkpoint.
    return { value: "bfloat16", source: "assumed", kind: "inferred", detail: "no `bf16`/`fp16`: LLaMA-Factory loads in infer_optim_dtype of the checkpoint dtype: bf16 on a bf16-capable GPU for a bf16 checkpoint (fp16 otherwise)" };
  }
  // TRL's scripts load with ModelConfig's `dtype` (trl/scripts/sft.py:97-101@v0.25.0, :79-83@v1.0.0; at v1.9.0
  // :74-79 overwrites `model_init_kwargs` with it), and ModelConfig has no `torch_dtype` from v1.0.0.
  // Only with a TRL pin: an assumed version does not drop a key the file sets (trl-model-dtype reports it with a pin).
  const trl1 = dialect === "trl" && versions.pinned.trl && versionAtLeast(versions.trl.value, TRL_DTYPE_FP32_SINCE);
  const paths = trlCli ? [["torch_dtype"], ["dtype"]] : [["torch_dtype"], ["dtype"], ["model_init_kwargs", "torch_dtype"], ["model_init_kwargs", "dtype"]];
  for (const path of paths) {
    if (trl1 && path[0] === "torch_dtype" && path.length === 1) continue;
    const e = v.entry(...path);
    if (!e || e.value.kind !== "string") continue;
    const s = e.value.value as string;
    const d = s === "auto" ? "auto" : DTYPES[s.replace(/^torch\./, "")];
    if (d) return { value: d, source: "file", kind: "file", detail: `\`${path.join(".")}: ${s}\``, entry: e };
  }
  if (dialect === "trl") {
    if (versionAtLeast(versions.trl.value, TRL_DTYPE_FP32_SINCE)) return { value: "float32", source: versions.pinned.trl ? "default" : "assumed", kind: versions.pinned.trl ? "default" : "inferred", detail: `TRL's ModelConfig default \`dtype: float32\` (TRL ≥ ${TRL_DTYPE_FP32_SINCE}; ${versions.trl.detail})` };
    if (!versionAtLeast(versions.transformers.value, "5.0.0")) return { value: "float32", source: versions.pinned.transformers ? "default" : "assumed", kind: versions.pinned.transformers ? "default" : "inferred", detail: `no dtype set: from_pretrained loads fp32 in transformers 4 (${versions.transformers.detail})` };
    return { value: "auto", source: "default", kind: "default", detail: "no dtype set: transformers 5 loads in the checkpoint's dtype" };
  }
  void bf16;
  return { value: "unknown", source: "assumed", kind: "inferred", detail: "the load dtype is chosen by the training script, not by this file" };
}

/**
 * The dtype a project training script loads the model in: the `torch_dtype=` / `dtype=` argument of its
 * `from_pretrained(` calls (a literal `torch.float16`/`"float16"`/`torch.bfloat16`/…), only when every such call in the
 * script that sets one agrees (a `.half()` is not read: on what object is not known from text). Read as text (issue #31 §3: a script that loads in fp16
 * and trains with `fp16: true` fails at the first step).
 */
export function scriptLoadDtype(entry: { path: string; rel: string; text: string }, env: AnalysisEnv): (Sourced<LoadDtype> & { entry?: ConfigEntry }) | undefined {
  const text = entry.text.replace(/^[ \t]*#.*$/gm, "");
  // Adapters or quantization made in the script change which parameters train and in what dtype (PEFT keeps
  // adapters in fp32): the load dtype alone then says nothing about the gradients.
  if (/\b(?:get_peft_model|LoraConfig|PeftModel|prepare_model_for_kbit_training|BitsAndBytesConfig|load_in_[48]bit)\b/.test(text)) return undefined;
  const found = new Map<DType, number>();
  for (let at = text.indexOf("from_pretrained("); at >= 0; at = text.indexOf("from_pretrained(", at + 16)) {
    // The call's arguments, to its closing parenthesis (bounded).
    let depth = 0;
    let end = at + 15;
    for (; end < text.length && end < at + 4000; end++) {
      const c = text[end];
      if (c === "(") depth++;
      else if (c === ")" && --depth === 0) break;
    }
    const args = text.slice(at + 16, end);
    const m = /\b(?:torch_)?dtype\s*=\s*(?:torch\.(float16|half|bfloat16|float32|float)\b|["'](float16|fp16|half|bfloat16|bf16|float32|fp32)["'])/.exec(args);
    if (!m) continue;
    const d = DTYPES[(m[1] ?? m[2])!];
    if (d) found.set(d, found.get(d) ?? text.slice(0, at).split("\n").length);
  }
  if (found.size !== 1) return undefined;
  const [[dtype, line]] = [...found];
  return { value: dtype, source: "launcher", kind: "run-script", detail: `the training script ${displayPath(entry.path, env)} loads the model in ${dtype} (line ${line})` };
}

export const isFlash = (s: string): boolean => FLASH_ATTN.includes(s) || /^kernels-community\/flash-attn/.test(s);
