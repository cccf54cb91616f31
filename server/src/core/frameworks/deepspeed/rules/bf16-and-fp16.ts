/**
 * deepspeed/bf16-and-fp16: fp16 and bf16 both enabled, or Apex amp with DeepSpeed's own mode.
 *
 * fp16 and bf16 both enabled, or a mode combined with Apex amp: DeepSpeed refuses to start.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";

export const bf16AndFp16: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/bf16-and-fp16"],
  restsOn: [],
  run({ v, f }) {
    const d = diagnostics("deepspeed");
    if (f.bf16Enabled === true && f.fp16Enabled === true) {
      const msg = "`fp16.enabled` and `bf16.enabled` are both true: DeepSpeed refuses to start (AssertionError \"bfloat16 and fp16 modes cannot be simultaneously enabled\"). Keep one.";
      const fixes = [fix("Disable fp16 (keep bf16)", [replaceValue(f.fp16Entry!, "false")], true), fix("Disable bf16 (keep fp16)", [replaceValue(f.bf16Entry!, "false")])];
      const short = "`fp16.enabled` and `bf16.enabled` are both true: DeepSpeed refuses to start (AssertionError)";
      d.add("bf16-and-fp16", "error", f.bf16Entry!.range, { message: short, detail: msg }, fixes);
      d.add("bf16-and-fp16", "error", f.fp16Entry!.range, { message: short, detail: msg }, fixes);
    }
    const amp = v.entry("amp", "enabled");
    if (f.ampEnabled && amp && (f.bf16Enabled === true || f.fp16Enabled === true)) {
      d.add("bf16-and-fp16", "error", amp.range, { message: `\`amp.enabled\` (Apex AMP) with DeepSpeed's ${f.bf16Enabled === true ? "bf16" : "fp16"} mode: DeepSpeed raises NotImplementedError`, detail: `\`amp.enabled\` (Apex AMP) is combined with DeepSpeed's own ${f.bf16Enabled === true ? "bf16" : "fp16"} mode: DeepSpeed raises NotImplementedError. Use one mixed-precision mode.` }, [fix("Disable Apex amp", [replaceValue(amp, "false")], true)]);
    }
    return d.out;
  },
};
