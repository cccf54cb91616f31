/**
 * The parallel layout and the mixed-precision mechanism: the two words of the shared precision model that
 * the engine also speaks (a leaf module, so `analysis.ts` and `engine/` need not import each other).
 */
/** The parallel degrees after resolution (torchtitan names; other frameworks map onto them). */
export interface ParallelLayout {
  dp_replicate: number;
  dp_shard: number;
  cp: number;
  tp: number;
  pp: number;
  ep: number;
  etp: number;
}

/** How mixed precision is applied: FSDP's MixedPrecisionPolicy, torch.autocast, nothing, or a failed launch. */
export type Mechanism = "fully_shard" | "autocast" | "none" | "error";
