/**
 * alignment-handbook's argument classes (the `alignment` package, huggingface/alignment-handbook), by release: a
 * recipe script does `from alignment import DataArguments, H4ArgumentParser` and parses the YAML with
 * `H4ArgumentParser((DataArguments, ModelConfig, DPOConfig))`; when the package is installed rather than in the
 * workspace, its fields are known from here (issue #31: 26 `unknown-key` hedges on its keys in the held-back set).
 *
 * Field names read from `src/alignment/configs.py` with Python's `ast` (dataclass annotated attributes) at:
 * - v0.2.0 (c977101f): ModelArguments :107, DataArguments :186, SFTConfig(transformers.TrainingArguments) :228,
 *   DPOConfig(transformers.TrainingArguments) :245;
 * - v0.3.0 (6da26f58): ModelArguments :109, DataArguments :200, SFTConfig(trl.SFTConfig) :240,
 *   DPOConfig(trl.DPOConfig) :257;
 * - main (925acdfe, setup.py `version="0.4.0.dev0"`, no tag): ScriptArguments(trl.ScriptArguments) :57
 *   (`dataset_mixture` replaces DataArguments), SFTConfig :134, DPOConfig :143, ORPOConfig(trl.ORPOConfig) :152.
 * v0.1.0 has no configs.py. Every one of the 13 commits that touch configs.py was read too: commits between the tags
 * add `dataset_kwargs` (SFTConfig), `loss_type` (DPOConfig) and an ORPOConfig on TrainingArguments (70769f9..95dc472);
 * those are in the any-version table. setup.py says `0.4.0.dev0` both before v0.3.0 (606d2e9) and on main, so only
 * the two tags are versions a pin can name; any other pin (a commit, 0.4.0.dev0) and no pin get the union of every
 * commit: a key declared in any version read is no finding.
 * The base classes' fields (TrainingArguments, TRL's configs) are in the key tables (keys.ts), not repeated here.
 */
import { table } from "../../model/table";

export type AlignmentClasses = Readonly<Record<string, readonly string[]>>;

const MODEL_ARGS_020 = ["base_model_revision", "model_name_or_path", "model_revision", "model_code_revision", "torch_dtype", "trust_remote_code", "use_flash_attention_2", "use_peft", "lora_r", "lora_alpha", "lora_dropout", "lora_target_modules", "lora_modules_to_save", "load_in_8bit", "load_in_4bit", "bnb_4bit_quant_type", "use_bnb_nested_quant"];
const MODEL_ARGS_030 = ["base_model_revision", "model_name_or_path", "model_revision", "model_code_revision", "torch_dtype", "tokenizer_name_or_path", "trust_remote_code", "attn_implementation", "use_peft", "lora_r", "lora_alpha", "lora_dropout", "lora_target_modules", "lora_modules_to_save", "load_in_8bit", "load_in_4bit", "bnb_4bit_quant_type", "use_bnb_nested_quant", "bnb_4bit_quant_storage"];

/** The fields each class declares itself, at each tagged release. */
export const ALIGNMENT_RELEASES: Readonly<Record<string, AlignmentClasses>> = table({
  "0.2.0": table({
    ModelArguments: MODEL_ARGS_020,
    DataArguments: ["chat_template", "dataset_mixer", "dataset_splits", "max_train_samples", "max_eval_samples", "preprocessing_num_workers", "truncation_side"],
    SFTConfig: ["max_seq_length", "logging_first_step", "optim"],
    DPOConfig: ["beta", "hub_model_revision", "logging_first_step", "max_prompt_length", "max_length", "optim", "remove_unused_columns"],
  }),
  "0.3.0": table({
    ModelArguments: MODEL_ARGS_030,
    DataArguments: ["chat_template", "dataset_mixer", "text_column", "dataset_splits", "dataset_configs", "preprocessing_num_workers", "truncation_side", "auto_insert_empty_system_msg"],
    SFTConfig: ["hub_model_revision", "logging_first_step"],
    DPOConfig: ["hub_model_revision", "logging_first_step", "optim", "remove_unused_columns"],
  }),
});

/** Every field any commit of configs.py declares, per class (no version known). */
export const ALIGNMENT_ANY: AlignmentClasses = table({
  ModelArguments: [...new Set([...MODEL_ARGS_020, ...MODEL_ARGS_030])],
  DataArguments: ["auto_insert_empty_system_msg", "chat_template", "dataset_configs", "dataset_mixer", "dataset_splits", "max_eval_samples", "max_train_samples", "preprocessing_num_workers", "text_column", "truncation_side"],
  ScriptArguments: ["dataset_mixture"],
  SFTConfig: ["chat_template", "dataset_kwargs", "hub_model_revision", "logging_first_step", "max_seq_length", "optim"],
  DPOConfig: ["beta", "chat_template", "hub_model_revision", "logging_first_step", "loss_type", "max_length", "max_prompt_length", "optim", "remove_unused_columns"],
  ORPOConfig: ["beta", "chat_template", "dataset_num_proc", "disable_dropout", "generate_during_eval", "is_encoder_decoder", "label_pad_token_id", "max_completion_length", "max_length", "max_prompt_length", "model_init_kwargs", "padding_value", "truncation_mode"],
});

/** The classes of the release a pin names (a tag), or of every commit read when the pin names none. */
export function alignmentClasses(pinned: string | undefined): { classes: AlignmentClasses; release?: string } {
  const v = pinned?.replace(/^v/, "");
  const r = v !== undefined ? ALIGNMENT_RELEASES[v] : undefined;
  return r ? { classes: r, release: v } : { classes: ALIGNMENT_ANY };
}
