/**
 * transformers/trl-model-dtype: The model dtype as TRL's scripts set it: `torch_dtype` rejected at TRL 1.x;
 * `model_init_kwargs` dtype ignored by the TRL CLI.
 *
 * The model dtype as TRL's scripts set it.
 * - `torch_dtype` in a TRL file at TRL ≥ 1.0.0: ModelConfig names it `dtype` (trl/trainer/model_config.py:89@v1.9.0;
 *   `torch_dtype` at v0.19.0–v0.25.0), so TrlParser raises "Unknown arguments from config file"
 *   (trl/scripts/utils.py:351-354@v1.9.0) and the TRL CLI passes it on to `accelerate launch`, which rejects it. An
 *   error resting on the TRL version; silent when the project's own argument dataclasses declare `torch_dtype`.
 *   Without a TRL pin the version is unknown: releases up to v0.25.0 take the key, so it is a warning that names
 *   the releases that reject it ("rejected from TRL 1.0.0 …; nothing pins the version"), never an error. Quick fix:
 *   rename to `dtype` (a ModelConfig field from v0.25.0; preferred only with a pin at 1.0.0 or later).
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
import { TRL_DTYPE_FIELD_SINCE, TRL_DTYPE_FP32_SINCE } from "../data";
import { fix } from "../../common/edits";

export const trlModelDtype: TransformersRule = {
  codes: ["transformers/trl-model-dtype"],
  restsOn: ["version", "launcher"],
  versionOf: "trl",
  run(ctx) {
    const d = diagnostics("transformers");
    const { v, dialect, versions, trlCli, load, env } = ctx;
    if (dialect !== "trl") return d.out;
    const td = v.entry("torch_dtype");
    // With a TRL pin at 1.0.0 or later, an error. Without one the version is unknown: releases up to 0.25.0 take
    // `torch_dtype` and the newer ones reject it, so it holds for some candidate releases only: a warning that
    // names them (never an error). `dtype` is a ModelConfig field from v0.25.0 (TRL_ARGS), where the rename is safe.
    const renamed = td && !v.has("dtype") ? [fix("Rename to `dtype`" + (versions.pinned.trl ? "" : ` (TRL ≥ ${TRL_DTYPE_FIELD_SINCE})`), [{ range: td.keyRange, newText: "dtype" }], versions.pinned.trl)] : undefined;
    if (td && !projectArgs(env)?.fields.has("torch_dtype")) {
      const why = `TRL's ModelConfig has \`dtype\` from v${TRL_DTYPE_FIELD_SINCE} and no \`torch_dtype\` from v${TRL_DTYPE_FP32_SINCE} (model_config.py:89@v1.9.0; \`torch_dtype\` up to v0.25.0), so TrlParser raises "Unknown arguments from config file" and the TRL CLI hands the key to \`accelerate launch\`, which rejects it`;
      if (versions.pinned.trl && versionAtLeast(versions.trl.value, TRL_DTYPE_FP32_SINCE)) {
        d.add("trl-model-dtype", "error", td.keyRange, `\`torch_dtype\` is not a TRL ${versions.trl.value} argument (ModelConfig calls it \`dtype\`): the parser rejects it`, renamed, undefined, `${why} (${versions.trl.detail}). Rename it to \`dtype\`.`);
        restingOn(d.out[d.out.length - 1]!, ["version"]);
      } else if (!versions.pinned.trl && versions.commits?.trl) {
        // Pinned to a git commit: fixed, release not known; a fresh install does not get the newest TRL.
        d.add("trl-model-dtype", "information", td.keyRange, `\`torch_dtype\` is rejected from TRL ${TRL_DTYPE_FP32_SINCE} (ModelConfig calls it \`dtype\`); TRL is pinned to commit ${versions.commits.trl}`, renamed, undefined, `${why}; releases up to 0.25.0 accept it. ${versions.trl.detail}: a fresh install gets that commit, whose release is not known.`);
        restingOn(d.out[d.out.length - 1]!, ["version"]);
      } else if (!versions.pinned.trl) {
        d.add("trl-model-dtype", "warning", td.keyRange, `\`torch_dtype\` is rejected from TRL ${TRL_DTYPE_FP32_SINCE} (ModelConfig calls it \`dtype\`); nothing pins the version`, renamed, undefined, `${why}; releases up to 0.25.0 accept it. ${versions.trl.detail}. Rename it to \`dtype\` (TRL ≥ ${TRL_DTYPE_FIELD_SINCE}) or pin TRL.`);
        restingOn(d.out[d.out.length - 1]!, ["version"]);
      }
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
