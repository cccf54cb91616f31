/**
 * Reads the config keys the simulator needs from a torchtitan document (TOML-era key names, legacy
 * spellings included). The caller supplies what the analyser already decided: mechanism, resolved
 * layout, DDP, and the precision knobs in effect.
 */
import { entriesUnder, findEntry, findSection, type ConfigDocument, type ConfigEntry } from "../model/document";
import type { ActivationCheckpointMode, Float8Input, SimulationInput } from "./types";

/** What the analyser has already decided (mechanism, layout, dtypes); the rest is read from the config. */
export type DecidedInputs = Pick<SimulationInput, "mechanism" | "layout" | "ddp" | "paramDtype" | "reduceDtype" | "trainingDtype" | "mechanismReason"> & {
  /** Main-branch date of the targeted torchtitan version (TitanVersion.date); decides converter names. */
  versionDate?: string;
};

const str = (e: ConfigEntry | undefined): string | undefined => (e?.value.kind === "string" ? (e.value.value as string) : undefined);
const num = (e: ConfigEntry | undefined): number | undefined => (e && (e.value.kind === "integer" || e.value.kind === "float") ? (e.value.value as number) : undefined);
const bool = (e: ConfigEntry | undefined): boolean | undefined => (e?.value.kind === "boolean" ? (e.value.value as boolean) : undefined);
const strList = (e: ConfigEntry | undefined): string[] | undefined =>
  e?.value.kind === "array" ? (e.value.items ?? []).filter((i) => i.kind === "string").map((i) => i.value as string) : undefined;

/** First entry found among alternative key paths (new name first, legacy names after). */
function first(doc: ConfigDocument, ...paths: string[][]): ConfigEntry | undefined {
  for (const p of paths) {
    const e = findEntry(doc, ...p);
    if (e) return e;
  }
  return undefined;
}

/** The float8 linear converter, if active for the version: converter names and config tables by era (torchtitan.md §2.3, §4.3). */
export function readFloat8(doc: ConfigDocument, versionDate = "2026-02-20"): Float8Input | undefined {
  const converters = strList(findEntry(doc, "model", "converters")) ?? [];
  const legacyName = converters.includes("float8"); // registered 2025-02-15 … 2025-09-26
  const legacyOk = legacyName && versionDate >= "2025-02-15" && versionDate < "2025-09-26";
  const dense = converters.includes("quantize.dense.float8") && versionDate >= "2025-09-26" && versionDate < "2025-09-30";
  const linear = converters.includes("quantize.linear.float8") && versionDate >= "2025-09-30";
  const oldFlag = bool(findEntry(doc, "float8", "enable_float8_linear")) === true && versionDate < "2025-02-15";
  if (!legacyOk && !dense && !linear && !oldFlag) return undefined;
  const table = linear ? ["quantize", "linear", "float8"] : dense ? ["quantize", "dense", "float8"] : ["float8"];
  const out: Float8Input = {};
  const recipe = str(findEntry(doc, ...table, "recipe_name"));
  if (recipe) out.recipe = recipe;
  const ag = bool(findEntry(doc, ...table, "enable_fsdp_float8_all_gather"));
  if (ag !== undefined) out.fsdpFloat8AllGather = ag;
  const filter = strList(findEntry(doc, ...table, "filter_fqns"));
  if (filter) out.filterFqns = filter;
  // Before filter_fqns became configurable (2025-04-07, torchtitan #1063) the converter skipped `output`
  // unconditionally (float8.py `module_filter_fn=lambda mod, fqn: fqn != "output"`).
  else if (versionDate < "2025-04-07") out.filterFqns = ["output"];
  // parallelize tests `"float8" in model.converters`: true only for the legacy converter name.
  out.float8TensorParallel = legacyName || oldFlag;
  return out;
}

const AC_MODES: readonly ActivationCheckpointMode[] = ["none", "full", "selective", "memory_budget"];

