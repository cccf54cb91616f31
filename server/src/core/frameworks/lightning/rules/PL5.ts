/** lightning/PL5: a precision ModelParallelStrategy rejects. */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";

export const PL5: FrameworkRule<LightningContext> = {
  codes: ["lightning/PL5"],
  restsOn: [],
  run({ st, valid, precision, te, pRange, pe }) {
    const d = diagnostics("lightning");
    if (st.family === "model_parallel" && !st.derived && valid && (precision === "16-mixed" || precision === "64-true" || te)) {
      d.add("PL5", "error", pRange, { message: `\`precision: ${precision}\` is not supported by ModelParallelStrategy: Lightning raises ValueError`, detail: `\`precision: ${precision}\` is not supported by ModelParallelStrategy (allowed: 32-true, bf16-mixed, bf16-true, 16-true): Lightning raises ValueError.` }, pe ? [fix("Use bf16-mixed", [replaceValue(pe, "bf16-mixed")], true)] : []);
    }
    return d.out;
  },
};
