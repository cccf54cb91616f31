/**
 * axolotl/bitsandbytes-fsdp2: A bitsandbytes 8-bit optimizer with FSDP2.
 *
 * A bitsandbytes 8-bit optimizer with FSDP2: Axolotl raises ValueError.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AxolotlContext } from "../context";

export const bitsandbytesFsdp2: FrameworkRule<AxolotlContext> = {
  codes: ["axolotl/bitsandbytes-fsdp2"],
  restsOn: [],
  run({ v, fsdp2 }) {
    const d = diagnostics("axolotl");
    const opt = v.entry("optimizer");
    if (opt && fsdp2 && ["adamw_bnb_8bit", "adamw_8bit"].includes(String(opt.value.value))) {
      d.add("bitsandbytes-fsdp2", "error", opt.value.range, `\`optimizer: ${String(opt.value.value)}\` (bitsandbytes) with FSDP2: Axolotl raises ValueError. Use \`adamw_torch_8bit\`.`, [fix("Use adamw_torch_8bit", [replaceValue(opt, "adamw_torch_8bit")], true)]);
    }
    return d.out;
  },
};
