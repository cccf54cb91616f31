/**
 * PyTorch Lightning trainer configs (spec other-frameworks.md §3): LightningCLI YAML (`trainer:` with
 * class_path/init_args, optionally under a `fit:` subcommand), Hydra trainer configs (`_target_:
 * lightning.pytorch.trainer.Trainer`, or a trainer config group file with a `defaults` list), and LitGPT's
 * top-level `precision`. Resolution per strategy × precision (§3.3), diagnostics PL1–PL12 (§3.5), and the
 * DeepSpeed strategy's `config` link (DS9).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer, Mechanism, ParallelLayout, Sourced } from "../../analysis";
import type { ConfigDocument, ConfigEntry } from "../../model";
import type { DType } from "../../types";
import { dsConflict, dsTable, loadDs, type LinkedDs } from "../deepspeed/analyzer";
import { simLayout, withPerOp, type EngineSpec } from "../common/engineView";
import { requestedMode } from "../common/deepspeedLinks";
import { fsdpInitsFp32, lightningVersion, type LightningVersion } from "./version";
import { diagnostics, launchErrors, parseNoteDiagnostics } from "../common/diagnosticBuilder";
import { fix, insertLineAfter, replaceValue } from "../common/edits";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import { dt, noReduce, type PrecisionTable, toResolved } from "../common/precisionTable";
import { layout, settingWorldSize } from "../common/resolvedLayout";
import { View } from "../common/view";
import { nearest } from "../common/wording";
import { looksBoolKey, yaml11Booleans } from "../common/yamlBooleans";
import { pureLowPrecisionState } from "../../pureLowPrecision";

const CANONICAL = ["32-true", "64-true", "16-mixed", "bf16-mixed", "16-true", "bf16-true", "transformer-engine", "transformer-engine-float16"];
const LEGACY: Record<string, string> = { "16": "16-mixed", bf16: "bf16-mixed", "32": "32-true", "64": "64-true" };
const GUESS: Record<string, string> = { fp16: "16-mixed", half: "16-mixed", "fp16-mixed": "16-mixed", mixed: "16-mixed", "bf16-amp": "bf16-mixed", bfloat16: "bf16-mixed", amp: "16-mixed", fp32: "32-true", float32: "32-true", "32-mixed": "32-true", "bf16-pure": "bf16-true", fp64: "64-true", double: "64-true" };
const TRAINER_KEYS = ["precision", "strategy", "devices", "accelerator", "num_nodes", "max_epochs", "max_steps", "accumulate_grad_batches", "gradient_clip_val"];

/**
 * Where the Trainer arguments live: LightningCLI's `trainer:` (optionally under the `fit:` subcommand), and
 * the `lightning: trainer:` nesting of Stability's sgm/generative-models and CompVis latent-diffusion
 * configs (their main.py reads `config.lightning.trainer` into the Trainer).
 */
export const TRAINER_ROOTS: readonly string[][] = [["trainer"], ["fit", "trainer"], ["lightning", "trainer"]];

interface Where {
  /** Path of the Trainer arguments. */
  root: string[];
  reason: string;
  litgpt?: boolean;
}

