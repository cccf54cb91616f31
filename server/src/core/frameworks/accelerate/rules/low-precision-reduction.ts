/**
 * accelerate/low-precision-reduction: FSDP with bf16/fp16 mixed precision reduces gradients in low precision.
 *
 * What FSDP with `mixed_precision` means (fp32 master weights, low-precision reduction), as information.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const lowPrecisionReduction: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/low-precision-reduction"],
  restsOn: [],
  run({ v, mixedEntry, distType, broken, mixed, fsdpVersion }) {
    const d = diagnostics("accelerate");
    const anchor = mixedEntry?.value.range ?? v.entry("distributed_type")?.value.range;
    const fsdp = distType === "FSDP";
    if (fsdp && !broken) {
      const m = mixed ?? "no";
      if (m === "bf16" || m === "fp16" || m === "fp8") {
        const low = m === "fp16" ? "fp16" : "bf16";
        d.add("low-precision-reduction", "information", anchor, `FSDP${fsdpVersion === 2 ? "2" : "1"} with mixed_precision ${m}: fp32 master weights, ${low} compute, ${low} gradient reduction`, undefined, undefined, `FSDP${fsdpVersion === 2 ? "2" : "1"} with mixed_precision ${m}: fp32 master weights (accelerate upcasts the model), ${low} compute, **${low} gradient reduction** (the policy's reduce dtype is the mixed-precision dtype; YAML cannot change it); checkpoints are saved in fp32.`);
      } else {
        d.add("low-precision-reduction", "information", anchor, "FSDP with mixed_precision 'no': the model runs in whatever dtype the script loads it in", undefined, undefined, "FSDP with mixed_precision 'no': the model runs in whatever dtype the script loads it in; loading it in bf16 means pure bf16 (bf16 weights, gradients, reduction and optimizer state, no fp32 master copy).");
      }
    }
    return d.out;
  },
};
