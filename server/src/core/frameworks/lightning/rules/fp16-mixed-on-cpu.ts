/**
 * lightning/fp16-mixed-on-cpu: 16-mixed on CPU: Lightning switches to bf16-mixed.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";

export const fp16MixedOnCpu: FrameworkRule<LightningContext> = {
  codes: ["lightning/fp16-mixed-on-cpu"],
  restsOn: [],
  run({ precision, accelerator, pe }) {
    const d = diagnostics("lightning");
    if (precision === "16-mixed" && accelerator === "cpu" && pe) d.add("fp16-mixed-on-cpu", "information", pe.value.range, "`16-mixed` on `accelerator: cpu`: Lightning warns and switches to bf16-mixed (CPU autocast has no fp16).", [fix("Use bf16-mixed", [replaceValue(pe, "bf16-mixed")], true)]);
    return d.out;
  },
};
