/**
 * megatron/low-precision-gradients: Gradients accumulated and reduced in bf16/fp16 instead of fp32.
 *
 * Gradients accumulated and reduced in bf16 or fp16. Megatron's gradient buffer (the one
 * micro-batches accumulate into and the data-parallel all-reduce / reduce-scatter reads) is fp32 only when
 * `accumulate_allreduce_grads_in_fp32` is set; --bf16 implies it unless `--grad-reduce-in-bf16` or
 * `--main-grads-dtype bf16` is given, and --fp16 never implies it (megatron/training/arguments.py at
 * core_v0.16.1). Each accumulation and each reduction step then rounds to 8 (bf16) or 11 (fp16) significant
 * bits, more with more micro-batches and ranks. Information: a deliberate trade of accuracy for bandwidth.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { MegatronContext } from "../context";

export const lowPrecisionGradients: FrameworkRule<MegatronContext> = {
  codes: ["megatron/low-precision-gradients"],
  restsOn: ["worldSize"],
  run({ flag, fp32Grads, paramsDtype, worldSize, absentUnknown }) {
    const d = diagnostics("megatron");
    if (fp32Grads.value || paramsDtype === "float32") return d.out;
    // Concluded from a missing --accumulate-allreduce-grads-in-fp32: not when the arguments are not all known.
    if (absentUnknown && !flag("grad-reduce-in-bf16") && !flag("main-grads-dtype")) return d.out;
    const at = flag("grad-reduce-in-bf16") ?? flag("main-grads-dtype") ?? flag("fp16");
    if (!at) return d.out;
    const low = paramsDtype === "float16" ? "fp16" : "bf16";
    const W = worldSize?.value;
    d.add("low-precision-gradients", "information", at.range, { message: `gradients accumulate and reduce in ${low}${W ? ` across ${W} GPUs` : ""} (${fp32Grads.why.replace(/`/g, "")})`, detail: `Megatron's gradient buffer is ${low} here (${fp32Grads.why}): micro-batch accumulation and the data-parallel reduction round to ${low} at each step. --bf16 alone accumulates and reduces in fp32; for fp16 add --accumulate-allreduce-grads-in-fp32.` });
    return d.out;
  },
};
