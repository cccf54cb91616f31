/**
 * ddp-with-other-parallelism: DDP (dp_replicate > 1 without sharding) combined with TP or PP: torchtitan refuses it.
 *
 * Replicate > 1 with neither shard nor CP, combined with TP or PP, raises
 * "DDP has not supported > 1D parallelism" (spec torchtitan.md §1.4, §3.3) in the TOML era, on the models whose
 * DDP check sees the other dimensions (eras.ts ddpChecksWorld: llama3 and llama4 at v0.2.1+, every model with a
 * DDP branch before). On main between 2024-12-11 and 2024-12-26, DDP + CP raised "Composability of DDP + CP is
 * not supported." (eras.ts DDP_CP_ERROR).
 */
import { diag, fix } from "../../../diagnostics/build";
import { restingOn } from "../../../provenance";
import type { TitanRule } from "../context";
import { DDP_CP_ERROR, DDP_ERROR } from "../eras";
import { dimsAnchor, setDim, worldSizePhrase } from "../locate";
import { decidedBy } from "../related";

export const ddpWithOtherParallelism: TitanRule = {
  codes: ["ddp-with-other-parallelism"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const error = ctx.decision.error;
    if ((error !== DDP_ERROR && error !== DDP_CP_ERROR) || !ctx.dims.resolved) return [];
    const d = ctx.dims.resolved;
    const where = dimsAnchor(ctx, ["dp_replicate"]);
    // Turning the replicate degree into the shard degree gives FSDP (+TP/PP/CP), which torchtitan supports.
    const edits = [...setDim(ctx, "dp_replicate", 1), ...setDim(ctx, "dp_shard", d.dp_replicate)];
    const shardFix = fix(`Shard instead of replicate: data_parallel_shard_degree = ${d.dp_replicate}, data_parallel_replicate_degree = 1 (FSDP with mixed precision)`, edits, true);
    if (error === DDP_CP_ERROR) {
      return [
        diag(
          "ddp-with-other-parallelism",
          "error",
          where.range,
          `DDP (replicate ${d.dp_replicate}, shard 1) cannot be combined with CP ${d.cp} on torchtitan ${ctx.version.value.id}: RuntimeError at launch`,
          { fixes: [shardFix] },
          {
            detail: `data_parallel_replicate_degree = ${d.dp_replicate} with data_parallel_shard_degree = 1 and context_parallel_degree = ${d.cp}: torchtitan main from 2024-12-11 (40a0873b3) to 2024-12-26 (6b03ffa32) raises RuntimeError "${DDP_CP_ERROR}" when parallelizing the model; later versions wrap HSDP over dp_replicate × cp.`,
            related: decidedBy(ctx, { shard: true }),
          },
        ),
      ];
    }
    const others = [d.tp > 1 ? `tensor_parallel_degree = ${d.tp}` : "", d.pp > 1 ? `pipeline_parallel_degree = ${d.pp}` : ""].filter(Boolean).join(" and ");
    const model = ctx.decideOptions.model ?? "llama3";
    const out = diag(
      "ddp-with-other-parallelism",
      "error",
      where.range,
      `DDP (replicate ${d.dp_replicate}, shard 1) cannot be combined with ${[d.tp > 1 ? "TP" : "", d.pp > 1 ? "PP" : ""].filter(Boolean).join(" and ") || "other parallelisms"}: torchtitan raises RuntimeError at launch`,
      { fixes: [shardFix] },
      {
        detail: `data_parallel_replicate_degree = ${d.dp_replicate} with data_parallel_shard_degree = 1 means DDP, and ${model}'s parallelize cannot combine DDP with ${others || "other parallelisms"}: it raises RuntimeError "${DDP_ERROR}" at launch on ${worldSizePhrase(ctx)}.`,
        related: decidedBy(ctx, { shard: true, worldSize: true }),
      },
    );
    // A model upstream does not have: its parallelize is assumed to check like llama3's.
    return [ctx.decision.modelAssumed ? restingOn(out, ["worldSize", "version", "model"]) : out];
  },
};
