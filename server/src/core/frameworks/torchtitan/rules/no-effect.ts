/**
 * no-effect: A setting that only FSDP reads, in a layout without FSDP.
 *
 * Settings that do nothing in the resolved layout — mixed_precision_reduce and
 * fsdp_reshard_after_forward are read only by apply_fsdp, which runs only when FSDP is enabled.
 */
import { diag } from "../../../diagnostics/build";
import { decidedBy } from "../related";
import { findEntry } from "../../../model/document";
import type { Diagnostic } from "../../../model/types";
import type { TitanRule } from "../context";

const FSDP_ONLY: readonly (readonly [string, string, string])[] = [
  ["training", "mixed_precision_reduce", "the gradient-reduction dtype of FSDP's MixedPrecisionPolicy"],
  ["parallelism", "fsdp_reshard_after_forward", "FSDP's resharding policy"],
];

export const noEffect: TitanRule = {
  codes: ["no-effect"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const m = ctx.decision.mechanism;
    if (m === "fully_shard" || m === "error") return [];
    const out: Diagnostic[] = [];
    for (const [section, key, what] of FSDP_ONLY) {
      const e = findEntry(ctx.doc, section, key);
      if (!e) continue;
      out.push(
        diag("no-effect", "information", e.range, `${section}.${key} has no effect: this ${ctx.layoutName} layout has no FSDP (dp_shard ${ctx.layout.dp_shard}, cp ${ctx.layout.cp})`, undefined, {
          detail: `${section}.${key} has no effect here: it sets ${what}, and this ${ctx.layoutName} layout does not use FSDP (data_parallel_shard_degree = ${ctx.layout.dp_shard}, context_parallel_degree = ${ctx.layout.cp}).`,
          related: decidedBy(ctx, { shard: true, worldSize: true }),
        }),
      );
    }
    return out;
  },
};
