/**
 * transformers/pure-16-bit: bf16/fp16 AMP over a model loaded in bf16/fp16 on a plain/DDP launch: pure 16-bit, no
 * fp32 master weights.
 *
 * `bf16: true` (or TRL's default) over a model loaded in bf16 with no launcher that keeps fp32
 * master weights: autocast only, so weights, gradients and optimizer state are pure bf16, although it reads
 * like mixed precision (TRL PR #6005; torchtune #2254 for what pure bf16 costs). Under plain/DDP the Trainer
 * does not upcast (transformers trainer.py has no upcast outside FSDP/DeepSpeed); accelerate's FSDP does,
 * except FSDP2 at accelerate 1.13.0 (see low-precision-reduction). The launcher is usually chosen outside this file
 * (`accelerate launch --config_file zero3.yaml …`; DeepSpeed keeps fp32 master partitions), so the warning rests on
 * the launcher: when nothing names it (no `deepspeed`/`fsdp` key, directive, TRL `accelerate_config` or launch line),
 * the finding is not true under every candidate launcher (candidates.ts) and is not reported; the precision table
 * then shows the master weights by launcher. For TRL's default `bf16` it rests on the TRL version too: information
 * led by that assumption when TRL is not pinned. An fp16 load with fp16 AMP is fp16-model-fp16-amp's (the
 * GradScaler stops that run at the first step), so pure-16-bit does not report it.
 */
import { firstFitting } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { TransformersRule } from "../context";
import { restingOn } from "../../../provenance";
import { transformersResolution } from "../resolve";
import { pureBf16Risk } from "../../common/pureLowPrecision";

export const pure16Bit: TransformersRule = {
  codes: ["transformers/pure-16-bit"],
  // The launcher (when nothing names one, analyzer.ts keeps the finding only if every candidate launcher makes it,
  // which none with fp32 master weights does) and, for TRL's default `bf16`, the TRL version: a warning on an
  // assumed version becomes information, led by the assumption (core/provenance.ts).
  restsOn: ["launcher", "version"],
  warningOnAssumed: "information",
  run(ctx) {
    const d = diagnostics("transformers");
    const { load, amp, pureBf16, launcher, v, launcherFrom, accel } = ctx;
    if (launcher === "fsdp" || pureBf16 || ctx.adapters) return d.out;
    if (amp.value === "no" || !(load.value === "bfloat16" || load.value === "float16")) return d.out;
    // fp16 load with fp16 AMP stops at the first step (the GradScaler refuses fp16 gradients): fp16-model-fp16-amp reports it.
    if (amp.value === "fp16" && load.value === "float16") return d.out;
    const r = transformersResolution(ctx);
    if (!r.pure16 || launcher !== "plain") return d.out;
    const low = load.value === "bfloat16" ? "bf16" : "fp16";
    const known = launcherFrom === "accelerate";
    const launchTag = known ? `[${accel!.distType === "NO" ? "one process" : "DDP"}, from ${accel!.rel}] ` : "";
    const at = load.entry?.value.range ?? (amp.value === "bf16" ? ctx.bf16E : ctx.fp16E)?.value.range ?? v.keyRange(v.childKeys()[0] ?? "");
    const fixes = load.entry ? [fix("Load the model in fp32 (autocast keeps fp32 master weights)", [replaceValue(load.entry, "float32")])] : undefined;
    // Pure bf16 with a small learning rate (or a long run): the updates below bf16's resolution relative to the
    // weights round away (common/pureLowPrecision.ts, the model TT3 and torchtitan's pure-bf16 share).
    const risk = low === "bf16" ? pureBf16Risk({ lr: v.num("learning_rate"), epochs: v.num("num_train_epochs") }) : { why: "", short: "" };
    const base = `${launchTag}Model loaded in ${low} with \`${amp.value}\` AMP: pure ${low}, no fp32 master weights`;
    d.add(
      "pure-16-bit",
      "warning",
      at,
      // The learning-rate clause goes into the message only where the body stays within 120 characters (the
      // central gate's "Assuming …: " lead is not counted); it is always in the detail.
      // "pure bf16" already says there is no fp32 master copy: the shorter form makes room for the clause.
      firstFitting([...(risk.short ? [`${base}; ${risk.short}`, `${base.replace(/, no fp32 master weights$/, "")}; ${risk.short}`] : []), base]),
      fixes,
      undefined,
      `The model is loaded in ${low} (${load.detail}) and ${amp.detail} only wraps the forward pass in torch.autocast. ${known ? `Launched with ${accel!.rel} (${accel!.how}) as \`distributed_type: ${accel!.distType}\`` : "Launched on a single GPU or with DDP (no \`deepspeed\`/\`fsdp\` key here; the launcher may be chosen by \`accelerate launch --config_file\`)"}, nothing upcasts the parameters, so weights, gradients and the optimizer state (AdamW moments) are all ${low}: small updates round away.${risk.why} Load in fp32 (\`torch_dtype: float32\`) for fp32 master weights, use DeepSpeed ZeRO (fp32 master partitions), or accept pure ${low}.`,
    );
    const rests = ctx.bf16FromVersion && amp.source !== "launcher" ? ["launcher", "version"] as const : ["launcher"] as const;
    for (const x of d.out) restingOn(x, rests);
    return d.out;
  },
};
