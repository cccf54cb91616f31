/** parallel-dims-*: torchtitan's ParallelDims._validate failures, at the degree key that is wrong. */
import { diag } from "../../../diagnostics";
import type { TitanRule } from "../context";
import { dimsAnchor, worldSizePhrase } from "../locate";

export const parallelDims: TitanRule = {
  codes: ["parallel-dims-degree", "parallel-dims-limit", "parallel-dims-type", "parallel-dims-dp-shard", "parallel-dims-resolved", "parallel-dims-product", "parallel-dims-etp", "parallel-dims-ep-divisibility"],
  run(ctx) {
    return ctx.dims.errors.map((e) => {
      const where = dimsAnchor(ctx, e.fields);
      // Past the analysis bound Precision Lens cannot know what happens: say so quietly, assert nothing.
      if (e.kind === "limit") return diag("parallel-dims-limit", "information", where.range, e.message);
      return diag(`parallel-dims-${e.kind}`, "error", where.range, `${e.message} — on ${worldSizePhrase(ctx)}. torchtitan stops at launch before training.`, {
        facts: { worldSize: ctx.worldSize.value, worldSizeSource: ctx.worldSize.source },
      });
    });
  },
};
