/**
 * accelerate/ignored-deepspeed-key: A key under `deepspeed_config` that `accelerate launch` never passes to DeepSpeed (no deepspeed_config_file): the value does not reach the run.
 *
 * With `distributed_type: DEEPSPEED` and no `deepspeed_config_file`, accelerate builds the DeepSpeed config itself:
 * `accelerate launch` copies every key of the `deepspeed_config` section onto its arguments
 * (commands/launch.py:1258-1270@v1.14.0, :895@v0.26.0), but `prepare_deepspeed_cmd_env` exports only its own fields
 * as environment variables (utils/launch.py:565-585@v1.14.0, :326@v0.26.0: `zero_stage`,
 * `gradient_accumulation_steps`, `gradient_clipping`, `offload_optimizer_device`, `offload_param_device`,
 * `zero3_init_flag`, `zero3_save_16bit_model`, `deepspeed_config_file`, `deepspeed_moe_layer_cls_names` from 0.30.0;
 * the multi-node launcher reads `deepspeed_hostfile`, `deepspeed_multinode_launcher`,
 * `deepspeed_exclusion_filter`, `deepspeed_inclusion_filter`, :447-467@v1.14.0), and `DeepSpeedPlugin.__post_init__`
 * builds the config from those variables alone (utils/dataclasses.py:1120, 1232-1263@v1.14.0). A DeepSpeed JSON key
 * pasted into the section (`bf16`, `train_micro_batch_size_per_gpu`, `zero_optimization`, `overlap_comm`) is
 * therefore dropped without a word: the precision comes from `mixed_precision`, the rest from DeepSpeed's and
 * accelerate's defaults. `offload_optimizer_nvme_path` and `offload_param_nvme_path`, which `accelerate config`
 * writes (commands/config/cluster.py:274-280@v1.14.0), are accelerate's own keys and not reported. The section loads
 * as a plain dict (`ClusterConfig.deepspeed_config`, commands/config/config_args.py:194@v1.14.0), so nothing is
 * rejected. A key named like a launch argument (`num_processes`, `mixed_precision`, `fsdp_*`) sets that argument
 * instead and is not reported. With `deepspeed_config_file` set, key-belongs-in-deepspeed-file judges the section instead.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix } from "../../common/edits";
import { editDistance, nearest } from "../../common/wording";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";
import { packagePin, versionAtLeast } from "../../../workspace/packagePin";
import { firstFitting } from "../../../diagnostics/build";

/** The `deepspeed_config` keys accelerate reads (the doc comment gives the lines). */
export const ACCELERATE_DS_KEYS: readonly string[] = [
  "zero_stage", "gradient_accumulation_steps", "gradient_clipping", "offload_optimizer_device", "offload_param_device",
  "offload_optimizer_nvme_path", "offload_param_nvme_path", "zero3_init_flag", "zero3_save_16bit_model", "deepspeed_config_file",
  "deepspeed_moe_layer_cls_names", "deepspeed_hostfile", "deepspeed_multinode_launcher", "deepspeed_exclusion_filter", "deepspeed_inclusion_filter",
];
/**
 * Names of `accelerate launch` arguments (its parser's `--` options at v0.26.0, v0.30.0, v0.34.0, v1.0.0, v1.6.0,
 * v1.14.0, and torchrun's that the multi-GPU launcher reads): a key of the section with such a name sets that launch
 * argument (commands/launch.py:1270@v1.14.0 `setattr(args, key, value)`), so it is not reported.
 */
