/**
 * axolotl/bf16-and-fp16: bf16 and fp16 both on: Axolotl silently drops fp16.
 *
 * `bf16: true` and `fp16: true`: Axolotl silently drops fp16.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { removeKey, fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AxolotlContext } from "../context";

export const bf16AndFp16: FrameworkRule<AxolotlContext> = {
  codes: ["axolotl/bf16-and-fp16"],
  restsOn: [],
  run({ doc, bf16, fp16, bf16E, fp16E }) {
    const d = diagnostics("axolotl");
    if (bf16 === true && fp16 && fp16E) {
      d.add("bf16-and-fp16", "warning", fp16E.value.range, { message: "`bf16: true` and `fp16: true` are both set: Axolotl turns fp16 off, so fp16 is silently dropped", detail: "`bf16: true` and `fp16: true` are both set: Axolotl turns fp16 off when bf16 is on, so fp16 is silently dropped. Remove one." }, [fix("Remove fp16: true", removeKey(doc, fp16E.range), true), ...(bf16E ? [fix("Keep fp16 (bf16: false)", [replaceValue(bf16E, "false")])] : [])]);
    }
    return d.out;
  },
};
