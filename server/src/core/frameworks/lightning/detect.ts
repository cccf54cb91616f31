/**
 * Lightning detection (spec other-frameworks.md §6): where the Trainer arguments live (LightningCLI
 * `trainer:`, Hydra `_target_`, sgm/LDM `lightning: trainer:`, a Hydra trainer group file, LitGPT).
 */
import type { ConfigDocument } from "../../model/document";
import { View } from "../common/view";
import { TRAINER_KEYS, TRAINER_ROOTS } from "./data";

export interface Where {
  /** Path of the Trainer arguments. */
  root: string[];
  reason: string;
  litgpt?: boolean;
}

/**
 * A NeMo 1.x config (issue #17 §4): `trainer:` beside NeMo's `exp_manager:` (and `model:`). NeMo builds the
 * Trainer itself on pytorch-lightning 1.x, where `precision: bf16` and `16` are the normal values, and its
 * Megatron models pick their precision plugins from cfg.trainer.precision and cfg.model (megatron_amp_O2):
 * Lightning 2's rules do not apply, so the file is not claimed (nemo/collections/nlp/parts/
 * megatron_trainer_builder.py, examples/nlp/language_modeling/conf/megatron_gpt_config.yaml).
 */
export function isNemoLayout(v: View): boolean {
  return v.isSection("exp_manager") && v.isSection("trainer");
}

export function locate(doc: ConfigDocument): Where | undefined {
  const v = new View(doc);
  if (isNemoLayout(v)) return undefined;
  const lightningTarget = (s: string | undefined) => !!s && /^(lightning\.pytorch|pytorch_lightning|lightning)(\.trainer)?(\.trainer)?\.Trainer$/.test(s);
  if (lightningTarget(v.str("_target_"))) return { root: [], reason: `has \`_target_: ${v.str("_target_")}\` (Hydra Lightning trainer config)` };
  for (const root of TRAINER_ROOTS) {
    if (!v.isSection(...root)) continue;
    const t = v.at(...root);
    if (lightningTarget(t.str("_target_"))) return { root, reason: `has \`${root.join(".")}._target_: ${t.str("_target_")}\`` };
    const keys = ["precision", "strategy", "devices"].filter((k) => t.has(k));
    const kind = root[0] === "lightning" ? "sgm/LDM-style config: the trainer is nested under `lightning:`" : "LightningCLI config";
    if (keys.length) return { root, reason: `has a \`${root.join(".")}:\` mapping with ${keys.map((k) => `\`${k}\``).join(", ")} (${kind})` };
  }
  // LitGPT: top-level precision + checkpoint_dir/out_dir + train:.
  if (v.has("precision") && (v.has("checkpoint_dir") || v.has("out_dir")) && v.isSection("train")) return { root: [], reason: "has a top-level `precision` with `checkpoint_dir`/`out_dir` and `train:` (LitGPT config)", litgpt: true };
  // Hydra trainer config group file: a defaults list plus Trainer arguments at the top level.
  const defaults = v.entry("defaults");
  if (defaults?.value.kind === "array") {
    const keys = TRAINER_KEYS.filter((k) => v.has(k));
    if (keys.length >= 2 && (v.has("accelerator") || v.has("strategy") || v.has("precision"))) return { root: [], reason: `a Hydra trainer config: a \`defaults\` list with Lightning Trainer arguments (${keys.map((k) => `\`${k}\``).join(", ")})` };
  }
  return undefined;
}

export function detectLightning(doc: ConfigDocument): string | undefined {
  return locate(doc)?.reason;
}
