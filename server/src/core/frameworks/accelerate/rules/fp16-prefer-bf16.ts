/**
 * accelerate/fp16-prefer-bf16: fp16 mixed precision: prefer bf16 on Ampere or newer; load the model in fp32.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const fp16PreferBf16: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/fp16-prefer-bf16"],
  restsOn: [],
  run({ mixed, distType, mixedEntry }) {
    const d = diagnostics("accelerate");
    const fsdp = distType === "FSDP";
    if (mixed === "fp16" && (fsdp || distType === "MULTI_GPU") && mixedEntry) {
      d.add("fp16-prefer-bf16", "information", mixedEntry.value.range, { message: "fp16 mixed precision: on Ampere or newer GPUs prefer bf16 (no loss scaling, same range as fp32)", detail: "fp16 mixed precision: on Ampere or newer GPUs prefer bf16 (no loss scaling, same range as fp32). With fp16 the model must be loaded in fp32: a model loaded in fp16 makes the GradScaler fail with \"Attempting to unscale FP16 gradients\"." }, [
        fix("Use bf16", [replaceValue(mixedEntry, "bf16")]),
      ]);
    }
    return d.out;
  },
};
