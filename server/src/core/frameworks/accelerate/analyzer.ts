/**
 * Hugging Face accelerate config YAML (spec other-frameworks.md §2): detection, resolution per
 * `distributed_type` × `mixed_precision` (§2.3), the DeepSpeed link (§2.4) and diagnostics AC1–AC13 (§2.6).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer, Mechanism, ParallelLayout, Sourced } from "../../analysis";
import type { ConfigDocument, ConfigEntry } from "../../model";
import { dsConflict, type LinkedDs, loadDs } from "../deepspeed/linked";
import { dsTable } from "../deepspeed/resolve";
import { simLayout, withPerOp, type EngineSpec } from "../common/engineView";
import { requestedMode } from "../common/deepspeedLinks";
import { diagnostics, type Diags, launchErrors, parseNoteDiagnostics } from "../common/diagnosticBuilder";
import { deleteLines, fix, insertLineAfter, replaceValue } from "../common/edits";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import { dt, launcherRow, noReduce, type PrecisionTable, toResolved } from "../common/precisionTable";
import { type FrameworkLayout, layout, settingWorldSize } from "../common/resolvedLayout";
import { View } from "../common/view";
import { nearest, quoteList } from "../common/wording";
import { looksBoolKey, yaml11Booleans } from "../common/yamlBooleans";

/** ClusterConfig fields (spec §2.1), plus the legacy keys the loader converts (`fp16`, `dynamo_backend`). */
const CLUSTER_KEYS = [
  "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug", "num_processes", "machine_rank", "num_machines", "gpu_ids",
  "main_process_ip", "main_process_port", "rdzv_backend", "same_network", "main_training_function", "enable_cpu_affinity", "fp8_config",
  "deepspeed_config", "fsdp_config", "parallelism_config", "megatron_lm_config", "mpirun_config", "downcast_bf16", "tpu_name", "tpu_zone",
  "tpu_use_cluster", "tpu_use_sudo", "command_file", "commands", "tpu_vm", "tpu_env", "dynamo_config", "fp16", "dynamo_backend",
];
/**
 * Assumption `accelerate-sagemaker-keys`: with `compute_environment: AMAZON_SAGEMAKER` the file is read as a
 * SageMakerConfig, whose fields differ; these are its fields as we know them (not in the spec's list).
 */
const SAGEMAKER_KEYS = [
  "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug", "num_machines", "gpu_ids", "ec2_instance_type", "iam_role_name",
  "image_uri", "profile", "region", "base_job_name", "pytorch_version", "transformers_version", "py_version", "sagemaker_inputs_file",
  "sagemaker_metrics_file", "additional_args", "dynamo_config", "enable_cpu_affinity", "fp16", "dynamo_backend", "downcast_bf16",
];
const DISTRIBUTED_TYPES = ["NO", "MULTI_CPU", "MULTI_GPU", "MULTI_NPU", "MULTI_MLU", "MULTI_SDAA", "MULTI_MUSA", "MULTI_XPU", "MULTI_HPU", "MULTI_NEURON", "DEEPSPEED", "FSDP", "XLA", "MEGATRON_LM"];
const MIXED = ["no", "fp16", "bf16", "fp8"];
const MIXED_MAP: Record<string, string> = { fp32: "no", float32: "no", none: "no", "32": "no", bfloat16: "bf16", "bf16-mixed": "bf16", float16: "fp16", half: "fp16", "16": "fp16", "fp16-mixed": "fp16", float8: "fp8" };
const V1_ONLY = ["fsdp_backward_prefetch", "fsdp_use_orig_params", "fsdp_sync_module_states", "fsdp_sharding_strategy"];
const STRATEGIES = ["FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID_SHARD", "HYBRID_SHARD_ZERO2"];
const DS_FILE_EXCLUSIVE = ["zero_stage", "gradient_accumulation_steps", "gradient_clipping", "offload_optimizer_device", "offload_param_device", "offload_optimizer_nvme_path", "offload_param_nvme_path", "zero3_save_16bit_model"];
const PAR_SIZES = ["dp_replicate_size", "dp_shard_size", "tp_size", "cp_size", "sp_size"];
const PAR_OTHER = ["cp_backend", "cp_comm_strategy", "sp_backend", "sp_seq_length", "sp_attn_implementation", "dp_shard_cp"];

