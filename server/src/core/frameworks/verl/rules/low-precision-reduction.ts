/**
 * verl/low-precision-reduction: Gradients reduced in bf16/fp16 across the data-parallel ranks.
 *
 * `mixed_precision.reduce_dtype` bf16 or fp16 for a trained role: the FSDP reduce-scatter sums the
 * gradients of every data-parallel rank in that dtype (verl's default is fp32). Each addition rounds to 8 (bf16)
 * or 11 (fp16) significant bits, so the error grows with the number of ranks. Information: it is a choice,
 * not a mistake; the world size is named when known.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import { dtypeOf, type VerlContext } from "../context";

export const lowPrecisionReduction: FrameworkRule<VerlContext> = {
  codes: ["verl/low-precision-reduction"],
  restsOn: ["worldSize"],
  run(ctx) {
    const d = diagnostics("verl");
    const W = ctx.worldSize?.value;
    if (W === 1) return d.out;
    for (const r of ctx.roles) {
      if (!r.trains || (r.strategy.value !== "fsdp" && r.strategy.value !== "fsdp2")) continue;
      const v = r.reduceDtype;
      const dt = dtypeOf(v);
      if (!v || v.origin !== "file" || (dt !== "bfloat16" && dt !== "float16")) continue;
      d.add("low-precision-reduction", "information", v.range, {
        message: `${r.name}: gradients reduced in ${dt === "bfloat16" ? "bf16" : "fp16"}${W ? ` across ${W} GPUs` : ""}; verl's default reduce_dtype is fp32`,
        detail: `\`${r.engine}.mixed_precision.reduce_dtype=${String(v.value)}\`: the FSDP reduce-scatter sums every data-parallel rank's gradients in ${dt}, rounding at each step; the error grows with the number of ranks${W ? ` (${W} here: ${ctx.worldSize!.detail})` : ""}. verl's default is fp32.`,
      });
    }
    return d.out;
  },
};
