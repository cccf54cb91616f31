/**
 * transformers/launcher-precision-mismatch: The accelerate launcher's mixed_precision and TrainingArguments bf16/fp16
 * disagree (a ValueError under DeepSpeed).
 *
 * The accelerate config this file is launched with (a `# precision-lens: accelerate-config=`
 * directive or a run script's `accelerate launch --config_file`) and TrainingArguments disagree on the mixed
 * precision. TrainingArguments `fp16`/`bf16`, when true, replace the launcher's `mixed_precision`; when both are
 * false the launcher's value is kept (training_args.py:1873-1878@4.57.1). Under DeepSpeed, accelerate's
 * `set_mixed_precision` then writes `bf16.enabled: true` (or fp16) into the config (accelerate
 * utils/dataclasses.py:1413-1444@v1.14.0), and the Trainer's fill_match compares it with `bf16` here
 * (trainer.py:5537-5538, integrations/deepspeed.py:197 and 270-274@4.57.1): with `bf16` false the launch fails.
 * An error, resting on the launcher and (for TRL's default `bf16`) the TRL version: the central gate
 * (core/provenance.ts) makes it a warning when one is assumed. Without DeepSpeed a silent override is a warning
 * (information when it rests on an unpinned TRL default). relatedInformation points at the launcher's `mixed_precision`.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { restingOn } from "../../../provenance";
import { relateLast } from "../../common/related";
import type { TransformersRule } from "../context";

export const launcherPrecisionMismatch: TransformersRule = {
  codes: ["transformers/launcher-precision-mismatch"],
  // The accelerate config (known by construction: a directive or a run script names it) and, for TRL's default
  // `bf16`, the TRL version.
  restsOn: ["launcher", "version"],
  warningOnAssumed: "information",
  run(ctx) {
    const d = diagnostics("transformers");
    const { accel, bf16, fp16, pureBf16, launcher, launcherFrom, ds, v } = ctx;
    if (!accel || !accel.mixed || !accel.mixedEntry || accel.mixed === "fp8") return d.out;
    const L = accel.mixed;
    const ta = fp16.value ? "fp16" : bf16.value || pureBf16 ? "bf16" : "no";
    const at = (ta === "fp16" ? ctx.fp16E : ctx.bf16E)?.value.range ?? v.keyRange(v.childKeys()[0] ?? "");
    const lab = `${accel.rel} sets \`mixed_precision: ${L}\``;
    const relate = () => relateLast(d, "transformers/launcher-precision-mismatch", accel.path, accel.mixedEntry!.value.range, `${accel.rel} sets mixed_precision: ${L}`);
    if (launcher === "deepspeed" && launcherFrom === "accelerate" && ta === "no" && L !== "no") {
      const key = `${L}.enabled`;
      const e = ds?.view.entry(L, "enabled");
      // An explicit value in the DeepSpeed file is not rewritten by accelerate (fill_match must_match=False); deepspeed-value-mismatch covers it.
      if (e && !(e.value.kind === "string" && e.value.value === "auto")) return d.out;
      const flag = L === "bf16" ? bf16 : fp16;
      d.add("launcher-precision-mismatch", "error", at, `${lab} (DeepSpeed), but \`${L}\` is false here: the Trainer raises ValueError on \`${key}\``, undefined, undefined, `accelerate writes \`${key}: true\` into the DeepSpeed config from the launcher's \`mixed_precision: ${L}\` (${accel.how}), and the Trainer then compares it with \`${L}\` here (${flag.detail}): "Please correct the following DeepSpeed config values that mismatch TrainingArguments values: - ds ${key}=True vs hf ${L}…". Set \`${L}: true\` here, or \`mixed_precision: no\` in the launcher.`);
      relate();
      restingOn(d.out[0]!, L === "bf16" && ctx.bf16FromVersion ? ["launcher", "version"] : ["launcher"]);
      return d.out;
    }
    if (launcher === "deepspeed") return d.out;
    if (ta !== "no" && ta !== L) {
      const src = ta === "bf16" ? bf16 : fp16;
      d.add("launcher-precision-mismatch", "warning", at, `${lab}, but \`${ta}\` here wins: the run is ${ta} AMP`, undefined, undefined, `TrainingArguments \`${ta}\` (${src.detail}) replaces the launcher's \`mixed_precision: ${L}\` (${accel.how}) in ACCELERATE_MIXED_PRECISION, so the Accelerator runs ${ta} mixed precision. Make the two files agree.`);
      relate();
      restingOn(d.out[0]!, ta === "bf16" && ctx.bf16FromVersion ? ["launcher", "version"] : ["launcher"]);
    } else if (ta === "no" && L !== "no" && bf16.source === "file" && v.bool("bf16") === false) {
      d.add("launcher-precision-mismatch", "warning", at, `\`bf16: false\` here does not turn off ${lab}: the run is ${L} AMP`, undefined, undefined, `With \`bf16\` and \`fp16\` false, TrainingArguments keeps the launcher's ACCELERATE_MIXED_PRECISION (${accel.how}), so the Accelerator still runs ${L} autocast. Set \`mixed_precision: no\` in the launcher for fp32.`);
      relate();
    }
    return d.out;
  },
};
