/**
 * The transformers framework's tables: detection markers, the versioned key table (keys.ts, generated from
 * the argument dataclasses at sampled releases), the version-dependent defaults and the sources they were
 * read from.
 */
import { table } from "../../model/table";
import { versionAtLeast } from "../../workspace/packagePin";
import type { KeyCompletion } from "../../analysis";
import { LLAMAFACTORY_ARGS, SEQ2SEQ_ARGS, TA_RELEASES, taAbsentSince, taKeyAtIndex, taReleaseIndex, taSpans, TRAINING_ARGS, TRL_ARGS, TRL_SAMPLED } from "./keys";

export { TRL_SAMPLED };
export { LLAMAFACTORY_ARGS, SEQ2SEQ_ARGS, TA_RELEASES, taAbsentSince, taKeyAtIndex, taReleaseIndex, taSpans, TRAINING_ARGS, TRL_ARGS };

/** TrainingArguments keys that mark a training-argument file (none of them is in a model/generation/tokenizer config or a dataset card). */
export const TRAINER_MARKERS: ReadonlySet<string> = new Set([
  "output_dir", "per_device_train_batch_size", "per_device_eval_batch_size", "gradient_accumulation_steps", "learning_rate",
  "num_train_epochs", "max_steps", "lr_scheduler_type", "warmup_ratio", "warmup_steps", "logging_steps", "logging_strategy",
  "save_steps", "save_strategy", "save_total_limit", "eval_strategy", "evaluation_strategy", "eval_steps", "gradient_checkpointing",
  "optim", "weight_decay", "report_to", "push_to_hub", "hub_model_id", "do_train", "overwrite_output_dir", "ddp_timeout",
  "max_grad_norm", "dataloader_num_workers", "per_device_train_batch_size", "bf16", "fp16", "tf32", "fsdp", "fsdp_config", "deepspeed",
]);

/** Keys only TRL's configs and script arguments have (trl/trainer/*_config.py, trl/scripts/utils.py, model_config.py). */
export const TRL_MARKERS: ReadonlySet<string> = new Set([
  "dataset_name", "dataset_mixture", "max_seq_length", "max_length", "max_prompt_length", "max_completion_length", "packing",
  "use_vllm", "num_generations", "beta", "loss_type", "use_peft", "lora_r", "lora_alpha", "chat_template", "dataset_text_field",
  "model_init_kwargs", "dataset_num_proc", "reward_funcs", "completion_only_loss", "assistant_only_loss", "torch_dtype", "dtype",
  "attn_implementation", "model_revision", "dataset_config", "dataset_train_split", "dataset_test_split", "vllm_mode",
]);

/** LLaMA-Factory's `stage` values (hparams/finetuning_args.py `stage` at v0.9.5). */
export const LLAMAFACTORY_STAGES: readonly string[] = ["pt", "sft", "rm", "ppo", "dpo", "kto"];

/** The newest releases read for this framework (assumed when nothing is pinned). */
export const NEWEST = { transformers: "5.24.0", trl: "1.9.0", llamafactory: "0.9.5", accelerate: "1.14.0" } as const;

/**
 * TRL's `bf16` defaults to `not fp16` from v0.19.0 (trl/trainer/sft_config.py:252@v0.19.0, and every other
 * config; trl/trainer/base_config.py:105@v1.9.0); before it was TrainingArguments' False (transformers#39849).
 */
export const TRL_BF16_DEFAULT_SINCE = "0.19.0";
export const trlBf16DefaultTrue = (trl: string): boolean => versionAtLeast(trl, TRL_BF16_DEFAULT_SINCE);

