/**
 * The torchtitan TOML schema over its whole TOML era, as one table of keys with since/until dates
 * (spec torchtitan.md §4.2 for v0.2.2, the v0.1.0 list after it, §4.3 for the dates), the extension
 * modules `job.custom_config_module` can add (§4.1), and the rename/move map (§4.3).
 *
 * Descriptions are our own paraphrases. Dates are torchtitan main-branch dates (YYYY-MM-DD): `since` is
 * inclusive, `until` exclusive. A key with no `since` existed before v0.1.0. A key whose addition date the
 * spec does not record but that is absent from v0.1.0 and present in v0.2.0 uses AFTER_V010, so versions
 * between the releases accept it (never a false "unknown key" error); its hover says "since v0.2.0".
 */

/** TOML value types, named after the Python annotations. */
import { table } from "../../../model/table";

export type KeyType = "str" | "int" | "float" | "number" | "bool" | "list[str]" | "list[list[str]]" | "str|list[str]" | "any";

export interface KeySpec {
  /** Full dotted path, e.g. "training.mixed_precision_param". */
  path: string;
  type: KeyType;
  /** The Python annotation allows None (TOML cannot write it; the default may be None). */
  nullable?: boolean;
  /** Default value; undefined means None. */
  default?: unknown;
  /** Earlier defaults: the value applies before `until`. */
  defaultBefore?: { until: string; value: unknown }[];
  /** Declared choices (a Literal), or documented values for a str. */
  choices?: readonly string[];
  /** Choices that only exist from a date on (e.g. AC "memory_budget"). */
  choiceSince?: Record<string, string>;
  /** True when the choices are only examples (a free str): other values are not flagged. */
  openChoices?: boolean;
  /**
   * What torchtitan does with a value outside the choices. Absent: accepted with a tyro warning (the
   * value is used as is). Present: the launch error it raises.
   */
  invalidValueError?: string;
  /** Lower bound checked by torchtitan or obviously required (degree ≥ 1, steps > 0, ...). */
  min?: number;
  doc: string;
  /** What the key does to precision (shown in hovers and completion), when anything. */
  precision?: string;
  since?: string;
  until?: string;
  /** Release the key first shipped in, when `since` is not a recorded date. */
  sinceRelease?: string;
  /** Still accepted but deprecated from this date, with the advice shown. */
  deprecated?: { since: string; advice: string };
  /** Derived old name (schema at a date before a rename): where the key went, and when. */
  renamedTo?: { path: string; date: string };
}

/** Day after v0.1.0: for additions between v0.1.0 and v0.2.0 whose date the spec does not record. */
export const AFTER_V010 = "2025-06-18";

/** The first extension mechanism, `experimental.custom_args_module`, was added on 2025-03-20 (spec §4.1). */
export const EXTENSIONS_SINCE = "2025-03-20";

/** `[mx]` was added on 2025-05-14 (fb17e251c, spec §4.3). */
export const MX_TABLE_SINCE = "2025-05-14";

/** Addition dates of the `[float8]` keys that postdate the table itself (spec §4.3). */
const FLOAT8_KEY_SINCE: Readonly<Record<string, string>> = table({ recipe_name: "2025-02-27", filter_fqns: "2025-04-07", emulate: "2025-05-28" });

const MP_NOTE_PARAM =
  "Compute dtype. With FSDP/HSDP/CP (dp_shard > 1 or cp > 1) it is FSDP's MixedPrecisionPolicy param_dtype: parameters are all-gathered and computed in it. With DDP or a single device it is the torch.autocast dtype for forward and loss. With TP or PP alone it has no effect (no mixed precision).";

