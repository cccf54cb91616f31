/** DeepSpeed detection (spec other-frameworks.md §6), by content whatever the extension. */
import type { ConfigDocument } from "../../model/document";
import { View } from "../common/view";

/**
 * Detection is by content, whatever the extension: DeepSpeed JSON saved as `.yaml`/`.conf`, and gpt-neox
 * style YAML (DeepSpeed's keys next to NeoX's own) are DeepSpeed configs too. A precision block alone is
 * not enough (Axolotl/HF files have a top-level `bf16`): it must be a mapping next to a batch key.
 */
export function detectDeepSpeed(doc: ConfigDocument): string | undefined {
  const v = new View(doc);
  const where = doc.format === "json" ? "" : isNeox(v) ? ", gpt-neox style" : ` in ${doc.format.toUpperCase()}`;
  if (v.has("zero_optimization")) return `has a top-level \`zero_optimization\` block (DeepSpeed config${where})`;
  const precision = ["fp16", "bf16", "bfloat16"].find((k) => v.isSection(k) || v.has(k, "enabled"));
  const batch = ["train_batch_size", "train_micro_batch_size_per_gpu"].find((k) => v.has(k));
  if (precision && batch) return `has \`${precision}\` and \`${batch}\` at the top level (DeepSpeed config${where})`;
  return undefined;
}

/** gpt-neox configs carry DeepSpeed's keys next to NeoX's own parallelism keys. */
export function isNeox(v: View): boolean {
  return v.has("pipe_parallel_size") || v.has("model_parallel_size");
}
