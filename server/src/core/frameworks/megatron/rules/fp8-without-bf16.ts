/**
 * megatron/fp8-without-bf16: --fp8-format without --bf16: parameters and every non-FP8 op stay fp32.
 *
 * `--fp8-format` without `--bf16` (or `--fp16`). FP8 covers only the GEMMs TransformerEngine
 * runs in FP8; everything else runs in `params_dtype`, which validate_args leaves at torch.float when neither
 * --fp16 nor --bf16 is given (megatron/training/arguments.py at core_v0.16.1). The parameters, the
 * attention, the norms and the communication are then fp32, and the run is much slower than fp8 over a bf16
 * base (NVIDIA/Megatron-LM#883). A warning: it runs, but not as intended.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { MegatronContext } from "../context";

export const fp8WithoutBf16: FrameworkRule<MegatronContext> = {
  codes: ["megatron/fp8-without-bf16"],
  restsOn: [],
  run({ flag }) {
    const d = diagnostics("megatron");
    const fp8 = flag("fp8-format");
    if (fp8 && !flag("bf16") && !flag("fp16")) {
      d.add("fp8-without-bf16", "warning", fp8.range, { message: `\`--fp8-format ${String(fp8.value)}\` without \`--bf16\`: parameters and every non-FP8 op stay fp32`, detail: "Without --bf16 or --fp16, validate_args keeps params_dtype = torch.float: only the GEMMs TransformerEngine runs in FP8 leave fp32; weights, attention, norms and gradient communication stay fp32, and the run is much slower than FP8 over a bf16 base (NVIDIA/Megatron-LM#883). Add --bf16." });
    }
    return d.out;
  },
};