export function detectAccelerate(doc: ConfigDocument): string | undefined {
  const v = new View(doc);
  if (!v.has("distributed_type")) return undefined;
  const also = ["compute_environment", "mixed_precision", "num_processes"].filter((k) => v.has(k));
  return `has a top-level \`distributed_type\`${also.length ? ` with ${quoteList(also)}` : ""} (accelerate config)`;
}

export const accelerateAnalyzer: FrameworkAnalyzer = {
  id: "accelerate",
  formats: ["yaml"],
  detect: detectAccelerate,
  analyze: analyzeAccelerate,
};

interface Acc {
  v: View;
  distType?: string;
  mixed?: string;
  mixedEntry?: ConfigEntry;
  /** True when mixed_precision or distributed_type will not load (AC1/AC3). */
  broken: boolean;
  fsdpVersion: number;
}

function analyzeAccelerate(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const v = new View(doc);
  const d = diagnostics("accelerate");
  parseNoteDiagnostics(doc, d);
  const distEntry = v.entry("distributed_type");
  const mixedEntry = v.entry("mixed_precision");
  const a: Acc = { v, broken: false, fsdpVersion: fsdpVersionOf(v) };
  if (mixedEntry) a.mixedEntry = mixedEntry;

  // AC1: YAML 1.1 booleans where accelerate expects a string.
  for (const [e, word, quoted] of [
    [mixedEntry, "mixed_precision", "'no'"],
    [distEntry, "distributed_type", '"NO"'],
  ] as const) {
    if (!e || e.value.kind !== "boolean") continue;
    a.broken = true;
    const raw = e.value.raw ?? String(e.value.value);
    const effect =
      word === "mixed_precision"
        ? "accelerate then calls `.lower()` on it and the launch crashes with AttributeError: 'bool' object has no attribute 'lower'"
        : "accelerate then fails to map it to a DistributedType and the launch stops with a ValueError";
    const replacement = e.value.value === false ? quoted : word === "mixed_precision" ? "'bf16'" : '"MULTI_GPU"';
    d.add("AC1", "error", e.value.range, `\`${word}: ${raw}\` is read by PyYAML (YAML 1.1) as the boolean ${e.value.value ? "True" : "False"}, not the string "${raw}"; ${effect}. Quote it.`, [
      fix(`Quote it: ${replacement}`, [replaceValue(e, replacement)], true),
    ]);
  }
  if (distEntry && distEntry.value.kind === "string") a.distType = (distEntry.value.value as string).toUpperCase();
  else if (distEntry?.value.kind === "boolean" && distEntry.value.value === false) a.distType = "NO";
  if (mixedEntry && mixedEntry.value.kind === "string") {
    const m = (mixedEntry.value.value as string).toLowerCase();
    if (MIXED.includes(m)) a.mixed = m;
    else {
      a.broken = true;
      const to = MIXED_MAP[m] ?? nearest(m, MIXED);
      const quote = (s: string) => (s === "no" ? "'no'" : s);
      d.add("AC3", "error", mixedEntry.value.range, `\`mixed_precision: ${mixedEntry.value.raw ?? m}\` is not one of no, fp16, bf16, fp8: accelerate raises ValueError "Unknown mixed_precision mode".${to ? ` Did you mean ${quote(to)}?` : ""}`, to ? [fix(`Change to ${quote(to)}`, [replaceValue(mixedEntry, quote(to))], true)] : []);
    }
  } else if (mixedEntry && mixedEntry.value.kind === "null") a.mixed = undefined;
  else if (mixedEntry?.value.kind === "boolean" && mixedEntry.value.value === false) a.mixed = "no";
  if (a.distType && !DISTRIBUTED_TYPES.includes(a.distType) && distEntry?.value.kind === "string") {
    const to = nearest(a.distType, DISTRIBUTED_TYPES);
    d.add("AC2", "error", distEntry.value.range, `\`distributed_type: ${a.distType}\` is not a DistributedType accelerate knows (${DISTRIBUTED_TYPES.join(", ")}); the launch fails with ValueError.`, to ? [fix(`Change to ${to}`, [replaceValue(distEntry, to)], true)] : []);
  }

  unknownKeys(doc, v, d);
  const ds = a.distType === "DEEPSPEED" ? deepspeedLink(doc, v, env, d) : undefined;
  fsdpRules(doc, a, d);
  const worldSize = worldSizeOf(v, settings);
  const par = parallelismRules(a, d, worldSize);
  precisionInfo(a, d);

  yaml11Booleans(doc, d, (p) => p.length === 1 && (p[0] === "mixed_precision" || p[0] === "distributed_type"), looksBoolKey);

  // Resolution.
  const r = resolve(a, ds, worldSize, par);
  if (r.table && (worldSize?.value === 1 || a.distType === "NO")) r.table.R = noReduce(a.distType === "NO" ? "`distributed_type: NO`: one process, no gradient reduction" : "one process: no gradient reduction");
  const failed = launchErrors(d);
  const md = summaryMarkdown({
    failed,
    reasonLine: detectAccelerate(doc) ?? FORCED,
    framework: "accelerate",
    layoutName: r.layoutName,
    worldSize,
    layout: r.parallel,
    mechanism: r.mechanism,
    ...(r.setBy ? { mechanismText: `set by ${r.setBy}` } : {}),
    meaning: r.meaning,
    table: r.table,
    notes: r.notes,
    assumptions: r.assumptions,
  });
  const hovers = hoversAt([mixedEntry?.keyRange, distEntry?.keyRange, v.keyRange("fsdp_config"), v.keyRange("fsdp_config", "fsdp_version"), v.keyRange("parallelism_config"), v.keyRange("deepspeed_config", "deepspeed_config_file"), v.keyRange("num_processes")], md);
  const inlayHints = precisionHint((mixedEntry ?? distEntry)?.value.range, r.table, failed.length > 0);
  const out: FrameworkAnalysis = { layoutName: r.layoutName, mechanism: failed.length ? "error" : r.mechanism, diagnostics: d.out, hovers, reportMarkdown: withPerOp(md, r.engine), inlayHints };
  if (r.table) out.precision = toResolved(r.table, r.setBy);
  if (worldSize) out.worldSize = worldSize;
  if (r.parallel) out.parallel = r.parallel;
  return out;
}

