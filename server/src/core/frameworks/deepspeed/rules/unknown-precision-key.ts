/**
 * deepspeed/unknown-precision-key: A key the fp16/bf16 block's config model forbids: DeepSpeed raises a
 * ValidationError.
 *
 * A key the `fp16` / `bf16` block's config model does not have. DeepSpeed
 * reads these blocks into pydantic models that forbid extra fields (DeepSpeedFP16Config, DeepSpeedBF16Config,
 * `extra="forbid"` on DeepSpeedConfigModel: runtime/precision_config.py:34-160, runtime/config_utils.py:110
 * at v0.19.8), so `deepspeed.initialize` raises a ValidationError on an unknown key, whoever launches
 * (standalone, HF Trainer and accelerate all hand the dict to DeepSpeedConfig). gpt-neox YAMLs are left out:
 * NeoX rebuilds the blocks from its own arguments before DeepSpeed sees them.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";
import { isNeox } from "../detect";
import { MAX_REPEATED_DIAGNOSTICS } from "../../../model/limits";
import { table } from "../../../model/table";

/** The fields of each block's model at v0.19.8 (runtime/precision_config.py). */
const FIELDS: Readonly<Record<"fp16" | "bf16", readonly string[]>> = table({
  fp16: ["enabled", "auto_cast", "loss_scale", "initial_scale_power", "loss_scale_window", "hysteresis", "consecutive_hysteresis", "min_loss_scale", "fp16_master_weights_and_grads"],
  bf16: ["enabled", "immediate_grad_update", "check_grad_overflow", "bf16_master_weights_and_grads", "bf16_optimizer_states"],
});

export const unknownPrecisionKey: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/unknown-precision-key"],
  restsOn: [],
  run({ v }) {
    const d = diagnostics("deepspeed");
    if (isNeox(v)) return d.out;
    // DeepSpeed reads `bf16`, and the old name `bfloat16` only when there is no `bf16` (get_bfloat16_config).
    const blocks: [string, "fp16" | "bf16", string][] = [["fp16", "fp16", "DeepSpeedFP16Config"], [v.has("bf16") ? "bf16" : "bfloat16", "bf16", "DeepSpeedBF16Config"]];
    let n = 0;
    for (const [block, kind, model] of blocks) {
      if (!v.isSection(block)) continue;
      for (const k of v.childKeys(block)) {
        if (FIELDS[kind].includes(k)) continue;
        if (n++ === MAX_REPEATED_DIAGNOSTICS) return d.out;
        const e = v.entry(block, k) ?? v.entriesUnder(block, k)[0];
        const range = e ? (e.path.length === 2 ? e.keyRange : e.range) : undefined;
        d.add("unknown-precision-key", "error", range, {
          message: `\`${block}.${k}\` is not a field of DeepSpeed's ${kind} config: deepspeed.initialize raises a ValidationError`,
          detail: `\`${block}.${k}\` is not a field of ${model} (its fields: ${FIELDS[kind].join(", ")}; DeepSpeed v0.19.8). The model forbids extra keys, so DeepSpeedConfig raises a pydantic ValidationError ("Extra inputs are not permitted") when the run starts, whether the deepspeed launcher, HF Trainer or accelerate passes the file.`,
        });
      }
    }
    return d.out;
  },
};