function locate(doc: ConfigDocument): Where | undefined {
  const v = new View(doc);
  const lightningTarget = (s: string | undefined) => !!s && /^(lightning\.pytorch|pytorch_lightning|lightning)(\.trainer)?(\.trainer)?\.Trainer$/.test(s);
  if (lightningTarget(v.str("_target_"))) return { root: [], reason: `has \`_target_: ${v.str("_target_")}\` (Hydra Lightning trainer config)` };
  for (const root of TRAINER_ROOTS) {
    if (!v.isSection(...root)) continue;
    const t = v.at(...root);
    if (lightningTarget(t.str("_target_"))) return { root, reason: `has \`${root.join(".")}._target_: ${t.str("_target_")}\`` };
    const keys = ["precision", "strategy", "devices"].filter((k) => t.has(k));
    const kind = root[0] === "lightning" ? "sgm/LDM-style config: the trainer is nested under `lightning:`" : "LightningCLI config";
    if (keys.length) return { root, reason: `has a \`${root.join(".")}:\` mapping with ${keys.map((k) => `\`${k}\``).join(", ")} (${kind})` };
  }
  // LitGPT: top-level precision + checkpoint_dir/out_dir + train:.
  if (v.has("precision") && (v.has("checkpoint_dir") || v.has("out_dir")) && v.isSection("train")) return { root: [], reason: "has a top-level `precision` with `checkpoint_dir`/`out_dir` and `train:` (LitGPT config)", litgpt: true };
  // Hydra trainer config group file: a defaults list plus Trainer arguments at the top level.
  const defaults = v.entry("defaults");
  if (defaults?.value.kind === "array") {
    const keys = TRAINER_KEYS.filter((k) => v.has(k));
    if (keys.length >= 2 && (v.has("accelerator") || v.has("strategy") || v.has("precision"))) return { root: [], reason: `a Hydra trainer config: a \`defaults\` list with Lightning Trainer arguments (${keys.map((k) => `\`${k}\``).join(", ")})` };
  }
  return undefined;
}

export function detectLightning(doc: ConfigDocument): string | undefined {
  return locate(doc)?.reason;
}

export const lightningAnalyzer: FrameworkAnalyzer = {
  id: "lightning",
  formats: ["yaml"],
  detect: detectLightning,
  analyze: analyzeLightning,
};

type Family = "fsdp" | "deepspeed" | "model_parallel" | "ddp" | "single" | "xla" | "auto";

interface Strategy {
  family: Family;
  name: string;
  entry?: ConfigEntry;
  /** View of the strategy's init args (LightningCLI `init_args`, or Hydra keys next to `_target_`). */
  args?: View;
  stage?: number;
  /** Chosen by the launcher script (LitGPT), not written in the config: Lightning's own strategy checks do not apply. */
  derived?: boolean;
}

function strategyOf(t: View): Strategy {
  const s = t.str("strategy");
  const entry = t.entry("strategy");
  const classify = (name: string): Family => {
    const n = name.toLowerCase();
    if (/fsdp|fullyshardeddataparallel/.test(n)) return "fsdp";
    if (/deepspeed/.test(n)) return "deepspeed";
    if (/modelparallel/.test(n)) return "model_parallel";
    if (/xla|tpu/.test(n)) return "xla";
    if (/ddp|dp$/.test(n)) return "ddp";
    if (/single/.test(n)) return "single";
    return "auto";
  };
  if (s !== undefined) {
    const st = /deepspeed_stage_(\d)/.exec(s);
    return { family: classify(s), name: s, ...(entry ? { entry } : {}), ...(st ? { stage: Number(st[1]) } : {}) };
  }
  const cls = t.str("strategy", "class_path") ?? t.str("strategy", "_target_");
  if (cls) {
    const args = t.has("strategy", "init_args") ? t.at("strategy", "init_args") : t.at("strategy");
    const stage = args.int("stage");
    return { family: classify(cls.split(".").pop() ?? cls), name: cls.split(".").pop() ?? cls, args, ...(stage !== undefined ? { stage } : {}) };
  }
  return { family: "auto", name: "auto" };
}

/**
 * LitGPT picks the strategy itself from the device count: more than one device (devices × num_nodes) means
 * FSDPStrategy in finetune/full.py:107-114 and pretrain.py:142-143, and ModelParallelStrategy over
 * `fully_shard` without a policy in finetune/lora.py:152-161 (Lightning-AI/litgpt at v0.5.13); one device
 * means no strategy. `devices: auto` uses every visible GPU (utils.py:556), so FSDP on a multi-GPU machine.
 */
function litgptStrategy(t: View): Strategy {
  const e = t.entry("devices");
  const devices = devicesOf(t);
  const auto = e !== undefined && (e.value.value === "auto" || e.value.value === -1);
  const n = (devices ?? (auto ? 2 : 1)) * (t.int("num_nodes") ?? 1);
  if (n <= 1) return { family: "single", name: "LitGPT: one device, no strategy", derived: true };
  const lora = t.has("lora_r") || t.has("lora_alpha");
  const why = auto && devices === undefined ? "`devices: auto`: more than one visible GPU" : "more than one device";
  return lora ? { family: "model_parallel", name: `LitGPT LoRA: ModelParallelStrategy (FSDP2 without a policy), ${why}`, derived: true } : { family: "fsdp", name: `LitGPT: FSDPStrategy, ${why}`, derived: true };
}

function analyzeLightning(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const where = locate(doc) ?? { root: [], reason: "" };
  const t = new View(doc, where.root);
  const d = diagnostics("lightning");
  parseNoteDiagnostics(doc, d);
  const pe = t.entry("precision");
  const st = where.litgpt ? litgptStrategy(t) : strategyOf(t);
  const lv = lightningVersion(env);
  const accelerator = t.str("accelerator");

  // Precision value.
  let precision = "32-true";
  let valid = true;
  if (pe && pe.value.kind !== "null") {
    const raw = String(pe.value.value);
    if (CANONICAL.includes(raw)) precision = raw;
    else if (raw in LEGACY) {
      precision = LEGACY[raw]!;
      // Lightning warns only for the 16/bf16 aliases: `if str(precision)[:2] not in ("32", "64")`
      // (src/lightning/fabric/connector.py:570 at 2.6.5), so 32 and 64 are silent aliases.
      if (raw !== "32" && raw !== "64") d.add("PL2", "warning", pe.value.range, `\`precision: ${pe.value.raw ?? raw}\` is a legacy alias: Lightning accepts it with a deprecation warning and runs ${precision}. Write \`${precision}\`.`, [fix(`Use ${precision}`, [replaceValue(pe, precision)], true)]);
    } else {
      valid = false;
      const to = GUESS[raw.toLowerCase()] ?? nearest(raw, CANONICAL);
      d.add("PL1", "error", pe.value.range, `\`precision: ${pe.value.raw ?? raw}\` is not a Lightning precision: Trainer raises ValueError "Precision ${raw} is invalid". Allowed: ${CANONICAL.join(", ")} (legacy 16, bf16, 32, 64).${to ? ` Did you mean ${to}?` : ""}`, to ? [fix(`Use ${to}`, [replaceValue(pe, to)], true)] : []);
    }
  }
  const pRange = pe?.value.range;
  const te = precision.startsWith("transformer-engine");
  // PL3
  if (st.family === "fsdp" && valid && (precision === "64-true" || te)) {
    d.add("PL3", "error", pRange, `\`precision: ${precision}\` is not supported by the FSDP strategy: Lightning raises ValueError. Use bf16-mixed (or 32-true).`, pe ? [fix("Use bf16-mixed", [replaceValue(pe, "bf16-mixed")], true)] : []);
  }
  // PL4
  if (st.family === "deepspeed") {
    if (valid && (precision === "64-true" || te)) d.add("PL4", "error", pRange, `\`precision: ${precision}\` is not supported by the DeepSpeed strategy: Lightning raises ValueError.`, pe ? [fix("Use bf16-mixed", [replaceValue(pe, "bf16-mixed")], true)] : []);
    const alg = t.entry("gradient_clip_algorithm");
    if (alg && alg.value.value === "value") d.add("PL4", "error", alg.value.range, "`gradient_clip_algorithm: value` is not supported with DeepSpeed: Lightning raises MisconfigurationException. Use norm clipping.", [fix("Use norm", [replaceValue(alg, "norm")], true)]);
  }
  // PL5
  if (st.family === "model_parallel" && !st.derived && valid && (precision === "16-mixed" || precision === "64-true" || te)) {
    d.add("PL5", "error", pRange, `\`precision: ${precision}\` is not supported by ModelParallelStrategy (allowed: 32-true, bf16-mixed, bf16-true, 16-true): Lightning raises ValueError.`, pe ? [fix("Use bf16-mixed", [replaceValue(pe, "bf16-mixed")], true)] : []);
  }
  // PL6
  const clipVal = t.num("gradient_clip_val");
  const clipAlg = t.entry("gradient_clip_algorithm");
  if (st.family === "fsdp" && clipVal !== undefined && clipVal > 0 && (!clipAlg || clipAlg.value.value !== "value")) {
    const clipE = t.entry("gradient_clip_val")!;
    d.add("PL6", "error", clipE.range, `\`gradient_clip_val: ${clipVal}\` with the FSDP strategy clips by norm, which FSDPPrecision does not support: Lightning raises MisconfigurationException (Lightning-AI/pytorch-lightning#19235). Clip by value, or clip manually through the FSDP API.`, [
      clipAlg ? fix("Set gradient_clip_algorithm: value", [replaceValue(clipAlg, "value")], true) : fix("Add gradient_clip_algorithm: value", [insertLineAfter(doc, clipE.range, "gradient_clip_algorithm: value")], true),
    ]);
  }
  // PL7, PL8
  if (precision === "16-true" && pe) d.add("PL7", "warning", pe.value.range, "`precision: 16-true` casts the model to fp16 with **no loss scaling**: small gradients underflow to zero. Use 16-mixed (GradScaler) or bf16-mixed / bf16-true.", [fix("Use 16-mixed", [replaceValue(pe, "16-mixed")]), fix("Use bf16-mixed", [replaceValue(pe, "bf16-mixed")], true)]);
  if (precision === "bf16-true" && pe) d.add("PL8", "information", pe.value.range, `\`precision: bf16-true\` is pure bf16: ${pureLowPrecisionState("bf16")}${st.family === "fsdp" ? " (FSDP's warning about a full-precision copy does not apply: the module is already cast, Lightning-AI/pytorch-lightning#18717)" : ""}. Use bf16-mixed for fp32 master weights.`);
  // PL9
  if (st.family === "fsdp" && (precision === "bf16-mixed" || precision === "16-mixed") && pe) {
    const low = precision === "bf16-mixed" ? "bf16" : "fp16";
    const master = st.derived && fsdpInitsFp32(lv) === false ? `${low} parameters (LitGPT builds the model under \`fabric.init_module()\`, which used the policy's dtype before Lightning 2.6.4; ${lv.detail})` : "fp32 master weights";
    d.add("PL9", "information", pe.value.range, `FSDP with ${precision}: ${master}, ${low} compute, and **${low} gradient reduction and buffers** (Lightning's MixedPrecision sets reduce_dtype = buffer_dtype = ${low}). ${st.derived ? "LitGPT builds this FSDPStrategy itself (strategy chosen from the device count), so the config cannot change the reduce dtype." : "Pass `strategy.init_args.mixed_precision` for an fp32 reduction."}`);
  }
  // PL10
  const plugins = t.entriesUnder("plugins").filter((e) => /(class_path|_target_)$/.test(e.path[e.path.length - 1]!) && /Precision/.test(String(e.value.value)));
  const pluginStr = t.entry("plugins");
  const pluginPrecision = plugins[0] ?? (pluginStr && /precision/i.test(String(pluginStr.value.value)) ? pluginStr : undefined);
  if (pe && pluginPrecision) d.add("PL10", "error", pe.keyRange, `Both \`precision\` and a Precision plugin (${String(pluginPrecision.value.value)}) are set: Lightning raises ValueError "Received both \`precision=...\` and \`plugins=...\`". Keep one.`);
  // PL11
  if (precision === "16-mixed" && accelerator === "cpu" && pe) d.add("PL11", "information", pe.value.range, "`16-mixed` on `accelerator: cpu`: Lightning warns and switches to bf16-mixed (CPU autocast has no fp16).", [fix("Use bf16-mixed", [replaceValue(pe, "bf16-mixed")], true)]);
  // PL12
  const devices = devicesOf(t);
  const nodes = t.int("num_nodes") ?? 1;
  if (st.family === "model_parallel" && st.args) {
    const dp = st.args.int("data_parallel_size");
    const tp = st.args.int("tensor_parallel_size");
    if (dp !== undefined && tp !== undefined && devices !== undefined && dp * tp !== devices * nodes) {
      d.add("PL12", "error", st.args.keyRange("data_parallel_size"), `data_parallel_size × tensor_parallel_size = ${dp} × ${tp} = ${dp * tp}, but devices × num_nodes = ${devices} × ${nodes} = ${devices * nodes}: ModelParallelStrategy raises RuntimeError.`);
    }
  }

  // DeepSpeed config link.
  let ds: LinkedDs | undefined;
  const cfgRel = st.family === "deepspeed" ? st.args?.str("config") : undefined;
  if (cfgRel) {
    ds = loadDs(env, cfgRel);
    if (ds) {
      const req = requestedMode(new View(doc), "lightning");
      const c = dsConflict(ds.facts, req.mode, "lightning");
      if (c && pe) d.add("deepspeed/DS9", c.inferred ? "information" : "warning", pe.keyRange, `${req.label} here, but ${cfgRel} has ${c.what}. ${c.consequence}`);
    } else if (env.documentPath && !cfgRel.includes("${")) {
      const e = st.args?.entry("config");
      if (e) d.add("deepspeed-config-missing", "information", e.value.range, `The DeepSpeed config \`${cfgRel}\` was not found next to this file or in a folder above it, so its own settings cannot be checked. The run is still DeepSpeed (fp32 master weights in the ZeRO optimizer); shown with the precision block Lightning adds from \`precision\` when the file has none.`);
    }
  }
  yaml11Booleans(doc, d, () => false, looksBoolKey);

  // Resolution.
  let worldSize: Sourced<number> | undefined = settingWorldSize(settings.worldSize);
  if (!worldSize && devices !== undefined) worldSize = { value: devices * nodes, source: "devices", detail: `\`devices\` (${devices})${nodes > 1 ? ` × \`num_nodes\` (${nodes})` : ""}` };
  const r = resolve(precision, valid, st, ds, worldSize?.value, lv);
  if (r.table && worldSize?.value === 1) r.table.R = noReduce();
  const failed = launchErrors(d);
  const md = summaryMarkdown({ failed, reasonLine: where.reason || FORCED, framework: where.litgpt ? "Lightning (LitGPT)" : "Lightning", layoutName: r.layoutName, worldSize, layout: r.parallel, mechanism: r.mechanism, meaning: r.meaning, table: r.table, notes: r.notes, assumptions: [] });
  const hovers = hoversAt([pe?.keyRange, t.keyRange("strategy"), t.keyRange("devices"), t.keyRange("plugins"), t.keyRange("_target_")], md);
  const out: FrameworkAnalysis = { layoutName: r.layoutName, mechanism: failed.length ? "error" : r.mechanism, diagnostics: d.out, hovers, reportMarkdown: withPerOp(md, engineSpecFor(precision, st, r.parallel, worldSize?.value, r.table?.P.dtype)), inlayHints: precisionHint(pe?.value.range, r.table, failed.length > 0) };
  if (r.table) out.precision = toResolved(r.table);
  if (worldSize) out.worldSize = worldSize;
  if (r.parallel) out.parallel = r.parallel;
  return out;
}

function devicesOf(t: View): number | undefined {
  const e = t.entry("devices");
  if (!e) return undefined;
  if (e.value.kind === "integer" && (e.value.value as number) > 0) return e.value.value as number;
  if (e.value.kind === "array") return e.value.items?.length;
  if (e.value.kind === "string" && /^\d+$/.test(e.value.value as string)) return Number(e.value.value);
  if (e.value.kind === "string" && /^\d+(,\d+)*,?$/.test(e.value.value as string)) return (e.value.value as string).split(",").filter(Boolean).length;
  return undefined;
}

function resolve(precision: string, valid: boolean, st: Strategy, ds: LinkedDs | undefined, W: number | undefined, lv: LightningVersion): { layoutName: string; parallel?: ParallelLayout; mechanism: Mechanism; meaning: string; table?: PrecisionTable; notes: string[] } {
  const notes: string[] = [];
  const low: DType | undefined = precision.startsWith("bf16") ? "bfloat16" : precision.startsWith("16") ? "float16" : undefined;
  const lowName = low === "bfloat16" ? "bf16" : "fp16";
  const full: DType = precision === "64-true" ? "float64" : "float32";
  const name = st.derived
    ? st.family === "fsdp" ? "FSDP (LitGPT)" : st.family === "model_parallel" ? "FSDP2 (LitGPT LoRA, ModelParallelStrategy)" : "single device"
    : st.family === "fsdp" ? "FSDP" : st.family === "deepspeed" ? `DeepSpeed${st.stage !== undefined ? ` ZeRO-${st.stage}` : ""}` : st.family === "model_parallel" ? "ModelParallel (FSDP2+TP)" : st.family === "ddp" ? `DDP (${st.name})` : st.family === "xla" ? "XLA" : W && W > 1 ? "DDP (auto)" : "single device";
  const sharded = st.family === "fsdp" || (st.family === "model_parallel" && st.derived) || (st.family === "deepspeed" && st.stage === 3);
  const parallel = W ? layout(sharded ? { dp_shard: W } : { dp_replicate: W }) : undefined;
  const base = { layoutName: name, ...(parallel ? { parallel } : {}), notes };
  if (st.derived) notes.push(`Strategy: ${st.name} (LitGPT chooses it from \`devices\` × \`num_nodes\`; the config has no strategy key).`);
  if (!valid) return { ...base, mechanism: "error", meaning: "Lightning rejects the `precision` value before training." };
  if (st.family === "deepspeed") {
    if (ds) {
      const req = low === "bfloat16" ? "bf16" : low === "float16" ? "fp16" : undefined;
      // Lightning injects the block only when the DS config has none: treat the request like accelerate's fill.
      const f = { ...ds.facts };
      if (req === "bf16" && f.bf16Enabled === undefined) f.bf16Enabled = true;
      if (req === "fp16" && f.fp16Enabled === undefined) f.fp16Enabled = true;
      if (f.bf16Enabled === true) f.mode = "bf16";
      else if (f.fp16Enabled === true) f.mode = "fp16";
      // Lightning fills no "auto": with a 32-bit precision DeepSpeed drops it and runs fp32.
      const r = dsTable(f, req ?? "fp32");
      notes.push("Precision from the DeepSpeed strategy's config file (Lightning adds an fp16/bf16 block only when the file has none).");
      return { ...base, mechanism: r.mechanism, meaning: r.meaning, table: r.table };
    }
    if (!low) return { ...base, mechanism: "none", meaning: "DeepSpeed without a 16-bit mode: fp32.", table: all(full, `\`precision: ${precision}\``) };
    return {
      ...base,
      mechanism: "none",
      meaning: `Lightning adds \`${lowName}: {enabled: true}\` to the DeepSpeed config; DeepSpeed casts the module and keeps fp32 master weights; gradients reduced in ${lowName}.`,
      table: { P: dt("float32", "DeepSpeed ZeRO master weights"), C: dt(low, `\`precision: ${precision}\` → DeepSpeed`), G: dt(low, "DeepSpeed"), R: dt(low, "DeepSpeed (no `communication_data_type`)"), O: dt("float32", "DeepSpeed optimizer") },
    };
  }
  if (precision.startsWith("transformer-engine")) {
    const w: DType = precision.endsWith("float16") ? "float16" : "bfloat16";
    return { ...base, mechanism: "none", meaning: `TransformerEngine: ${w === "float16" ? "fp16" : "bf16"} weights, fp8 matmuls in TE layers.`, table: { P: dt(w, "`transformer-engine`"), C: dt("float8_e4m3fn", "TE layers (fp8)"), G: dt(w, "`transformer-engine`"), R: dt(w, "`transformer-engine`"), O: dt(w, "`transformer-engine`") } };
  }
  if (precision.endsWith("-true")) {
    if (!low) return { ...base, mechanism: "none", meaning: `everything in ${full === "float64" ? "fp64" : "fp32"}.`, table: all(full, `\`precision: ${precision}\``) };
    return {
      ...base,
      mechanism: "none",
      meaning: `**pure ${lowName}**: the module is cast to ${lowName}; no autocast, no fp32 master copy${low === "float16" ? ", no loss scaling" : ""}.`,
      table: all(low, `\`precision: ${precision}\` (module cast)`),
    };
  }
  // -mixed
  const src = `\`precision: ${precision}\``;
  if (st.family === "fsdp") {
    const lowInit = st.derived && fsdpInitsFp32(lv) === false;
    if (!st.derived) notes.push(`Parameters are fp32 when the model is built in fp32; ${fsdpInitsFp32(lv) === false ? `with ${lv.detail}, ` : "before Lightning 2.6.4, "}modules created in \`configure_model\` or under \`trainer.init_module()\` were built in ${lowName} (Lightning-AI/pytorch-lightning#21556, fixed in 2.6.4).`);
    return {
      ...base,
      mechanism: "fully_shard",
      meaning: lowInit ? `**${lowName} parameters** (LitGPT builds the model under \`fabric.init_module()\`, which used the policy's dtype before Lightning 2.6.4; ${lv.detail}), ${lowName} compute and ${lowName} gradient reduction.` : `fp32 parameters, ${lowName} compute through FSDP MixedPrecision plus autocast, and **${lowName} gradient reduction** (reduce_dtype = buffer_dtype = ${lowName}).`,
      table: fsdpMixedTable(low!, src, st, lv),
    };
  }
  if (st.family === "model_parallel" && st.derived) {
    return { ...base, mechanism: "autocast", meaning: `${lowName} autocast; LitGPT's \`fully_shard\` has no mixed-precision policy, so parameters, gradients, their reduction and optimizer state stay fp32.`, table: { P: dt("float32", "fully_shard without mp_policy (LitGPT parallelize_fn)"), C: dt(low!, `autocast (${src})`), G: dt("float32", "gradients of fp32 parameters"), R: dt("float32", "fully_shard reduces in the parameter dtype"), O: dt("float32", "optimizer over fp32 parameters") } };
  }
  if (st.family === "model_parallel") {
    notes.push("ModelParallelStrategy does not set a MixedPrecisionPolicy: the dtypes of the sharded parameters and the reduction are whatever `fully_shard(mp_policy=...)` in `configure_model` sets.");
    return { ...base, mechanism: "autocast", meaning: `${lowName} autocast; parameter and reduction dtypes come from your own \`fully_shard\` policy.`, table: { P: dt("float32", "user's configure_model (fp32 unless cast)"), C: dt(low!, `autocast (${src})`), G: dt("float32", "user's policy"), R: dt("float32", "user's mp_policy (fp32 unless set)"), O: dt("float32", "optimizer over the parameters") } };
  }
  return {
    ...base,
    mechanism: "autocast",
    meaning: `${lowName} autocast around forward; parameters, gradients and optimizer state stay fp32${low === "float16" ? "; GradScaler" : ""}.`,
    table: { P: dt("float32", "parameters stay fp32"), C: dt(low!, `autocast (${src})`), G: dt("float32", "gradients of fp32 parameters"), R: dt(W === 1 || !W ? "float32" : "float32", "DDP reduces in the gradient dtype"), O: dt("float32", "optimizer over fp32 parameters") },
  };
}

