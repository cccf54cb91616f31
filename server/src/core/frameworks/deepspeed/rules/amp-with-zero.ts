/**
 * deepspeed/amp-with-zero: Apex amp with ZeRO: DeepSpeed asserts they are incompatible.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";

export const ampWithZero: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/amp-with-zero"],
  restsOn: [],
  run({ v, f }) {
    const d = diagnostics("deepspeed");
    const amp = v.entry("amp", "enabled");
    if (f.ampEnabled && amp && typeof f.stage === "number" && f.stage >= 1) {
      d.add("amp-with-zero", "error", amp.range, { message: `\`amp.enabled\` with ZeRO stage ${f.stage}: DeepSpeed asserts Amp and ZeRO are not compatible`, detail: `\`amp.enabled\` with ZeRO stage ${f.stage}: DeepSpeed asserts "Amp and ZeRO are not currently compatible". Use \`bf16\`/\`fp16\` instead of Apex amp.` }, [fix("Disable Apex amp", [replaceValue(amp, "false")], true)]);
    }
    return d.out;
  },
};
