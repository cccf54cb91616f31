/**
 * pp-1f1b-microbatches: The 1F1B schedule with fewer microbatches than pipeline stages: Schedule1F1B raises at launch.
 *
 * The 1F1B pipeline schedule with fewer microbatches than pipeline stages. torchtitan
 * only logs its bubble warning (`distributed/pipeline_parallel.py:196-200` at v0.2.2), then builds PyTorch's
 * `Schedule1F1B`, whose constructor raises `ValueError: Number of microbatches (n) must be greater than or
 * equal to the number of stages (pp)` (`torch/distributed/pipelining/schedules.py:1020-1024` in torch 2.13.0):
 * the launch fails before the first step. Found by the differential oracle, which runs each release's
 * `pipelining_fn` on the meta device (docs/oracle.md, issue #32). GPipe and the looped schedules only idle:
 * pp-bubble reports those. Every TOML release (v0.1.0 … v0.2.2) and 0.3.0 build Schedule1F1B this way, so a
 * config that writes the schedule, the local batch and the microbatch size rests on no assumed fact; one that
 * leaves any to the release's default rests on the version.
 */
import { diag } from "../../../diagnostics/build";
import { restingOn } from "../../../provenance";
import type { TitanRule } from "../context";
import { microbatchShape } from "./pp-bubble";

export const pp1f1bMicrobatches: TitanRule = {
  codes: ["pp-1f1b-microbatches"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const s = microbatchShape(ctx);
    if (!s || s.schedule !== "1F1B" || s.n >= s.pp) return [];
    const { n, pp, local, mb, where } = s;
    return [
      restingOn(diag("pp-1f1b-microbatches", "error", where, `1F1B needs at least ${pp} microbatches for ${pp} stages, this config gives ${n}: Schedule1F1B raises at launch`, undefined, {
        detail: `local_batch_size ${local} / pipeline_parallel_microbatch_size ${mb} = ${n} microbatch${n === 1 ? "" : "es"} for ${pp} pipeline stages with the 1F1B schedule: torchtitan logs its bubble warning, then PyTorch's Schedule1F1B raises "ValueError: Number of microbatches (${n}) must be greater than or equal to the number of stages (${pp})" when the pipeline is built, before the first step. Raise local_batch_size to at least ${pp * mb}, lower the microbatch size, or choose GPipe or an interleaved schedule.`,
      }), s.written ? [] : ["version"]),
    ];
  },
};
