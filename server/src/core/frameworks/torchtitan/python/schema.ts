/**
 * The config dataclasses of torchtitan's Python era (2026-02-23, 9810191bb #2386, onward), as far as the
 * precision analysis reads them: one row per field with its default, declared choices and the source it was
 * read from (file:line at a commit of pytorch/torchtitan). One table: the evaluator's defaults, the hovers,
 * completion and the dtype rules read it. Where a field changed, `since` dates the change.
 *
 * Sources: `torchtitan/config/configs.py` at b5bcd76c6 (main, 2026-08-21) and release/0.3 (4f9e9a47d,
 * 2026-08-19, 0.3.0rc1); `torchtitan/trainer.py` (Trainer.Config); `torchtitan/components/optimizer/optimizer.py`.
 */

import { table } from "../../../model/table";

export type PyFieldType = "int" | "float" | "bool" | "str" | "list";

export interface PyFieldSpec {
  section: string;
  key: string;
  type: PyFieldType;
  default: string | number | boolean | null | readonly string[];
  /** Declared Literal choices (tyro checks flags against them; Python code is not checked). */
  choices?: readonly string[];
  /** Choices added later, with the main-branch date they appear. */
  addedChoices?: readonly { choice: string; since: string; source: string }[];
  /** First main-branch date the field exists in the Python era (undefined: from 2026-02-23). */
  since?: string;
  /** Main-branch date the field was removed (a keyword for it raises TypeError from then on), and by what. */
  until?: string;
  removedBy?: string;
  source: string;
  doc: string;
}

const C = "torchtitan/config/configs.py@b5bcd76c6";

export const PY_FIELDS: readonly PyFieldSpec[] = [
  { section: "training", key: "dtype", type: "str", default: "float32", choices: ["bfloat16", "float32"], source: `${C}:87`, doc: "Storage dtype of the parameters (and optimizer states unless set otherwise). `bfloat16` is full bf16 training." },
  { section: "training", key: "mixed_precision_param", type: "str", default: "bfloat16", choices: ["bfloat16", "float32"], source: `${C}:94`, doc: "`MixedPrecisionPolicy.param_dtype`: the dtype FSDP2 casts the parameters to for compute." },
  {
    section: "training",
    key: "mixed_precision_reduce",
    type: "str",
    default: "float32",
    choices: ["float32"],
    addedChoices: [{ choice: "bfloat16", since: "2026-09-11", source: "pytorch/torchtitan#4597 (merged 2026-09-11; spec torchtitan.md §2.1)" }],
    source: `${C}:102`,
    doc: "`MixedPrecisionPolicy.reduce_dtype`: the dtype FSDP2 reduce-scatters gradients in.",
  },
  { section: "training", key: "enable_cpu_offload", type: "bool", default: false, source: `${C}:70`, doc: "Offload parameters, gradients and optimizer states to CPU (FSDP2 CPUOffloadPolicy)." },
  { section: "training", key: "steps", type: "int", default: 10000, source: `${C}:67`, doc: "Number of training steps." },
  { section: "training", key: "max_norm", type: "float", default: 1.0, source: `${C}:64`, doc: "Gradient-norm clipping." },
  { section: "training", key: "local_batch_size", type: "int", default: 8, source: "torchtitan/config/configs.py@4f9e9a47d (release/0.3)", doc: "Per-rank batch size (release/0.3; main replaced it with num_tokens_per_microbatch_per_dp_rank)." },
  { section: "training", key: "seq_len", type: "int", default: 2048, source: "torchtitan/config/configs.py@4f9e9a47d (release/0.3)", doc: "Sequence length (release/0.3; main: max_context_length)." },
  { section: "training", key: "num_tokens_per_microbatch_per_dp_rank", type: "int", default: 16384, source: `${C}:37`, doc: "Tokens per microbatch per data-parallel rank (main after release/0.3)." },
  { section: "training", key: "max_context_length", type: "int", default: 2048, source: `${C}:51`, doc: "Longest sequence (main after release/0.3)." },
  { section: "parallelism", key: "data_parallel_replicate_degree", type: "int", default: 1, source: `${C}:122`, doc: "DDP / HSDP replicate degree." },
  { section: "parallelism", key: "data_parallel_shard_degree", type: "int", default: -1, source: `${C}:133`, doc: "FSDP shard degree; -1 takes the remaining GPUs." },
  { section: "parallelism", key: "fsdp_reshard_after_forward", type: "str", default: "default", choices: ["default", "always", "never"], source: `${C}:145`, doc: "When FSDP frees the gathered parameters." },
  { section: "parallelism", key: "tensor_parallel_degree", type: "int", default: 1, source: `${C}:166`, doc: "Tensor-parallel degree." },
  { section: "parallelism", key: "enable_sequence_parallel", type: "bool", default: true, source: `${C}:169`, doc: "Sequence parallelism with TP (norms run on sequence shards)." },
  { section: "parallelism", key: "pipeline_parallel_degree", type: "int", default: 1, source: `${C}:180`, doc: "Pipeline-parallel degree." },
  { section: "parallelism", key: "pipeline_parallel_schedule", type: "str", default: "1F1B", source: `${C}:216`, doc: "Pipeline schedule." },
  { section: "parallelism", key: "context_parallel_degree", type: "int", default: 1, source: `${C}:239`, doc: "Context-parallel degree." },
  { section: "parallelism", key: "expert_parallel_degree", type: "int", default: 1, source: `${C}:282`, doc: "Expert-parallel degree (MoE models)." },
  {
    section: "parallelism",
    key: "expert_tensor_parallel_degree",
    type: "int",
    default: 1,
    until: "2026-04-30",
    removedBy: "c4b409af2 (#3167, expert tensor parallel deprecated)",
    source: "torchtitan/config/configs.py@e51a77d27:236",
    doc: "Expert tensor-parallel degree (MoE); 1 or tensor_parallel_degree. Removed on 2026-04-30 (c4b409af2, #3167).",
  },
  { section: "compile", key: "enable", type: "bool", default: false, source: `${C}:295`, doc: "torch.compile the components below." },
  { section: "compile", key: "components", type: "list", default: ["model", "loss"], source: `${C}:301`, doc: "What is compiled." },
  { section: "compile", key: "backend", type: "str", default: "inductor", source: `${C}:304`, doc: "torch.compile backend." },
  {
    section: "optimizer",
    key: "implementation",
    type: "str",
    default: "fused",
    choices: ["for-loop", "foreach", "fused", "fused_opt_states_bf16"],
    since: "2026-02-23",
    addedChoices: [{ choice: "fused_opt_states_bf16", since: "2026-04-15", source: "0610235bb (#2732) torchtitan/components/optimizer.py:111" }],
    source: "torchtitan/components/optimizer/optimizer.py@b5bcd76c6:109",
    doc: "Optimizer kernel. `fused_opt_states_bf16` keeps Adam/AdamW states (exp_avg, exp_avg_sq) in bfloat16.",
  },
];

