/**
 * ep-needs-tp-mesh: llama4 or qwen3 with expert parallelism and TP = 1 at v0.2.1: the tp mesh is asked for, launch error.
 *
 * From the ParallelDims rewrite (183a0d2e7, 2025-12-17) until 62f5806ed (#2185, 2025-12-29), so in v0.2.1, the MoE
 * branch of llama4's and qwen3's parallelize, taken whenever EP > 1, fetched the tensor-parallel mesh with
 * `get_mesh("tp")`, which raises for a dimension of size 1 (v0.2.1 qwen3/infra/parallelize.py:102-105,
 * llama4/infra/parallelize.py:133-138, distributed/parallel_dims.py:252-276). The launch fails before any FSDP or
 * mixed-precision choice. v0.2.0 passed `None` at TP = 1, v0.2.2 uses `get_optional_mesh("tp")`. When the
 * workspace holds its own torchtitan package, that package's parallelize for the model decides instead of the date
 * (workspace/forkCode.ts `epBranchAsksTpMesh`). eras.ts `epAsksTpMesh` decides; this rule only reports. It does not rest
 * on the world size: the degrees that decide it are written, and a world size they do not fit fails earlier.
 */
import { diag } from "../../../diagnostics/build";
import type { RelatedInformation } from "../../../model/types";
import type { TitanRule } from "../context";
import { dimsAnchor, worldSizePhrase } from "../locate";
import { decidedBy } from "../related";

export const epNeedsTpMesh: TitanRule = {
  codes: ["ep-needs-tp-mesh"],
  // Not on the world size: EP > 1 with TP = 1 fails at every world size (one where the degrees do not fit fails
  // earlier, in ParallelDims), so an assumed world size does not weaken it.
  restsOn: ["version"],
  run(ctx) {
    const d = ctx.dims.resolved;
    if (!d || ctx.decision.errorCode !== "ep-needs-tp-mesh" || !ctx.decision.error) return [];
    const where = dimsAnchor(ctx, ["ep", "tp"]);
    const fork = ctx.decideOptions.forkEpTpMesh;
    const model = ctx.modelName ?? "the model";
    const whose = fork ? `the workspace's ${fork.file}` : `torchtitan ${ctx.version.value.id}'s ${model} parallelize`;
    const detail =
      `${model} with expert_parallel_degree = ${d.ep} and tensor_parallel_degree = ${d.tp}: ${whose} takes the tp mesh by name in its expert-parallel branch, ` +
      `which exists only at TP > 1. The launch fails on ${worldSizePhrase(ctx)} with ValueError "${ctx.decision.error}", before FSDP or mixed precision is applied` +
      (fork ? "." : ` (fixed on torchtitan main on 2025-12-29, 62f5806ed, and in v0.2.2; v0.2.0 passed no tp mesh at TP = 1).`);
    const message = `${model} with EP ${d.ep} and TP 1: ${fork ? "its" : ctx.version.value.id} parallelize asks for the tp mesh, launch fails`;
    const related: RelatedInformation[] = decidedBy(ctx, { shard: false, worldSize: true, version: !fork });
    if (fork) related.push({ location: fork.location, message: `${fork.file}: the expert-parallel branch takes the tp mesh unguarded` });
    return [diag("ep-needs-tp-mesh", "error", where.range, message, { facts: { worldSize: ctx.worldSize.value, worldSizeSource: ctx.worldSize.source, layout: ctx.layoutName } }, { detail, related })];
  },
};
