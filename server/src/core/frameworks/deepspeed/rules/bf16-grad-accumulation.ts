/**
 * deepspeed/bf16-grad-accumulation: bf16 gradient accumulation.
 *
 * bf16 with gradient accumulation accumulates in bf16 unless `grad_accum_dtype` is fp32.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix } from "../../common/edits";
import { DS_DTYPE } from "../data";
import { flowRoot, jsonAddKey } from "../jsonEdits";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";

export const bf16GradAccumulation: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/bf16-grad-accumulation"],
  restsOn: [],
  run({ doc, v, f }) {
    const d = diagnostics("deepspeed");
    if (f.bf16Enabled === true && f.gas !== undefined && f.gas > 1 && !(f.gradAccumDtype && DS_DTYPE[f.gradAccumDtype] === "float32")) {
      const gasEntry = v.entry("gradient_accumulation_steps")!;
      d.add("bf16-grad-accumulation", "warning", gasEntry.range, `bf16 with gradient_accumulation_steps = ${f.gas}: gradients accumulate in bf16, so small contributions round away`, flowRoot(doc) ? [
        fix('Accumulate in fp32 (data_types.grad_accum_dtype: "fp32")', [jsonAddKey(doc, v, ["data_types"], "grad_accum_dtype", '"fp32"')], true),
      ] : [], undefined, `bf16 with gradient_accumulation_steps = ${f.gas}: gradients are accumulated in bf16 across the ${f.gas} micro-steps, so small contributions round away. Set \`data_types.grad_accum_dtype: "fp32"\` to accumulate in fp32.`);
    }
    return d.out;
  },
};