/** The engine's view of a Lightning run (see engineView.ts for what is modelled). */
function engineSpecFor(precision: string, st: Strategy, parallel: ParallelLayout | undefined, W: number | undefined, storedAs?: string): EngineSpec | undefined {
  if (st.family === "deepspeed" || st.family === "model_parallel" || st.family === "xla" || precision.startsWith("transformer-engine") || precision === "64-true") return undefined;
  const low: DType = precision.startsWith("bf16") ? "bfloat16" : precision.startsWith("16") ? "float16" : "float32";
  const multi = (W ?? 1) > 1;
  if (st.family === "fsdp") {
    const l = simLayout(parallel, true, false);
    // LitGPT on a Lightning before 2.6.4 builds the parameters in the policy dtype (see fsdpMixedTable).
    if (precision.endsWith("-mixed")) return { mechanism: "fully_shard", layout: l, ddp: false, param: low, reduce: low, storage: storedAs === low ? low : "float32" };
    return { mechanism: "fully_shard", layout: l, ddp: false, param: low, reduce: low, storage: low };
  }
  const l = simLayout(parallel, false, multi);
  if (precision.endsWith("-mixed")) return { mechanism: "autocast", layout: l, ddp: multi, param: low, reduce: "float32", storage: "float32" };
  return { mechanism: "none", layout: l, ddp: multi, param: low, reduce: low, storage: low };
}

