/** torchtune detection (spec other-frameworks.md §6): a `torchtune.` component, or the recipe config shape. */
import type { ConfigDocument } from "../../model/document";
import { View } from "../common/view";

export function detectTorchtune(doc: ConfigDocument): string | undefined {
  const comp = doc.entries.find((e) => e.path[e.path.length - 1] === "_component_" && e.value.kind === "string" && (e.value.value as string).startsWith("torchtune.") && !e.path[0]!.startsWith("(document"));
  if (comp) return `has \`${comp.path.join(".")}: ${comp.value.value as string}\` (a torchtune component)`;
  const v = new View(doc);
  const dtype = v.str("dtype");
  if (dtype && ["bf16", "fp32"].includes(dtype) && v.isSection("checkpointer") && v.isSection("tokenizer")) return "has a top-level `dtype` with `checkpointer` and `tokenizer` mappings (torchtune recipe config)";
  return undefined;
}
