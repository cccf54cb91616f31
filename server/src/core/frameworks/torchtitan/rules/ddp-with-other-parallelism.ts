/**
 * ddp-with-other-parallelism: replicate > 1 with neither shard nor CP, combined with TP or PP, raises
 * "DDP has not supported > 1D parallelism" (spec torchtitan.md §1.4, §3.3) in the TOML era.
 */
import { diag, fix } from "../../../diagnostics/build";
import type { TitanRule } from "../context";
import { DDP_ERROR } from "../eras";
import { dimsAnchor, setDim, worldSizePhrase } from "../locate";
import { decidedBy } from "../related";

export const ddpWithOtherParallelism: TitanRule = {
  codes: ["ddp-with-other-parallelism"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    if (ctx.decision.error !== DDP_ERROR || !ctx.dims.resolved) return [];
    const d = ctx.dims.resolved;
    const others = [d.tp > 1 ? `tensor_parallel_degree = ${d.tp}` : "", d.pp > 1 ? `pipeline_parallel_degree = ${d.pp}` : ""].filter(Boolean).join(" and ");
    const where = dimsAnchor(ctx, ["dp_replicate"]);
    // Turning the replicate degree into the shard degree gives FSDP (+TP/PP), which torchtitan supports.
    const edits = [...setDim(ctx, "dp_replicate", 1), ...setDim(ctx, "dp_shard", d.dp_replicate)];
    return [
      diag(
        "ddp-with-other-parallelism",
        "error",
        where.range,
        `DDP (replicate ${d.dp_replicate}, shard 1) cannot be combined with ${[d.tp > 1 ? "TP" : "", d.pp > 1 ? "PP" : ""].filter(Boolean).join(" and ") || "other parallelisms"}: torchtitan raises RuntimeError at launch`,
        { fixes: [fix(`Shard instead of replicate: data_parallel_shard_degree = ${d.dp_replicate}, data_parallel_replicate_degree = 1 (FSDP with mixed precision)`, edits, true)] },
        {
          detail: `data_parallel_replicate_degree = ${d.dp_replicate} with data_parallel_shard_degree = 1 means DDP, and torchtitan cannot combine DDP with ${others || "other parallelisms"}: it raises RuntimeError "${DDP_ERROR}" at launch on ${worldSizePhrase(ctx)}.`,
          related: decidedBy(ctx, { shard: true, worldSize: true }),
        },
      ),
    ];
  },
};
