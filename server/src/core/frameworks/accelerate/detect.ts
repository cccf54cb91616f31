/** accelerate detection (spec other-frameworks.md §6): a top-level `distributed_type`. */
import type { ConfigDocument } from "../../model/document";
import { View } from "../common/view";
import { quoteList } from "../common/wording";

export function detectAccelerate(doc: ConfigDocument): string | undefined {
  const v = new View(doc);
  if (!v.has("distributed_type")) return undefined;
  const also = ["compute_environment", "mixed_precision", "num_processes"].filter((k) => v.has(k));
  return `has a top-level \`distributed_type\`${also.length ? ` with ${quoteList(also)}` : ""} (accelerate config)`;
}
