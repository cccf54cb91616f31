/** The Lightning strategy as written (or, for LitGPT, as the launcher script picks it), and the device count. */
import type { ConfigEntry } from "../../model/document";
import type { View } from "../common/view";
import type { DType } from "../../model/types";
import { table } from "../../model/table";

export type Family = "fsdp" | "deepspeed" | "model_parallel" | "ddp" | "single" | "xla" | "auto";

export interface Strategy {
  family: Family;
  name: string;
  entry?: ConfigEntry;
  /** View of the strategy's init args (LightningCLI `init_args`, or Hydra keys next to `_target_`). */
  args?: View;
  stage?: number;
  /** Chosen by the launcher script (LitGPT), not written in the config: Lightning's own strategy checks do not apply. */
  derived?: boolean;
}

export function strategyOf(t: View): Strategy {
  const s = t.str("strategy");
  const entry = t.entry("strategy");
  const classify = (name: string): Family => {
    const n = name.toLowerCase();
    if (/fsdp|fullyshardeddataparallel/.test(n)) return "fsdp";
    if (/deepspeed/.test(n)) return "deepspeed";
    if (/modelparallel/.test(n)) return "model_parallel";
    if (/xla|tpu/.test(n)) return "xla";
    if (/ddp|dp$/.test(n)) return "ddp";
    if (/single/.test(n)) return "single";
    return "auto";
  };
  if (s !== undefined) {
    const st = /deepspeed_stage_(\d)/.exec(s);
    return { family: classify(s), name: s, ...(entry ? { entry } : {}), ...(st ? { stage: Number(st[1]) } : {}) };
  }
  const cls = t.str("strategy", "class_path") ?? t.str("strategy", "_target_");
  if (cls) {
    const args = t.has("strategy", "init_args") ? t.at("strategy", "init_args") : t.at("strategy");
    const stage = args.int("stage");
    return { family: classify(cls.split(".").pop() ?? cls), name: cls.split(".").pop() ?? cls, args, ...(stage !== undefined ? { stage } : {}) };
  }
  return { family: "auto", name: "auto" };
}

/**
 * LitGPT picks the strategy itself from the device count: more than one device (devices × num_nodes) means
 * FSDPStrategy in finetune/full.py:107-114 and pretrain.py:142-143, and ModelParallelStrategy over
 * `fully_shard` without a policy in finetune/lora.py:152-161 (Lightning-AI/litgpt at v0.5.13); one device
 * means no strategy. `devices: auto` uses every visible GPU (utils.py:556), so FSDP on a multi-GPU machine.
 */
export function litgptStrategy(t: View): Strategy {
  const e = t.entry("devices");
  const devices = devicesOf(t);
  const auto = e !== undefined && (e.value.value === "auto" || e.value.value === -1);
  const n = (devices ?? (auto ? 2 : 1)) * (t.int("num_nodes") ?? 1);
  if (n <= 1) return { family: "single", name: "LitGPT: one device, no strategy", derived: true };
  const lora = t.has("lora_r") || t.has("lora_alpha");
  const why = auto && devices === undefined ? "`devices: auto`: more than one visible GPU" : "more than one device";
  // Only extensions/thunder/pretrain.py takes a `strategy` argument (Literal["auto", "ddp", "fsdp"], default
  // "fsdp"; L84 and L139-159 at 2685705): "ddp" is (Thunder)DDP, and "auto" goes to Fabric as is, whose own
  // choice for more than one device is DDP. The finetune/pretrain scripts have no such argument.
  const written = t.str("strategy");
  const entry = t.entry("strategy");
  if (written === "ddp" || written === "auto") {
    return { family: "ddp", name: `LitGPT (thunder pretrain): \`strategy: ${written}\` → DDP, ${why}`, derived: true, ...(entry ? { entry } : {}) };
  }
  return lora ? { family: "model_parallel", name: `LitGPT LoRA: ModelParallelStrategy (FSDP2 without a policy), ${why}`, derived: true } : { family: "fsdp", name: `LitGPT: FSDPStrategy, ${why}`, derived: true };
}

export function devicesOf(t: View): number | undefined {
  const e = t.entry("devices");
  if (!e) return undefined;
  if (e.value.kind === "integer" && (e.value.value as number) > 0) return e.value.value as number;
  if (e.value.kind === "array") return e.value.items?.length;
  if (e.value.kind === "string" && /^\d+$/.test(e.value.value as string)) return Number(e.value.value);
  if (e.value.kind === "string" && /^\d+(,\d+)*,?$/.test(e.value.value as string)) return (e.value.value as string).split(",").filter(Boolean).length;
  return undefined;
}

/** An explicit FSDPStrategy `mixed_precision` (torch MixedPrecision) written in the config. */
export interface ExplicitMixedPrecision {
  param?: DType;
  reduce?: DType;
  buffer?: DType;
}

const TORCH_DTYPES: Readonly<Record<string, DType>> = table({ bfloat16: "bfloat16", bf16: "bfloat16", float16: "float16", half: "float16", fp16: "float16", float32: "float32", float: "float32", fp32: "float32" });

function torchDtype(s: string | undefined): DType | undefined {
  return s === undefined ? undefined : TORCH_DTYPES[s.replace(/^torch\./, "").toLowerCase()];
}

/**
 * `strategy.init_args.mixed_precision` (LightningCLI: `class_path: torch.distributed.fsdp.MixedPrecision`
 * with `init_args`; Hydra: `_target_` beside the fields). FSDPStrategy uses it instead of the one the
 * precision plugin derives from `precision` (lightning/pytorch/strategies/fsdp.py `mixed_precision_config`:
 * "if self.mixed_precision: return self.mixed_precision"; issue #17 §5). Undefined when not written.
 */
export function explicitMixedPrecision(st: Strategy): ExplicitMixedPrecision | undefined {
  if (st.family !== "fsdp" || !st.args || !st.args.isSection("mixed_precision")) return undefined;
  const mp = st.args.at("mixed_precision");
  const fields = mp.has("init_args") ? mp.at("init_args") : mp;
  const out: ExplicitMixedPrecision = {};
  const param = torchDtype(fields.str("param_dtype"));
  const reduce = torchDtype(fields.str("reduce_dtype"));
  const buffer = torchDtype(fields.str("buffer_dtype"));
  if (param) out.param = param;
  if (reduce) out.reduce = reduce;
  if (buffer) out.buffer = buffer;
  return out;
}
