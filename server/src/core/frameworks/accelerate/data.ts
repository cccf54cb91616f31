/** accelerate's config keys and value sets (spec other-frameworks.md §2.1), as the loader and launcher check them. */

/** ClusterConfig fields (spec §2.1), plus the legacy keys the loader converts (`fp16`, `dynamo_backend`). */
import { table } from "../../model/table";

export const CLUSTER_KEYS = [
  "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug", "num_processes", "machine_rank", "num_machines", "gpu_ids",
  "main_process_ip", "main_process_port", "rdzv_backend", "same_network", "main_training_function", "enable_cpu_affinity", "fp8_config",
  "deepspeed_config", "fsdp_config", "parallelism_config", "megatron_lm_config", "mpirun_config", "downcast_bf16", "tpu_name", "tpu_zone",
  "tpu_use_cluster", "tpu_use_sudo", "command_file", "commands", "tpu_vm", "tpu_env", "dynamo_config", "fp16", "dynamo_backend",
];
/**
 * ClusterConfig fields accelerate removed, with the first release without them: older releases read the key, from
 * that one on the loader refuses the file. `ipex_config`: added in v0.19.0 (166520fe, #1255), removed in v1.13.0
 * (4826b66d, #3883, "Remove ipex"); the other fields of v0.20.0 … v1.12.0 are all still there (config_args.py).
 */
export const REMOVED_CLUSTER_KEYS: Readonly<Record<string, string>> = table({ ipex_config: "1.13.0" });

/**
 * Assumption `accelerate-sagemaker-keys`: with `compute_environment: AMAZON_SAGEMAKER` the file is read as a
 * SageMakerConfig, whose fields differ; these are its fields as we know them (not in the spec's list).
 */
export const SAGEMAKER_KEYS = [
  "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug", "num_machines", "gpu_ids", "ec2_instance_type", "iam_role_name",
  "image_uri", "profile", "region", "base_job_name", "pytorch_version", "transformers_version", "py_version", "sagemaker_inputs_file",
  "sagemaker_metrics_file", "additional_args", "dynamo_config", "enable_cpu_affinity", "fp16", "dynamo_backend", "downcast_bf16",
];
export const DISTRIBUTED_TYPES = ["NO", "MULTI_CPU", "MULTI_GPU", "MULTI_NPU", "MULTI_MLU", "MULTI_SDAA", "MULTI_MUSA", "MULTI_XPU", "MULTI_HPU", "MULTI_NEURON", "DEEPSPEED", "FSDP", "XLA", "MEGATRON_LM"];
export const MIXED = ["no", "fp16", "bf16", "fp8"];
export const MIXED_MAP: Readonly<Record<string, string>> = table({ fp32: "no", float32: "no", none: "no", "32": "no", bfloat16: "bf16", "bf16-mixed": "bf16", float16: "fp16", half: "fp16", "16": "fp16", "fp16-mixed": "fp16", float8: "fp8" });
export const V1_ONLY = ["fsdp_backward_prefetch", "fsdp_use_orig_params", "fsdp_sync_module_states", "fsdp_sharding_strategy"];
export const STRATEGIES = ["FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID_SHARD", "HYBRID_SHARD_ZERO2"];
export const DS_FILE_EXCLUSIVE = ["zero_stage", "gradient_accumulation_steps", "gradient_clipping", "offload_optimizer_device", "offload_param_device", "offload_optimizer_nvme_path", "offload_param_nvme_path", "zero3_save_16bit_model"];
export const PAR_SIZES = ["dp_replicate_size", "dp_shard_size", "tp_size", "cp_size", "sp_size"];
export const PAR_OTHER = ["cp_backend", "cp_comm_strategy", "sp_backend", "sp_seq_length", "sp_attn_implementation", "dp_shard_cp"];
