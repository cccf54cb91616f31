/**
 * transformers/flash-attention-fp32: FlashAttention with fp32 compute (fp32 load, no bf16/fp16 AMP).
 *
 * FlashAttention with fp32 compute. The flash-attn kernels take only fp16/bf16 inputs
 * ("FlashAttention only support fp16 and bf16 data type"); transformers only warns at load time
 * (modeling_utils `_check_and_enable_flash_attn_2`: "Flash Attention 2 only supports torch.float16 and
 * torch.bfloat16 dtypes"). With `bf16`/`fp16` AMP the projections feed it 16-bit tensors, so only a model
 * loaded in fp32 with no AMP fails, at the first forward. An error resting on the launcher (an accelerate config
 * with `mixed_precision` would feed 16-bit tensors) and, for a default load dtype or `bf16`, the version; the
 * central gate makes it a warning when one is assumed.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { TransformersRule } from "../context";
import { isFlash } from "../context";
import { restingOn } from "../../../provenance";

export const flashAttentionFp32: TransformersRule = {
  codes: ["transformers/flash-attention-fp32"],
  // The launcher (an accelerate config's mixed precision would feed 16-bit tensors) and, for a default load dtype
  // or TRL's default `bf16`, the version that sets them.
  restsOn: ["launcher", "version"],
  run(ctx) {
    const { attn, load, bf16, amp, launcher, ds } = ctx;
    const d = diagnostics("transformers");
    if (!attn || !isFlash(attn.value) || amp.value !== "no") return d.out;
    // DeepSpeed casts the module to its own mode; an "auto"/explicit bf16 file changes the compute dtype. A candidate
    // launcher's DeepSpeed config (launcher not found, candidates.ts) is filled from this file's `bf16`/`fp16` by
    // construction: its "auto" is this file's fp32.
    if (launcher === "deepspeed" && (!ds || ds.facts.mode !== "fp32" || (ds.facts.autoPrecision && !ctx.candidate))) return d.out;
    if (load.value !== "float32") return d.out;
    d.add("flash-attention-fp32", "error", attn.entry.value.range, `\`${attn.value}\` with fp32 compute (${load.detail}, no \`bf16\`/\`fp16\`): FlashAttention takes only fp16/bf16`, undefined, undefined, `The model is loaded in fp32 (${load.detail}) and neither \`bf16\` nor \`fp16\` is on (${bf16.detail}), so attention receives fp32 tensors and the flash-attn kernel raises "FlashAttention only support fp16 and bf16 data type" at the first forward. Set \`bf16: true\`, load in bf16, or use \`sdpa\`.`);
    for (const x of d.out) restingOn(x, ctx.loadFromVersion || ctx.bf16FromVersion ? ["launcher", "version"] : ["launcher"]);
    return d.out;
  },
};
