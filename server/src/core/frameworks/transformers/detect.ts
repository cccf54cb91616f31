/**
 * transformers TrainingArguments files by content: LLaMA-Factory (`llamafactory-cli train x.yaml`), TRL
 * (`trl sft --config x.yaml`, alignment-handbook and open-r1 recipes) and plain TrainingArguments YAML/JSON
 * argument files (`HfArgumentParser.parse_yaml_file` / `parse_json_file`). Registered last, so the files the
 * other frameworks claim stay theirs; decoys (a model's config.json, generation_config.json, tokenizer
 * configs, dataset cards) carry none of the training keys below and stay silent.
 */
import type { ConfigDocument } from "../../model/document";
import { View } from "../common/view";
import { LLAMAFACTORY_STAGES, TRAINER_MARKERS, TRL_MARKERS } from "./data";
import { TRAINING_ARGS, TRL_ARGS } from "./keys";

export type Dialect = "llamafactory" | "trl" | "trainer";

/** The dialect and the reason, or undefined. */
export function detectDialect(doc: ConfigDocument): { dialect: Dialect; reason: string } | undefined {
  const v = new View(doc);
  const top = v.childKeys();
  // What another framework owns (they are detected first; this keeps a partial file of theirs out too).
  if (["base_model", "distributed_type", "zero_optimization", "train_micro_batch_size_per_gpu", "trainer", "_component_"].some((k) => v.has(k))) return undefined;
  if (doc.entries.some((e) => e.path[e.path.length - 1] === "_component_")) return undefined;
  const markers = top.filter((k) => TRAINER_MARKERS.has(k));
  const stage = v.str("stage");
  const lfStage = stage !== undefined && LLAMAFACTORY_STAGES.includes(stage);
  const ft = v.str("finetuning_type");
  if ((lfStage || ft !== undefined) && (v.has("template") || v.has("dataset") || v.has("model_name_or_path")) && (lfStage || ["lora", "full", "freeze", "oft"].includes(ft ?? ""))) {
    const which = [lfStage ? `\`stage: ${stage}\`` : undefined, ft ? `\`finetuning_type: ${ft}\`` : undefined].filter(Boolean).join(" and ");
    return { dialect: "llamafactory", reason: `has ${which} with training arguments (LLaMA-Factory \`llamafactory-cli train\` config)` };
  }
  if (markers.length < 3) return undefined;
  // Another tool's config that shares a few names (`output_dir`, `learning_rate`, `max_steps`) is not an argument
  // file: at least half of the top-level keys must be TrainingArguments or TRL fields (issue #31: an fp8 training
  // config with `lora:` and `lora_rank:` was read as TrainingArguments).
  const known = top.filter((k) => k in TRAINING_ARGS || k in TRL_ARGS || k === "accelerate_config").length;
  if (known * 2 < top.length) return undefined;
  const trl = top.filter((k) => TRL_MARKERS.has(k));
  const list = (xs: string[]) => xs.slice(0, 3).map((x) => `\`${x}\``).join(", ");
  if (trl.length) return { dialect: "trl", reason: `has TrainingArguments keys (${list(markers)}) and TRL keys (${list(trl)}) (TRL \`--config\` file)` };
  return { dialect: "trainer", reason: `has TrainingArguments keys (${list(markers)}) (an HfArgumentParser argument file)` };
}

export function detectTransformers(doc: ConfigDocument): string | undefined {
  return detectDialect(doc)?.reason;
}
