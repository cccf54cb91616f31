/**
 * transformers/trl-model-dtype: The model dtype as TRL's scripts set it: `torch_dtype` rejected at TRL 1.x;
 * `model_init_kwargs` dtype ignored by the TRL CLI.
 *
 * The model dtype as TRL's scripts set it.
 * - `torch_dtype` in a TRL file at TRL ≥ 1.0.0: ModelConfig names it `dtype` (trl/trainer/model_config.py:89@v1.9.0;
 *   `torch_dtype` at v0.19.0–v0.25.0), so TrlParser raises "Unknown arguments from config file"
 *   (trl/scripts/utils.py:351-354@v1.9.0) and the TRL CLI passes it on to `accelerate launch`, which rejects it. An
 *   error resting on the TRL version (a warning without a pin); silent when the project's own argument dataclasses
 *   declare `torch_dtype`.
 * - `model_init_kwargs.dtype`/`torch_dtype` when the TRL CLI runs the file (`trl sft`, or TRL's `accelerate_config`
 *   key): TRL's script loads the model with ModelConfig's `dtype` (float32 by default from v1.0.0) and, at v1.9.0,
 *   overwrites `model_init_kwargs` with it (trl/scripts/sft.py:74-79@v1.9.0; :79-83@v1.0.0): the value here is
 *   ignored (warning, resting on the launcher).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { restingOn } from "../../../provenance";
import { versionAtLeast } from "../../../workspace/packagePin";
import { projectArgs } from "../argClasses";
import type { TransformersRule } from "../context";
import { TRL_DTYPE_FP32_SINCE } from "../data";

export const trlModelDtype: TransformersRule = {
  codes: ["transformers/trl-model-dtype"],
  restsOn: ["version", "launcher"],
  versionOf: "trl",
  run(ctx) {
    const d = diagnostics("transformers");
    const { v, dialect, versions, trlCli, load, env } = ctx;
    if (dialect !== "trl") return d.out;
    const td = v.entry("torch_dtype");
    // Only with a TRL pin (as unknown-key checks removed keys): the newest release assumed does not make a key an error.
    if (td && versions.pinned.trl && versionAtLeast(versions.trl.value, TRL_DTYPE_FP32_SINCE) && !projectArgs(env)?.fields.has("torch_dtype")) {
      d.add("trl-model-dtype", "error", td.keyRange, `\`torch_dtype\` is not a TRL ${versions.trl.value} argument (ModelConfig calls it \`dtype\`): the parser rejects it`, undefined, undefined, `TRL's ModelConfig has \`dtype\` from v1.0.0 (\`torch_dtype\` up to v0.25.0), so TrlParser raises "Unknown arguments from config file" and the TRL CLI hands the key to \`accelerate launch\`, which rejects it (${versions.trl.detail}). Rename it to \`dtype\`.`);
      restingOn(d.out[d.out.length - 1]!, ["version"]);
    }
    if (trlCli) {
      for (const key of ["dtype", "torch_dtype"]) {
        const e = v.entry("model_init_kwargs", key);
        if (!e) continue;
        d.add("trl-model-dtype", "warning", e.value.range, `\`model_init_kwargs.${key}\` is ignored by the TRL CLI: the model loads in ${load.value} (${load.detail})`, undefined, undefined, `TRL's training script builds the model with ModelConfig's \`dtype\` (${load.detail}) and replaces \`model_init_kwargs\` with it, so \`model_init_kwargs.${key}\` here changes nothing. Set \`dtype\` at the top level.`);
        restingOn(d.out[d.out.length - 1]!, ["launcher"]);
      }
    }
    return d.out;
  },
};
