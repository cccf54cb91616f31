/**
 * no-effect: settings that do nothing in the resolved layout — mixed_precision_reduce and
 * fsdp_reshard_after_forward are read only by apply_fsdp, which runs only when FSDP is enabled.
 */
import { diag } from "../../../diagnostics";
import { findEntry } from "../../../model";
import type { Diagnostic } from "../../../types";
import type { TitanRule } from "../context";

const FSDP_ONLY: readonly (readonly [string, string, string])[] = [
  ["training", "mixed_precision_reduce", "the gradient-reduction dtype of FSDP's MixedPrecisionPolicy"],
  ["parallelism", "fsdp_reshard_after_forward", "FSDP's resharding policy"],
];

export const noEffect: TitanRule = {
  codes: ["no-effect"],
  run(ctx) {
    const m = ctx.decision.mechanism;
    if (m === "fully_shard" || m === "error") return [];
    const out: Diagnostic[] = [];
    for (const [section, key, what] of FSDP_ONLY) {
      const e = findEntry(ctx.doc, section, key);
      if (!e) continue;
      const d = diag("no-effect", "information", e.range, `${section}.${key} has no effect here: it sets ${what}, and this ${ctx.layoutName} layout does not use FSDP (data_parallel_shard_degree = ${ctx.layout.dp_shard}, context_parallel_degree = ${ctx.layout.cp}).`);
      d.unnecessary = true;
      out.push(d);
    }
    return out;
  },
};