const LISTED_KEYS: readonly KeySpec[] = [
  // ---------------------------------------------------------------- [job]
  { path: "job.config_file", type: "str", nullable: true, doc: "Path of the TOML config; normally given on the command line (`--job.config_file`)." },
  { path: "job.dump_folder", type: "str", default: "./outputs", defaultBefore: [{ until: "2025-10-21", value: "./torchtitan/outputs" }], doc: "Root folder for outputs: checkpoints, traces, TensorBoard logs." },
  { path: "job.description", type: "str", default: "default job", doc: "Free-text description of the job." },
  { path: "job.print_config", type: "bool", default: false, since: "2025-10-14", doc: "Log the resolved config at startup." },
  { path: "job.print_args", type: "bool", default: false, until: "2025-10-14", doc: "Log the resolved arguments at startup (renamed `print_config`)." },
  { path: "job.use_for_integration_test", type: "bool", default: false, until: "2025-08-30", doc: "Marks a config as used by the integration tests." },
  { path: "job.save_config_file", type: "str", nullable: true, since: "2025-10-21", doc: "File name under dump_folder to save the resolved config as JSON." },
  { path: "job.custom_config_module", type: "str", default: "", since: "2025-10-14", doc: "Importable module whose `JobConfig` dataclass extends this schema (extra sections and keys)." },

  // ---------------------------------------------------------------- [profiling]
  { path: "profiling.enable_profiling", type: "bool", default: false, doc: "Turn on the torch profiler." },
  { path: "profiling.save_traces_folder", type: "str", default: "profile_traces", doc: "Folder (under dump_folder) for profiler traces." },
  { path: "profiling.profile_freq", type: "int", default: 10, min: 1, doc: "Profiling period, in steps." },
  { path: "profiling.profiler_active", type: "int", default: 1, since: "2025-10-08", doc: "Active (recorded) steps per profiling cycle." },
  { path: "profiling.profiler_warmup", type: "int", default: 3, since: "2025-10-08", doc: "Warmup steps per profiling cycle." },
  { path: "profiling.enable_memory_snapshot", type: "bool", default: false, doc: "Dump CUDA memory snapshots." },
  { path: "profiling.save_memory_snapshot_folder", type: "str", default: "memory_snapshot", doc: "Folder (under dump_folder) for memory snapshots." },

  // ---------------------------------------------------------------- [metrics]
  { path: "metrics.log_freq", type: "int", default: 10, min: 1, doc: "Logging period, in steps." },
  { path: "metrics.enable_tensorboard", type: "bool", default: false, doc: "Log metrics to TensorBoard." },
  { path: "metrics.disable_color_printing", type: "bool", default: false, doc: "Print console logs without colours." },
  { path: "metrics.save_tb_folder", type: "str", default: "tb", doc: "Folder (under dump_folder) for TensorBoard logs." },
  { path: "metrics.save_for_all_ranks", type: "bool", default: false, doc: "Log metrics on every rank; otherwise only rank 0 (or the first rank of the last PP stage)." },
  { path: "metrics.enable_wandb", type: "bool", default: false, doc: "Log metrics to Weights & Biases." },

  // ---------------------------------------------------------------- [model]
  { path: "model.name", type: "str", default: "llama3", doc: "Train-spec (model family) name, e.g. llama3, llama4, deepseek_v3, qwen3, gpt_oss, flux." },
  { path: "model.flavor", type: "str", default: "debugmodel", doc: "Model size preset of the family, e.g. debugmodel, 8B, 70B, 405B." },
  { path: "model.hf_assets_path", type: "str", default: "./tests/assets/tokenizer", since: "2025-08-11", doc: "Local folder with Hugging Face assets (tokenizer, config, safetensors). Must be a folder, not a `tokenizer.model` file." },
  {
    path: "model.tokenizer_path",
    type: "str",
    nullable: true,
    defaultBefore: [{ until: "2025-08-11", value: "./torchtitan/datasets/tokenizer/tokenizer.model" }],
    deprecated: { since: "2025-08-11", advice: "use `model.hf_assets_path` (a folder); the value is copied there with a warning" },
    doc: "Tokenizer path. Deprecated since 2025-08-11: copied to `hf_assets_path`.",
  },
  { path: "model.converters", type: "list[str]", default: [], doc: "Model converters applied after construction, e.g. \"quantize.linear.float8\" (names depend on the release).", precision: "Float8 or MX converters swap Linear (and grouped-MM) layers to low-precision matmuls; parameters keep their dtype." },
  { path: "model.print_after_conversion", type: "bool", default: false, doc: "Print the model after the converters ran." },

  // ---------------------------------------------------------------- [optimizer]
  { path: "optimizer.name", type: "str", default: "AdamW", choices: ["Adam", "AdamW"], invalidValueError: "NotImplementedError at launch (only Adam and AdamW exist)", doc: "Optimizer: \"Adam\" or \"AdamW\"." },
  { path: "optimizer.lr", type: "float", default: 8e-4, doc: "Learning rate." },
  { path: "optimizer.beta1", type: "float", default: 0.9, doc: "Adam beta1." },
  { path: "optimizer.beta2", type: "float", default: 0.95, doc: "Adam beta2." },
  { path: "optimizer.eps", type: "float", default: 1e-8, doc: "Adam epsilon." },
  { path: "optimizer.weight_decay", type: "float", default: 0.1, doc: "Weight decay." },
  { path: "optimizer.implementation", type: "str", default: "fused", choices: ["for-loop", "foreach", "fused"], doc: "Optimizer kernel implementation." },
  { path: "optimizer.early_step_in_backward", type: "bool", default: false, doc: "Step the optimizer inside backward to save memory; incompatible with gradient clipping, rejected with EP, PP or TorchFT." },

  // ---------------------------------------------------------------- [lr_scheduler]
  { path: "lr_scheduler.warmup_steps", type: "int", default: 200, min: 0, doc: "Linear warmup steps." },
  { path: "lr_scheduler.total_steps", type: "int", nullable: true, since: "2026-02-06", doc: "Steps the schedule spans; defaults to training.steps." },
  { path: "lr_scheduler.decay_ratio", type: "float", nullable: true, doc: "WSD schedule: fraction of steps used for decay; unset = decay right after warmup." },
  { path: "lr_scheduler.decay_type", type: "str", default: "linear", choices: ["linear", "sqrt", "cosine"], doc: "Decay shape." },
  { path: "lr_scheduler.min_lr_factor", type: "float", default: 0.0, since: "2025-07-31", doc: "Floor of the learning rate as a factor of lr." },
  { path: "lr_scheduler.lr_min", type: "float", default: 0.0, until: "2025-07-31", doc: "Floor of the learning rate as a factor of lr (renamed `min_lr_factor`)." },

  // ---------------------------------------------------------------- [training]
  { path: "training.dataset", type: "str", default: "c4_test", doc: "Dataset name, e.g. c4_test, c4." },
  { path: "training.dataset_path", type: "str", nullable: true, doc: "Local path of the dataset." },
  { path: "training.local_batch_size", type: "int", default: 8, min: 1, doc: "Per-device batch size." },
  { path: "training.global_batch_size", type: "int", default: -1, doc: "Global batch size; -1 = local_batch_size × data-parallel degree. Larger values give gradient accumulation; must be a multiple of local × DP." },
  { path: "training.seq_len", type: "int", default: 2048, min: 1, doc: "Sequence length; must be divisible by tp × 2 × cp." },
  { path: "training.max_norm", type: "number", default: 1.0, doc: "Gradient-norm clipping threshold." },
  { path: "training.steps", type: "int", default: 10000, min: 1, doc: "Training steps." },
  { path: "training.enable_cpu_offload", type: "bool", default: false, doc: "Offload parameters, gradients and optimizer state to CPU (FSDP CPUOffloadPolicy; needs FSDP)." },
  {
    path: "training.dtype",
    type: "str",
    default: "float32",
    choices: ["bfloat16", "float32"],
    since: "2025-09-16",
    doc: "Storage dtype of parameters, gradients and optimizer state.",
    precision: "\"bfloat16\" is full bf16 training: no fp32 master copy of the weights. The default \"float32\" keeps fp32 masters and lets mixed precision cast for compute.",
  },
  { path: "training.mixed_precision_param", type: "str", default: "bfloat16", choices: ["bfloat16", "float32"], doc: "Compute dtype for mixed precision.", precision: MP_NOTE_PARAM },
  {
    path: "training.mixed_precision_reduce",
    type: "str",
    default: "float32",
    choices: ["float32"],
    doc: "Dtype FSDP reduce-scatters gradients in.",
    precision: "FSDP's MixedPrecisionPolicy reduce_dtype; only takes effect with FSDP/HSDP/CP. Only \"float32\" is allowed in the TOML era.",
  },
  { path: "training.compile", type: "bool", default: false, until: "2025-08-20", doc: "Compile the model with torch.compile (moved to `[compile] enable`)." },
  { path: "training.gc_freq", type: "int", default: 50, min: 1, doc: "Python garbage-collection period, in steps." },
  { path: "training.gc_debug", type: "bool", default: false, doc: "Collect garbage every step to debug leaks." },
  { path: "training.seed", type: "int", nullable: true, until: "2025-10-29", doc: "Random seed (moved to `[debug] seed`)." },
  { path: "training.deterministic", type: "bool", default: false, until: "2025-10-29", doc: "Deterministic algorithms (moved to `[debug] deterministic`)." },
  { path: "training.debug_moe_force_load_balance", type: "bool", default: false, since: AFTER_V010, sinceRelease: "v0.2.0", until: "2025-10-29", doc: "Force balanced MoE routing (moved to `[debug] moe_force_load_balance`)." },
  { path: "training.dataloader.num_workers", type: "int", default: 0, min: 0, since: "2025-12-18", doc: "Dataloader worker processes." },
  { path: "training.dataloader.persistent_workers", type: "bool", default: false, since: "2025-12-18", doc: "Keep workers alive between epochs (only with workers > 0)." },
  { path: "training.dataloader.pin_memory", type: "bool", default: false, since: "2025-12-18", doc: "Pin host memory for faster copies." },
  { path: "training.dataloader.prefetch_factor", type: "int", nullable: true, since: "2025-12-18", doc: "Batches prefetched per worker (only with workers > 0)." },

  // ---------------------------------------------------------------- [parallelism]
  { path: "parallelism.data_parallel_replicate_degree", type: "int", default: 1, min: 1, doc: "Replicate dimension: DDP alone, or the replicate dimension of HSDP.", precision: "DDP alone (no FSDP, TP, PP, CP) gets mixed precision from torch.autocast (forward and loss only; gradients all-reduced in fp32)." },
  { path: "parallelism.data_parallel_shard_degree", type: "int", default: -1, doc: "FSDP shard dimension; -1 = the ranks left over after the other degrees.", precision: "dp_shard > 1 enables FSDP, which applies mixed_precision_param/_reduce through MixedPrecisionPolicy." },
  { path: "parallelism.fsdp_reshard_after_forward", type: "str", default: "default", choices: ["default", "always", "never"], invalidValueError: "ValueError \"Invalid reshard_after_forward_policy\" at launch", doc: "Free all-gathered parameters after forward: always, never, or default (not with PP)." },
  { path: "parallelism.tensor_parallel_degree", type: "int", default: 1, min: 1, doc: "Tensor-parallel degree.", precision: "TP without FSDP (dp_shard = 1, cp = 1) gets no mixed precision in v0.1.0–v0.2.2." },
  { path: "parallelism.disable_loss_parallel", type: "bool", default: false, doc: "Turn off loss parallel (on by default when TP > 1)." },
  { path: "parallelism.enable_async_tensor_parallel", type: "bool", default: false, doc: "Asynchronous TP; needs `[compile] enable` with \"model\" in components." },
  { path: "parallelism.enable_compiled_autograd", type: "bool", default: false, until: "2025-10-28", doc: "Compiled autograd (removed)." },
  { path: "parallelism.pipeline_parallel_degree", type: "int", default: 1, min: 1, doc: "Pipeline-parallel degree (physical PP ranks).", precision: "PP without FSDP gets no mixed precision; autocast is never used with PP." },
  { path: "parallelism.pipeline_parallel_split_points", type: "list[str]", default: [], until: "2025-10-13", doc: "Module names where the model is split into stages (removed; use module_fqns_per_model_part or pipeline_parallel_layers_per_stage)." },
  { path: "parallelism.module_fqns_per_model_part", type: "list[list[str]]", nullable: true, since: "2025-07-30", doc: "Explicit split of the model into PP stages: module names per part." },
  { path: "parallelism.pipeline_parallel_first_stage_less_layers", type: "int", default: 1, since: AFTER_V010, sinceRelease: "v0.2.0", doc: "Layers fewer on the first stage (it also holds the embeddings)." },
  { path: "parallelism.pipeline_parallel_last_stage_less_layers", type: "int", default: 1, since: AFTER_V010, sinceRelease: "v0.2.0", doc: "Layers fewer on the last stage (it also holds the output layer)." },
  { path: "parallelism.pipeline_parallel_layers_per_stage", type: "int", nullable: true, since: "2025-04-07", doc: "Transformer layers per virtual stage." },
  { path: "parallelism.pipeline_parallel_schedule", type: "str", default: "1F1B", choices: ["1F1B", "GPipe", "Interleaved1F1B", "InterleavedZeroBubble", "LoopedBFS", "ZBVZeroBubble", "DualPipeV"], openChoices: true, doc: "PyTorch pipeline schedule class name." },
  { path: "parallelism.pipeline_parallel_schedule_csv", type: "str", nullable: true, default: "", doc: "CSV file with a custom pipeline schedule." },
  { path: "parallelism.pipeline_parallel_microbatch_size", type: "int", default: 1, min: 1, doc: "Pipeline microbatch size; microbatches = local_batch_size / this." },
  { path: "parallelism.pipeline_parallel_expert_parallel_overlap", type: "bool", default: true, since: "2025-12-12", doc: "Overlap EP communication in DualPipeV (PP > 1 and EP > 1 only)." },
  { path: "parallelism.context_parallel_degree", type: "int", default: 1, min: 1, doc: "Context-parallel degree.", precision: "cp > 1 enables FSDP (CP is folded into the FSDP mesh), so mixed precision applies even with dp_shard = 1." },
  { path: "parallelism.context_parallel_load_balancer", type: "str", nullable: true, default: "headtail", choices: ["headtail", "ptrr"], since: "2026-01-20", doc: "CP load balancer: \"headtail\" (SDPA) or \"ptrr\" (flex attention); must not be empty." },
  { path: "parallelism.context_parallel_rotate_method", type: "str", default: "allgather", choices: ["allgather", "alltoall"], doc: "How CP rotates key/value shards." },
  { path: "parallelism.expert_parallel_degree", type: "int", default: 1, min: 1, since: "2025-07-08", doc: "Expert-parallel degree (MoE models only)." },
  { path: "parallelism.expert_tensor_parallel_degree", type: "int", default: 1, min: 1, since: "2025-08-13", doc: "Expert tensor-parallel degree; must equal tp or 1 when ep > 1." },
  { path: "parallelism.expert_parallel_comm_backend", type: "str", default: "standard", choices: ["standard", "deepep"], since: "2025-12-17", doc: "EP communication backend; \"deepep\" needs ep > 1 and etp = 1." },

  // ---------------------------------------------------------------- [checkpoint]
  { path: "checkpoint.enable", type: "bool", default: false, since: "2025-08-22", doc: "Save (and load) checkpoints." },
  { path: "checkpoint.enable_checkpoint", type: "bool", default: false, until: "2025-08-22", doc: "Save (and load) checkpoints (renamed `enable`)." },
  { path: "checkpoint.enable_ft_dataloader_checkpoints", type: "bool", default: true, since: "2025-10-12", doc: "Checkpoint dataloaders per TorchFT replica." },
  { path: "checkpoint.folder", type: "str", default: "checkpoint", doc: "Folder (under dump_folder) for checkpoints." },
  { path: "checkpoint.interval", type: "int", default: 500, min: 1, doc: "Checkpoint period, in steps." },
  { path: "checkpoint.initial_load_path", type: "str", nullable: true, doc: "Checkpoint to start from when the checkpoint folder is empty." },
  { path: "checkpoint.initial_load_model_only", type: "bool", default: true, since: "2025-07-20", doc: "Load only the model weights from initial_load_path." },
  { path: "checkpoint.initial_load_model_weights_only", type: "bool", default: true, until: "2025-07-20", doc: "Load only the model weights from initial_load_path (renamed `initial_load_model_only`)." },
  { path: "checkpoint.initial_load_in_hf", type: "bool", default: false, since: "2025-07-28", doc: "The initial checkpoint is in Hugging Face safetensors format." },
  { path: "checkpoint.initial_load_in_hf_quantized", type: "bool", default: false, since: "2025-10-08", doc: "The initial HF checkpoint is quantized." },
  { path: "checkpoint.last_save_model_only", type: "bool", default: true, since: "2025-07-20", doc: "The final save holds only the model (in export_dtype)." },
  { path: "checkpoint.last_save_model_weights_only", type: "bool", default: false, until: "2025-07-20", doc: "The final save holds only the model weights (renamed `last_save_model_only`)." },
  { path: "checkpoint.last_save_in_hf", type: "bool", default: false, since: "2025-07-20", doc: "Save the final checkpoint in Hugging Face format (needs a state-dict adapter)." },
  { path: "checkpoint.export_dtype", type: "str", default: "float32", choices: ["float16", "bfloat16", "float32"], doc: "Dtype of the final model-only save.", precision: "Casts the exported weights when last_save_model_only is on; training precision is unaffected." },
  { path: "checkpoint.async_mode", type: "str", default: "disabled", choices: ["disabled", "async", "async_with_pinned_mem"], doc: "Asynchronous checkpointing mode." },
  { path: "checkpoint.keep_latest_k", type: "int", default: 10, min: 0, doc: "Checkpoints to keep; 0 keeps all; 1 is invalid." },
  { path: "checkpoint.load_step", type: "int", default: -1, doc: "Step to load; -1 = latest." },
  { path: "checkpoint.exclude_from_loading", type: "list[str]", default: [], doc: "State-dict keys not to load." },
  { path: "checkpoint.enable_first_step_checkpoint", type: "bool", default: false, since: AFTER_V010, sinceRelease: "v0.2.0", doc: "Also save a checkpoint at step 1." },
  { path: "checkpoint.create_seed_checkpoint", type: "bool", default: false, doc: "Create a seed checkpoint and exit; needs one device and checkpoint.enable." },
  { path: "checkpoint.load_only", type: "bool", default: false, since: "2025-10-05", doc: "Load checkpoints but never save." },

  // ---------------------------------------------------------------- [activation_checkpoint]
  {
    path: "activation_checkpoint.mode",
    type: "str",
    default: "selective",
    choices: ["selective", "full", "memory_budget", "none"],
    choiceSince: { memory_budget: "2025-10-09" },
    invalidValueError: "ValueError \"Invalid AC mode\" at launch",
    doc: "Activation checkpointing mode; memory_budget needs compile.",
  },
  { path: "activation_checkpoint.selective_ac_option", type: "str", default: "2", doc: "Selective AC: a positive integer string (every N-th layer) or \"op\" (op-level)." },
  { path: "activation_checkpoint.per_op_sac_force_recompute_mm_shapes_by_fqns", type: "list[str]", default: ["moe.router.gate"], since: AFTER_V010, sinceRelease: "v0.2.0", doc: "Linear modules whose matmuls op-level SAC always recomputes." },
  { path: "activation_checkpoint.early_stop", type: "bool", default: false, since: AFTER_V010, sinceRelease: "v0.2.0", doc: "Stop recomputation early." },
  { path: "activation_checkpoint.memory_budget", type: "float", default: 0.5, since: AFTER_V010, sinceRelease: "v0.2.0", doc: "memory_budget mode: fraction (0..1) of activation memory to keep." },
  { path: "activation_checkpoint.visualize_memory_budget_pareto", type: "bool", default: false, since: AFTER_V010, sinceRelease: "v0.2.0", doc: "memory_budget mode: plot the memory/recompute Pareto front." },
  { path: "activation_checkpoint.preserve_rng_state", type: "bool", default: true, defaultBefore: [{ until: "2026-02-15", value: false }], since: AFTER_V010, sinceRelease: "v0.2.0", doc: "Restore RNG state when recomputing." },
  { path: "activation_checkpoint.determinism_check", type: "str", default: "default", since: AFTER_V010, sinceRelease: "v0.2.0", doc: "Recomputation determinism check." },
  { path: "activation_checkpoint.debug", type: "bool", default: false, since: AFTER_V010, sinceRelease: "v0.2.0", doc: "Debug output for recomputation." },

  // ---------------------------------------------------------------- [compile]
  { path: "compile.enable", type: "bool", default: false, since: "2025-08-20", doc: "Compile with torch.compile (per transformer block)." },
  { path: "compile.components", type: "list[str]", default: ["model", "loss"], choices: ["model", "loss"], since: "2025-08-20", doc: "What to compile: \"model\", \"loss\"." },
  { path: "compile.backend", type: "str", default: "inductor", since: "2025-10-02", doc: "torch.compile backend." },

  // ---------------------------------------------------------------- [float8] / [mx] (until 2025-09-26)
  ...float8LinearKeys("float8", undefined, "2025-09-26"),
  { path: "float8.force_recompute_fp8_weight_in_bwd", type: "bool", default: false, since: "2025-02-18", until: "2025-07-28", doc: "Recompute float8 weights in backward (removed)." },
  { path: "float8.moe_fqns_prototype", type: "str|list[str]", default: [], since: "2025-06-27", until: "2025-09-26", doc: "MoE modules for float8 grouped matmuls (moved to the grouped-MM table)." },
  { path: "mx.use_fp8_dim1_cast_triton_kernel", type: "bool", default: true, since: MX_TABLE_SINCE, until: "2025-07-24", doc: "Use the Triton kernel for the MX dim-1 cast (replaced by mxfp8_dim1_cast_kernel_choice)." },
  { path: "mx.mxfp8_dim1_cast_kernel_choice", type: "str", default: "triton", choices: ["triton", "cuda", "torch"], since: "2025-07-24", until: "2025-09-26", doc: "Kernel for the MXFP8 dim-1 cast." },
  { path: "mx.recipe_name", type: "str", default: "mxfp8_cublas", defaultBefore: [{ until: "2025-08-01", value: "mxfp8" }], since: MX_TABLE_SINCE, until: "2025-09-26", doc: "MX recipe name." },
  { path: "mx.filter_fqns", type: "list[str]", default: ["output"], since: MX_TABLE_SINCE, until: "2025-09-26", doc: "Modules not converted to MX." },
  { path: "mx.moe_fqns_prototype", type: "str|list[str]", default: [], since: "2025-07-31", until: "2025-09-26", doc: "MoE modules for MX grouped matmuls (moved to the grouped-MM table)." },
  // [quantize.dense.*] / [quantize.moe.*]: 2025-09-26 → 2025-09-30
  ...float8LinearKeys("quantize.dense.float8", "2025-09-26", "2025-09-30"),
  ...mxLinearKeys("quantize.dense.mx", "2025-09-26", "2025-09-30"),
  { path: "quantize.moe.float8.fqns", type: "str|list[str]", default: [], since: "2025-09-26", until: "2025-09-30", doc: "MoE modules for float8 grouped matmuls." },
  { path: "quantize.moe.mx.fqns", type: "str|list[str]", default: [], since: "2025-09-26", until: "2025-09-30", doc: "MoE modules for MX grouped matmuls." },
  // [quantize.linear.*] / [quantize.grouped_mm.*]: 2025-09-30 → end of the TOML era
  ...float8LinearKeys("quantize.linear.float8", "2025-09-30", undefined),
  ...mxLinearKeys("quantize.linear.mx", "2025-09-30", undefined),
  { path: "quantize.grouped_mm.float8.fqns", type: "str|list[str]", default: [], since: "2025-09-30", doc: "MoE modules (e.g. [\"experts\"]) whose grouped matmuls run in float8; not with PP or CP.", precision: "Float8 grouped matmuls for the listed MoE modules." },
  { path: "quantize.grouped_mm.mx.recipe_name", type: "str", default: "mxfp8", choices: ["mxfp8"], since: "2025-09-30", doc: "MX grouped-MM recipe." },
  { path: "quantize.grouped_mm.mx.fqns", type: "str|list[str]", default: [], since: "2025-09-30", doc: "MoE modules whose grouped matmuls run in MXFP8.", precision: "MXFP8 grouped matmuls for the listed MoE modules." },

  // ---------------------------------------------------------------- [comm]
  { path: "comm.init_timeout_seconds", type: "int", default: 300, min: 1, doc: "Timeout for the first collective (process-group setup)." },
  { path: "comm.train_timeout_seconds", type: "int", default: 100, min: 1, doc: "Timeout for collectives during training." },
  { path: "comm.trace_buf_size", type: "int", default: 20000, min: 0, doc: "Flight-recorder buffer entries; 0 = off." },
  { path: "comm.save_traces_folder", type: "str", default: "comm_traces", since: AFTER_V010, sinceRelease: "v0.2.0", doc: "Folder (under dump_folder) for flight-recorder traces." },
  { path: "comm.save_traces_file_prefix", type: "str", default: "rank_", since: AFTER_V010, sinceRelease: "v0.2.0", doc: "File prefix of flight-recorder traces." },
  { path: "comm.mode", type: "str", default: "default", choices: ["default", "fake_backend", "local_tensor"], since: "2025-11-25", doc: "Dry-run communication modes; with fake_backend/local_tensor the world size comes from the NGPU env var." },

  // ---------------------------------------------------------------- [memory_estimation]
  { path: "memory_estimation.enable", type: "bool", default: false, since: "2025-08-20", doc: "Estimate memory use before training (FSDP/HSDP only)." },
  { path: "memory_estimation.enabled", type: "bool", default: false, until: "2025-08-20", doc: "Estimate memory use before training (renamed `enable`)." },
  { path: "memory_estimation.disable_fake_mode", type: "bool", default: false, doc: "Estimate with real tensors instead of fake mode." },

  // ---------------------------------------------------------------- [fault_tolerance]
  { path: "fault_tolerance.enable", type: "bool", default: false, doc: "TorchFT fault tolerance (data_parallel_replicate_degree should be 1; group_size sets the replicas)." },
  { path: "fault_tolerance.process_group", type: "str", default: "gloo", choices: ["gloo", "nccl"], invalidValueError: "ValueError \"Unsupported process group\" at launch", since: AFTER_V010, sinceRelease: "v0.2.0", doc: "TorchFT process group backend." },
  { path: "fault_tolerance.process_group_timeout_ms", type: "int", default: 10000, min: 1, since: AFTER_V010, sinceRelease: "v0.2.0", doc: "TorchFT process group timeout (ms)." },
  { path: "fault_tolerance.replica_id", type: "int", default: 0, min: 0, doc: "This replica group's id." },
  { path: "fault_tolerance.group_size", type: "int", default: 0, min: 0, doc: "Number of replica groups." },
  { path: "fault_tolerance.min_replica_size", type: "int", default: 1, min: 1, doc: "Minimum replicas to continue training." },
  { path: "fault_tolerance.semi_sync_method", type: "str", nullable: true, choices: ["local_sgd", "diloco"], doc: "Semi-synchronous training method." },
  { path: "fault_tolerance.sync_steps", type: "int", default: 5, until: "2025-08-05", doc: "Steps between semi-sync synchronisations (moved to torchtitan.components.ft.config)." },
  { path: "fault_tolerance.should_quantize", type: "bool", default: false, until: "2025-08-05", doc: "Quantize outer-optimizer communication (moved to torchtitan.components.ft.config)." },
  { path: "fault_tolerance.fragment_sync_delay", type: "int", default: 0, until: "2025-08-05", doc: "Streaming DiLoCo fragment sync delay (moved to torchtitan.components.ft.config)." },
  { path: "fault_tolerance.fragment_update_alpha", type: "float", default: 0.0, until: "2025-08-05", doc: "Streaming DiLoCo fragment update weight (moved to torchtitan.components.ft.config)." },

  // ---------------------------------------------------------------- [experimental]
  { path: "experimental.custom_import", type: "str", default: "", doc: "Module imported at startup (e.g. one that registers models)." },
  {
    path: "experimental.custom_args_module",
    type: "str",
    default: "",
    since: EXTENSIONS_SINCE,
    deprecated: { since: "2025-10-14", advice: "use `job.custom_config_module`; from this field the module no longer extends the schema of the TOML itself" },
    doc: "Module whose `JobConfig` extends the schema. Deprecated since 2025-10-14 (use job.custom_config_module).",
  },

  // ---------------------------------------------------------------- [validation] (since 2025-07-09)
  { path: "validation.enable", type: "bool", default: false, since: "2025-08-22", doc: "Run validation during training." },
  { path: "validation.enabled", type: "bool", default: false, since: "2025-07-09", until: "2025-08-22", doc: "Run validation during training (renamed `enable`)." },
  { path: "validation.dataset", type: "str", default: "c4_validation", since: "2025-07-09", doc: "Validation dataset." },
  { path: "validation.dataset_path", type: "str", nullable: true, since: "2025-07-09", doc: "Local path of the validation dataset." },
  { path: "validation.local_batch_size", type: "int", default: 8, min: 1, since: "2025-07-09", doc: "Per-device validation batch size." },
  { path: "validation.seq_len", type: "int", default: 2048, min: 1, since: "2025-07-09", doc: "Validation sequence length." },
  { path: "validation.freq", type: "int", default: 10, min: 1, since: "2025-07-09", doc: "Validation period, in steps." },
  { path: "validation.steps", type: "int", default: -1, since: "2025-07-09", doc: "Validation steps per run: > 0, or -1 for the whole dataset (which may hang with uneven shards)." },
  { path: "validation.dataloader.num_workers", type: "int", default: 0, min: 0, since: "2025-12-18", doc: "Dataloader worker processes." },
  { path: "validation.dataloader.persistent_workers", type: "bool", default: false, since: "2025-12-18", doc: "Keep workers alive between epochs (only with workers > 0)." },
  { path: "validation.dataloader.pin_memory", type: "bool", default: false, since: "2025-12-18", doc: "Pin host memory for faster copies." },
  { path: "validation.dataloader.prefetch_factor", type: "int", nullable: true, since: "2025-12-18", doc: "Batches prefetched per worker (only with workers > 0)." },

  // ---------------------------------------------------------------- [debug] (since 2025-10-29)
  { path: "debug.seed", type: "int", nullable: true, since: "2025-10-29", doc: "Random seed." },
  { path: "debug.deterministic", type: "bool", default: false, since: "2025-10-29", doc: "Use deterministic algorithms." },
  { path: "debug.deterministic_warn_only", type: "bool", default: false, since: "2025-10-29", doc: "Only warn when an op has no deterministic implementation." },
  { path: "debug.moe_force_load_balance", type: "bool", default: false, since: "2025-10-29", doc: "Force balanced MoE routing (debugging)." },
];