const LAUNCH_ARGS = new Set([
  "aws_access_key_id", "aws_secret_access_key", "config_file", "cpu", "debug", "downcast_bf16", "enable_cpu_affinity", "env", "gpu_ids", "ipex",
  "log_dir", "machine_rank", "main_process_ip", "main_process_port", "main_training_function", "max_restarts", "mixed_precision", "module",
  "monitor_interval", "multi_gpu", "no_python", "no_tpu_cluster", "num_cpu_threads_per_process", "num_machines", "num_processes", "quiet",
  "rdzv_backend", "rdzv_conf", "restart_tpuvm_pod_server", "role", "same_network", "tee", "tp_size", "tpu", "training_script", "training_script_args",
  "use_deepspeed", "use_fsdp", "use_megatron_lm", "use_parallelism_config", "use_tp", "use_xpu", "vm",
  "nnodes", "nproc_per_node", "node_rank", "master_addr", "master_port", "rdzv_endpoint", "rdzv_id", "standalone", "start_method", "local_addr",
]);
/** Launch-argument families by prefix (FSDP, Megatron-LM, parallelism, fp8, dynamo, MPI, TPU options). */
const LAUNCH_PREFIX = /^(?:fsdp|megatron_lm|parallelism_config|fp8|dynamo|mpirun|tpu)_/;
/** `deepspeed_moe_layer_cls_names` is exported from accelerate 0.30.0 (utils/launch.py, absent at v0.29.0). */
const MOE_SINCE = "0.30.0";
/** DeepSpeed JSON keys that decide the precision: the detail says where the precision comes from instead. */
const PRECISION_KEYS = new Set(["bf16", "fp16", "bfloat16", "amp", "torch_autocast", "communication_data_type", "data_types"]);

export const ignoredDeepspeedKey: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/ignored-deepspeed-key"],
  restsOn: [],
  run({ v, env, distType, dsFileEntry, mixed }) {
    const d = diagnostics("accelerate");
    if (distType !== "DEEPSPEED" || dsFileEntry || !v.isSection("deepspeed_config")) return d.out;
    const pin = packagePin(env, "accelerate");
    for (const k of v.at("deepspeed_config").childKeys()) {
      if (k.startsWith("(document")) continue;
      if (ACCELERATE_DS_KEYS.includes(k) && !(k === "deepspeed_moe_layer_cls_names" && pin && !versionAtLeast(pin.version, MOE_SINCE))) continue;
      if (LAUNCH_ARGS.has(k) || LAUNCH_PREFIX.test(k)) continue;
      const range = v.keyRange("deepspeed_config", k);
      if (!range) continue;
      const near = nearest(k, ACCELERATE_DS_KEYS);
      const close = near && editDistance(k.toLowerCase(), near.toLowerCase()) <= 3 ? near : undefined;
      const old = k === "deepspeed_moe_layer_cls_names";
      const message = old
        ? `\`${k}\` is ignored at accelerate ${pin!.version}: it is passed to DeepSpeed only from ${MOE_SINCE}`
        : firstFitting([
          `\`deepspeed_config.${k}\` is never passed to DeepSpeed by \`accelerate launch\`${close ? `: did you mean \`${close}\`?` : ": the value does not reach the run"}`,
          `\`${k}\` under \`deepspeed_config\` is never passed to DeepSpeed${close ? `: did you mean \`${close}\`?` : ""}`,
        ]);
      const instead = PRECISION_KEYS.has(k)
        ? ` The precision comes from \`mixed_precision\`${mixed ? ` (here \`${mixed}\`)` : ""}, which accelerate writes into the DeepSpeed config it builds.`
        : "";
      d.add("ignored-deepspeed-key", "warning", range, message, close ? [fix(`Rename to \`${close}\``, [{ range, newText: close }], true)] : undefined, undefined,
        old
          ? `accelerate ${pin!.version} (${pin!.where}) does not export \`${k}\` to DeepSpeedPlugin; from ${MOE_SINCE} it does.`
          : `Without a \`deepspeed_config_file\`, accelerate builds the DeepSpeed config from its own keys only (${ACCELERATE_DS_KEYS.slice(0, 7).map((x) => `\`${x}\``).join(", ")}, …): \`${k}\` is copied onto the launch arguments and then dropped.${instead} To pass DeepSpeed settings, write them in a DeepSpeed JSON and name it in \`deepspeed_config_file\`.`);
    }
    return d.out;
  },
};
