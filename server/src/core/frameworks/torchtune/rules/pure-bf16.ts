/**
 * torchtune/pure-bf16: dtype: bf16 is pure bf16: no fp32 master copy.
 *
 * `dtype: bf16` in training is pure bf16 (no fp32 master copy); a warning on long/high-lr runs.
 */
import { pureBf16Risk } from "../../common/pureLowPrecision";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";

export const pureBf16: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/pure-bf16"],
  restsOn: ["worldSize"],
  run({ v, dtypeEntry, dtypeName, training, singleDevice, worldSize }) {
    const d = diagnostics("torchtune");
    const lr = v.num("optimizer", "lr");
    if (dtypeName === "bf16" && dtypeEntry && training) {
      const epochs = v.int("epochs");
      const { long, why, short } = pureBf16Risk({ lr, epochs });
      const reduced = !(singleDevice || worldSize?.value === 1);
      const detail = `\`dtype: bf16\` is pure bf16 in torchtune: weights, gradients and optimizer states are bf16${reduced ? ", there is no fp32 master copy, and gradients are reduced in bf16" : " and there is no fp32 master copy"}.${why} Use \`dtype: fp32\` if convergence suffers; torchtune has no fp32-master mixed precision.`;
      const message = short
        ? `\`dtype: bf16\` is pure bf16 (no fp32 master copy): ${short}`
        : `\`dtype: bf16\` is pure bf16: weights, gradients${reduced ? ", optimizer states and the reduction" : " and optimizer states"} are bf16, no fp32 master copy`;
      d.add("pure-bf16", long ? "warning" : "information", dtypeEntry.value.range, message, [fix("Use fp32 (full precision)", [replaceValue(dtypeEntry, "fp32")])], undefined, detail);
    }
    return d.out;
  },
};
