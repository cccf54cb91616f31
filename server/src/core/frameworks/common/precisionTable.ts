/** The precision table (parameters, compute, gradients, reduction, optimizer state) a YAML/JSON analyser resolves to, and its reduction to the shared `ResolvedPrecision`. */
import type { ResolvedDtype, ResolvedPrecision } from "../../analysis";
import { shortDtype } from "../../model/dtypeNames";
import type { DType } from "../../model/types";

/** One row of the precision table: the dtype (or a phrase such as "load dtype") and what set it. */
export interface Row {
  dtype: DType | string;
  from: string;
  /**
   * `none`: no such step (no gradient reduction on one device); `launcher`: filled in by the launcher;
   * `byLauncher`: the launcher is unknown and the candidates disagree (`byLauncher` holds each one's dtype). All
   * are null in the contract.
   */
  kind?: "none" | "launcher" | "byLauncher";
  /** The dtype under each candidate launcher (transformers/candidates.ts), when the launcher is unknown and they differ. */
  byLauncher?: Record<string, DType | null>;
}

export interface PrecisionTable {
  P: Row;
  C: Row;
  G: Row;
  R: Row;
  O: Row;
}

/**
 * The phrase of a row whose dtype is the checkpoint's own, not read (transformers 5 loads in the checkpoint's dtype:
 * `from_pretrained(dtype="auto")`, modeling_utils.py:4033-4041, 4187@5.24.0): unknown, null in the contract.
 */
export const CHECKPOINT_DTYPE = "checkpoint dtype";

export function dt(dtype: DType | string, from: string): Row {
  return { dtype, from };
}

/** The gradient-reduction row of a single-device run: there is none ("none" in text, null in JSON). */
export function noReduce(from = "one device: no gradient reduction"): Row {
  return { dtype: "none", from, kind: "none" };
}

/** A row the launcher decides (DeepSpeed `"auto"` filled by HF Trainer/accelerate). */
export function launcherRow(from: string): Row {
  return { dtype: "set by the launcher", from, kind: "launcher" };
}

/**
 * The three contract fields from a full table. `none`/`launcher` rows and the unread checkpoint dtype become null;
 * other non-dtype phrases ("load dtype", "8-bit") fall back to float32 with the phrase as knob.
 */
export function toResolved(t: PrecisionTable, setBy?: string): ResolvedPrecision {
  // A checkpoint's own dtype not read is no fact: null, never float32 (bf16 checkpoints are the usual ones).
  const conv = (r: Row): ResolvedDtype => (r.byLauncher ? { dtype: null, knob: r.from, byLauncher: { ...r.byLauncher } } : r.kind || r.dtype === CHECKPOINT_DTYPE ? { dtype: null, knob: r.from } : isDType(r.dtype) ? { dtype: r.dtype, knob: r.from } : { dtype: "float32" as DType, knob: `${r.from} (${r.dtype}; shown as float32, the usual load dtype)` });
  const out: ResolvedPrecision = { paramStorage: conv(t.P), compute: conv(t.C), gradReduce: conv(t.R) };
  if (setBy) out.setBy = setBy;
  return out;
}

export function isDType(s: string): s is DType {
  return ["float32", "bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float64"].includes(s);
}

export function short(d: DType | string): string {
  return isDType(d) ? shortDtype(d) : d;
}
