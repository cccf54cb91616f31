/**
 * The pure per-cell entry point for reports and what-if matrices: one simulated step on one GPU type.
 */
import { DEFAULT_GPU, type GpuId } from "./gpus";
import { simulate } from "./simulate";
import type { SimulationInput } from "./types";

export interface ThroughputCell {
  tokensPerSecondPerGpu: number;
  stepSeconds: number;
  mfu: number;
  /** Reserved peak memory per GPU (bytes). */
  peakBytes: number | null;
  compute: string;
}

/** Tokens/s per GPU, step time and MFU for `input` on `gpu`; undefined when the model is unknown or the layout fails. */
export function estimateThroughput(input: SimulationInput, gpu: GpuId = DEFAULT_GPU): ThroughputCell | undefined {
  const sim = simulate({ ...input, gpu });
  if (!sim?.throughput) return undefined;
  const t = sim.throughput;
  return { tokensPerSecondPerGpu: t.tokensPerSecondPerGpu, stepSeconds: t.stepSeconds, mfu: t.mfu, peakBytes: sim.memory.perGpuBytes?.reserved ?? null, compute: sim.computeDtype };
}
