/**
 * axolotl/fp16-full-finetune: fp16 on a full fine-tune: the GradScaler fails on fp16 gradients.
 *
 * `fp16: true` on a full fine-tune: the GradScaler fails on fp16 gradients.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AxolotlContext } from "../context";

export const fp16FullFinetune: FrameworkRule<AxolotlContext> = {
  codes: ["axolotl/fp16-full-finetune"],
  restsOn: [],
  run({ fp16, fullFT, fp16E, bf16E, bf16 }) {
    const d = diagnostics("axolotl");
    if (fp16 && fullFT && fp16E && bf16 !== true) {
      d.add("fp16-full-finetune", "warning", fp16E.value.range, { message: "`fp16: true` on a full fine-tune loads the model in fp16: the GradScaler then fails (unscale FP16 gradients)", detail: "`fp16: true` on a full fine-tune loads the model in fp16, and the GradScaler then fails with \"Attempting to unscale FP16 gradients\". Use bf16 or a LoRA adapter." }, bf16E ? [fix("Use bf16 instead", [replaceValue(fp16E, "false"), replaceValue(bf16E, "true")], true)] : [fix("Use bf16 instead", [replaceValue(fp16E, "false")], true)]);
    }
    return d.out;
  },
};
