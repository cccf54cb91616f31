/**
 * lightning/fp16-true-without-loss-scaling: precision: 16-true trains in fp16 with no loss scaling.
 *
 * `precision: 16-true`: fp16 with no loss scaling.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";

export const fp16TrueWithoutLossScaling: FrameworkRule<LightningContext> = {
  codes: ["lightning/fp16-true-without-loss-scaling"],
  restsOn: [],
  run({ precision, pe }) {
    const d = diagnostics("lightning");
    if (precision === "16-true" && pe) d.add("fp16-true-without-loss-scaling", "warning", pe.value.range, { message: "`precision: 16-true` casts the model to fp16 with no loss scaling: small gradients underflow to zero", detail: "`precision: 16-true` casts the model to fp16 with **no loss scaling**: small gradients underflow to zero. Use 16-mixed (GradScaler) or bf16-mixed / bf16-true." }, [fix("Use 16-mixed", [replaceValue(pe, "16-mixed")]), fix("Use bf16-mixed", [replaceValue(pe, "bf16-mixed")], true)]);
    return d.out;
  },
};
