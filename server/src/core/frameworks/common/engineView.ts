/**
 * The per-op dtype view for YAML/JSON frameworks: maps a resolved configuration onto the precision
 * engine's inputs (server/src/core/engine, a simulated torchtitan Llama-3 step) where the engine's model
 * applies, and renders it for the full report (code lens / `explain`).
 *
 * Where it applies (the engine knows three mechanisms, with torchtitan's meaning):
 * - FSDP with a mixed-precision policy (accelerate FSDP, Lightning FSDP -mixed, Axolotl FSDP1) → `fully_shard`
 *   with fp32 storage and the policy's param/reduce dtypes;
 * - pure low-precision training under FSDP (torchtune, Lightning -true, Axolotl full fine-tune on FSDP2) →
 *   `fully_shard` with storage = param = reduce = the low dtype (a no-op policy);
 * - torch.autocast (accelerate/Lightning DDP -mixed, Axolotl DDP) → `autocast`;
 * - no mixed precision on one device or DDP → `none`.
 * Not modelled (no view): DeepSpeed (module cast with fp32 master partitions inside the optimizer), LoRA
 * adapters, Megatron, TransformerEngine, user-defined ModelParallelStrategy policies.
 *
 * Assumption `engine-reference-graph`: the engine simulates torchtitan's Llama-3 debug model; the dtype of
 * each op follows the same PyTorch rules for any decoder transformer, but the memory figures are for the
 * reference model, not the user's.
 */
import type { Mechanism, ParallelLayout } from "../../analysis";
import { renderSimulationMarkdown, simulate } from "../../engine";
import type { DType } from "../../model/types";

export interface EngineSpec {
  mechanism: Mechanism;
  layout: ParallelLayout;
  /** DDP wraps the model (gradient all-reduce). */
  ddp: boolean;
  /** Autocast dtype or FSDP policy param_dtype. */
  param: DType;
  /** FSDP policy reduce_dtype (or the DDP reduction dtype). */
  reduce: DType;
  /** Storage dtype of parameters, gradients and optimizer state. */
  storage: DType;
  /** How this framework's config names the storage and param dtypes, for the engine's explanations. */
  settingNames?: { storage: string; param: string };
}

const ENGINE_DTYPES: readonly DType[] = ["float32", "bfloat16", "float16"];

/** A layout with at least `minShard` shards when sharded but the world size is unknown (dtypes do not depend on it). */
export function simLayout(known: ParallelLayout | undefined, sharded: boolean, replicated: boolean): ParallelLayout {
  const base: ParallelLayout = known ?? { dp_replicate: 1, dp_shard: 1, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1 };
  const l = { ...base };
  if (sharded && l.dp_shard < 2 && l.cp < 2) l.dp_shard = 2;
  if (replicated && l.dp_replicate < 2) l.dp_replicate = 2;
  return l;
}

/** The Markdown section for the full report, or undefined when the engine does not apply or fails. */
export function perOpSection(spec: EngineSpec | undefined): string | undefined {
  if (!spec || spec.mechanism === "error") return undefined;
  if (![spec.param, spec.reduce, spec.storage].every((d) => ENGINE_DTYPES.includes(d))) return undefined;
  try {
    // Not torchtitan: FSDP keeps PyTorch's default gradient averaging, and the settings have this framework's names.
    const sim = simulate({
      mechanism: spec.mechanism,
      layout: spec.layout,
      ddp: spec.ddp,
      paramDtype: spec.param,
      reduceDtype: spec.reduce,
      trainingDtype: spec.storage,
      settingNames: spec.settingNames ?? { storage: "the model dtype", param: "param_dtype" },
      gradientDivideFactorOne: false,
    });
    if (!sim) return undefined;
    return [
      "---",
      "",
      "_Per-op view: the dtype of each op of a reference Llama-3 graph (torchtitan's debug model) trained with this config's mechanism and dtypes. Op dtypes follow the same PyTorch rules for any decoder transformer (assumption `engine-reference-graph`); memory and throughput are not estimated, since the model's sizes are not known here._",
      "",
      renderSimulationMarkdown(sim, { figures: false, title: `Per-op dtypes (${spec.mechanism === "fully_shard" ? "FSDP" : spec.mechanism === "autocast" ? "autocast" : "no mixed-precision mechanism"}${spec.ddp ? ", DDP" : ""})` }),
    ].join("\n");
  } catch {
    // The engine is optional for these formats: the summary above stands on its own.
    return undefined;
  }
}

export function withPerOp(md: string, spec: EngineSpec | undefined): string {
  const section = perOpSection(spec);
  return section ? `${md}\n\n${section}` : md;
}
