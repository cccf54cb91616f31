/**
 * DeepSpeed JSON configs (spec other-frameworks.md §5): detection, the resolved precision per ZeRO stage
 * (§5.3), diagnostics DS1–DS9 (§5.4) and the link back to the YAML configs that reference the file.
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer, Mechanism, Sourced } from "../../analysis";
import type { ConfigDocument, ConfigEntry } from "../../model";
import { jsonDuplicateKeys, parseJsonDocument } from "../../parse/json";
import { parseYamlDocument } from "../../parse/yaml";
import type { DType, TextEdit } from "../../types";
import { referrersOf, standaloneLauncher, type Referrer } from "../common/deepspeedLinks";
import { diagnostics, type Diags, launchErrors } from "../common/diagnosticBuilder";
import { fix, replaceValue } from "../common/edits";
import { readLinked } from "../common/linkedFiles";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import { dt, launcherRow, noReduce, type PrecisionTable, toResolved } from "../common/precisionTable";
import { layout, settingWorldSize } from "../common/resolvedLayout";
import { firstContentChar, View } from "../common/view";

export type { DsMode } from "../common/deepspeedLinks";
import type { DsMode } from "../common/deepspeedLinks";

/** What a DeepSpeed config resolves to; also used by the YAML analysers that link to a DS file. */
export interface DsFacts {
  /** The mode DeepSpeed runs in (standalone reading: `"auto"` counts as disabled). */
  mode: DsMode;
  /** True when a precision `enabled` is `"auto"` (to be filled by HF Trainer/accelerate). */
  autoPrecision: boolean;
  bf16Enabled: boolean | "auto" | undefined;
  fp16Enabled: boolean | "auto" | undefined;
  bf16Entry?: ConfigEntry;
  fp16Entry?: ConfigEntry;
  stage: number | "auto" | undefined;
  commDtype?: string;
  gradAccumDtype?: string;
  gas?: number;
  micro?: number;
  trainBatch?: number;
  ampEnabled: boolean;
  autocast?: { enabled: boolean; dtype: string };
  masterBf16: boolean;
  optStatesBf16: boolean;
  offloadOptimizer?: string;
  offloadParam?: string;
  /** `optimizer.type` when it is a 1-bit optimizer that replaces the gradient all-reduce after warm-up. */
  compressedComm?: string;
}

/**
 * DeepSpeed's 1-bit optimizers turn the backward all-reduce off after `freeze_step` and exchange
 * compressed momentum instead (runtime/fp16/onebit/adam.py:250-256 at v0.19.5; zoadam.py, lamb.py alike).
 */
const ONE_BIT_OPTIMIZERS = ["onebitadam", "zerooneadam", "onebitlamb"];

const DS_DTYPE: Record<string, DType> = { fp32: "float32", fp16: "float16", bf16: "bfloat16", bfp16: "bfloat16", float32: "float32", float16: "float16", bfloat16: "bfloat16" };

/**
 * Detection is by content, whatever the extension: DeepSpeed JSON saved as `.yaml`/`.conf`, and gpt-neox
 * style YAML (DeepSpeed's keys next to NeoX's own) are DeepSpeed configs too. A precision block alone is
 * not enough (Axolotl/HF files have a top-level `bf16`): it must be a mapping next to a batch key.
 */
export function detectDeepSpeed(doc: ConfigDocument): string | undefined {
  const v = new View(doc);
  const where = doc.format === "json" ? "" : isNeox(v) ? ", gpt-neox style" : ` in ${doc.format.toUpperCase()}`;
  if (v.has("zero_optimization")) return `has a top-level \`zero_optimization\` block (DeepSpeed config${where})`;
  const precision = ["fp16", "bf16", "bfloat16"].find((k) => v.isSection(k) || v.has(k, "enabled"));
  const batch = ["train_batch_size", "train_micro_batch_size_per_gpu"].find((k) => v.has(k));
  if (precision && batch) return `has \`${precision}\` and \`${batch}\` at the top level (DeepSpeed config${where})`;
  return undefined;
}

/** gpt-neox configs carry DeepSpeed's keys next to NeoX's own parallelism keys. */
function isNeox(v: View): boolean {
  return v.has("pipe_parallel_size") || v.has("model_parallel_size");
}