/**
 * FSDPStrategy with a `-mixed` precision. Parameters are fp32, except for LitGPT (which builds the model under
 * `fabric.init_module()`) on a Lightning before 2.6.4, where that context used the policy's dtype (see
 * lightningVersion.ts). Unpinned, the newest Lightning is assumed and the row says so.
 */
function fsdpMixedTable(low: DType, src: string, st: Strategy, lv: LightningVersion): PrecisionTable {
  const fp32Init = fsdpInitsFp32(lv);
  const P = st.derived && fp32Init === false ? dt(low, `FSDPPrecision.module_init_context under \`fabric.init_module()\` (${lv.detail}; fp32 from 2.6.4)`) : dt("float32", `FSDPPrecision (fp32 init${st.derived ? `; ${lv.detail}; before 2.6.4 LitGPT's parameters were ${low === "bfloat16" ? "bf16" : "fp16"}` : ""})`);
  const lowParams = P.dtype === low;
  return { P, C: dt(low, `MixedPrecision param_dtype (${src})`), G: dt(lowParams ? low : "float32", lowParams ? "gradients of the low-precision parameters" : "sharded fp32 gradients"), R: dt(low, `MixedPrecision reduce_dtype (${src})`), O: dt(lowParams ? low : "float32", `optimizer over ${lowParams ? "the low-precision" : "fp32"} parameters`) };
}

function all(dtype: DType, from: string): PrecisionTable {
  return { P: dt(dtype, from), C: dt(dtype, from), G: dt(dtype, from), R: dt(dtype, from), O: dt(dtype, from) };
}
