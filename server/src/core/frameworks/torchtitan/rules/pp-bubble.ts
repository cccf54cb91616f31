/**
 * pp-bubble: Fewer microbatches than pipeline stages: the pipeline idles (a bubble).
 *
 * Fewer microbatches than pipeline stages leaves ranks idle. torchtitan logs a warning when
 * n_microbatches < pp_degree * stages_per_rank (spec torchtitan.md §3.3). Single-stage schedules have one
 * stage per rank; looped (multi-stage) schedules at least two, so for them this is a lower bound and the
 * rule only fires when the bubble is certain. Information: it costs throughput, not correctness.
 */
import { diag } from "../../../diagnostics/build";
import { findEntry, intValue, stringValue } from "../../../model/document";
import type { TitanContext, TitanRule } from "../context";
import type { Range } from "../../../model/types";
import { effectiveDefault, keyInfo } from "../schema/index";

/** Schedules with one stage per rank, and looped ones with at least two (PyTorch schedule class names). */
const SINGLE_STAGE = new Set(["1F1B", "GPipe"]);
const MULTI_STAGE = new Set(["Interleaved1F1B", "LoopedBFS", "InterleavedZeroBubble", "ZBVZeroBubble", "DualPipeV"]);

/** The pipeline's microbatch count against its stages, as torchtitan's pipeline builder computes them. */
export interface MicrobatchShape {
  schedule: string;
  stagesPerRank: 1 | 2;
  pp: number;
  local: number;
  mb: number;
  n: number;
  needed: number;
  where: Range;
  /** The schedule, local batch and microbatch size are all written (no release default decides). */
  written: boolean;
}

export function microbatchShape(ctx: TitanContext): MicrobatchShape | undefined {
  const l = ctx.dims.resolved;
  if (!l || l.pp <= 1) return undefined;
  const scheduleE = findEntry(ctx.doc, "parallelism", "pipeline_parallel_schedule");
  const date = ctx.version.value.date;
  const dflt = <T>(path: string, fallback: T): T => {
    const spec = keyInfo(date, path);
    return spec ? ((effectiveDefault(spec, date) as T | undefined) ?? fallback) : fallback;
  };
  // Defaults come from the versioned schema, the one source of truth for them.
  const schedule = stringValue(scheduleE) ?? dflt("parallelism.pipeline_parallel_schedule", "1F1B");
  const stagesPerRank = SINGLE_STAGE.has(schedule) ? 1 : MULTI_STAGE.has(schedule) ? 2 : undefined;
  if (stagesPerRank === undefined) return undefined;
  const mbE = findEntry(ctx.doc, "parallelism", "pipeline_parallel_microbatch_size");
  const localE = findEntry(ctx.doc, "training", "local_batch_size");
  const mb = intValue(mbE) ?? dflt("parallelism.pipeline_parallel_microbatch_size", 1);
  const local = intValue(localE) ?? dflt("training.local_batch_size", 8);
  if (mb <= 0 || local % mb !== 0) return undefined; // pp-microbatch reports that
  const where = (mbE ?? localE ?? scheduleE)?.range;
  if (!where) return undefined;
  return { schedule, stagesPerRank, pp: l.pp, local, mb, n: local / mb, needed: l.pp * stagesPerRank, where, written: !!(scheduleE && mbE && localE) };
}

export const ppBubble: TitanRule = {
  codes: ["pp-bubble"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const s = microbatchShape(ctx);
    if (!s || s.n >= s.needed) return [];
    // 1F1B with fewer microbatches than stages does not idle: torch's Schedule1F1B refuses it (pp-1f1b-microbatches).
    if (s.schedule === "1F1B") return [];
    const { schedule, stagesPerRank, local, mb, n, needed, where } = s;
    const l = { pp: s.pp };
    return [
      diag(
        "pp-bubble",
        "information",
        where,
        `Pipeline bubble: ${n} microbatch${n === 1 ? "" : "es"} for ${needed} stages (${l.pp} ranks, ${schedule}), so ranks sit idle`,
        undefined,
        {
          detail: `Only ${n} microbatch${n === 1 ? "" : "es"} (local_batch_size ${local} / pipeline_parallel_microbatch_size ${mb}) for ${l.pp} pipeline ranks with ${schedule} (${stagesPerRank === 1 ? "one stage" : "at least two stages"} per rank): ${stagesPerRank === 1 ? "" : "at least "}${needed} are needed to fill the pipeline, so ranks sit idle in a bubble and torchtitan logs a warning. Raise local_batch_size or lower the microbatch size.`,
        },
      ),
    ];
  },
};