/** Who fills a DeepSpeed `"auto"` value (spec §5.1: "auto" means the file is meant for HF Trainer/accelerate). */
export const AUTO_FILLED_BY = "the launcher (HF Trainer `--bf16`/`--fp16`, or accelerate `mixed_precision`)";

/** A JSON-style key can be inserted: a JSON file, or YAML written as one flow mapping (gpt-neox). */
function flowRoot(doc: ConfigDocument): boolean {
  return doc.format === "json" || firstContentChar(doc.text) === "{";
}

function enabled(v: View, block: string): boolean | "auto" | undefined {
  const e = v.entry(block, "enabled");
  if (!e) return v.has(block) ? false : undefined;
  if (e.value.kind === "boolean") return e.value.value as boolean;
  if (e.value.kind === "string" && e.value.value === "auto") return "auto";
  return undefined;
}

function numOrAuto(v: View, ...path: string[]): number | "auto" | undefined {
  if (v.str(...path) === "auto") return "auto";
  return v.int(...path);
}

export function dsFacts(v: View): DsFacts {
  const bf16Block = v.has("bf16") ? "bf16" : v.has("bfloat16") ? "bfloat16" : "bf16";
  const bf16Enabled = enabled(v, bf16Block);
  const fp16Enabled = enabled(v, "fp16");
  const stage = numOrAuto(v, "zero_optimization", "stage");
  const autocastOn = v.bool("torch_autocast", "enabled") === true;
  const f: DsFacts = {
    mode: bf16Enabled === true ? "bf16" : fp16Enabled === true ? "fp16" : "fp32",
    autoPrecision: bf16Enabled === "auto" || fp16Enabled === "auto",
    bf16Enabled,
    fp16Enabled,
    stage,
    ampEnabled: v.bool("amp", "enabled") === true,
    masterBf16: v.bool(bf16Block, "bf16_master_weights_and_grads") === true || v.bool("bf16_master_weights_and_grads") === true,
    optStatesBf16: v.bool(bf16Block, "bf16_optimizer_states") === true || v.bool("bf16_optimizer_states") === true,
  };
  const be = v.entry(bf16Block, "enabled");
  if (be) f.bf16Entry = be;
  const fe = v.entry("fp16", "enabled");
  if (fe) f.fp16Entry = fe;
  const comm = v.str("communication_data_type");
  if (comm) f.commDtype = comm;
  const acc = v.str("data_types", "grad_accum_dtype");
  if (acc) f.gradAccumDtype = acc;
  const gas = v.int("gradient_accumulation_steps");
  if (gas !== undefined) f.gas = gas;
  const micro = v.int("train_micro_batch_size_per_gpu");
  if (micro !== undefined) f.micro = micro;
  const tb = v.int("train_batch_size");
  if (tb !== undefined) f.trainBatch = tb;
  if (autocastOn) f.autocast = { enabled: true, dtype: v.str("torch_autocast", "dtype") ?? "bfloat16" };
  const oo = v.str("zero_optimization", "offload_optimizer", "device") ?? (v.bool("zero_optimization", "cpu_offload") ? "cpu" : undefined);
  if (oo && oo !== "none") f.offloadOptimizer = oo;
  const opt = v.str("optimizer", "type");
  if (opt && ONE_BIT_OPTIMIZERS.includes(opt.toLowerCase())) f.compressedComm = opt;
  const op = v.str("zero_optimization", "offload_param", "device");
  if (op && op !== "none") f.offloadParam = op;
  return f;
}

