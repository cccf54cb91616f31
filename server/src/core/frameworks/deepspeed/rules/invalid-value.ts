/**
 * deepspeed/invalid-value: An invalid DeepSpeed value (communication dtype, loss scale, optimizer clipping).
 *
 * Values DeepSpeed rejects (`communication_data_type`, loss scaling, `optimizer.params.max_grad_norm`).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";

export const invalidValue: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/invalid-value"],
  restsOn: [],
  run({ v, f }) {
    const d = diagnostics("deepspeed");
    const comm = v.entry("communication_data_type");
    if (comm && !(comm.value.kind === "string" && ["fp32", "fp16", "bf16"].includes(comm.value.value as string)) && !(comm.value.kind === "null")) {
      d.add("invalid-value", "error", comm.value.range, `\`communication_data_type\` must be "fp32", "fp16" or "bf16"; DeepSpeed raises ValueError for ${comm.value.raw ?? String(comm.value.value)}.`, [
        fix('Use "fp32"', [replaceValue(comm, '"fp32"')], true),
      ]);
    }
    if (f.fp16Enabled === true) {
      const ls = v.num("fp16", "loss_scale");
      const lsE = v.entry("fp16", "loss_scale");
      if (ls !== undefined && lsE && (ls < 0 || !Number.isFinite(ls))) d.add("invalid-value", "error", lsE.value.range, `\`fp16.loss_scale\` is ${ls}; it must be ≥ 0 (0 means dynamic loss scaling).`, [fix("Use dynamic loss scaling (0)", [replaceValue(lsE, "0")], true)]);
      const dynamic = ls === undefined || ls === 0;
      for (const k of ["loss_scale_window", "min_loss_scale"]) {
        const x = v.num("fp16", k);
        const e = v.entry("fp16", k);
        if (dynamic && e && x !== undefined && x <= 0) d.add("invalid-value", "error", e.value.range, `\`fp16.${k}\` is ${x}; with dynamic loss scaling it must be > 0.`, [fix(`Set ${k} to ${k === "min_loss_scale" ? 1 : 1000}`, [replaceValue(e, k === "min_loss_scale" ? "1" : "1000")], true)]);
      }
    }
    const mgn = v.entry("optimizer", "params", "max_grad_norm");
    if (mgn) d.add("invalid-value", "error", mgn.range, "`optimizer.params.max_grad_norm` is rejected by DeepSpeed (ValueError); use the top-level `gradient_clipping` instead.");
    return d.out;
  },
};
