/**
 * transformers/HF5: FlashAttention with fp32 compute. The flash-attn kernels take only fp16/bf16 inputs
 * ("FlashAttention only support fp16 and bf16 data type"); transformers only warns at load time
 * (modeling_utils `_check_and_enable_flash_attn_2`: "Flash Attention 2 only supports torch.float16 and
 * torch.bfloat16 dtypes"). With `bf16`/`fp16` AMP the projections feed it 16-bit tensors, so only a model
 * loaded in fp32 with no AMP fails, at the first forward. Error when the attention, the fp32 load and the
 * absence of AMP are all written here (or certain defaults); warning when one rests on an assumption.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { TransformersContext } from "../context";
import { isFlash } from "../context";

export const HF5: FrameworkRule<TransformersContext> = {
  codes: ["transformers/HF5"],
  // The launcher and the linked DeepSpeed file are facts of the gate (analyzer.ts transformersFacts); the version-dependent
  // TrainingArguments defaults are still weighed inside the rule ("[default]" warnings).
  restsOn: ["launcher"],
  run({ attn, load, bf16, amp, launcher, ds }) {
    const d = diagnostics("transformers");
    if (!attn || !isFlash(attn.value) || amp.value !== "no") return d.out;
    // DeepSpeed casts the module to its own mode; an "auto"/explicit bf16 file changes the compute dtype.
    if (launcher === "deepspeed" && (!ds || ds.facts.mode !== "fp32" || ds.facts.autoPrecision)) return d.out;
    if (load.value !== "float32") return d.out;
    const certain = load.source !== "assumed" && bf16.source !== "assumed";
    d.add("HF5", certain ? "error" : "warning", attn.entry.value.range, `${certain ? "" : "[default] "}\`${attn.value}\` with fp32 compute (${load.detail}, no \`bf16\`/\`fp16\`): FlashAttention takes only fp16/bf16`, undefined, undefined, `The model is loaded in fp32 (${load.detail}) and neither \`bf16\` nor \`fp16\` is on (${bf16.detail}), so attention receives fp32 tensors and the flash-attn kernel raises "FlashAttention only support fp16 and bf16 data type" at the first forward. Set \`bf16: true\`, load in bf16, or use \`sdpa\`.`);
    return d.out;
  },
};
