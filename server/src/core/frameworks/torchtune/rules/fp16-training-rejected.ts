/**
 * torchtune/fp16-training-rejected: dtype: fp16 in a training recipe: torchtune rejects full fp16 training.
 *
 * `dtype: fp16`: every training recipe rejects it (information outside training).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";

export const fp16TrainingRejected: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/fp16-training-rejected"],
  restsOn: [],
  run({ dtypeEntry, dtypeName, training }) {
    const d = diagnostics("torchtune");
    if (dtypeName === "fp16" && dtypeEntry) {
      if (training) {
        d.add("fp16-training-rejected", "error", dtypeEntry.value.range, { message: "`dtype: fp16` in a training config: every torchtune training recipe raises ValueError", detail: '`dtype: fp16` in a training config: every torchtune training recipe raises ValueError "full fp16 training is not supported with this recipe. Please use bf16 or fp32 instead".' }, [
          fix("Use bf16", [replaceValue(dtypeEntry, "bf16")], true),
          fix("Use fp32 (pre-Ampere GPUs)", [replaceValue(dtypeEntry, "fp32")]),
        ]);
      } else {
        d.add("fp16-training-rejected", "information", dtypeEntry.value.range, "`dtype: fp16` is accepted by generation, evaluation and quantization recipes; no training recipe supports it");
      }
    }
    return d.out;
  },
};
