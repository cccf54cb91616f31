/**
 * transformers/deepspeed-value-mismatch: The DeepSpeed file sets a value the Trainer fills from TrainingArguments,
 * and they differ (set it to "auto").
 *
 * The DeepSpeed config sets an explicit value the Trainer fills from TrainingArguments and it
 * differs: `trainer_config_process` → `fill_match` records the mismatch and `trainer_config_finalize` raises
 * ValueError "Please correct the following DeepSpeed config values that mismatch TrainingArguments values …
 * The easiest method is to set these DeepSpeed config values to 'auto'." (integrations/deepspeed.py:137-197 and
 * 270-274@4.57.1). An error resting on the DeepSpeed config (read from disk, inline, or named by the accelerate
 * config) and, when the TrainingArguments side is TRL's version-dependent `bf16`, the TRL version; the central
 * gate (core/provenance.ts) makes it a warning when one is assumed. A TRL default the tables do not hold (TRL's
 * configs override some TrainingArguments defaults) is unknown: no finding. The diagnostic points at the
 * DeepSpeed entry through relatedInformation.
 */
import type { ConfigEntry } from "../../../model/document";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import { restingOn } from "../../../provenance";
import { relateLast } from "../../common/related";
import type { TransformersRule } from "../context";
import { TA_DEFAULTS } from "../data";

interface Check {
  ds: string[];
  hfKey: string;
  /** The TrainingArguments side; `fromVersion` when it is a version-dependent default (TRL's `bf16`). */
  hf: { value: unknown; fromVersion: boolean; label: string; at?: ConfigEntry | undefined } | undefined;
}

export const deepspeedValueMismatch: TransformersRule = {
  codes: ["transformers/deepspeed-value-mismatch"],
  restsOn: ["linkedConfig", "version"],
  run(ctx) {
    const d = diagnostics("transformers");
    const { ds, dsSource, v, dialect, bf16, fp16, accel } = ctx;
    // The accelerate launcher's DeepSpeed file goes through the same fill_match (trainer.py:5537-5538 and 5565-5575@4.57.1).
    // The accelerate launcher's DeepSpeed config, read from its file or built from its `deepspeed_config` section.
    if (!ds || !(dsSource === "file" || dsSource === "inline" || (dsSource === "launcher" && accel && (accel.ds || !accel.dsRel)))) return d.out;
    const num = (key: keyof typeof TA_DEFAULTS): Check["hf"] => {
      const e = v.entry(key);
      const n = v.num(key);
      if (e && n !== undefined) return { value: n, fromVersion: false, label: `\`${key}: ${n}\``, at: e };
      if (e) return undefined;
      // TRL's configs override some TrainingArguments defaults, which the tables here do not hold: unknown, no finding.
      if (dialect === "trl") return undefined;
      return { value: TA_DEFAULTS[key], fromVersion: false, label: `\`${key}\` (default ${TA_DEFAULTS[key]})` };
    };
    const bfEval = v.bool("bf16_full_eval") === true;
    const fpEval = v.bool("fp16_full_eval") === true;
    const checks: Check[] = [
      { ds: ["bf16", "enabled"], hfKey: "bf16", hf: { value: bf16.value || bfEval, fromVersion: ctx.bf16FromVersion, label: bf16.source === "file" ? `\`bf16: ${bf16.value}\`` : `\`bf16\` (${bf16.detail})`, at: ctx.bf16E } },
      { ds: ["fp16", "enabled"], hfKey: "fp16", hf: { value: fp16.value || fpEval, fromVersion: false, label: fp16.source === "file" ? `\`fp16: ${fp16.value}\`` : "`fp16` (default false)", at: ctx.fp16E } },
      { ds: ["gradient_accumulation_steps"], hfKey: "gradient_accumulation_steps", hf: num("gradient_accumulation_steps") },
      { ds: ["gradient_clipping"], hfKey: "max_grad_norm", hf: num("max_grad_norm") },
      { ds: ["train_micro_batch_size_per_gpu"], hfKey: "per_device_train_batch_size", hf: v.bool("auto_find_batch_size") === true ? undefined : num("per_device_train_batch_size") },
    ];
    const name = dsSource === "inline" ? "the inline `deepspeed:` mapping" : dsSource === "launcher" ? accel!.dsRel ?? `the \`deepspeed_config\` of ${accel!.rel}` : ctx.dsRel!;
    for (const c of checks) {
      if (!c.hf) continue;
      const e = ds.view.entry(...c.ds);
      if (!e || (e.value.kind === "string" && e.value.value === "auto") || e.value.kind === "null") continue;
      const dsVal = e.value.value;
      const hfVal = c.hf.value;
      if (typeof dsVal === typeof hfVal ? dsVal === hfVal : Number(dsVal) === Number(hfVal)) continue;
      const key = c.ds.join(".");
      // A string boolean ("true") is bool to DeepSpeed but not equal to the Trainer's bool: quote it in the message.
      const shown = typeof dsVal === "string" ? JSON.stringify(dsVal) : String(dsVal);
      const at = c.hf.at?.value.range ?? ctx.dsEntry?.value.range ?? ctx.v.keyRange("deepspeed");
      const fixes = dsSource === "inline" ? [fix(`Set \`${key}\` to "auto"`, [replaceValue(e, '"auto"')], true)] : undefined;
      d.add(
        "deepspeed-value-mismatch",
        "error",
        at,
        `${name} sets \`${key}: ${shown}\` but ${c.hf.label} here: the Trainer raises ValueError (set it to "auto")`,
        fixes,
        undefined,
        `The Trainer fills the DeepSpeed config from TrainingArguments and refuses explicit values that differ: \`${key}: ${String(dsVal)}\` in ${name} against ${c.hf.label} here (\`${c.hfKey}\`)${typeof dsVal === "string" ? " (a string: DeepSpeed alone would read it as a boolean, the Trainer compares it as written)" : ""}. It raises ValueError "Please correct the following DeepSpeed config values that mismatch TrainingArguments values … The easiest method is to set these DeepSpeed config values to 'auto'."${c.hf.fromVersion ? " The value here is a default that depends on the version; say it explicitly to be sure." : ""}`,
      );
      restingOn(d.out[d.out.length - 1]!, c.hf.fromVersion ? ["linkedConfig", "version"] : ["linkedConfig"]);
      if (dsSource === "launcher" && !accel!.ds) {
        const src = accel!.v.entry("deepspeed_config", key);
        if (src) relateLast(d, "transformers/deepspeed-value-mismatch", accel!.path, src.value.range, `deepspeed_config.${key} is set here`);
      } else if (dsSource !== "inline") relateLast(d, "transformers/deepspeed-value-mismatch", ds.path, e.range, `${key} is set here`);
    }
    return d.out;
  },
};