/** The precision table for a DS config (§5.3), with `requested` filling `"auto"` (HF Trainer/accelerate). */
export function dsTable(f: DsFacts, requested?: DsMode): { table: PrecisionTable; mechanism: Mechanism; meaning: string; setBy?: string } {
  let mode = f.mode;
  let via = mode === "bf16" ? "`bf16.enabled`" : mode === "fp16" ? "`fp16.enabled`" : "no `fp16`/`bf16` block enabled";
  if (f.autoPrecision && requested && mode === "fp32") {
    if ((requested === "bf16" && f.bf16Enabled === "auto") || (requested === "fp16" && f.fp16Enabled === "auto")) {
      mode = requested;
      via = `\`"auto"\` filled with ${requested} by the launching config`;
    }
  }
  const stage = typeof f.stage === "number" ? f.stage : 0;
  const stageText = f.stage === "auto" ? "ZeRO stage auto" : `ZeRO-${stage}`;
  if (mode === "fp32" && f.autoPrecision && !requested) return autoTable(f, stageText);
  // torch_autocast alone (no fp16/bf16 mode): parameters stay fp32. With a mode enabled, DeepSpeed still
  // casts the parameters to that mode first (engine.py `_configure_distributed_model`), so the mode wins.
  if (f.autocast && mode === "fp32") {
    const c = DS_DTYPE[f.autocast.dtype.replace(/^torch\./, "")] ?? "bfloat16";
    const comm = f.commDtype ? DS_DTYPE[f.commDtype] ?? "float32" : "float32";
    return {
      mechanism: "autocast",
      meaning: `DeepSpeed's torch_autocast: fp32 parameters, ${c} compute inside autocast (${stageText}).`,
      table: {
        P: dt("float32", "parameters stay fp32 under `torch_autocast`"),
        C: dt(c, "`torch_autocast.dtype`"),
        G: dt("float32", "gradients of fp32 parameters"),
        R: dt(comm, f.commDtype ? "`communication_data_type`" : "gradient dtype"),
        O: dt("float32", "optimizer over fp32 parameters"),
      },
    };
  }
  if (mode === "fp32") {
    const note = f.autoPrecision ? " (`\"auto\"` precision values are dropped when DeepSpeed runs standalone, so this is fp32 unless HF Trainer or accelerate fills them in)" : "";
    return {
      mechanism: "none",
      meaning: `no fp16/bf16 mode is enabled: everything in fp32${note}.`,
      table: { P: dt("float32", via), C: dt("float32", via), G: dt("float32", via), R: dt(f.commDtype ? DS_DTYPE[f.commDtype] ?? "float32" : "float32", f.commDtype ? "`communication_data_type`" : via), O: dt("float32", via) },
    };
  }
  const low: DType = mode === "bf16" ? "bfloat16" : "float16";
  const P: DType = mode === "bf16" && f.masterBf16 ? "bfloat16" : "float32";
  const O: DType = mode === "bf16" && f.optStatesBf16 ? "bfloat16" : "float32";
  const fp32Accum = f.gradAccumDtype && DS_DTYPE[f.gradAccumDtype] === "float32";
  const G: DType = fp32Accum ? "float32" : low;
  const R: DType = f.commDtype ? DS_DTYPE[f.commDtype] ?? low : low;
  const master =
    P === "float32"
      ? stage >= 1
        ? "fp32 master partitions in the ZeRO optimizer"
        : "fp32 master copy in the optimizer wrapper"
      : `\`bf16_master_weights_and_grads\`: no fp32 master copy, master weights and gradients in bf16, optimizer state in ${O === "bfloat16" ? "bf16 (`bf16_optimizer_states`)" : "fp32"}`;
  const autocastNote = f.autocast ? `; \`torch_autocast\` (${f.autocast.dtype.replace(/^torch\./, "")}) also runs, over parameters already cast to ${mode}` : "";
  return {
    mechanism: "none",
    meaning: `DeepSpeed casts the module to ${mode} (${via}); ${master}; gradients reduced in ${R === low ? mode : R} (${stageText})${autocastNote}.`,
    table: {
      P: dt(P, P === "float32" ? `${stageText} master weights` : "`bf16_master_weights_and_grads`"),
      C: dt(low, `module cast by ${via}${f.autocast ? " (torch_autocast on top)" : ""}`),
      G: dt(G, fp32Accum ? "`data_types.grad_accum_dtype`" : P === "bfloat16" ? "`bf16_master_weights_and_grads`" : `gradients of the ${mode} module (accumulated in ${mode})`),
      R: dt(R, `${f.commDtype ? "`communication_data_type`" : `${mode} mode (no \`communication_data_type\`)`}${f.compressedComm ? `, during the warm-up only: after \`freeze_step\`, ${f.compressedComm} exchanges 1-bit compressed momentum instead` : ""}`),
      O: dt(O, O === "float32" ? `${stageText} optimizer (fp32 states)` : "`bf16_optimizer_states`"),
    },
  };
}

/**
 * `"enabled": "auto"` with nobody known to fill it: the launcher decides. HF Trainer fills it from
 * `--bf16`/`--fp16`, accelerate from `mixed_precision`; standalone DeepSpeed drops it (fp32). Whatever is
 * picked, ZeRO keeps fp32 master weights and fp32 optimizer state, so only compute, gradients and the
 * reduction are open.
 */
function autoTable(f: DsFacts, stageText: string): { table: PrecisionTable; mechanism: Mechanism; meaning: string; setBy: string } {
  const open = "`\"enabled\": \"auto\"`: filled by the launcher";
  const comm = f.commDtype ? DS_DTYPE[f.commDtype] : undefined;
  return {
    mechanism: "none",
    setBy: AUTO_FILLED_BY,
    meaning: `precision is \`"auto"\`, so ${AUTO_FILLED_BY} sets it: bf16 or fp16 with fp32 master weights in the ZeRO optimizer (${stageText}), or fp32 when DeepSpeed runs standalone (it drops "auto" values).`,
    table: {
      P: dt("float32", `${stageText} master weights (fp32 in every mode)`),
      C: launcherRow(open),
      G: launcherRow(open),
      R: comm ? dt(comm, "`communication_data_type`") : launcherRow(`${open} (the enabled mode, unless \`communication_data_type\` is set)`),
      O: dt("float32", `${stageText} optimizer (fp32 states in every mode)`),
    },
  };
}

function layoutName(stage: number | "auto" | undefined): string {
  if (stage === "auto") return "DeepSpeed (ZeRO stage auto)";
  if (!stage) return "DeepSpeed data parallel (no ZeRO)";
  return `DeepSpeed ZeRO-${stage}`;
}

export const deepspeedAnalyzer: FrameworkAnalyzer = {
  id: "deepspeed",
  formats: ["json", "yaml"],
  detect: detectDeepSpeed,
  analyze(doc, settings, env) {
    return analyzeDeepSpeed(doc, settings, env);
  },
};

function analyzeDeepSpeed(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const v = new View(doc);
  const f = dsFacts(v);
  const d = diagnostics("deepspeed");
  const referrers = referrersOf(env);
  const requested = referrers.find((r) => r.mode)?.mode;

  // World size: setting, a referencing launcher config, or the batch trio.
  let worldSize: Sourced<number> | undefined = settingWorldSize(settings.worldSize);
  const refWs = referrers.find((r) => r.worldSize);
  if (!worldSize && refWs?.worldSize) worldSize = { value: refWs.worldSize, source: "linked-config", detail: `${refWs.relPath} (${refWs.framework}), which uses this file` };
  if (!worldSize && f.trainBatch && f.micro && f.gas && f.trainBatch % (f.micro * f.gas) === 0) {
    worldSize = { value: f.trainBatch / (f.micro * f.gas), source: "batch-trio", detail: "from train_batch_size / (train_micro_batch_size_per_gpu × gradient_accumulation_steps)" };
  }

  rules(doc, v, f, d, worldSize);
  for (const dup of jsonDuplicateKeys(doc)) {
    d.add("duplicate-key", "error", dup.range, `\`${dup.path.join(".")}\` is defined twice in the same object; DeepSpeed refuses duplicate keys when it loads the config (ValueError from dict_raise_error_on_duplicate_keys).`);
  }
  // DS3: "auto" precision in a file launched standalone.
  const launcher = f.autoPrecision && !referrers.length ? standaloneLauncher(env) : undefined;
  if (launcher) {
    for (const e of [f.bf16Entry, f.fp16Entry]) {
      if (!e || e.value.value !== "auto") continue;
      const block = e.path[0]!;
      d.add("DS3", "warning", e.value.range, `\`${block}.enabled: "auto"\` in a file the \`deepspeed\` launcher runs directly (${launcher}): standalone DeepSpeed drops "auto" values, so ${block} is off and the run trains in ${f.mode}. "auto" only works when HF Trainer or accelerate fills it in.`, [
        fix(`Set ${block}.enabled to true`, [replaceValue(e, "true")], block !== "fp16"),
        fix(`Set ${block}.enabled to false`, [replaceValue(e, "false")]),
      ]);
    }
  }
  // DS9 seen from this side: the configs that use this file ask for another mode.
  for (const r of referrers) ds9FromJson(f, r, d);

  // A `deepspeed` launcher script running this file is standalone DeepSpeed: "auto" is dropped (fp32).
  const { table, mechanism, meaning, setBy } = dsTable(f, requested ?? (launcher ? "fp32" : undefined));
  if (worldSize?.value === 1) table.R = noReduce();
  const stage = typeof f.stage === "number" ? f.stage : 0;
  const ws = worldSize?.value;
  const parallel = ws ? layout(stage === 3 ? { dp_shard: ws } : { dp_replicate: ws }) : undefined;
  const name = layoutName(f.stage);
  const notes: string[] = [];
  if (f.offloadOptimizer) notes.push(`Optimizer state offloaded to ${f.offloadOptimizer}.`);
  if (f.offloadParam) notes.push(`Parameters offloaded to ${f.offloadParam}.`);
  if (isNeox(v)) notes.push("gpt-neox config: NeoX hands its DeepSpeed keys (`fp16`/`bf16`, `zero_optimization`, batch sizes) to DeepSpeed; its own keys (`pipe_parallel_size`, `model_parallel_size`, `te_*` Transformer Engine options, …) are not modelled here.");
  if (referrers.length) notes.push(`Used by: ${referrers.map((r) => `${r.relPath} (${r.framework})`).join(", ")}.`);
  const assumptions: string[] = [];
  if (f.autoPrecision) assumptions.push('`ds-auto-dropped` — standalone DeepSpeed drops `"auto"` values (DeepSpeedConfigModel filters them), so `"enabled": "auto"` means off unless HF Trainer/accelerate fills it in [spec §5.2, inferred].');
  const failed = launchErrors(d);
  const md = summaryMarkdown({ failed, reasonLine: detectDeepSpeed(doc) ?? FORCED, framework: "DeepSpeed", layoutName: name, worldSize, layout: parallel, mechanism, ...(setBy ? { mechanismText: `set by ${setBy}` } : {}), meaning, table, notes, assumptions });
  const hovers = hoversAt(
    [f.bf16Entry?.keyRange, f.fp16Entry?.keyRange, v.keyRange("bf16"), v.keyRange("bfloat16"), v.keyRange("fp16"), v.keyRange("zero_optimization"), v.keyRange("zero_optimization", "stage"), v.keyRange("communication_data_type")],
    md,
  );
  const out: FrameworkAnalysis = { layoutName: name, mechanism: failed.length ? "error" : mechanism, precision: toResolved(table, setBy), diagnostics: d.out, hovers, reportMarkdown: md, inlayHints: precisionHint((f.bf16Enabled === true ? f.bf16Entry : f.fp16Enabled === true ? f.fp16Entry : (f.bf16Entry ?? f.fp16Entry))?.value.range, table, failed.length > 0) };
  if (worldSize) out.worldSize = worldSize;
  if (parallel) out.parallel = parallel;
  return out;
}

function rules(doc: ConfigDocument, v: View, f: DsFacts, d: Diags, worldSize: Sourced<number> | undefined): void {
  // DS1: both modes, or a mode with Apex amp.
  if (f.bf16Enabled === true && f.fp16Enabled === true) {
    const msg = "`fp16.enabled` and `bf16.enabled` are both true: DeepSpeed refuses to start (AssertionError \"bfloat16 and fp16 modes cannot be simultaneously enabled\"). Keep one.";
    const fixes = [fix("Disable fp16 (keep bf16)", [replaceValue(f.fp16Entry!, "false")], true), fix("Disable bf16 (keep fp16)", [replaceValue(f.bf16Entry!, "false")])];
    d.add("DS1", "error", f.bf16Entry!.range, msg, fixes);
    d.add("DS1", "error", f.fp16Entry!.range, msg, fixes);
  }
  const amp = v.entry("amp", "enabled");
  if (f.ampEnabled && amp && (f.bf16Enabled === true || f.fp16Enabled === true)) {
    d.add("DS1", "error", amp.range, `\`amp.enabled\` (Apex AMP) is combined with DeepSpeed's own ${f.bf16Enabled === true ? "bf16" : "fp16"} mode: DeepSpeed raises NotImplementedError. Use one mixed-precision mode.`, [fix("Disable Apex amp", [replaceValue(amp, "false")], true)]);
  }
  // DS2: amp with ZeRO.
  if (f.ampEnabled && amp && typeof f.stage === "number" && f.stage >= 1) {
    d.add("DS2", "error", amp.range, `\`amp.enabled\` with ZeRO stage ${f.stage}: DeepSpeed asserts "Amp and ZeRO are not currently compatible". Use \`bf16\`/\`fp16\` instead of Apex amp.`, [fix("Disable Apex amp", [replaceValue(amp, "false")], true)]);
  }
  // DS3 is raised only with evidence of a standalone launch (see standaloneEvidence); see analyzeDeepSpeed.
  // DS4: bf16 master/optimizer options.
  const bf16Block = v.has("bfloat16") && !v.has("bf16") ? "bfloat16" : "bf16";
  const optStates = v.entry(bf16Block, "bf16_optimizer_states") ?? v.entry("bf16_optimizer_states");
  const master = v.entry(bf16Block, "bf16_master_weights_and_grads") ?? v.entry("bf16_master_weights_and_grads");
  if (f.optStatesBf16 && !f.masterBf16 && optStates) {
    d.add("DS4", "error", optStates.range, "`bf16_optimizer_states` requires `bf16_master_weights_and_grads: true`; DeepSpeed rejects the config otherwise.", [
      fix("Remove bf16_optimizer_states", [replaceValue(optStates, "false")], true),
    ]);
  }
  for (const e of [master, optStates]) {
    if (e && e.value.value === true && (f.stage === 0 || f.stage === undefined)) {
      d.add("DS4", "error", e.range, `\`${e.path[e.path.length - 1]}\` works with ZeRO stages 1–3 only, and this config runs ${f.stage === undefined ? "without `zero_optimization.stage` (stage 0)" : "ZeRO stage 0"}.`);
    }
  }
  const pd = v.entry("data_types", "param_dtype");
  if (pd && pd.value.kind === "string") {
    const want = DS_DTYPE[pd.value.value as string];
    const mode: DType = f.mode === "bf16" ? "bfloat16" : f.mode === "fp16" ? "float16" : "float32";
    if (want && want !== mode) {
      d.add("DS4", "error", pd.value.range, `\`data_types.param_dtype\` is "${pd.value.value as string}" but the enabled mode is ${f.mode}: DeepSpeed asserts that they match.`, [
        fix(`Set param_dtype to "${f.mode}"`, [replaceValue(pd, `"${f.mode}"`)], true),
      ]);
    }
  }
  // DS5: bf16 gradient accumulation in bf16.
  if (f.bf16Enabled === true && f.gas !== undefined && f.gas > 1 && !(f.gradAccumDtype && DS_DTYPE[f.gradAccumDtype] === "float32")) {
    const gasEntry = v.entry("gradient_accumulation_steps")!;
    d.add("DS5", "warning", gasEntry.range, `bf16 with gradient_accumulation_steps = ${f.gas}: gradients are accumulated in bf16 across the ${f.gas} micro-steps, so small contributions round away. Set \`data_types.grad_accum_dtype: "fp32"\` to accumulate in fp32.`, flowRoot(doc) ? [
      fix('Accumulate in fp32 (data_types.grad_accum_dtype: "fp32")', [jsonAddKey(doc, v, ["data_types"], "grad_accum_dtype", '"fp32"')], true),
    ] : []);
  }
  // DS6: 16-bit gradient averaging.
  // Not with `bf16_master_weights_and_grads`: the gradients are kept in bf16 on purpose there
  // (precision_config.py:63 at v0.19.5), so an fp32 reduction is not what that file is after. Not with a
  // 1-bit optimizer: after warm-up it replaces the gradient all-reduce (see ONE_BIT_OPTIMIZERS).
  if ((f.bf16Enabled === true) !== (f.fp16Enabled === true) && !f.commDtype && !f.masterBf16 && !f.compressedComm) {
    const e = f.bf16Enabled === true ? f.bf16Entry! : f.fp16Entry!;
    const mode = f.bf16Enabled === true ? "bf16" : "fp16";
    d.add("DS6", "information", e.range, `${mode} without \`communication_data_type\`: gradients are averaged across ranks in ${mode}. Set \`"communication_data_type": "fp32"\` for a full-precision reduction (accelerate does this itself on ROCm).`, flowRoot(doc) ? [
      fix('Reduce gradients in fp32 ("communication_data_type": "fp32")', [jsonAddKey(doc, v, [], "communication_data_type", '"fp32"')]),
    ] : []);
  }
  // DS7: invalid values.
  const comm = v.entry("communication_data_type");
  if (comm && !(comm.value.kind === "string" && ["fp32", "fp16", "bf16"].includes(comm.value.value as string)) && !(comm.value.kind === "null")) {
    d.add("DS7", "error", comm.value.range, `\`communication_data_type\` must be "fp32", "fp16" or "bf16"; DeepSpeed raises ValueError for ${comm.value.raw ?? String(comm.value.value)}.`, [
      fix('Use "fp32"', [replaceValue(comm, '"fp32"')], true),
    ]);
  }
  if (f.fp16Enabled === true) {
    const ls = v.num("fp16", "loss_scale");
    const lsE = v.entry("fp16", "loss_scale");
    if (ls !== undefined && lsE && (ls < 0 || !Number.isFinite(ls))) d.add("DS7", "error", lsE.value.range, `\`fp16.loss_scale\` is ${ls}; it must be ≥ 0 (0 means dynamic loss scaling).`, [fix("Use dynamic loss scaling (0)", [replaceValue(lsE, "0")], true)]);
    const dynamic = ls === undefined || ls === 0;
    for (const k of ["loss_scale_window", "min_loss_scale"]) {
      const x = v.num("fp16", k);
      const e = v.entry("fp16", k);
      if (dynamic && e && x !== undefined && x <= 0) d.add("DS7", "error", e.value.range, `\`fp16.${k}\` is ${x}; with dynamic loss scaling it must be > 0.`, [fix(`Set ${k} to ${k === "min_loss_scale" ? 1 : 1000}`, [replaceValue(e, k === "min_loss_scale" ? "1" : "1000")], true)]);
    }
  }
  const mgn = v.entry("optimizer", "params", "max_grad_norm");
  if (mgn) d.add("DS7", "error", mgn.range, "`optimizer.params.max_grad_norm` is rejected by DeepSpeed (ValueError); use the top-level `gradient_clipping` instead.");
  // DS8: batch trio.
  if (f.trainBatch !== undefined && f.micro !== undefined) {
    const gas = f.gas ?? 1;
    const e = v.entry("train_batch_size")!;
    if (f.trainBatch % (f.micro * gas) !== 0) {
      d.add("DS8", "error", e.value.range, `train_batch_size (${f.trainBatch}) is not a multiple of train_micro_batch_size_per_gpu × gradient_accumulation_steps (${f.micro} × ${gas}); DeepSpeed asserts train_batch_size = micro × accumulation × world size for every world size.`);
    } else if (worldSize && worldSize.source !== "batch-trio" && f.trainBatch !== f.micro * gas * worldSize.value) {
      d.add("DS8", "error", e.value.range, `train_batch_size (${f.trainBatch}) ≠ ${f.micro} × ${gas} × ${worldSize.value} (micro batch × accumulation × world size, world size ${worldSize.detail}); DeepSpeed asserts they are equal.`, [
        fix(`Set train_batch_size to ${f.micro * gas * worldSize.value}`, [replaceValue(e, String(f.micro * gas * worldSize.value))], true),
      ]);
    }
  }
}

/** DS9 reported on the JSON side: a referencing config requests another mode than the one enabled here. */
function ds9FromJson(f: DsFacts, r: Referrer, d: Diags): void {
  const c = dsConflict(f, r.mode, r.framework);
  if (!c) return;
  const e = c.entry;
  d.add("DS9", c.inferred ? "information" : "warning", e.range, `${c.what} here, but ${r.relPath} (${r.framework}), which uses this file, sets ${r.label}. ${c.consequence}`);
}

export interface DsConflict {
  /** The DS entry that conflicts. */
  entry: ConfigEntry;
  what: string;
  consequence: string;
  /** The consequence is the spec's [inferred] reading (reported as Information). */
  inferred?: boolean;
}

/** The conflict between a DS config and a requested mode (from accelerate/Lightning/Axolotl), or undefined. */
export function dsConflict(f: DsFacts, requested: DsMode | undefined, by: "accelerate" | "axolotl" | "lightning" = "accelerate"): DsConflict | undefined {
  if (!requested) return undefined;
  const clash =
    by === "lightning"
      ? "Lightning only adds its precision block when the file has none, so DeepSpeed sees both modes and asserts \"bfloat16 and fp16 modes cannot be simultaneously enabled\" [inferred]."
      : by === "axolotl"
        ? "The HF Trainer refuses DeepSpeed values that contradict its own bf16/fp16 arguments, so the launch fails."
        : "accelerate raises ValueError (\"`--mixed_precision` arg cannot be set to ... when ... is set in the DeepSpeed config file\").";
  const lightningInferred = by === "lightning";
  if (requested === "bf16" && f.fp16Enabled === true && f.fp16Entry) return { entry: f.fp16Entry, what: "`fp16.enabled: true`", consequence: clash, inferred: lightningInferred };
  if (requested === "fp16" && f.bf16Enabled === true && f.bf16Entry) return { entry: f.bf16Entry, what: "`bf16.enabled: true`", consequence: clash, inferred: lightningInferred };
  if (requested === "bf16" && f.bf16Enabled === false && f.bf16Entry) return { entry: f.bf16Entry, what: "`bf16.enabled: false`", consequence: "An explicit false is not overridden, so the run silently trains without bf16 [inferred].", inferred: true };
  if (requested === "fp16" && f.fp16Enabled === false && f.fp16Entry) return { entry: f.fp16Entry, what: "`fp16.enabled: false`", consequence: "An explicit false is not overridden, so the run silently trains without fp16 [inferred].", inferred: true };
  if (requested === "fp32" && (f.bf16Enabled === true || f.fp16Enabled === true)) {
    const e = (f.bf16Enabled === true ? f.bf16Entry : f.fp16Entry)!;
    return { entry: e, what: `\`${f.bf16Enabled === true ? "bf16" : "fp16"}.enabled: true\``, consequence: `The DeepSpeed file wins: the run trains in ${f.mode}, not fp32.` };
  }
  return undefined;
}

/** Adds `"key": value` to the object at `objPath` (creating it at the root when absent). */
export function jsonAddKey(doc: ConfigDocument, v: View, objPath: string[], key: string, valueText: string): TextEdit {
  const eol = doc.lines.eol;
  if (objPath.length && v.has(...objPath)) {
    const r = v.sectionRange(...objPath)!;
    const start = doc.lines.offsetAt(r.start);
    const brace = doc.text.indexOf("{", start);
    const empty = /^\{\s*\}/.test(doc.text.slice(brace));
    const at = doc.lines.positionAt(brace + 1);
    const ind = /^\s*/.exec(doc.lines.lineText(r.start.line))![0];
    return { range: { start: at, end: empty ? doc.lines.positionAt(doc.text.indexOf("}", brace)) : at }, newText: `${eol}${ind}  "${key}": ${valueText}${empty ? `${eol}${ind}` : ","}` };
  }
  const brace = doc.text.indexOf("{");
  const at = doc.lines.positionAt(brace + 1);
  const firstKey = doc.entries[0]?.keyRange ?? doc.sections[0]?.headerRange;
  const ind = firstKey ? /^\s*/.exec(doc.lines.lineText(firstKey.start.line))![0] || "  " : "  ";
  const body = objPath.length ? `"${objPath[0]}": {"${key}": ${valueText}}` : `"${key}": ${valueText}`;
  const hasOthers = doc.entries.length > 0 || doc.sections.length > 0;
  return { range: { start: at, end: at }, newText: `${eol}${ind}${body}${hasOthers ? "," : ""}` };
}

/** A DeepSpeed file named by a YAML config, parsed and resolved. */
export interface LinkedDs {
  path: string;
  doc: ConfigDocument;
  view: View;
  facts: DsFacts;
  /** Not on disk: read from Axolotl's bundled table, or assumed (unknown content). */
  missing?: "bundled" | "unknown";
}

export function loadDs(env: AnalysisEnv, rel: string): LinkedDs | undefined {
  const l = readLinked(env, rel);
  if (!l) return undefined;
  // A DeepSpeed file may be YAML too (gpt-neox style, or JSON with `#` comments in a .yaml/.conf file).
  const yaml = /\.ya?ml$/i.test(l.path) || (!/\.json$/i.test(l.path) && /^[ \t]*#/m.test(l.text));
  const doc = yaml ? parseYamlDocument(`file://${l.path}`, l.text) : parseJsonDocument(`file://${l.path}`, l.text);
  if (doc.syntaxErrors.length || doc.skipped) return undefined;
  const view = new View(doc);
  return { path: l.path, doc, view, facts: dsFacts(view) };
}

