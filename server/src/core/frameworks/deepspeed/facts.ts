/** What a DeepSpeed config says about precision, read once; also read by the YAML analysers that link to a DS file. */
import type { ConfigEntry } from "../../model/document";
import type { View } from "../common/view";
import { ONE_BIT_OPTIMIZERS } from "./data";

/** The precision mode a DeepSpeed run uses, or a YAML asks it for. */
export type DsMode = "bf16" | "fp16" | "fp32";

/** What a DeepSpeed config resolves to; also used by the YAML analysers that link to a DS file. */
export interface DsFacts {
  /** The mode DeepSpeed runs in (standalone reading: `"auto"` counts as disabled). */
  mode: DsMode;
  /** True when a precision `enabled` is `"auto"` (to be filled by HF Trainer/accelerate). */
  autoPrecision: boolean;
  bf16Enabled: boolean | "auto" | undefined;
  fp16Enabled: boolean | "auto" | undefined;
  bf16Entry?: ConfigEntry;
  fp16Entry?: ConfigEntry;
  stage: number | "auto" | undefined;
  commDtype?: string;
  gradAccumDtype?: string;
  gas?: number;
  micro?: number;
  trainBatch?: number;
  ampEnabled: boolean;
  autocast?: { enabled: boolean; dtype: string };
  masterBf16: boolean;
  optStatesBf16: boolean;
  offloadOptimizer?: string;
  offloadParam?: string;
  /** `optimizer.type` when it is a 1-bit optimizer that replaces the gradient all-reduce after warm-up. */
  compressedComm?: string;
}

function enabled(v: View, block: string): boolean | "auto" | undefined {
  const e = v.entry(block, "enabled");
  if (!e) return v.has(block) ? false : undefined;
  if (e.value.kind === "boolean") return e.value.value as boolean;
  if (e.value.kind === "string" && e.value.value === "auto") return "auto";
  // A string boolean is a boolean to DeepSpeed: its precision configs are pydantic models (`enabled: bool`,
  // runtime/precision_config.py:44 and :91@v0.18.0), and pydantic 2 coerces "true"/"True"/"yes"/"on"/"1" and their
  // opposites (checked with pydantic 2.14.4). HF Trainer's fill_match compares the string with a bool, though.
  if (e.value.kind === "string") return stringBool(e.value.value as string);
  return undefined;
}

/** The boolean pydantic 2 reads from a string (case-insensitive), or undefined when it rejects it. */
export function stringBool(s: string): boolean | undefined {
  const t = s.trim().toLowerCase();
  if (["true", "t", "yes", "y", "on", "1"].includes(t)) return true;
  if (["false", "f", "no", "n", "off", "0"].includes(t)) return false;
  return undefined;
}

function numOrAuto(v: View, ...path: string[]): number | "auto" | undefined {
  if (v.str(...path) === "auto") return "auto";
  return v.int(...path);
}

export function dsFacts(v: View): DsFacts {
  const bf16Block = v.has("bf16") ? "bf16" : v.has("bfloat16") ? "bfloat16" : "bf16";
  const bf16Enabled = enabled(v, bf16Block);
  const fp16Enabled = enabled(v, "fp16");
  const stage = numOrAuto(v, "zero_optimization", "stage");
  const autocastOn = v.bool("torch_autocast", "enabled") === true;
  const f: DsFacts = {
    mode: bf16Enabled === true ? "bf16" : fp16Enabled === true ? "fp16" : "fp32",
    autoPrecision: bf16Enabled === "auto" || fp16Enabled === "auto",
    bf16Enabled,
    fp16Enabled,
    stage,
    ampEnabled: v.bool("amp", "enabled") === true,
    masterBf16: v.bool(bf16Block, "bf16_master_weights_and_grads") === true || v.bool("bf16_master_weights_and_grads") === true,
    optStatesBf16: v.bool(bf16Block, "bf16_optimizer_states") === true || v.bool("bf16_optimizer_states") === true,
  };
  const be = v.entry(bf16Block, "enabled");
  if (be) f.bf16Entry = be;
  const fe = v.entry("fp16", "enabled");
  if (fe) f.fp16Entry = fe;
  const comm = v.str("communication_data_type");
  if (comm) f.commDtype = comm;
  const acc = v.str("data_types", "grad_accum_dtype");
  if (acc) f.gradAccumDtype = acc;
  const gas = v.int("gradient_accumulation_steps");
  if (gas !== undefined) f.gas = gas;
  const micro = v.int("train_micro_batch_size_per_gpu");
  if (micro !== undefined) f.micro = micro;
  const tb = v.int("train_batch_size");
  if (tb !== undefined) f.trainBatch = tb;
  if (autocastOn) f.autocast = { enabled: true, dtype: v.str("torch_autocast", "dtype") ?? "bfloat16" };
  const oo = v.str("zero_optimization", "offload_optimizer", "device") ?? (v.bool("zero_optimization", "cpu_offload") ? "cpu" : undefined);
  if (oo && oo !== "none") f.offloadOptimizer = oo;
  const opt = v.str("optimizer", "type");
  if (opt && ONE_BIT_OPTIMIZERS.includes(opt.toLowerCase())) f.compressedComm = opt;
  const op = v.str("zero_optimization", "offload_param", "device");
  if (op && op !== "none") f.offloadParam = op;
  return f;
}
