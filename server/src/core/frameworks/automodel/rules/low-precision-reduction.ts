/**
 * automodel/low-precision-reduction: Gradients reduced in bf16/fp16 (FSDP2 reduce_dtype, Megatron-FSDP without
 * grad_reduce_in_fp32).
 *
 * Gradients reduced across the data-parallel ranks in bf16/fp16: FSDP2 with
 * `mp_policy.reduce_dtype` bf16/fp16 (FSDP2Config's default is fp32), or Megatron-FSDP over a bf16/fp16 model
 * without `grad_reduce_in_fp32: true` (MegatronFSDPConfig's default is false, nemo_automodel 0.7.0
 * `components/distributed/config.py`). Each reduction step rounds to the low dtype, more with more ranks.
 * Information; silent on one GPU.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import { dtypeFromStr, type AutomodelContext } from "../context";

export const lowPrecisionReduction: FrameworkRule<AutomodelContext> = {
  codes: ["automodel/low-precision-reduction"],
  restsOn: ["worldSize"],
  run(ctx) {
    const d = diagnostics("automodel");
    const { strategy, v, worldSize, model, training } = ctx;
    const W = worldSize?.value;
    if (!training || W === 1) return d.out;
    const across = W ? ` across ${W} GPUs` : "";
    if (strategy === "fsdp2") {
      const e = v.entry("distributed", "mp_policy", "reduce_dtype");
      const dt = e && e.value.kind === "string" ? dtypeFromStr(e.value.value as string) : undefined;
      if (e && (dt === "bfloat16" || dt === "float16")) d.add("low-precision-reduction", "information", e.value.range, `gradients reduced in ${dt === "bfloat16" ? "bf16" : "fp16"}${across}; FSDP2Config's default reduce_dtype is fp32`);
    } else if (strategy === "megatron_fsdp" && (model.dtype === "bfloat16" || model.dtype === "float16") && v.bool("distributed", "grad_reduce_in_fp32") !== true) {
      const at = v.entry("distributed", "grad_reduce_in_fp32")?.value.range ?? ctx.strategyEntry?.value.range;
      d.add("low-precision-reduction", "information", at, `Megatron-FSDP reduces gradients in ${model.dtype === "bfloat16" ? "bf16" : "fp16"}${across}: \`grad_reduce_in_fp32\` is false (its default)`);
    }
    return d.out;
  },
};
