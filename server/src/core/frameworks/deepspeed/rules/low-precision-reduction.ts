/**
 * deepspeed/low-precision-reduction: Gradients averaged across ranks in 16 bits (no communication_data_type).
 *
 * A 16-bit mode without `communication_data_type` averages gradients in 16 bits.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix } from "../../common/edits";
import { flowRoot, jsonAddKey } from "../jsonEdits";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";

export const lowPrecisionReduction: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/low-precision-reduction"],
  restsOn: [],
  run({ doc, v, f }) {
    const d = diagnostics("deepspeed");
    // Not with `bf16_master_weights_and_grads`: the gradients are kept in bf16 on purpose there
    // (precision_config.py:63 at v0.19.5), so an fp32 reduction is not what that file is after. Not with a
    // 1-bit optimizer: after warm-up it replaces the gradient all-reduce (see ONE_BIT_OPTIMIZERS).
    if ((f.bf16Enabled === true) !== (f.fp16Enabled === true) && !f.commDtype && !f.masterBf16 && !f.compressedComm) {
      const e = f.bf16Enabled === true ? f.bf16Entry! : f.fp16Entry!;
      const mode = f.bf16Enabled === true ? "bf16" : "fp16";
      d.add("low-precision-reduction", "information", e.range, `${mode} without \`communication_data_type\`: gradients are averaged across ranks in ${mode}`, flowRoot(doc) ? [
        fix('Reduce gradients in fp32 ("communication_data_type": "fp32")', [jsonAddKey(doc, v, [], "communication_data_type", '"fp32"')]),
      ] : [], undefined, `${mode} without \`communication_data_type\`: gradients are averaged across ranks in ${mode}. Set \`"communication_data_type": "fp32"\` for a full-precision reduction (accelerate does this itself on ROCm).`);
    }
    return d.out;
  },
};