/**
 * What TrainingArguments does with `bf16: true` on a CUDA GPU below compute capability 8.0 (Volta, Turing), read in
 * the wheels of each release:
 * - before 4.21.0 the check is `is_torch_bf16_available()`, CPU *or* GPU (training_args.py:1038-1042@4.20.0,
 *   utils/import_utils.py:325-326@4.20.0): with torch ≥ 1.10 the CPU side passes, so nothing is raised there;
 * - from 4.21.0 to 4.34.x `is_torch_bf16_gpu_available()` returns False when the device's major capability is < 8
 *   (import_utils.py:296-297@4.21.0, :313-314@4.34.0) and __post_init__ raises ValueError "Your setup doesn't
 *   support bf16/gpu" (training_args.py:1054-1058@4.21.0, :1374-1378@4.34.0), whatever the torch version;
 * - from 4.35.0 the check is `torch.cuda.is_bf16_supported()` (import_utils.py:308@4.35.0, :665@5.24.0), which
 *   at torch 2.13.0 returns True on such a GPU when a bf16 tensor can be created (`including_emulation=True`,
 *   torch/cuda/__init__.py:191-211@2.13.0): no error, and autocast's own check (torch/amp/autocast_mode.py:290-296
 *   @2.13.0) passes the same way, so bf16 runs without bf16 tensor cores. Torch releases whose check reads the
 *   capability only raise there (named assumption `torch-bf16-emulation`: which torch releases emulate is not read).
 */
export const TA_BF16_GPU_CHECK_SINCE = "4.21.0";
export const TA_BF16_TORCH_CHECK_SINCE = "4.35.0";

/**
 * TrlParser (`parse_args_and_config`, the `--config` YAML of TRL's CLI and example scripts) raises ValueError
 * "Unknown arguments from config file" for a YAML key no dataclass declares from v0.19.0
 * (trl/scripts/utils.py:187, 226-230@v0.19.0); before it, `set_defaults_with_config` returns the unused keys and
 * `parse_args_and_config` drops them without a word (trl/scripts/utils.py:195-221@v0.16.0; the same at v0.13.0,
 * v0.14.0, v0.15.0, v0.17.0 and v0.18.2, read in the wheels).
 */
export const TRL_UNKNOWN_KEY_RAISES_SINCE = "0.19.0";

/**
 * TRL's ModelConfig `dtype` defaults to "float32" from v1.0.0 (trl/trainer/model_config.py:91@v1.0.0); before it
 * was None (`torch_dtype`, model_config.py:90@v0.19.0), which leaves from_pretrained's default: fp32 in
 * transformers 4, the checkpoint's dtype in transformers 5 (sft_trainer.py:819-821@v1.9.0).
 */
export const TRL_DTYPE_FP32_SINCE = "1.0.0";

/** ModelConfig's `dtype` field exists from v0.25.0 (trl/trainer/model_config.py, keys.ts TRL_ARGS `dtype`), next to `torch_dtype` until v1.0.0. */
export const TRL_DTYPE_FIELD_SINCE = "0.25.0";

/**
 * SFTTrainer casts a quantized model's trainable (PEFT adapter) parameters to bf16 from TRL v1.0.0
 * (trl/trainer/sft_trainer.py:1127-1130@v1.9.0; absent at v0.25.0).
 */
export const TRL_QLORA_BF16_SINCE = "1.0.0";

/**
 * accelerate's FSDP2 upcast of low-precision trainable parameters to fp32 only rebinds a local variable in
 * v1.13.0 (src/accelerate/utils/fsdp_utils.py:740@v1.13.0), so nothing is upcast (accelerate#3979); v1.14.0
 * assigns `param.data` (fsdp_utils.py:714@v1.14.0, accelerate#3985). v1.12.0 upcasts the whole model
 * (fsdp_utils.py:712@v1.12.0).
 */
export function fsdp2UpcastNoOp(accelerate: string): boolean {
  return versionAtLeast(accelerate, "1.13.0") && !versionAtLeast(accelerate, "1.14.0");
}

/**
 * The FSDP version when `fsdp_config.version` is not set: 1 up to transformers 5.9.0
 * (training_args.py:2812@5.9.0 `fsdp_config.get("version", 1)`), 2 from 5.10.1, the next release
 * (training_args.py:2736@5.10.1 `get("version", 2)`; there is no 5.10.0 on PyPI).
 */