/**
 * When keys listed without a date (or with the AFTER_V010 placeholder) were really added: the first
 * commit of torchtitan's config source (config_manager.py, then config/job_config.py) that defines them,
 * by author date (read with scripts/schema-history.ts from a clone of pytorch/torchtitan). Keys present in
 * the first config commit (2024-04-11) have no entry. A key is never accepted before this date.
 */
const ADDED: Readonly<Record<string, string>> = table({
  "activation_checkpoint.per_op_sac_force_recompute_mm_shapes_by_fqns": "2025-07-16",
  "activation_checkpoint.early_stop": "2025-08-29",
  "activation_checkpoint.memory_budget": "2025-10-09",
  "activation_checkpoint.visualize_memory_budget_pareto": "2025-10-09",
  "activation_checkpoint.preserve_rng_state": "2025-10-29",
  "activation_checkpoint.determinism_check": "2025-10-29",
  "activation_checkpoint.debug": "2025-10-29",
  "checkpoint.create_seed_checkpoint": "2024-05-02",
  "checkpoint.async_mode": "2024-05-07",
  "checkpoint.keep_latest_k": "2024-05-31",
  "checkpoint.load_step": "2024-12-05",
  "checkpoint.exclude_from_loading": "2025-02-06",
  "checkpoint.initial_load_path": "2025-06-13",
  "checkpoint.initial_load_model_weights_only": "2025-06-13",
  "comm.save_traces_folder": "2025-07-23",
  "comm.save_traces_file_prefix": "2025-09-23",
  "fault_tolerance.enable": "2025-02-28",
  "fault_tolerance.replica_id": "2025-02-28",
  "fault_tolerance.group_size": "2025-02-28",
  "fault_tolerance.min_replica_size": "2025-02-28",
  "fault_tolerance.semi_sync_method": "2025-04-29",
  "fault_tolerance.sync_steps": "2025-04-29",
  "fault_tolerance.should_quantize": "2025-06-16",
  "fault_tolerance.fragment_sync_delay": "2025-06-16",
  "fault_tolerance.fragment_update_alpha": "2025-06-16",
  "fault_tolerance.process_group": "2025-07-18",
  "fault_tolerance.process_group_timeout_ms": "2025-07-18",
  "job.print_args": "2024-12-20",
  "lr_scheduler.decay_ratio": "2025-03-11",
  "lr_scheduler.decay_type": "2025-03-11",
  "lr_scheduler.lr_min": "2025-03-11",
  "metrics.enable_wandb": "2024-12-03",
  "model.converters": "2025-02-15",
  "model.print_after_conversion": "2025-02-27",
  "optimizer.early_step_in_backward": "2024-12-09",
  "optimizer.eps": "2025-03-04",
  "optimizer.beta1": "2025-06-11",
  "optimizer.beta2": "2025-06-11",
  "optimizer.weight_decay": "2025-06-11",
  "parallelism.pipeline_parallel_first_stage_less_layers": "2025-07-30",
  "parallelism.pipeline_parallel_last_stage_less_layers": "2025-07-30",
  "profiling.enable_memory_snapshot": "2024-06-19",
  "profiling.save_memory_snapshot_folder": "2024-06-19",
  "training.mixed_precision_param": "2024-05-20",
  "training.mixed_precision_reduce": "2024-05-20",
  "training.seed": "2024-10-01",
  "training.enable_cpu_offload": "2024-10-28",
  "training.deterministic": "2024-12-09",
  "training.gc_debug": "2025-05-28",
  "training.global_batch_size": "2025-06-05",
  "training.debug_moe_force_load_balance": "2025-10-03",
});

