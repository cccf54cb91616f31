/**
 * lightning/low-precision-reduction: FSDP with bf16-mixed/16-mixed reduces gradients in low precision.
 *
 * FSDP with a -mixed precision reduces gradients in the low dtype.
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fsdpInitsFp32 } from "../version";
import { explicitMixedPrecision } from "../strategy";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";

export const lowPrecisionReduction: FrameworkRule<LightningContext> = {
  codes: ["lightning/low-precision-reduction"],
  restsOn: [],
  run({ st, precision, pe, lv }) {
    const d = diagnostics("lightning");
    // An explicit `strategy.init_args.mixed_precision` replaces the policy this note is about.
    if (st.family === "fsdp" && !st.derived && explicitMixedPrecision(st)) return [];
    if (st.family === "fsdp" && (precision === "bf16-mixed" || precision === "16-mixed") && pe) {
      const low = precision === "bf16-mixed" ? "bf16" : "fp16";
      const master = st.derived && fsdpInitsFp32(lv) === false ? `${low} parameters (LitGPT builds the model under \`fabric.init_module()\`, which used the policy's dtype before Lightning 2.6.4; ${lv.detail})` : "fp32 master weights";
      d.add("low-precision-reduction", "information", pe.value.range, { message: fitMessage(`FSDP with ${precision}: ${st.derived && fsdpInitsFp32(lv) === false ? `${low} parameters` : master}, ${low} compute, and ${low} gradient reduction and buffers`), detail: `FSDP with ${precision}: ${master}, ${low} compute, and **${low} gradient reduction and buffers** (Lightning's MixedPrecision sets reduce_dtype = buffer_dtype = ${low}). ${st.derived ? "LitGPT builds this FSDPStrategy itself (strategy chosen from the device count), so the config cannot change the reduce dtype." : "Pass `strategy.init_args.mixed_precision` for an fp32 reduction."}` });
    }
    return d.out;
  },
};