/** Trainer.Config's sections and the classes whose constructors fill them (trainer.py@b5bcd76c6:70-116). */
export const SECTION_CLASSES: Readonly<Record<string, string>> = table({
  TrainingConfig: "training",
  ParallelismConfig: "parallelism",
  CompileConfig: "compile",
  // graph_trainer's subclass (0.3.0 experiments/graph_trainer/configs.py:18): `enable` and `components` are
  // CompileConfig's own; its mode/backend/passes are graph_trainer's and not read here.
  GraphTrainerCompileConfig: "compile",
  "OptimizersContainer.Config": "optimizer",
});

/** Activation-checkpoint config classes → the mode they select (torchtitan/distributed/activation_checkpoint.py@b5bcd76c6:166-290). */
export const AC_CLASSES: Readonly<Record<string, string>> = table({
  "SelectiveAC.Config": "selective",
  "FullAC.Config": "full",
  "MemoryBudgetAC.Config": "memory_budget",
  "NoAC.Config": "none",
  "ActivationCheckpointingConfig": "none",
  // Python era before the AC classes (2026-02-23 …): the mode is a keyword, default "selective" (configs.py@9810191bb:260).
  ActivationCheckpointConfig: "(mode)",
});

/** Converter containers of the early Python era: `model_converters=ModelConvertersContainer.Config(converters=[...])`. */
export const CONVERTER_CONTAINERS: readonly string[] = ["ModelConvertersContainer.Config"];

/** Trainer.Config's default activation checkpointing: `field(default_factory=SelectiveAC.Config)` (trainer.py@b5bcd76c6:108-110). */
export const AC_DEFAULT = { mode: "selective", source: "torchtitan/trainer.py@b5bcd76c6:108" } as const;

/** Converter config classes (model_registry(..., converters=[...])) and the low-precision linear they install. */
export const CONVERTER_CLASSES: Readonly<Record<string, string>> = table({
  "Float8LinearConverter.Config": "float8 linear",
  "MXFP8LinearConverter.Config": "MXFP8 linear",
  "NVFP4LinearConverter.Config": "NVFP4 linear",
  "Float8GroupedMMConverter.Config": "float8 grouped GEMM",
  "MXFP8GroupedMMConverter.Config": "MXFP8 grouped GEMM",
});

/** Known torchtitan helpers that return a section config, with the section and the kwargs they forward. */
export const KNOWN_HELPERS: Readonly<Record<string, { section: string; note: string }>> = table({
  // default_adamw(lr, **kwargs) returns OptimizersContainer.Config(param_groups=[AdamW ...]) with the default
  // implementation (optimizer.py@b5bcd76c6:378-399); its kwargs go into optimizer_kwargs, not the container.
  default_adamw: { section: "optimizer", note: "default_adamw(): one AdamW param group, implementation default" },
});

export function pyField(section: string, key: string): PyFieldSpec | undefined {
  return PY_FIELDS.find((f) => f.section === section && f.key === key);
}

/** The choices a field accepts at a main-branch date. */
export function choicesAt(f: PyFieldSpec, date: string): readonly string[] | undefined {
  if (!f.choices) return undefined;
  return [...f.choices, ...(f.addedChoices ?? []).filter((a) => date >= a.since).map((a) => a.choice)];
}
