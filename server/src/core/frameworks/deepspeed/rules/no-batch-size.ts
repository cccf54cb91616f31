/**
 * deepspeed/no-batch-size: Neither train_batch_size nor train_micro_batch_size_per_gpu: DeepSpeed asserts.
 *
 * Neither `train_batch_size` nor `train_micro_batch_size_per_gpu`. DeepSpeedConfig
 * derives the batch trio from whichever is given and asserts "Either train_batch_size or
 * train_micro_batch_size_per_gpu needs to be provided" when neither is (runtime/config.py:607-650 at v0.19.8).
 * Not for a file something fills in: one with an `"auto"` value (for HF Trainer / accelerate), one a YAML config
 * nearby uses (accelerate and Lightning set the micro batch themselves), a gpt-neox YAML (NeoX computes the
 * batch keys). Reported only when a `deepspeed` launcher script in the workspace runs the file directly:
 * otherwise a training script may still set the key in the dict it loads before `deepspeed.initialize`
 * (a missed hint costs less than a false error).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { standaloneLauncher } from "../../common/deepspeedLinks";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";
import { isNeox } from "../detect";

export const noBatchSize: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/no-batch-size"],
  restsOn: [],
  run({ doc, v, env, referrers }) {
    const d = diagnostics("deepspeed");
    if (v.has("train_batch_size") || v.has("train_micro_batch_size_per_gpu") || referrers.length || isNeox(v)) return d.out;
    if (doc.entries.some((e) => e.value.kind === "string" && e.value.value === "auto")) return d.out;
    const first = doc.entries[0];
    if (!first) return d.out;
    const anchor = v.entry("gradient_accumulation_steps")?.keyRange ?? first.keyRange;
    const launcher = standaloneLauncher(env);
    if (!launcher) return d.out;
    d.add("no-batch-size", "error", anchor, {
      message: `No \`train_batch_size\` or \`train_micro_batch_size_per_gpu\`, and ${launcher} runs this file directly: DeepSpeed asserts`,
      detail: `The file sets neither \`train_batch_size\` nor \`train_micro_batch_size_per_gpu\`, and ${launcher} passes it to DeepSpeed directly: DeepSpeedConfig asserts "Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided" when the run starts (DeepSpeed v0.19.8 runtime/config.py). Add \`train_micro_batch_size_per_gpu\`.`,
    });
    return d.out;
  },
};
