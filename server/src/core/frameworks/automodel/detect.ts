/**
 * NeMo AutoModel detection: a recipe YAML whose `model._target_` is a `nemo_automodel.` component (the
 * NeMoAutoModel* classes' `from_pretrained` / `from_config`). Other `_target_` YAMLs (Hydra, NeMo 1.x/2.x)
 * get nothing.
 */
import type { ConfigDocument } from "../../model/document";
import { View } from "../common/view";

export function detectAutomodel(doc: ConfigDocument): string | undefined {
  if (doc.format !== "yaml") return undefined;
  const t = new View(doc).str("model", "_target_");
  return t && /^nemo_automodel\./.test(t) ? `has \`model._target_: ${t}\` (a NeMo AutoModel recipe)` : undefined;
}