export const KEYS: readonly KeySpec[] = LISTED_KEYS.map((k) => {
  const added = ADDED[k.path];
  if (!added || (k.since && k.since !== AFTER_V010 && k.since >= added)) return k;
  const { sinceRelease: _unused, ...rest } = k;
  return { ...rest, since: added };
});

function float8LinearKeys(table: string, since: string | undefined, until: string | undefined): KeySpec[] {
  const span = { ...(since ? { since } : {}), ...(until ? { until } : {}) };
  // The original [float8] table: keys added after it have their own dates (the later tables start whole).
  const dated = (k: KeySpec): KeySpec => {
    const leaf = k.path.slice(table.length + 1);
    return since === undefined && FLOAT8_KEY_SINCE[leaf] ? { ...k, since: FLOAT8_KEY_SINCE[leaf] } : k;
  };
  const keys: KeySpec[] = [
    { path: `${table}.enable_fsdp_float8_all_gather`, type: "bool", default: false, ...span, doc: "All-gather float8 weights in FSDP (tensorwise recipe only; effective only with dp_shard > 1).", precision: "FSDP all-gathers the float8-cast weights instead of bf16 ones (less communication)." },
    { path: `${table}.precompute_float8_dynamic_scale_for_fsdp`, type: "bool", default: false, ...span, doc: "Precompute float8 scales for all parameters in one kernel (needs the float8 FSDP all-gather)." },
    { path: `${table}.recipe_name`, type: "str", nullable: true, choices: ["tensorwise", "rowwise", "rowwise_with_gw_hp"], ...span, doc: "Float8 scaling recipe; unset = tensorwise. Not together with enable_fsdp_float8_all_gather.", precision: "Rowwise recipes scale per row (more accurate, slower); tensorwise scales per tensor." },
    { path: `${table}.filter_fqns`, type: "list[str]", default: [], ...span, doc: "Modules not converted to float8; \"auto_filter_small_kn\" skips layers too small to benefit." },
    { path: `${table}.emulate`, type: "bool", default: false, ...span, doc: "Emulate float8 on hardware without it (tests only; not with compile)." },
  ];
  return keys.map(dated);
}