export function simulationInputFromConfig(doc: ConfigDocument, decided: DecidedInputs): SimulationInput {
  const input: SimulationInput = {
    mechanism: decided.mechanism,
    layout: decided.layout,
    ddp: decided.ddp,
    paramDtype: decided.paramDtype,
    reduceDtype: decided.reduceDtype,
    trainingDtype: decided.trainingDtype,
    castForwardInputs: true, // TOML era: FSDP's default; LLMs switched to False only on 2026-04-08
  };
  if (decided.mechanismReason) input.mechanismReason = decided.mechanismReason;
  const name = str(findEntry(doc, "model", "name"));
  const flavor = str(findEntry(doc, "model", "flavor"));
  input.model = { name: name ?? "llama3", flavor: flavor ?? "debugmodel" };
  const f8 = readFloat8(doc, decided.versionDate);
  if (f8) input.float8 = f8;
  const lbs = num(first(doc, ["training", "local_batch_size"], ["training", "batch_size"]));
  if (lbs !== undefined && lbs > 0) input.localBatchSize = lbs;
  const seq = num(findEntry(doc, "training", "seq_len"));
  if (seq !== undefined && seq > 0) input.seqLen = seq;
  const mode = str(findEntry(doc, "activation_checkpoint", "mode"));
  if (mode && (AC_MODES as readonly string[]).includes(mode)) input.activationCheckpoint = mode as ActivationCheckpointMode;
  const sac = findEntry(doc, "activation_checkpoint", "selective_ac_option");
  const sacValue = str(sac) ?? (num(sac) !== undefined ? String(num(sac)) : undefined);
  if (sacValue) input.selectiveAcOption = sacValue;
  const budget = num(findEntry(doc, "activation_checkpoint", "memory_budget"));
  if (budget !== undefined) input.memoryBudget = budget;
  const mb = num(first(doc, ["parallelism", "pipeline_parallel_microbatch_size"]));
  if (mb !== undefined && mb > 0) input.ppMicrobatchSize = mb;
  // Before 2025-04-07 (torchtitan #1073) the count was configured instead, defaulting to the pp degree.
  const date = decided.versionDate ?? "2026-02-20";
  if (date < "2025-04-07") {
    const n = num(first(doc, ["parallelism", "pipeline_parallel_microbatches"], ["experimental", "pipeline_parallel_microbatches"]));
    input.ppMicrobatches = n !== undefined && n > 0 ? n : Math.max(1, decided.layout.pp);
  }
  const compile = readCompile(doc, date);
  if (compile) input.compile = compile;
  if (bool(first(doc, ["training", "enable_cpu_offload"])) === true) input.cpuOffload = true;
  if (bool(first(doc, ["parallelism", "enable_async_tensor_parallel"], ["experimental", "enable_async_tensor_parallel"])) === true) input.asyncTp = true;
  const sched = str(first(doc, ["parallelism", "pipeline_parallel_schedule"], ["experimental", "pipeline_parallel_schedule"]));
  if (sched) input.ppSchedule = sched;
  const reshard = str(first(doc, ["parallelism", "fsdp_reshard_after_forward"], ["training", "fsdp_reshard_after_forward"]));
  if (reshard === "default" || reshard === "always" || reshard === "never") input.reshardAfterForward = reshard;
  const noLossParallel = bool(first(doc, ["parallelism", "disable_loss_parallel"], ["training", "disable_loss_parallel"]));
  if (noLossParallel !== undefined) input.lossParallel = !noLossParallel;
  else if (findSection(doc, "training") && entriesUnder(doc, "training").some((e) => e.path[1] === "enable_loss_parallel")) {
    input.lossParallel = bool(findEntry(doc, "training", "enable_loss_parallel")) ?? true;
  }
  return input;
}

/**
 * What torch.compile wraps. `[compile] enable` + `components` (default ["model", "loss"]) in later
 * configs; `training.compile` before: the model always, the loss only while train.py compiled it
 * (2024-10-22 … 2024-12-18, commits e10cb94 / e8977b0, and again from 2025-04-02, bbb1b61).
 */
export function readCompile(doc: ConfigDocument, versionDate: string): { model: boolean; loss: boolean } | undefined {
  if (bool(findEntry(doc, "compile", "enable")) === true) {
    const comps = strList(findEntry(doc, "compile", "components")) ?? ["model", "loss"];
    return { model: comps.includes("model"), loss: comps.includes("loss") };
  }
  if (bool(findEntry(doc, "training", "compile")) === true) {
    const loss = (versionDate >= "2024-10-22" && versionDate < "2024-12-18") || versionDate >= "2025-04-02";
    return { model: true, loss };
  }
  return undefined;
}