function fsdpVersionOf(v: View): number {
  const s = v.scalar("fsdp_config", "fsdp_version");
  const n = typeof s === "string" ? Number(s) : typeof s === "number" ? s : 1;
  return n === 2 ? 2 : 1;
}

function worldSizeOf(v: View, settings: AnalysisSettings): Sourced<number> | undefined {
  const s = settingWorldSize(settings.worldSize);
  if (s) return s;
  const n = v.int("num_processes");
  if (n && n > 0) return { value: n, source: "num_processes", detail: "`num_processes` (total across machines)" };
  if (v.str("distributed_type")?.toUpperCase() === "NO" || v.entry("distributed_type")?.value.value === false) return { value: 1, source: "distributed_type", detail: "`distributed_type: NO` (one process)" };
  return undefined;
}

function unknownKeys(doc: ConfigDocument, v: View, d: Diags): void {
  const sagemaker = v.str("compute_environment") === "AMAZON_SAGEMAKER";
  const allowed = sagemaker ? SAGEMAKER_KEYS : CLUSTER_KEYS;
  for (const k of v.childKeys()) {
    if (k.startsWith("(document")) continue;
    if (allowed.includes(k)) continue;
    const r = v.keyRange(k)!;
    const span = v.sectionRange(k)!;
    let hint = "";
    if (k.startsWith("fsdp_")) hint = " It looks like an FSDP option: move it under `fsdp_config`.";
    else if (k.startsWith("parallelism_config_")) hint = " Move it under `parallelism_config`.";
    else if (/^(zero|offload|deepspeed)/.test(k)) hint = " It looks like a DeepSpeed option: move it under `deepspeed_config`.";
    else {
      const near = nearest(k, allowed);
      if (near) hint = ` Did you mean \`${near}\`?`;
    }
    d.add("AC2", "error", r, `\`${k}\` is not an accelerate ${sagemaker ? "SageMaker " : ""}config key: \`accelerate launch\` refuses the file (ValueError "The config file at ... had unknown keys").${hint}`, [fix(`Remove \`${k}\``, [deleteLines(doc, span)], true)]);
  }
}

