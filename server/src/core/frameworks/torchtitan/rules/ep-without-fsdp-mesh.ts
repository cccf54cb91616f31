/**
 * ep-without-fsdp-mesh: An MoE model with expert parallelism and no FSDP mesh: launch error from v0.2.1.
 *
 * Llama4, deepseek_v3 and gpt_oss enter their FSDP branch whenever expert
 * parallelism is on (`fsdp_enabled or ep_enabled`) and, from torchtitan v0.2.1 (183a0d2e7, 2025-12-17),
 * ask ParallelDims for the `fsdp` mesh by name. With dp_shard * cp = 1 that mesh does not exist and the
 * launch fails with ValueError "Mesh '['fsdp']' is not available. …" (eras.ts `moeEpWithoutFsdp` decides;
 * this rule only reports). v0.2.0 wrapped the model on a size-1 mesh and ran.
 */
import type { ParallelLayout } from "../../../analysis";
import { diag, fix } from "../../../diagnostics/build";
import type { Fix } from "../../../model/types";
import type { TitanContext, TitanRule } from "../context";
import { dimsAnchor, setDim, worldSizePhrase } from "../locate";
import { decidedBy } from "../related";
import { lowerToEnableFsdp } from "./no-mixed-precision";

export const epWithoutFsdpMesh: TitanRule = {
  codes: ["ep-without-fsdp-mesh"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const d = ctx.dims.resolved;
    if (!d || ctx.decision.errorCode !== "ep-without-fsdp-mesh" || !ctx.decision.error) return [];
    const where = dimsAnchor(ctx, ["ep", "tp", "dp_shard"]);
    const shard = ctx.dims.dpShardInferred ? `data_parallel_shard_degree = -1 resolves to ${d.dp_shard}` : `data_parallel_shard_degree = ${d.dp_shard}`;
    const detail =
      `${ctx.modelName} with expert_parallel_degree = ${d.ep} needs a real FSDP dimension in torchtitan ${ctx.version.value.id}: ${shard} and context_parallel_degree = ${d.cp}, so dp_shard * cp = 1, ` +
      `yet its parallelize applies FSDP whenever EP is on and asks for the fsdp mesh, which does not exist at size 1. ` +
      `The launch fails on ${worldSizePhrase(ctx)} with ValueError "${ctx.decision.error}" (torchtitan v0.2.0 still ran this layout, wrapping the model on a size-1 mesh).`;
    const message = `${ctx.modelName} with EP ${d.ep} and no FSDP dimension (dp_shard·cp = 1): the fsdp mesh is missing, launch fails`;
    return [
      diag(
        "ep-without-fsdp-mesh",
        "error",
        where.range,
        message,
        { fixes: fixes(ctx, d), facts: { worldSize: ctx.worldSize.value, worldSizeSource: ctx.worldSize.source, layout: ctx.layoutName } },
        { detail, related: decidedBy(ctx, { shard: true, worldSize: true, version: true }) },
      ),
    ];
  },
};

/**
 * Lower tensor_parallel_degree so dp_shard > 1 on the same GPUs. EP stays valid: dp_shard * cp * tp is
 * unchanged, and with etp = 1 so is efsdp = dp_shard * cp * tp / (etp * ep). (etp = tp > 1 never reaches
 * this rule: with dp_shard * cp = 1 its efsdp is below 1, which fails earlier; see eras.ts.)
 */
function fixes(ctx: TitanContext, d: ParallelLayout): Fix[] {
  if (d.tp <= 1 || d.etp !== 1) return [];
  const lowered = lowerToEnableFsdp(d, "tp", ctx.worldSize.value);
  if (!lowered) return [];
  const edits = setDim(ctx, "tp", lowered.degree);
  if (!ctx.dims.dpShardInferred) edits.push(...setDim(ctx, "dp_shard", lowered.dpShard));
  return [fix(`Lower tensor_parallel_degree to ${lowered.degree} so FSDP shards over ${lowered.dpShard} GPUs (the fsdp mesh then exists)`, edits, true)];
}
