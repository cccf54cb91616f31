/**
 * cpu-offload-without-fsdp: training.enable_cpu_offload is implemented only through FSDP's
 * CPUOffloadPolicy; without FSDP the model is materialised on the CPU and nothing moves it back
 * (spec torchtitan.md §2.4, inferred from code paths, not executed).
 */
import { diag } from "../../../diagnostics";
import { decidedBy } from "../related";
import { boolValue, findEntry } from "../../../model";
import type { TitanRule } from "../context";

export const cpuOffloadWithoutFsdp: TitanRule = {
  codes: ["cpu-offload-without-fsdp"],
  restsOn: ["worldSize"],
  run(ctx) {
    const e = findEntry(ctx.doc, "training", "enable_cpu_offload");
    if (!e || boolValue(e) !== true) return [];
    const m = ctx.decision.mechanism;
    if (m === "fully_shard" || m === "error") return [];
    return [
      diag(
        "cpu-offload-without-fsdp",
        "warning",
        e.range,
        `CPU offload needs FSDP, but this ${ctx.layoutName} layout has none: the weights stay on the CPU`,
        undefined,
        {
          detail: `training.enable_cpu_offload = true needs FSDP (it is applied through FSDP's CPUOffloadPolicy), but this ${ctx.layoutName} layout has no FSDP: the weights are built on the CPU and nothing moves them to the GPU, so the run is likely to fail or crawl. Enable FSDP (data_parallel_shard_degree > 1) or turn offload off.`,
          related: decidedBy(ctx, { shard: true, worldSize: true }),
        },
      ),
    ];
  },
};
