/**
 * State shared by the simulator's passes (forward, backward, collectives, memory) for one input.
 */
import type { Assumptions } from "./assumptions";
import { countAutocastCasts, type AutocastContext, type CastUse } from "./autocast";
import type { EDType } from "./dtypes";
import type { ClampedPolicy, FsdpLifecycle } from "./fsdp";
import type { Float8Recipe } from "./float8";
import type { ModelArch } from "./models";
import type { OpDef, OpName } from "./ops";
import type { OpResult, SimulationInput } from "./types";

/** Everything the rule passes share while simulating one input. */
export interface SimContext {
  input: SimulationInput;
  assumptions: Assumptions;
  arch?: ModelArch;
  /** Architecture used for shapes even when the model is unknown (debugmodel dims; only for op widths). */
  shapeArch: ModelArch;
  graph: readonly OpDef[];
  storage: EDType;
  autocast?: AutocastContext & { active: boolean; note: string };
  fsdp?: { policy: ClampedPolicy; lifecycle: FsdpLifecycle; castForwardInputs: boolean; policyParamDtype: EDType };
  float8?: { recipe: Float8Recipe; converted: Set<OpName>; fsdpAllGather: boolean; tpFloat8: boolean };
  fsdpDegree: number;
  errors: string[];
  notes: string[];
}

export function reshardAfterForward(ctx: SimContext): boolean {
  const p = ctx.input.reshardAfterForward ?? "default";
  return p === "always" ? true : p === "never" ? false : ctx.input.layout.pp <= 1;
}

/** Autocast weight-cast count for one microbatch (for the memory model and §1.4 checks). */
export function autocastWeightCasts(ctx: SimContext, forward: OpResult[]): { casts: number; castParams: OpName[] } {
  if (!ctx.autocast?.active) return { casts: 0, castParams: [] };
  const uses: CastUse[] = [];
  for (const r of forward) if (r.weightCast && !r.float8) uses.push({ tensor: r.op, dtype: ctx.storage, isParam: true, region: 0 });
  const cache = ctx.assumptions.get("autocast_cache") === "enabled";
  return { casts: countAutocastCasts(uses, ctx.autocast.dtype, cache).casts, castParams: uses.map((u) => u.tensor as OpName) };
}

/** torchtitan's JobConfig defaults for `training.seq_len` and `training.local_batch_size`, used where the input is silent. */
export const DEFAULT_SEQ_LEN = 2048;
export const DEFAULT_LOCAL_BATCH = 8;

/** The shape of one step: parallel degrees (at least 1), sequence length and local batch. */
export function stepShape(ctx: SimContext): { tp: number; pp: number; cp: number; seq: number; local: number } {
  const L = ctx.input.layout;
  return {
    tp: Math.max(1, L.tp),
    pp: Math.max(1, L.pp),
    cp: Math.max(1, L.cp),
    seq: ctx.input.seqLen ?? DEFAULT_SEQ_LEN,
    local: ctx.input.localBatchSize ?? DEFAULT_LOCAL_BATCH,
  };
}
