/**
 * lightning/deepspeed-unsupported-precision: A precision or clipping mode the DeepSpeed strategy does not support.
 *
 * What the DeepSpeed strategy rejects: 64-true / TransformerEngine precision, value clipping.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";

export const deepspeedUnsupportedPrecision: FrameworkRule<LightningContext> = {
  codes: ["lightning/deepspeed-unsupported-precision"],
  restsOn: [],
  run({ t, st, valid, precision, te, pRange, pe }) {
    const d = diagnostics("lightning");
    if (st.family === "deepspeed") {
      if (valid && (precision === "64-true" || te)) d.add("deepspeed-unsupported-precision", "error", pRange, `\`precision: ${precision}\` is not supported by the DeepSpeed strategy: Lightning raises ValueError.`, pe ? [fix("Use bf16-mixed", [replaceValue(pe, "bf16-mixed")], true)] : []);
      const alg = t.entry("gradient_clip_algorithm");
      if (alg && alg.value.value === "value") d.add("deepspeed-unsupported-precision", "error", alg.value.range, { message: "`gradient_clip_algorithm: value` is not supported with DeepSpeed: Lightning raises MisconfigurationException", detail: "`gradient_clip_algorithm: value` is not supported with DeepSpeed: Lightning raises MisconfigurationException. Use norm clipping." }, [fix("Use norm", [replaceValue(alg, "norm")], true)]);
    }
    return d.out;
  },
};
