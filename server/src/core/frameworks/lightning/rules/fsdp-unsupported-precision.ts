/**
 * lightning/fsdp-unsupported-precision: A precision the FSDP strategy does not support.
 *
 * A precision the FSDP strategy rejects (64-true, TransformerEngine).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";

export const fsdpUnsupportedPrecision: FrameworkRule<LightningContext> = {
  codes: ["lightning/fsdp-unsupported-precision"],
  restsOn: [],
  run({ st, valid, precision, te, pRange, pe }) {
    const d = diagnostics("lightning");
    if (st.family === "fsdp" && valid && (precision === "64-true" || te)) {
      d.add("fsdp-unsupported-precision", "error", pRange, `\`precision: ${precision}\` is not supported by the FSDP strategy: Lightning raises ValueError. Use bf16-mixed (or 32-true).`, pe ? [fix("Use bf16-mixed", [replaceValue(pe, "bf16-mixed")], true)] : []);
    }
    return d.out;
  },
};
