/**
 * transformers/fp16-model-fp16-amp: A model loaded in fp16 with `fp16` AMP on a plain/DDP launch: the GradScaler
 * raises "Attempting to unscale FP16 gradients" at the first step.
 *
 * The model loaded in float16 with `fp16` AMP on a plain/DDP launch: every trainable parameter
 * (and so every gradient) is fp16, and the Accelerator's fp16 GradScaler refuses fp16 gradients, so training
 * stops at the first optimizer step with ValueError "Attempting to unscale FP16 gradients.".
 *
 * The chain, read at the tags: accelerate `Accelerator.__init__` builds `get_grad_scaler(distributed_type)` for
 * `mixed_precision: fp16` outside DeepSpeed, a plain `torch.amp.GradScaler` unless the type is FSDP
 * (accelerate/accelerator.py, utils/modeling.py `get_grad_scaler`, 1.15.0); the Trainer's gradient clipping
 * (`max_grad_norm` > 0) or, without it, `GradScaler.step` calls `unscale_`, which calls `_unscale_grads_(…,
 * allow_fp16=False)` and raises on any fp16 `param.grad` (torch/amp/grad_scaler.py:274-275, 358@2.13.0).
 * The load dtype is this file's (`torch_dtype`, `model_init_kwargs`) or, when the file sets none, the literal dtype of
 * the `from_pretrained(` calls in the training script the launch line runs (context.ts `scriptLoadDtype`; not read
 * when the script builds adapters or quantizes).
 * Silent where the chain differs: DeepSpeed (its own loss scaler and fp32 master partitions), FSDP
 * (`ShardedGradScaler` passes `allow_fp16=True`, sharded_grad_scaler.py:258@2.13.0), trainable adapters (PEFT keeps
 * them fp32), LLaMA-Factory (it upcasts trainable parameters to fp32, model/adapter.py:313-323@v0.9.5). The
 * launcher is usually chosen outside this file, so the error rests on it: when nothing names the launcher the error
 * is not true under every candidate launcher (candidates.ts: DeepSpeed and FSDP do not raise) and is not reported.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { TransformersRule } from "../context";
import { withShorter } from "../../../provenance";

export const fp16ModelFp16Amp: TransformersRule = {
  codes: ["transformers/fp16-model-fp16-amp"],
  // The launcher (plain/DDP assumed when nothing names one); an fp16 load is always written in the file.
  restsOn: ["launcher"],
  run(ctx) {
    const d = diagnostics("transformers");
    const { load, amp, launcher, pureBf16, adapters, quantized, v, launcherFrom, accel } = ctx;
    // LLaMA-Factory upcasts trainable parameters to fp32 unless `pure_bf16` (model/adapter.py:313-323@v0.9.5).
    if (ctx.dialect === "llamafactory" || launcher !== "plain" || pureBf16 || adapters || quantized) return d.out;
    if (amp.value !== "fp16" || load.value !== "float16") return d.out;
    const known = launcherFrom === "accelerate";
    const launchTag = known ? `[${accel!.distType === "NO" ? "one process" : "DDP"}, from ${accel!.rel}] ` : "";
    const at = load.entry?.value.range ?? ctx.fp16E?.value.range ?? v.keyRange(v.childKeys()[0] ?? "");
    const fixes = load.entry ? [fix("Load the model in fp32 (fp16 AMP keeps fp32 master weights)", [replaceValue(load.entry, "float32")])] : undefined;
    d.add(
      "fp16-model-fp16-amp",
      "error",
      at,
      `${launchTag}fp16 load, \`fp16\` AMP: ValueError "Attempting to unscale FP16 gradients"`,
      fixes,
      undefined,
      `The model is loaded in fp16 (${load.detail}) and ${amp.detail} makes the Accelerator build a torch GradScaler. ${known ? `Launched with ${accel!.rel} (${accel!.how}) as \`distributed_type: ${accel!.distType}\`` : "Launched on a single GPU or with DDP (no \`deepspeed\`/\`fsdp\` key here; the launcher may be chosen by \`accelerate launch --config_file\`)"}, the gradients are fp16 and \`GradScaler.unscale_\` (gradient clipping, or the optimizer step) raises ValueError "Attempting to unscale FP16 gradients." at the first optimizer step. Load in fp32 (\`torch_dtype: float32\`) so AMP keeps fp32 master weights, train adapters (LoRA) instead, or use DeepSpeed.`,
    );
    // Under the assumed launcher the lead takes room: the short form keeps the upstream error whole.
    for (const x of d.out) withShorter(x, ['`fp16` AMP on an fp16 load: "Attempting to unscale FP16 gradients"']);
    return d.out;
  },
};