export const FSDP2_DEFAULT_SINCE = "5.10.1";
export function defaultFsdpVersion(transformers: string): 1 | 2 {
  return versionAtLeast(transformers, FSDP2_DEFAULT_SINCE) ? 2 : 1;
}

/**
 * `fsdp` strategies FSDP2 cannot run: from transformers 5.10.1, with FSDP version 2 only `full_shard` and
 * `shard_grad_op` map to `reshard_after_forward`; any other sharding strategy raises ValueError "`fsdp=…` is only
 * available with FSDP1" (training_args.py:2826-2839@5.10.1). Before 5.10.1 the strategy was passed to accelerate.
 */
export const FSDP1_ONLY_STRATEGIES: readonly string[] = ["no_shard", "hybrid_shard", "hybrid_shard_zero2"];

/** The TrainingArguments defaults the DeepSpeed `fill_match` compares (training_args.py@4.57.1 field defaults). */
export const TA_DEFAULTS = { per_device_train_batch_size: 8, gradient_accumulation_steps: 1, max_grad_norm: 1.0 } as const;

/** Keys a TRL `--config` file may hold for `accelerate launch` (via the TRL CLI): TRL's own `accelerate_config` and the launch flags most used. */
export const ACCELERATE_LAUNCH_KEYS: readonly string[] = ["accelerate_config", "config_file", "num_processes", "num_machines", "machine_rank", "main_process_ip", "main_process_port", "mixed_precision", "multi_gpu", "use_deepspeed", "use_fsdp", "zero_stage", "deepspeed_config_file", "gpu_ids", "dynamo_backend"];

/** Every key the dialect's parser knows (union over the sampled releases). */
export function knownKeys(dialect: "llamafactory" | "trl" | "trainer"): Set<string> {
  const s = new Set<string>(Object.keys(TRAINING_ARGS));
  if (dialect === "trl") for (const k of Object.keys(TRL_ARGS)) s.add(k);
  if (dialect === "llamafactory") {
    for (const k of Object.keys(LLAMAFACTORY_ARGS)) s.add(k);
    for (const k of SEQ2SEQ_ARGS) s.add(k);
  }
  // TRL's loader reads `env` itself (trl/scripts/utils.py:330-334@v1.9.0); the TRL CLI passes `accelerate_config`
  // and any other key its dataclasses lack on to `accelerate launch` (trl/cli/commands/training.py:61-64@v1.9.0).
  if (dialect === "trl") for (const k of ["env", ...ACCELERATE_LAUNCH_KEYS]) s.add(k);
  return s;
}

/** The sampled TRL tag whose table applies to a version (the newest sampled one not after it; tags carry a "v"). */
export function trlSampledFor(version: string): string {
  let best: string = TRL_SAMPLED[0];
  for (const s of TRL_SAMPLED) if (versionAtLeast(version, s.slice(1))) best = s;
  return best;
}

/**
 * The top-level keys the dialect's parser accepts at the given versions, from the key table (keys.ts, the one
 * source unknown-key reads too): TrainingArguments at the sampled transformers release at or below `transformers`; TRL's
 * config and script-argument fields at the sampled TRL tag at or below `trl`; LLaMA-Factory's hparams fields and
 * Seq2SeqTrainingArguments' additions. Sorted by key.
 */