function mxLinearKeys(table: string, since: string, until: string | undefined): KeySpec[] {
  const span = { since, ...(until ? { until } : {}) };
  return [
    { path: `${table}.mxfp8_dim1_cast_kernel_choice`, type: "str", default: "triton", choices: ["triton", "cuda", "torch"], ...span, doc: "Kernel for the MXFP8 dim-1 cast." },
    { path: `${table}.recipe_name`, type: "str", default: "mxfp8_cublas", choices: ["mxfp8_cublas", "mxfp8_cublas_rceil"], openChoices: true, ...span, doc: "MX recipe name, e.g. \"mxfp8_cublas\", \"mxfp8_cublas_rceil\"." },
    { path: `${table}.filter_fqns`, type: "list[str]", default: ["output"], ...span, doc: "Modules not converted to MX." },
  ];
}

// ==================================================================== extension modules (§4.1)

export interface ExtensionModule {
  /** Importable module names (the module moved between releases). */
  modules: readonly string[];
  label: string;
  keys: readonly KeySpec[];
  /**
   * Set for a schema read from the workspace (a fork's `torchtitan/config/job_config.py`, or the module
   * named by `job.custom_config_module`): its path as shown to the user.
   */
  sourcePath?: string;
  /** Workspace schemas only: tables whose dataclass could not be resolved in the file (any key accepted). */
  openTables?: readonly string[];
}

