/**
 * transformers/launch-config-missing: A launch line names this file with an accelerate config that is missing or is a
 * DeepSpeed JSON: the launcher is unknown.
 *
 * A launch line names this file but the config it launches with is broken: the accelerate
 * config (`accelerate launch --config_file X`, `trl … --accelerate_config X`) is not in the workspace and is not
 * one of TRL's shipped names, or it is a DeepSpeed JSON (accelerate's `load_config_from_file` reads a `.json`
 * as its own ClusterConfig and raises on DeepSpeed's keys: "The config file at … had unknown keys",
 * commands/config/config_args.py `from_json_file`@v1.14.0). The launcher then stays unknown (single GPU/DDP
 * assumed, the header says so) and every finding resting on it is capped. A warning: the file may live on the
 * machine that runs it (a missing file); a DeepSpeed JSON as the accelerate config fails wherever it runs.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { TransformersRule } from "../context";

export const launchConfigMissing: TransformersRule = {
  codes: ["transformers/launch-config-missing"],
  // The launch line was read from a file; what it names is what this rule reports.
  restsOn: [],
  run({ accel, v }) {
    const d = diagnostics("transformers");
    if (!accel?.missing) return d.out;
    const at = v.keyRange(v.childKeys()[0] ?? "");
    const what = accel.isDeepSpeedJson
      ? `${accel.how} passes the DeepSpeed JSON \`${accel.missing}\` as the accelerate config: accelerate rejects its keys`
      : `${accel.how} launches this file with \`${accel.missing}\`, which is not in the workspace: the launcher is unknown`;
    const detail = accel.isDeepSpeedJson
      ? `accelerate reads \`--config_file\` as its own config (a .json as JSON) and raises ValueError on DeepSpeed's keys ("had unknown keys"). Pass the DeepSpeed JSON as \`deepspeed_config_file\` inside an accelerate config with \`distributed_type: DEEPSPEED\`, or to the training script as \`--deepspeed\`.`
      : `The launch line names \`${accel.missing}\` but no such file is found from the script's folder upwards (an absolute path is matched by its last components inside the workspace). The precision shown assumes a single GPU or DDP; if the run uses DeepSpeed or FSDP the table differs (fp32 master weights). Fix the path, or add a \`# precision-lens: accelerate-config=PATH\` directive.`;
    d.add("launch-config-missing", "warning", at, what, undefined, undefined, detail);
    return d.out;
  },
};