function deepspeedLink(doc: ConfigDocument, v: View, env: AnalysisEnv, d: Diags): LinkedDs | undefined {
  const fileEntry = v.entry("deepspeed_config", "deepspeed_config_file");
  const rel = v.str("deepspeed_config", "deepspeed_config_file");
  if (!fileEntry || !rel) return undefined;
  // AC4: keys that must live in the DS file when one is given.
  const offending: { path: string[]; range: NonNullable<ReturnType<View["sectionRange"]>> }[] = [];
  if (v.has("mixed_precision")) offending.push({ path: ["mixed_precision"], range: v.sectionRange("mixed_precision")! });
  for (const k of DS_FILE_EXCLUSIVE) if (v.has("deepspeed_config", k)) offending.push({ path: ["deepspeed_config", k], range: v.sectionRange("deepspeed_config", k)! });
  for (const o of offending) {
    const name = o.path[o.path.length - 1]!;
    d.add("AC4", "error", v.keyRange(...o.path), `\`${o.path.join(".")}\` cannot be set together with \`deepspeed_config_file\`: accelerate raises ValueError ("When using \`deepspeed_config_file\`, the following accelerate config variables will be ignored..."). Set ${name === "mixed_precision" ? "`bf16`/`fp16` (or \"auto\")" : `the matching key (or "auto")`} in ${rel} instead.`, [
      fix(`Remove \`${name}\` (set it in the DeepSpeed file)`, [deleteLines(doc, o.range)], true),
    ]);
  }
  const ds = loadDs(env, rel);
  if (!ds) {
    if (env.documentPath && !rel.includes("${")) d.add("deepspeed-config-missing", "information", fileEntry.value.range, `The DeepSpeed config \`${rel}\` was not found relative to this file, so its own settings cannot be checked (the run is still DeepSpeed: fp32 master weights in the ZeRO optimizer); accelerate fails to launch if the path does not exist from the launch directory.`);
    return undefined;
  }
  // DS9 on the YAML side.
  const req = requestedMode(v, "accelerate");
  const c = dsConflict(ds.facts, req.mode);
  if (c && req.key) d.add("deepspeed/DS9", c.inferred ? "information" : "warning", v.keyRange(...req.key), `${req.label} here, but ${rel} has ${c.what}. ${c.consequence}`);
  return ds;
}

function fsdpRules(doc: ConfigDocument, a: Acc, d: Diags): void {
  const v = a.v;
  if (a.distType !== "FSDP") return;
  const f = v.at("fsdp_config");
  const raf = f.entry("fsdp_reshard_after_forward");
  if (a.fsdpVersion === 2) {
    // AC6
    for (const k of V1_ONLY) {
      if (!f.has(k)) continue;
      d.add("AC6", "warning", f.keyRange(k), `\`${k}\` is an FSDP1 option; with \`fsdp_version: 2\` accelerate ignores it (or warns and drops it). Remove it, or run \`accelerate to-fsdp2\` to convert the file.`, [fix(`Remove \`${k}\``, [deleteLines(doc, f.sectionRange(k)!)], true)]);
    }
    if (raf && raf.value.kind === "string" && STRATEGIES.includes((raf.value.value as string).toUpperCase())) {
      const s = (raf.value.value as string).toUpperCase();
      const to = s === "FULL_SHARD" || s === "HYBRID_SHARD" ? "true" : "false";
      d.add("AC6", "error", raf.value.range, `With \`fsdp_version: 2\`, \`fsdp_reshard_after_forward\` must be a boolean; the FSDP1 strategy "${s}" makes accelerate raise ValueError. ${s} corresponds to ${to}.`, [fix(`Replace with ${to}`, [replaceValue(raf, to)], true)]);
    }
    // AC7
    const fp = f.entry("fsdp_forward_prefetch");
    if (fp && fp.value.value === true) d.add("AC7", "error", fp.value.range, "`fsdp_forward_prefetch: true` is not supported with `fsdp_version: 2`: accelerate raises ValueError.", [fix("Set to false", [replaceValue(fp, "false")], true)]);
    const sd = f.entry("fsdp_state_dict_type");
    if (sd && sd.value.value === "LOCAL_STATE_DICT") d.add("AC7", "error", sd.value.range, "`fsdp_state_dict_type: LOCAL_STATE_DICT` is not supported with `fsdp_version: 2`: accelerate raises ValueError. Use SHARDED_STATE_DICT.", [fix("Use SHARDED_STATE_DICT", [replaceValue(sd, "SHARDED_STATE_DICT")], true)]);
  } else {
    if (raf && raf.value.kind === "boolean") {
      d.add("AC6", "error", raf.value.range, `With FSDP1 (\`fsdp_version\` ${f.has("fsdp_version") ? "1" : "absent, so 1"}), \`fsdp_reshard_after_forward\` takes a sharding strategy name, not a boolean: accelerate raises ValueError. ${raf.value.value ? "true corresponds to FULL_SHARD" : "false corresponds to SHARD_GRAD_OP"}; or set \`fsdp_version: 2\`.`, [
        fix(`Replace with ${raf.value.value ? "FULL_SHARD" : "SHARD_GRAD_OP"}`, [replaceValue(raf, raf.value.value ? "FULL_SHARD" : "SHARD_GRAD_OP")], true),
      ]);
    }
    // AC8
    const sync = f.entry("fsdp_sync_module_states");
    const cre = f.entry("fsdp_cpu_ram_efficient_loading");
    if (sync && sync.value.value === false && (!cre || cre.value.value === true)) {
      d.add("AC8", "error", sync.value.range, `\`fsdp_cpu_ram_efficient_loading\` is ${cre ? "true" : "true by default at launch"} and needs \`fsdp_sync_module_states: true\` (only rank 0 loads the weights); \`accelerate launch\` raises ValueError.`, [fix("Set fsdp_sync_module_states: true", [replaceValue(sync, "true")], true)]);
    }
    // AC13 [inferred]
    if (raf && raf.value.kind === "string" && (raf.value.value as string).toUpperCase() !== "FULL_SHARD" && STRATEGIES.includes((raf.value.value as string).toUpperCase()) && !f.has("fsdp_sharding_strategy")) {
      const s = (raf.value.value as string).toUpperCase();
      d.add("AC13", "information", raf.value.range, `[inferred] With FSDP1 under \`accelerate launch\`, FSDP_SHARDING_STRATEGY is always exported (default FULL_SHARD) and the v1 plugin prefers it, so \`fsdp_reshard_after_forward: ${s}\` alone probably still runs FULL_SHARD. Also set \`fsdp_sharding_strategy: ${s}\`.`, [
        fix(`Add fsdp_sharding_strategy: ${s}`, [insertLineAfter(doc, raf.range, `fsdp_sharding_strategy: ${s}`)], true),
      ]);
    }
  }
}

