/**
 * A DeepSpeed file named by a YAML config (accelerate, Axolotl, Lightning): loading it, and the conflict
 * between its mode and the mode the YAML requests (precision-mismatch).
 */
import type { AnalysisEnv } from "../../analysis";
import type { ConfigDocument, ConfigEntry } from "../../model/document";
import { parseJsonDocument } from "../../parse/json";
import { parseYamlDocument } from "../../parse/yaml";
import { readLinked } from "../common/linkedFiles";
import { View } from "../common/view";
import { dsFacts, type DsFacts, type DsMode } from "./facts";

export interface DsConflict {
  /** The DS entry that conflicts. */
  entry: ConfigEntry;
  what: string;
  consequence: string;
  /** The consequence as a short clause for the one-sentence message (the full one goes to the detail). */
  brief: string;
  /** The consequence is the spec's [inferred] reading (reported as Information). */
  inferred?: boolean;
}

/** The conflict between a DS config and a requested mode (from accelerate/Lightning/Axolotl), or undefined. */
export function dsConflict(f: DsFacts, requested: DsMode | undefined, by: "accelerate" | "axolotl" | "lightning" | "transformers" = "accelerate"): DsConflict | undefined {
  if (!requested) return undefined;
  if (by === "transformers") return trainerConflict(f, requested);
  const clash =
    by === "lightning"
      ? "Lightning only adds its precision block when the file has none, so DeepSpeed sees both modes and asserts \"bfloat16 and fp16 modes cannot be simultaneously enabled\"."
      : by === "axolotl"
        ? "The HF Trainer refuses DeepSpeed values that contradict its own bf16/fp16 arguments, so the launch fails."
        : "accelerate raises ValueError (\"`--mixed_precision` arg cannot be set to ... when ... is set in the DeepSpeed config file\").";
  const clashBrief =
    by === "lightning" ? "DeepSpeed rejects both modes" : by === "axolotl" ? "the launch fails" : "accelerate raises ValueError";
  const lightningInferred = by === "lightning";
  if (requested === "bf16" && f.fp16Enabled === true && f.fp16Entry) return { entry: f.fp16Entry, what: "`fp16.enabled: true`", consequence: clash, brief: clashBrief, inferred: lightningInferred };
  if (requested === "fp16" && f.bf16Enabled === true && f.bf16Entry) return { entry: f.bf16Entry, what: "`bf16.enabled: true`", consequence: clash, brief: clashBrief, inferred: lightningInferred };
  if (requested === "bf16" && f.bf16Enabled === false && f.bf16Entry) return { entry: f.bf16Entry, what: "`bf16.enabled: false`", consequence: "An explicit false is not overridden, so the run silently trains without bf16.", brief: "the run silently trains without bf16", inferred: true };
  if (requested === "fp16" && f.fp16Enabled === false && f.fp16Entry) return { entry: f.fp16Entry, what: "`fp16.enabled: false`", consequence: "An explicit false is not overridden, so the run silently trains without fp16.", brief: "the run silently trains without fp16", inferred: true };
  if (requested === "fp32" && (f.bf16Enabled === true || f.fp16Enabled === true)) {
    const e = (f.bf16Enabled === true ? f.bf16Entry : f.fp16Entry)!;
    return { entry: e, what: `\`${f.bf16Enabled === true ? "bf16" : "fp16"}.enabled: true\``, consequence: `The DeepSpeed file wins: the run trains in ${f.mode}, not fp32.`, brief: `the DeepSpeed file wins, the run trains in ${f.mode}` };
  }
  return undefined;
}

/**
 * The HF Trainer's view (transformers integrations/deepspeed.py `trainer_config_process` → `fill_match` and
 * `trainer_config_finalize`, 137-197 and 270-274@4.57.1): `bf16.enabled`/`fp16.enabled` that are not `"auto"`
 * must equal TrainingArguments `bf16`/`fp16`, else ValueError "Please correct the following DeepSpeed config
 * values that mismatch TrainingArguments values". An explicit false counts as much as a true.
 */
function trainerConflict(f: DsFacts, requested: DsMode): DsConflict | undefined {
  const consequence = "The HF Trainer fills the DeepSpeed config from TrainingArguments and raises ValueError \"Please correct the following DeepSpeed config values that mismatch TrainingArguments values\" (set them to \"auto\").";
  const brief = "the Trainer raises ValueError";
  const want = { bf16: requested === "bf16", fp16: requested === "fp16" };
  for (const k of ["bf16", "fp16"] as const) {
    const on = k === "bf16" ? f.bf16Enabled : f.fp16Enabled;
    const e = k === "bf16" ? f.bf16Entry : f.fp16Entry;
    if (e && typeof on === "boolean" && on !== want[k]) return { entry: e, what: `\`${k}.enabled: ${on}\``, consequence, brief };
  }
  return undefined;
}

/** A DeepSpeed file named by a YAML config, parsed and resolved. */
export interface LinkedDs {
  path: string;
  doc: ConfigDocument;
  view: View;
  facts: DsFacts;
  /** Not on disk: read from Axolotl's bundled table, or assumed (unknown content). */
  missing?: "bundled" | "unknown";
  /** `missing`, because the path named lies outside the workspace: not read (core/workspace/boundary.ts). */
  outside?: boolean;
}

export function loadDs(env: AnalysisEnv, rel: string): LinkedDs | undefined {
  const l = readLinked(env, rel);
  if (!l) return undefined;
  // A DeepSpeed file may be YAML too (gpt-neox style, or JSON with `#` comments in a .yaml/.conf file).
  const yaml = /\.ya?ml$/i.test(l.path) || (!/\.json$/i.test(l.path) && /^[ \t]*#/m.test(l.text));
  const doc = yaml ? parseYamlDocument(`file://${l.path}`, l.text) : parseJsonDocument(`file://${l.path}`, l.text);
  if (doc.syntaxErrors.length || doc.skipped) return undefined;
  const view = new View(doc);
  return { path: l.path, doc, view, facts: dsFacts(view) };
}