const ext = (path: string, type: KeyType, def: unknown, doc: string, more: Partial<KeySpec> = {}): KeySpec => ({ path, type, ...(def === undefined ? { nullable: true } : { default: def }), doc, ...more });

export const EXTENSIONS: readonly ExtensionModule[] = [
  {
    modules: ["torchtitan.models.flux.job_config", "torchtitan.experiments.flux.job_config"],
    label: "FLUX",
    keys: [
      ext("training.classifier_free_guidance_prob", "float", 0.0, "Probability of dropping the text condition (classifier-free guidance training)."),
      ext("training.classifer_free_guidance_prob", "float", 0.0, "Classifier-free guidance dropout probability (early spelling)."),
      ext("training.img_size", "int", 256, "Training image size."),
      ext("training.test_mode", "bool", false, "Test mode with tiny encoders."),
      ext("encoder.t5_encoder", "str", "google/t5-v1_1-small", "T5 text encoder (HF name or path)."),
      ext("encoder.clip_encoder", "str", "openai/clip-vit-large-patch14", "CLIP text encoder (HF name or path)."),
      ext("encoder.autoencoder_path", "str", "", "Path of the autoencoder weights."),
      ext("encoder.max_t5_encoding_len", "int", 256, "Maximum T5 token length."),
      ext("validation.enable_classifier_free_guidance", "bool", false, "Use classifier-free guidance when sampling for validation."),
      ext("validation.classifier_free_guidance_scale", "float", 5.0, "Guidance scale when sampling."),
      ext("validation.denoising_steps", "int", 50, "Denoising steps when sampling."),
      ext("validation.eval_freq", "int", 100, "Sampling period, in steps."),
      ext("validation.save_img_count", "int", 1, "Images saved per validation."),
      ext("validation.save_img_folder", "str", "img", "Folder for validation images."),
      ext("validation.all_timesteps", "bool", false, "Validate over all timesteps."),
      ext("eval.enable_classifer_free_guidance", "bool", false, "Use classifier-free guidance when sampling (early layout)."),
      ext("eval.classifer_free_guidance_scale", "float", 5.0, "Guidance scale (early layout)."),
      ext("eval.denoising_steps", "int", 50, "Denoising steps (early layout)."),
      ext("eval.eval_freq", "int", 100, "Sampling period (early layout)."),
      ext("eval.save_img_folder", "str", "img", "Folder for images (early layout)."),
      ext("inference.save_img_folder", "str", "inference_results", "Folder for generated images."),
      ext("inference.prompts_path", "str", "", "File with one prompt per line."),
      ext("inference.local_batch_size", "int", 2, "Inference batch size."),
      ext("inference.img_size", "int", 256, "Generated image size."),
    ],
  },
  {
    modules: ["torchtitan.experiments.vlm.job_config"],
    label: "VLM",
    keys: [
      ext("data.max_images_per_batch", "int", 10, "Maximum images per batch."),
      ext("data.max_patches_per_image", "int", 256, "Maximum patches per image."),
      ext("data.patch_size", "int", 16, "Image patch size."),
      ext("data.spatial_merge_size", "int", 1, "Spatial merge size."),
      ext("data.packing_buffer_size", "int", 0, "Sample packing buffer size; 0 = no packing."),
    ],
  },
  {
    modules: ["torchtitan.experiments.transformers_modeling_backend.job_config", "torchtitan.experiments.transformers_backend.job_config"],
    label: "Transformers modeling backend",
    keys: [ext("hf_transformers.model", "str", "", "Hugging Face model id, e.g. \"Qwen/Qwen3-4B-Instruct-2507\".")],
  },
  {
    modules: ["torchtitan.components.ft.config"],
    label: "TorchFT",
    keys: [
      ext("fault_tolerance.sync_steps", "int", 5, "Steps between semi-sync synchronisations."),
      ext("fault_tolerance.should_quantize", "bool", false, "Quantize outer-optimizer communication."),
      ext("fault_tolerance.fragment_sync_delay", "int", 0, "Streaming DiLoCo fragment sync delay."),
      ext("fault_tolerance.fragment_update_alpha", "float", 0.0, "Streaming DiLoCo fragment update weight."),
      ext("fault_tolerance.module_fqns_per_model_fragment", "list[list[str]]", [], "Module names per model fragment."),
      ext("fault_tolerance.num_fragments", "int", 1, "Number of model fragments."),
    ],
  },
  {
    modules: ["torchtitan.experiments.simple_fsdp.job_config"],
    label: "SimpleFSDP",
    keys: [ext("compile.graph_passes", "str", undefined, "Graph bucketing pass.", { choices: ["auto_bucketing", "transformer_block_bucketing"] })],
  },
  {
    modules: ["torchtitan.experiments.compiler_toolkit.job_config"],
    label: "compiler toolkit",
    keys: [ext("compile.joint_passes", "list[str]", [], "Joint-graph passes."), ext("compile.passes", "list[str]", [], "Compiler passes.")],
  },
  {
    modules: ["torchtitan.experiments.autoparallel.job_config"],
    label: "AutoParallel",
    keys: [ext("experimental.comms_bucket_reorder_strategy", "str", "aten", "Communication bucketing/reordering strategy."), ext("experimental.autop_force_bf16", "bool", false, "Force bf16 in AutoParallel.", { precision: "Forces AutoParallel's own mixed precision to bf16." })],
  },
];

// ==================================================================== rename / move map (§4.3)