interface Par {
  sizes: Record<string, number>;
  explicit: boolean;
}

function parallelismRules(a: Acc, d: Diags, worldSize: Sourced<number> | undefined): Par {
  const p = a.v.at("parallelism_config");
  const sizes: Record<string, number> = { dp_replicate_size: 1, dp_shard_size: 1, tp_size: 1, cp_size: 1, sp_size: 1 };
  let explicit = false;
  for (const k of p.childKeys()) {
    const bare = k.replace(/^parallelism_config_/, "");
    if (k === bare && (PAR_SIZES.includes(k) || PAR_OTHER.includes(k))) {
      d.add("AC9", "information", p.keyRange(k), `[inferred] \`parallelism_config.${k}\` lacks the \`parallelism_config_\` prefix: the launcher copies these keys verbatim, so it is silently ignored [inferred]. Every size then stays 1 and accelerate sets dp_replicate = num_processes, i.e. FSDP2 runs replicated with no sharding.`, [
        fix(`Rename to parallelism_config_${k}`, [{ range: p.keyRange(k)!, newText: `parallelism_config_${k}` }], true),
      ]);
      continue;
    }
    if (PAR_SIZES.includes(bare)) {
      const n = p.int(k);
      if (n !== undefined) {
        sizes[bare] = n;
        explicit = true;
      }
    }
  }
  if (!explicit) return { sizes, explicit };
  const header = a.v.keyRange("parallelism_config");
  const { dp_replicate_size: rep, dp_shard_size: shard, tp_size: tp, cp_size: cp, sp_size: sp } = sizes as Record<string, number>;
  const product = rep! * shard! * tp! * cp! * sp!;
  if (worldSize && worldSize.source !== "distributed_type" && product !== worldSize.value) {
    d.add("AC10", "error", header, `The parallelism sizes multiply to ${product} (dp_replicate ${rep} × dp_shard ${shard} × tp ${tp} × cp ${cp}${sp! > 1 ? ` × sp ${sp}` : ""}) but the world size is ${worldSize.value} (${worldSize.detail}); accelerate requires them to be equal.`);
  }
  if ((tp! > 1 || cp! > 1) && rep! > 1 && shard === 1) {
    d.add("AC10", "error", header, `TP/CP with pure replication (dp_replicate ${rep}, dp_shard 1) is rejected by accelerate (ValueError); shard the data-parallel dimension (dp_shard > 1) or drop dp_replicate.`);
  }
  if (cp! > 1 && sp! > 1) d.add("AC10", "error", header, "Context parallelism (cp_size > 1) and sequence parallelism (sp_size > 1) cannot be combined: accelerate raises ValueError.");
  if (cp! > 1 && !(a.distType === "FSDP" && a.fsdpVersion === 2)) {
    d.add("AC10", "error", header, `Context parallelism (cp_size ${cp}) needs FSDP2 (\`distributed_type: FSDP\` with \`fsdp_config.fsdp_version: 2\`); this config uses ${a.distType === "FSDP" ? "FSDP1" : a.distType ?? "no FSDP"}.`);
  }
  return { sizes, explicit };
}

