/**
 * lightning/model-parallel-unsupported-precision: A precision ModelParallelStrategy does not support.
 *
 * A precision ModelParallelStrategy rejects.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";

export const modelParallelUnsupportedPrecision: FrameworkRule<LightningContext> = {
  codes: ["lightning/model-parallel-unsupported-precision"],
  restsOn: [],
  run({ st, valid, precision, te, pRange, pe }) {
    const d = diagnostics("lightning");
    if (st.family === "model_parallel" && !st.derived && valid && (precision === "16-mixed" || precision === "64-true" || te)) {
      d.add("model-parallel-unsupported-precision", "error", pRange, { message: `\`precision: ${precision}\` is not supported by ModelParallelStrategy: Lightning raises ValueError`, detail: `\`precision: ${precision}\` is not supported by ModelParallelStrategy (allowed: 32-true, bf16-mixed, bf16-true, 16-true): Lightning raises ValueError.` }, pe ? [fix("Use bf16-mixed", [replaceValue(pe, "bf16-mixed")], true)] : []);
    }
    return d.out;
  },
};