export interface RenameRule {
  /** Old dotted path; a trailing ".*" moves every key of a table (same leaf names). */
  from: string;
  /** New dotted path (".*" with a ".*" source); absent when the key was removed. */
  to?: string;
  date: string;
  commit?: string;
  /** The boolean meaning flipped (enable_x → disable_x): a fix negates the value. */
  invert?: boolean;
  /** The new key means something different: a fix needs a choice, never applied automatically. */
  changedMeaning?: string;
  /** Other reasonable targets (a fix per target; the move is then not automatic). */
  alternatives?: string[];
  /** For removals: what to use instead. */
  advice?: string;
  /** Converts the old value text for the new key (e.g. a bool to a choice); undefined = keep. */
  convert?: (value: unknown) => string | undefined;
  /** Type of the old key, when it differs from the new one (default: the new key's type, "any" after a conversion). */
  fromType?: KeyType;
  /** When the old key itself was added (for the schema at a date; default: as old as the schema). */
  fromSince?: string;
}

export const RENAMES: readonly RenameRule[] = [
  // Parallelism
  { from: "training.data_parallel_degree", to: "training.data_parallel_shard_degree", date: "2024-09-10", commit: "db6b39acd", changedMeaning: "data_parallel_type \"ddp\" corresponds to the replicate degree, \"fsdp\" to the shard degree", alternatives: ["training.data_parallel_replicate_degree"] },
  { from: "training.data_parallel_type", fromType: "str", date: "2024-09-10", commit: "db6b39acd", advice: "set data_parallel_shard_degree (FSDP) or data_parallel_replicate_degree (DDP) instead" },
  { from: "training.data_parallel_replicate_degree", to: "parallelism.data_parallel_replicate_degree", date: "2025-03-18", commit: "785c34c99" },
  { from: "training.data_parallel_shard_degree", to: "parallelism.data_parallel_shard_degree", date: "2025-03-18", commit: "785c34c99" },
  { from: "training.tensor_parallel_degree", to: "parallelism.tensor_parallel_degree", date: "2025-03-18", commit: "785c34c99" },
  { from: "training.disable_loss_parallel", to: "parallelism.disable_loss_parallel", date: "2025-03-18", commit: "785c34c99" },
  { from: "training.fsdp_reshard_after_forward", to: "parallelism.fsdp_reshard_after_forward", date: "2025-03-18", commit: "785c34c99" },
  { from: "training.pipeline_parallel_degree", to: "experimental.pipeline_parallel_degree", date: "2024-05-21", commit: "aafe0e870" },
  ...["pipeline_parallel_degree", "pipeline_parallel_split_points", "pipeline_parallel_schedule", "pipeline_parallel_schedule_csv", "pipeline_parallel_microbatches", "context_parallel_degree", "context_parallel_rotate_method", "enable_async_tensor_parallel", "enable_compiled_autograd"].map(
    (k): RenameRule => ({ from: `experimental.${k}`, to: `parallelism.${k}`, date: "2025-03-18", commit: "785c34c99" }),
  ),
  { from: "training.enable_loss_parallel", to: "training.disable_loss_parallel", date: "2024-12-20", commit: "f6a9daa13", invert: true },
  { from: "parallelism.pipeline_parallel_microbatches", to: "parallelism.pipeline_parallel_microbatch_size", date: "2025-04-07", commit: "5e2033c75", changedMeaning: "the old key was a number of microbatches, the new one is the size of a microbatch (local_batch_size / microbatches)" },
  { from: "parallelism.pipeline_parallel_split_points", date: "2025-10-13", commit: "6e06a49cd", advice: "use parallelism.module_fqns_per_model_part or parallelism.pipeline_parallel_layers_per_stage" },
  { from: "parallelism.enable_compiled_autograd", date: "2025-10-28", commit: "8228c0845", advice: "compiled autograd is no longer supported" },
  // Precision / quantization
  // A string ("" or "dynamic", config_manager.py since c22d1a8d1) until 8a1aa0670 (#436, 2024-07-08) made it store_true: either type is the file's own.
  { from: "training.fp8_linear", to: "training.enable_fp8_linear", date: "2024-07-16", commit: "a4b2ee3c0", fromType: "any" },
  { from: "training.enable_fp8_linear", to: "training.enable_float8_linear", date: "2024-07-17", commit: "69fe8defc" },
  { from: "training.enable_fsdp_fp8_all_gather", to: "training.enable_fsdp_float8_all_gather", date: "2024-07-17", commit: "69fe8defc" },
  { from: "training.enable_float8_linear", to: "float8.enable_float8_linear", date: "2024-07-30", commit: "40f79d79f" },
  { from: "training.enable_fsdp_float8_all_gather", to: "float8.enable_fsdp_float8_all_gather", date: "2024-07-30", commit: "40f79d79f" },
  { from: "training.precompute_float8_dynamic_scale_for_fsdp", to: "float8.precompute_float8_dynamic_scale_for_fsdp", date: "2024-07-30", commit: "40f79d79f" },
  ...["input", "weight", "grad_output"].map((k): RenameRule => ({ from: `float8.scaling_type_${k}`, fromType: "str", fromSince: "2024-07-30", date: "2025-01-31", commit: "2271b6386", advice: "delayed scaling was removed; dynamic scaling is the only mode" })),
  { from: "float8.enable_float8_linear", fromType: "bool", date: "2025-02-15", commit: "57387af0e", advice: "add \"float8\" to model.converters (the converter name of the targeted release)" },
  { from: "float8.force_recompute_fp8_weight_in_bwd", date: "2025-07-28", commit: "1fefaee08", advice: "no longer needed" },
  { from: "mx.use_fp8_dim1_cast_triton_kernel", to: "mx.mxfp8_dim1_cast_kernel_choice", date: "2025-07-24", commit: "f3e2a75e1", convert: (v) => (v === true ? '"triton"' : v === false ? '"torch"' : undefined) },
  { from: "float8.moe_fqns_prototype", to: "quantize.moe.float8.fqns", date: "2025-09-26", commit: "5b5d46856" },
  { from: "mx.moe_fqns_prototype", to: "quantize.moe.mx.fqns", date: "2025-09-26", commit: "5b5d46856" },
  { from: "float8.*", to: "quantize.dense.float8.*", date: "2025-09-26", commit: "5b5d46856" },
  { from: "mx.*", to: "quantize.dense.mx.*", date: "2025-09-26", commit: "5b5d46856" },
  { from: "quantize.dense.float8.*", to: "quantize.linear.float8.*", date: "2025-09-30", commit: "8a2686c4a" },
  { from: "quantize.dense.mx.*", to: "quantize.linear.mx.*", date: "2025-09-30", commit: "8a2686c4a" },
  { from: "quantize.moe.float8.*", to: "quantize.grouped_mm.float8.*", date: "2025-09-30", commit: "8a2686c4a" },
  { from: "quantize.moe.mx.*", to: "quantize.grouped_mm.mx.*", date: "2025-09-30", commit: "8a2686c4a" },
  // Compile / AC / debug
  { from: "training.compile", to: "compile.enable", date: "2025-08-20", commit: "08b8b244f" },
  { from: "training.seed", to: "debug.seed", date: "2025-10-29", commit: "e61f2cce4" },
  { from: "training.deterministic", to: "debug.deterministic", date: "2025-10-29", commit: "e61f2cce4" },
  { from: "training.debug_moe_force_load_balance", to: "debug.moe_force_load_balance", date: "2025-10-29", commit: "e61f2cce4" },
  // Checkpoint
  { from: "checkpoint.model_weights_only", to: "checkpoint.last_save_model_weights_only", date: "2025-06-13", commit: "cddd7dc80" },
  { from: "checkpoint.last_save_model_weights_only", to: "checkpoint.last_save_model_only", date: "2025-07-20", commit: "beb29a1c7" },
  { from: "checkpoint.initial_load_model_weights_only", to: "checkpoint.initial_load_model_only", date: "2025-07-20", commit: "beb29a1c7" },
  { from: "checkpoint.last_save_in_safetensors_format", to: "checkpoint.last_save_in_hf", date: "2025-07-20", commit: "beb29a1c7" },
  { from: "checkpoint.enable_checkpoint", to: "checkpoint.enable", date: "2025-08-22", commit: "cd337db63" },
  { from: "checkpoint.interval_type", fromType: "str", date: "2025-02-27", commit: "031f73f8a", advice: "checkpoint.interval is always in steps" },
  // Others
  { from: "training.batch_size", to: "training.local_batch_size", date: "2025-06-05", commit: "8570415c3" },
  { from: "training.warmup_steps", to: "lr_scheduler.warmup_steps", date: "2025-03-11", commit: "0da8901b1" },
  { from: "lr_scheduler.lr_min", to: "lr_scheduler.min_lr_factor", date: "2025-07-31", commit: "881f0ca46" },
  { from: "optimizer.fused", to: "optimizer.implementation", date: "2025-02-24", commit: "6e4988550", convert: (v) => (v === true ? '"fused"' : v === false ? '"foreach"' : undefined) },
  { from: "metrics.enable_color_printing", to: "metrics.disable_color_printing", date: "2024-12-20", invert: true },
  { from: "metrics.rank_0_only", to: "metrics.save_for_all_ranks", date: "2025-03-19", commit: "7fe3620a1", invert: true },
  { from: "estimate.memory", to: "memory_estimation.enabled", date: "2024-07-01" },
  { from: "estimate.mode", fromType: "str", to: "memory_estimation.disable_fake_mode", date: "2024-07-01", changedMeaning: "the old key named a mode; the new one is a boolean (true = real tensors)" },
  { from: "memory_estimation.enabled", to: "memory_estimation.enable", date: "2025-08-20", commit: "08b8b244f" },
  { from: "validation.enabled", to: "validation.enable", date: "2025-08-22", commit: "cd337db63" },
  { from: "job.print_args", to: "job.print_config", date: "2025-10-14", commit: "7c1048075" },
  { from: "job.save_config_folder", to: "job.save_config_file", date: "2025-10-21", fromSince: "2025-10-21" },
  { from: "job.use_for_integration_test", date: "2025-08-30", advice: "it had no effect outside torchtitan's own tests" },
  { from: "experimental.custom_model_path", to: "experimental.custom_import", date: "2025-03-19", commit: "b315517d1" },
  { from: "model.norm_type", fromType: "str", date: "2025-04-23", commit: "9cf88aa1a", advice: "the norm is fixed by the model flavor" },
  { from: "model.use_flex_attn", fromType: "bool", date: "2025-04-17", commit: "8c6bf93e5", advice: "pick a flavor with flex attention, e.g. \"debugmodel_flex_attn\"" },
  { from: "model.attn_mask_type", fromType: "str", date: "2025-04-17", commit: "8c6bf93e5", advice: "pick a flavor with the attention variant you need" },
  { from: "profiling.run_profiler", to: "profiling.enable_profiling", date: "2024-04-15" },
  // Short-lived keys found by comparing this schema with torchtitan's config source at every commit that
  // changed it (config_manager.py / config/job_config.py, 2024-04 → 2026-02): added and removed again.
  { from: "experimental.pipeline_parallel_split_mode", fromType: "str", fromSince: "2024-05-21", date: "2024-08-22", commit: "b029b7396", advice: "the pipeline is split by pipeline_parallel_split_points" },
  { from: "experimental.torch_spmd", fromType: "bool", fromSince: "2024-09-07", date: "2024-09-10", commit: "db6b39acd", advice: "it was an experiment" },
  { from: "metrics.disable_logging_from_checkpoint", fromType: "bool", fromSince: "2025-03-05", date: "2025-03-10", commit: "99f73969e", advice: "it was reverted" },
  { from: "profiling.profile_every_x_iter", to: "profiling.profile_freq", date: "2024-04-15" },
];