function precisionInfo(a: Acc, d: Diags): void {
  const v = a.v;
  const anchor = a.mixedEntry?.value.range ?? v.entry("distributed_type")?.value.range;
  const fsdp = a.distType === "FSDP";
  if (fsdp && !a.broken) {
    const m = a.mixed ?? "no";
    if (m === "bf16" || m === "fp16" || m === "fp8") {
      const low = m === "fp16" ? "fp16" : "bf16";
      d.add("AC5", "information", anchor, `FSDP${a.fsdpVersion === 2 ? "2" : "1"} with mixed_precision ${m}: fp32 master weights (accelerate upcasts the model), ${low} compute, **${low} gradient reduction** (the policy's reduce dtype is the mixed-precision dtype; YAML cannot change it); checkpoints are saved in fp32.`);
    } else {
      d.add("AC5", "information", anchor, "FSDP with mixed_precision 'no': the model runs in whatever dtype the script loads it in; loading it in bf16 means pure bf16 (bf16 weights, gradients, reduction and optimizer state, no fp32 master copy).");
    }
  }
  // AC11
  if (a.mixed === "fp16" && (fsdp || a.distType === "MULTI_GPU") && a.mixedEntry) {
    d.add("AC11", "information", a.mixedEntry.value.range, "fp16 mixed precision: on Ampere or newer GPUs prefer bf16 (no loss scaling, same range as fp32). With fp16 the model must be loaded in fp32: a model loaded in fp16 makes the GradScaler fail with \"Attempting to unscale FP16 gradients\".", [
      fix("Use bf16", [replaceValue(a.mixedEntry, "bf16")]),
    ]);
  }
  // AC12
  if (a.mixed === "fp8" && !v.has("fp8_config", "backend") && a.mixedEntry && a.distType !== "DEEPSPEED") {
    d.add("AC12", "information", a.mixedEntry.value.range, "fp8 without `fp8_config.backend`: accelerate picks the first installed of torchao, TransformerEngine and MS-AMP, and on GPUs older than Ada/Hopper (compute capability < 8.9) it warns and silently falls back to fp16.");
  }
}

interface Resolution {
  layoutName: string;
  parallel?: ParallelLayout;
  mechanism: Mechanism;
  meaning: string;
  table?: PrecisionTable;
  notes: string[];
  assumptions: string[];
  engine?: EngineSpec;
  /** Who sets the precision when this file does not (a DeepSpeed `"auto"`). */
  setBy?: string;
}

