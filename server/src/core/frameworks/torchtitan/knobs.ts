/**
 * The precision knobs of a torchtitan config as read from the document, with their declared choices and
 * defaults (spec torchtitan.md §2.1). One table; rules, hovers, the engine input and completion use it.
 */
import { isTorchDtypeKey } from "../../model/dtypeNames";
import { findEntry, type ConfigDocument } from "../../model/document";
import type { DType } from "../../model/types";
import type { KnobValue, PrecisionKnobs } from "./context";

export interface KnobSpec {
  section: string;
  key: string;
  /** Choices declared in torchtitan's schema (Literal); TOML values are not checked against them. */
  choices: readonly DType[];
  default: DType;
  /** First main-branch date the key exists (training.dtype: #1646). */
  since?: string;
  /** A choice declared from a main-branch date on (mixed_precision_reduce = "bfloat16": #4597, 2026-09-11). */
  addedChoice?: { choice: DType; since: string };
}

export const KNOB_SPECS = {
  param: { section: "training", key: "mixed_precision_param", choices: ["bfloat16", "float32"], default: "bfloat16" },
  reduce: { section: "training", key: "mixed_precision_reduce", choices: ["float32"], default: "float32", addedChoice: { choice: "bfloat16", since: "2026-09-11" } },
  trainingDtype: { section: "training", key: "dtype", choices: ["bfloat16", "float32"], default: "float32", since: "2025-09-16" },
} as const satisfies Record<keyof PrecisionKnobs, KnobSpec>;

/** The choices a knob declares at a main-branch date. */
export function knobChoices(spec: KnobSpec, date: string): readonly DType[] {
  return spec.addedChoice && date >= spec.addedChoice.since ? [...spec.choices, spec.addedChoice.choice] : spec.choices;
}

/** Keys whose string values the precision rules check (the schema's type rule skips them). */
export const PRECISION_KNOB_KEYS: readonly string[] = Object.values(KNOB_SPECS).map((k) => `${k.section}.${k.key}`);

export function readKnobs(doc: ConfigDocument, versionDate: string): PrecisionKnobs {
  const read = (spec: KnobSpec): KnobValue => {
    const key = `${spec.section}.${spec.key}`;
    const entry = findEntry(doc, spec.section, spec.key);
    // A key that does not exist in the targeted version is ignored by torchtitan (or rejected by the
    // schema rules); either way it does not change the precision.
    if (!entry || (spec.since && versionDate < spec.since)) return { key, dtype: spec.default, isDefault: true, ...(entry ? { entry } : {}) };
    const v = entry.value.kind === "string" ? (entry.value.value as string) : undefined;
    return { key, entry, isDefault: false, ...(v !== undefined && isTorchDtypeKey(v) ? { dtype: v } : {}) };
  };
  return { param: read(KNOB_SPECS.param), reduce: read(KNOB_SPECS.reduce), trainingDtype: read(KNOB_SPECS.trainingDtype) };
}
