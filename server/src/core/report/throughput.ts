/**
 * Reading the throughput model's output for the report. The model (issue #11) adds
 * `simulation.throughput = {tokensPerSecondPerGpu, stepSeconds, mfu, gpu: {value, source},
 * alternatives: [{label, mechanism, compute, tokensPerSecondPerGpu, peakBytes}]}`; the report reads it
 * structurally through `throughputOf`, so it renders "—" until (and wherever) the model gives no figure.
 */
import type { Simulation } from "../engine/types";

/**
 * The throughput estimate of one simulated configuration, in the shape of the CLI JSON contract
 * `simulation.throughput` (issue #11). Read structurally from the simulation by `throughputOf`, so the
 * report works with and without the throughput model.
 */
export interface ThroughputData {
  tokensPerSecondPerGpu?: number;
  stepSeconds?: number;
  /** Model FLOPs utilisation, 0…1. */
  mfu?: number;
  /** Why there is no figure (a model below the calibrated size), when the model withholds it. */
  withheld?: string;
  /** The GPU type the estimate is for, and where that choice came from (setting, --gpu, default). */
  gpu?: { value: string; source: string };
  /** The same config under other mechanisms / layouts (mixed precision off / on, the nearest FSDP layout). */
  alternatives?: ThroughputAlternative[];
}

export interface ThroughputAlternative {
  label: string;
  mechanism?: string;
  compute?: string;
  tokensPerSecondPerGpu?: number;
  peakBytes?: number;
}

const finite = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);
const text = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 && v.length < 200 ? v : undefined);

/**
 * THE PLUG-IN POINT for the throughput model: the throughput of a simulation, read from
 * `simulation.throughput` when the engine provides it (issue #11's JSON shape), else undefined.
 * Validated field by field, so a partial or missing model renders as "—" instead of failing.
 */
export function throughputOf(sim: Simulation | undefined): ThroughputData | undefined {
  const raw = (sim as { throughput?: unknown } | undefined)?.throughput;
  if (!raw || typeof raw !== "object") return undefined;
  const t = raw as Record<string, unknown>;
  const out: ThroughputData = {};
  const withheld = typeof t.withheld === "string" && t.withheld ? t.withheld : undefined;
  if (withheld) out.withheld = withheld;
  else {
    const tps = finite(t.tokensPerSecondPerGpu);
    if (tps !== undefined) out.tokensPerSecondPerGpu = tps;
    const step = finite(t.stepSeconds);
    if (step !== undefined) out.stepSeconds = step;
    const mfu = finite(t.mfu);
    if (mfu !== undefined) out.mfu = mfu;
  }
  const g = t.gpu as Record<string, unknown> | undefined;
  if (g && typeof g === "object" && text(g.value)) out.gpu = { value: text(g.value)!, source: text(g.source) ?? "unknown" };
  if (Array.isArray(t.alternatives)) {
    out.alternatives = t.alternatives
      .filter((a): a is Record<string, unknown> => !!a && typeof a === "object" && !!text((a as Record<string, unknown>).label))
      .map((a) => {
        const alt: ThroughputAlternative = { label: text(a.label)! };
        if (text(a.mechanism)) alt.mechanism = text(a.mechanism)!;
        if (text(a.compute)) alt.compute = text(a.compute)!;
        const v = finite(a.tokensPerSecondPerGpu);
        if (v !== undefined) alt.tokensPerSecondPerGpu = v;
        const p = finite(a.peakBytes);
        if (p !== undefined) alt.peakBytes = p;
        return alt;
      });
  }
  return out;
}