function resolve(a: Acc, ds: LinkedDs | undefined, worldSize: Sourced<number> | undefined, par: Par): Resolution {
  const W = worldSize?.value;
  const notes: string[] = [];
  const assumptions: string[] = [];
  const m = a.mixed ?? "no";
  const t = a.distType ?? "NO";
  if (a.broken) {
    return { layoutName: t === "NO" ? "single device" : t, mechanism: "error", meaning: "accelerate cannot load this config (see the errors on `mixed_precision` / `distributed_type`).", notes, assumptions };
  }
  if (t === "DEEPSPEED") {
    const stage = a.v.int("deepspeed_config", "zero_stage");
    const sp = par.explicit ? par.sizes.sp_size! : 1;
    const name = `${ds ? `DeepSpeed ZeRO-${typeof ds.facts.stage === "number" ? ds.facts.stage : "auto"}` : `DeepSpeed${stage !== undefined ? ` ZeRO-${stage}` : ""}`}${sp > 1 ? " + SP (Ulysses)" : ""}`;
    const zero3 = (ds ? ds.facts.stage : stage) === 3;
    const parallel = par.explicit ? parallelFromSizes(par) : W ? layout(zero3 ? { dp_shard: W } : { dp_replicate: W }) : undefined;
    notes.push("accelerate's own autocast is off under DeepSpeed; DeepSpeed casts the model and keeps fp32 master weights.");
    if (ds) {
      const req = m === "fp16" ? "fp16" : m === "bf16" || m === "fp8" ? "bf16" : undefined;
      const r = dsTable(ds.facts, req);
      notes.push(`Precision read from the DeepSpeed file ${a.v.str("deepspeed_config", "deepspeed_config_file")}.`);
      // "auto" with no `mixed_precision` here (AC4 forbids it next to a config file): the launch command decides.
      const setBy = r.setBy ? "`accelerate launch --mixed_precision` (default no, which leaves DeepSpeed in fp32)" : undefined;
      return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: r.mechanism, meaning: setBy ? `precision is \`"auto"\` in the DeepSpeed file and this config sets no \`mixed_precision\`, so ${setBy} decides; DeepSpeed keeps fp32 master weights in every mode.` : r.meaning, table: r.table, notes, assumptions, ...(setBy ? { setBy } : {}) };
    }
    const missingFile = a.v.str("deepspeed_config", "deepspeed_config_file");
    if (missingFile) {
      // The precision lives in a file that is not there: DeepSpeed keeps fp32 master weights in every mode.
      const setBy = `the DeepSpeed config file \`${missingFile}\` (not found)`;
      const open = launcherRow(`${setBy}`);
      return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: "none", meaning: `the precision is in ${setBy}; whatever it sets, DeepSpeed keeps fp32 master weights and fp32 optimizer state in the ZeRO optimizer.`, table: { P: dt("float32", "DeepSpeed ZeRO master weights (fp32 in every mode)"), C: open, G: open, R: open, O: dt("float32", "DeepSpeed optimizer (fp32 states in every mode)") }, notes, assumptions, setBy };
    }
    const low = m === "fp16" ? "float16" : m === "bf16" || m === "fp8" ? "bfloat16" : undefined;
    if (!low) return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: "none", meaning: "no mixed precision: DeepSpeed runs fp32 (or what the DeepSpeed file sets).", table: all("float32", "no `mixed_precision`"), notes, assumptions };
    return {
      layoutName: name,
      ...(parallel ? { parallel } : {}),
      mechanism: "none",
      meaning: `accelerate adds \`${m === "fp16" ? "fp16" : "bf16"}: {enabled: true}\` to the DeepSpeed config; DeepSpeed casts the module and keeps fp32 master weights; gradients reduced in ${m === "fp16" ? "fp16" : "bf16"}.`,
      table: { P: dt("float32", "DeepSpeed ZeRO master weights"), C: dt(low, "`mixed_precision` → DeepSpeed"), G: dt(low, "DeepSpeed"), R: dt(low, "DeepSpeed (no `communication_data_type`)"), O: dt("float32", "DeepSpeed optimizer") },
      notes,
      assumptions,
    };
  }
  const low = m === "fp16" ? "float16" : "bfloat16";
  if (t === "FSDP") {
    const s = par.sizes;
    let parallel: ParallelLayout | undefined;
    let name = `FSDP${a.fsdpVersion}`;
    if (par.explicit) {
      parallel = parallelFromSizes(par);
      const parts = [s.dp_replicate_size! > 1 && s.dp_shard_size! > 1 ? "HSDP" : s.dp_shard_size! > 1 ? `FSDP${a.fsdpVersion}` : s.dp_replicate_size! > 1 ? "DDP" : "", s.tp_size! > 1 ? "TP" : "", s.cp_size! > 1 ? "CP" : "", s.sp_size! > 1 ? "SP" : ""].filter(Boolean);
      name = parts.join("+") || `FSDP${a.fsdpVersion}`;
    } else if (W) {
      const strat = (a.v.str("fsdp_config", "fsdp_sharding_strategy") ?? "").toUpperCase();
      parallel = strat === "NO_SHARD" ? layout({ dp_replicate: W }) : layout({ dp_shard: W });
      if (strat.startsWith("HYBRID")) name = `HSDP (FSDP1 ${strat})`;
    }
    if (m === "no") {
      const engine: EngineSpec = { mechanism: "fully_shard", layout: simLayout(parallel, true, false), ddp: false, param: "float32", reduce: "float32", storage: "float32" };
      return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: "none", meaning: "mixed_precision 'no': no casting policy; everything runs in the dtype the script loads the model in (bf16 load = pure bf16).", table: all("load dtype", "the model's load dtype (`torch_dtype=` in the script)"), notes, assumptions, engine };
    }
    if (a.fsdpVersion === 2) assumptions.push("`accelerate-fsdp2-upcast` — trainable low-precision parameters are upcast to fp32 before sharding (skipped when bitsandbytes 4-bit params are present; a silent no-op in accelerate 1.13.0 only).");
    return {
      layoutName: name,
      ...(parallel ? { parallel } : {}),
      mechanism: "fully_shard",
      meaning: `fp32 master weights, ${m === "fp16" ? "fp16" : "bf16"} compute through the FSDP policy plus autocast, and ${m === "fp16" ? "fp16" : "bf16"} gradient reduction (reduce dtype = mixed-precision dtype).${m === "fp8" ? " fp8 GEMMs run inside bf16." : ""}`,
      table: {
        P: dt("float32", "accelerate upcasts trainable parameters"),
        C: dt(low, `FSDP policy param_dtype = \`mixed_precision: ${m}\``),
        G: dt("float32", "sharded gradients cast back to the fp32 parameters"),
        R: dt(low, `FSDP policy reduce_dtype = \`mixed_precision: ${m}\``),
        O: dt("float32", "optimizer over fp32 parameters"),
      },
      notes: m === "fp16" ? ["fp16 uses a sharded GradScaler."] : notes,
      assumptions,
      ...(m === "fp8" ? {} : { engine: { mechanism: "fully_shard", layout: simLayout(parallel, true, false), ddp: false, param: low, reduce: low, storage: "float32" } as EngineSpec }),
    };
  }
  // Single device / DDP family.
  const single = t === "NO" || W === 1;
  const name = t === "NO" ? "single device" : t === "MEGATRON_LM" ? "Megatron-LM" : t === "XLA" ? "XLA" : `DDP (${t})`;
  const parallel = W ? layout({ dp_replicate: W }) : undefined;
  if (t === "MEGATRON_LM") {
    return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: "none", meaning: `Megatron-LM decides the precision (\`mixed_precision: ${m}\` sets its fp16/bf16 arguments); not modelled here.`, notes, assumptions };
  }
  if (m === "no") {
    const engine: EngineSpec = { mechanism: "none", layout: parallel ?? layout({}), ddp: !single && !!W, param: "float32", reduce: "float32", storage: "float32" };
    return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: "none", meaning: "no mixed precision: everything runs in the dtype the script loads the model in (loading bf16 here means pure bf16).", table: all("load dtype", "the model's load dtype (`torch_dtype=` in the script)"), notes, assumptions, engine };
  }
  assumptions.push("`accelerate-load-fp32` — the script loads the model in fp32 (accelerate does not cast it outside FSDP); if it loads bf16, parameters, gradients and optimizer state are bf16.");

  return {
    layoutName: name,
    ...(parallel ? { parallel } : {}),
    mechanism: "autocast",
    meaning: `torch.autocast(${m === "fp16" ? "fp16" : "bf16"}) around forward; parameters stay in the load dtype (fp32 master only if the script loads fp32)${m === "fp16" ? "; GradScaler" : ""}${m === "fp8" ? "; fp8 GEMMs inside bf16 autocast" : ""}.`,
    table: {
      P: dt("load dtype", "the model's load dtype"),
      C: dt(low, `autocast(\`mixed_precision: ${m}\`)`),
      G: dt("load dtype", "gradients follow the parameters"),
      R: single ? noReduce("one process: no gradient reduction") : dt("load dtype", "DDP reduces in the gradient dtype"),
      O: dt("load dtype", "optimizer over the parameters"),
    },
    notes,
    assumptions,
    ...(m === "fp8" ? {} : { engine: { mechanism: "autocast", layout: simLayout(parallel, false, !single && t !== "NO"), ddp: !single && t !== "NO", param: low, reduce: "float32", storage: "float32" } as EngineSpec }),
  };
}

/** The layout `parallelism_config` spells out, with the sequence-parallel degree kept (ALST/Ulysses `sp_size`). */
function parallelFromSizes(par: Par): FrameworkLayout {
  const s = par.sizes;
  const l: FrameworkLayout = layout({ dp_replicate: s.dp_replicate_size!, dp_shard: s.dp_shard_size!, tp: s.tp_size!, cp: s.cp_size! });
  if (s.sp_size! > 1) l.sp = s.sp_size!;
  return l;
}

function all(dtype: string, from: string): PrecisionTable {
  return { P: dt(dtype, from), C: dt(dtype, from), G: dt(dtype, from), R: dt(dtype, from), O: dt(dtype, from) };
}