export function completionKeys(dialect: "llamafactory" | "trl" | "trainer", v: { transformers: string; trl: string; llamafactory: string; pinned: { transformers: boolean; trl: boolean; llamafactory: boolean } }): KeyCompletion[] {
  const at = taReleaseIndex(v.transformers);
  const assumed = (pinned: boolean) => (pinned ? "" : ", assumed: no pin found");
  const out = new Map<string, KeyCompletion>();
  for (const [k, [first, last]] of Object.entries(TRAINING_ARGS)) {
    // Below the oldest release read, every key read is offered.
    if (at !== undefined && !taKeyAtIndex(k, at)) continue;
    out.set(k, { key: k, detail: `TrainingArguments · transformers ${first}–${last}`, documentation: `\`${k}\`: a \`TrainingArguments\` field (src/transformers/training_args.py) in the releases ${taSpans(k)}; listed for transformers ${v.transformers} (table of ${at === undefined ? "every release read" : TA_RELEASES[at]}${assumed(v.pinned.transformers)}).` });
  }
  if (dialect === "trl") {
    const tag = trlSampledFor(v.trl);
    for (const [k, r] of Object.entries(TRL_ARGS)) {
      if (!(versionAtLeast(tag.slice(1), r.first.slice(1)) && versionAtLeast(r.last.slice(1), tag.slice(1)))) continue;
      const classes = r.classes.length > 3 ? `${r.classes.slice(0, 3).join(", ")} and ${r.classes.length - 3} more` : r.classes.join(", ");
      out.set(k, { key: k, detail: `TRL ${classes} · ${r.first}–${r.last}`, documentation: `\`${k}\`: declared by TRL's ${r.classes.map((c) => `\`${c}\``).join(", ")} (trl/trainer/*_config.py, trl/scripts/utils.py) in the sampled tags ${r.first} to ${r.last}; listed for TRL ${v.trl} (table of ${tag}${assumed(v.pinned.trl)}).` });
    }
    if (!out.has("env")) out.set("env", { key: "env", detail: "TRL config loader", documentation: "`env`: environment variables TRL's config loader sets before parsing (trl/scripts/utils.py:330-334@v1.9.0)." });
  }
  if (dialect === "llamafactory") {
    for (const [k, cls] of Object.entries(LLAMAFACTORY_ARGS)) out.set(k, { key: k, detail: `LLaMA-Factory ${cls}`, documentation: `\`${k}\`: a field of LLaMA-Factory's \`${cls}\` (src/llamafactory/hparams/, v0.9.3 and v0.9.5 read); listed for LLaMA-Factory ${v.llamafactory}${assumed(v.pinned.llamafactory)}.` });
    for (const k of SEQ2SEQ_ARGS) out.set(k, { key: k, detail: "Seq2SeqTrainingArguments", documentation: `\`${k}\`: added by \`Seq2SeqTrainingArguments\` (training_args_seq2seq.py), which LLaMA-Factory's TrainingArguments extends.` });
  }
  return [...out.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Checkpoints whose architecture is one the engine models (engine/models.ts LLAMA3_FLAVORS: torchtitan's Llama-3
 * 8B, 70B, 405B): the last component of `model_name_or_path`, lower-cased → the engine flavor. The Hub configs
 * of these checkpoints have the same dimensions (hidden_size 4096 / 8192 / 16384, 32 / 80 / 126 layers, 8 KV
 * heads, intermediate_size 14336 / 28672 / 53248, vocab_size 128256, untied embeddings): Llama 3.1 and 3.3
 * change the RoPE scaling and the context length, not the parameter shapes. Other families (Qwen, Mistral,
 * Gemma, Llama 3.2 1B/3B, …) are unknown to the engine and get no figure.
 */
export const ENGINE_MODELS: Readonly<Record<string, string>> = table({
  "meta-llama-3-8b": "8B",
  "meta-llama-3-8b-instruct": "8B",
  "llama-3.1-8b": "8B",
  "llama-3.1-8b-instruct": "8B",
  "meta-llama-3.1-8b": "8B",
  "meta-llama-3.1-8b-instruct": "8B",
  "meta-llama-3-70b": "70B",
  "meta-llama-3-70b-instruct": "70B",
  "llama-3.1-70b": "70B",
  "llama-3.1-70b-instruct": "70B",
  "meta-llama-3.1-70b": "70B",
  "meta-llama-3.1-70b-instruct": "70B",
  "llama-3.3-70b-instruct": "70B",
  "llama-3.1-405b": "405B",
  "llama-3.1-405b-instruct": "405B",
  "meta-llama-3.1-405b": "405B",
  "meta-llama-3.1-405b-instruct": "405B",
});

/** FlashAttention implementations that need fp16/bf16 inputs. */
export const FLASH_ATTN = ["flash_attention_2", "flash_attention_3", "fa2", "fa3"];
