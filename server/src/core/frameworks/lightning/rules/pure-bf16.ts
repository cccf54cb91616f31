/**
 * lightning/pure-bf16: precision: bf16-true is pure bf16: no fp32 master copy.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { pureLowPrecisionState } from "../../common/pureLowPrecision";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";

export const pureBf16: FrameworkRule<LightningContext> = {
  codes: ["lightning/pure-bf16"],
  restsOn: [],
  run({ precision, pe, st }) {
    const d = diagnostics("lightning");
    if (precision === "bf16-true" && pe) d.add("pure-bf16", "information", pe.value.range, { message: `\`precision: bf16-true\` is pure bf16: ${pureLowPrecisionState("bf16")}`, detail: `\`precision: bf16-true\` is pure bf16: ${pureLowPrecisionState("bf16")}${st.family === "fsdp" ? " (FSDP's warning about a full-precision copy does not apply: the module is already cast, Lightning-AI/pytorch-lightning#18717)" : ""}. Use bf16-mixed for fp32 master weights.` });
    return d.out;
  },
};