// ==================================================================== converter names (§2.3)

export interface ConverterEra {
  since?: string;
  until?: string;
  names: readonly string[];
}

export const CONVERTER_ERAS: readonly ConverterEra[] = [
  { since: "2025-02-15", until: "2025-09-26", names: ["float8", "mx"] },
  { since: "2025-09-26", until: "2025-09-30", names: ["quantize.dense.float8", "quantize.moe.float8", "quantize.dense.mx", "quantize.moe.mx"] },
  { since: "2025-09-30", names: ["quantize.linear.float8", "quantize.grouped_mm.float8", "quantize.linear.mx", "quantize.grouped_mm.mx"] },
];

/** Converter names in other eras → the name of each era (the first is the usual meaning). */
export const CONVERTER_RENAMES: Readonly<Record<string, { float8OrMx: "float8" | "mx"; grouped: boolean }>> = table({
  float8: { float8OrMx: "float8", grouped: false },
  mx: { float8OrMx: "mx", grouped: false },
  "quantize.dense.float8": { float8OrMx: "float8", grouped: false },
  "quantize.dense.mx": { float8OrMx: "mx", grouped: false },
  "quantize.moe.float8": { float8OrMx: "float8", grouped: true },
  "quantize.moe.mx": { float8OrMx: "mx", grouped: true },
  "quantize.linear.float8": { float8OrMx: "float8", grouped: false },
  "quantize.linear.mx": { float8OrMx: "mx", grouped: false },
  "quantize.grouped_mm.float8": { float8OrMx: "float8", grouped: true },
  "quantize.grouped_mm.mx": { float8OrMx: "mx", grouped: true },
});

/** Converter descriptions for completion and hover. */
export const CONVERTER_DOCS: Readonly<Record<string, string>> = table({
  float8: "Float8 training for Linear layers (torchao Float8Linear); needs SM 8.9+.",
  mx: "MXFP8 training for Linear layers; needs SM 10.0+.",
  "quantize.dense.float8": "Float8 Linear layers (torchao); needs SM 8.9+.",
  "quantize.moe.float8": "Float8 grouped matmuls for MoE experts; not with PP or CP.",
  "quantize.dense.mx": "MXFP8 Linear layers; needs SM 10.0+.",
  "quantize.moe.mx": "MXFP8 grouped matmuls for MoE experts; needs SM 10.0+.",
  "quantize.linear.float8": "Float8 Linear layers (torchao Float8Linear); configured in [quantize.linear.float8]; needs SM 8.9+.",
  "quantize.grouped_mm.float8": "Float8 grouped matmuls for MoE experts; configured in [quantize.grouped_mm.float8]; not with PP or CP.",
  "quantize.linear.mx": "MXFP8 Linear layers; configured in [quantize.linear.mx]; needs SM 10.0+; not with TP + compile.",
  "quantize.grouped_mm.mx": "MXFP8 grouped matmuls for MoE experts; configured in [quantize.grouped_mm.mx]; needs SM 10.0+.",
});

/** Date from which unknown TOML keys raise ValueError (eadca4835, #1644). */
export const STRICT_KEYS_SINCE = "2025-08-28";

/** torchtitan's own message for unknown fields (spec §4.1); `{cls}` and `{set}` are filled in. */
export const INVALID_FIELDS_MESSAGE = "Invalid field names in {cls} data: {set}.";

/**
 * Keys whose values the precision rules (unknown-dtype, float16-without-grad-scaler,
 * reduce-dtype-not-allowed) check: the schema's type/allowed-value rule skips them entirely.
 */
export const PRECISION_VALUE_KEYS: readonly string[] = ["training.mixed_precision_param", "training.mixed_precision_reduce", "training.dtype"];

/** The parallel degrees, whose type and range the parallel-dims rules check: also skipped by the value rule. */
export const PARALLEL_DEGREE_KEYS: readonly string[] = [
  "parallelism.data_parallel_replicate_degree",
  "parallelism.data_parallel_shard_degree",
  "parallelism.context_parallel_degree",
  "parallelism.tensor_parallel_degree",
  "parallelism.pipeline_parallel_degree",
  "parallelism.expert_parallel_degree",
  "parallelism.expert_tensor_parallel_degree",
];
