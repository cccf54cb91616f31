/** Axolotl detection (spec other-frameworks.md §6): `base_model`, a `datasets` list and a size key. */
import type { ConfigDocument } from "../../model/document";
import { View } from "../common/view";

export function detectAxolotl(doc: ConfigDocument): string | undefined {
  const v = new View(doc);
  if (!v.has("base_model")) return undefined;
  const datasets = v.entry("datasets");
  const isList = datasets?.value.kind === "array";
  const size = ["sequence_len", "micro_batch_size"].find((k) => v.has(k));
  if (isList && size) return `has \`base_model\`, a \`datasets\` list and \`${size}\` (Axolotl config)`;
  return undefined;
}
