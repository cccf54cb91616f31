/**
 * The engine's memory estimate for a transformers run whose model the engine knows: `model_name_or_path` names a
 * Llama-3 checkpoint whose dimensions are those of the engine's Llama-3 8B / 70B / 405B (data.ts ENGINE_MODELS),
 * trained with a mechanism the engine models (plain/DDP autocast or no mixed precision, accelerate FSDP with its
 * MixedPrecision policy). Everything else says why it is unknown and gives no figure: another model family or
 * size, LoRA adapters or quantization (only part of the model trains), DeepSpeed (ZeRO partitions are not
 * modelled), an optimizer other than AdamW (8-bit, Adafactor, GaLore, APOLLO, BAdam, …), FSDP on an unknown world
 * size (the shard degree decides the bytes).
 *
 * The batch is `per_device_train_batch_size` (TrainingArguments' default 8 when not written); the sequence length
 * is `max_length` / `max_seq_length` (TRL) or `cutoff_len` (LLaMA-Factory) when written, else the activations are
 * left out and only the persistent state (parameters, gradients, optimizer states) is given.
 */
import { formatBytes, simulate, type SimulationInput } from "../../engine";
import type { DType } from "../../model/types";
import { ENGINE_MODELS } from "./data";
import type { TransformersContext } from "./context";
import type { TransformersResolution } from "./resolve";

export type TransformersMemory =
  | { known: true; model: string; flavor: string; input: SimulationInput; persistent: number; reserved?: number; peak?: number; terms: { name: string; bytes: number }[]; batch: { value: number; written: boolean }; seqLen?: number; checkpointing: boolean }
  | { known: false; why: string };

const ENGINE_DTYPES: readonly DType[] = ["float32", "bfloat16", "float16"];

/** TrainingArguments `optim` values that are AdamW with full-precision states (transformers OptimizerNames). */
const ADAMW: ReadonlySet<string> = new Set(["adamw_torch", "adamw_torch_fused", "adamw_hf", "adamw_apex_fused", "adamw_torch_xla", "adamw_torch_npu_fused"]);

/** LLaMA-Factory switches that replace the optimizer (hparams/finetuning_args.py at v0.9.5). */
const LF_OPTIMIZER_FLAGS = ["use_galore", "use_apollo", "use_badam", "use_adam_mini", "use_muon"] as const;

/** The engine flavor for a `model_name_or_path`, matched on its last path component (case-insensitive). */
export function engineModelOf(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const last = name.split("/").pop()!.toLowerCase();
  return Object.prototype.hasOwnProperty.call(ENGINE_MODELS, last) ? ENGINE_MODELS[last] : undefined;
}

export function transformersMemory(ctx: TransformersContext, r: TransformersResolution): TransformersMemory {
  const { v, dialect } = ctx;
  const name = v.str("model_name_or_path");
  const flavor = engineModelOf(name);
  if (!name) return { known: false, why: "no `model_name_or_path` in this file" };
  if (!flavor) return { known: false, why: `\`${name}\` is not a model the engine knows (it models the Llama-3 8B, 70B and 405B dimensions)` };
  if (ctx.adapters) return { known: false, why: `${ctx.adapters} adapters: only part of the model trains, which the engine does not model` };
  if (ctx.quantized) return { known: false, why: "a quantized model, which the engine does not model" };
  if (ctx.launcher === "deepspeed") return { known: false, why: "DeepSpeed ZeRO partitions are not modelled by the engine" };
  // The engine counts AdamW's two states per parameter: another optimizer (8-bit, Adafactor, GaLore, BAdam, …) is not modelled.
  const optim = v.str("optim");
  if (optim !== undefined && !ADAMW.has(optim)) return { known: false, why: `\`optim: ${optim}\` is not modelled (the engine counts AdamW's two states per parameter)` };
  const swap = dialect === "llamafactory" ? LF_OPTIMIZER_FLAGS.find((k) => v.bool(k) === true) : undefined;
  if (swap) return { known: false, why: `\`${swap}\` replaces the optimizer, which the engine does not model (it counts AdamW's two states per parameter)` };
  // The launcher unknown: DeepSpeed ZeRO or FSDP would shard the states, so no one estimate holds for every candidate.
  if (r.byLauncher) return { known: false, why: "the launcher was not found (DeepSpeed ZeRO or FSDP would partition the states)" };
  const { P, C, R } = r.table;
  if (![P.dtype, C.dtype].every((d) => ENGINE_DTYPES.includes(d as DType))) return { known: false, why: "the load dtype is not known here (the checkpoint's or the script's)" };
  const W = ctx.worldSize?.value;
  if (ctx.launcher === "fsdp" && !W) return { known: false, why: "FSDP on an unknown world size (the shard degree decides the bytes per GPU)" };
  const storage = P.dtype as DType;
  const param = C.dtype as DType;
  const reduce = ENGINE_DTYPES.includes(R.dtype as DType) ? (R.dtype as DType) : storage;
  const bs = v.int("per_device_train_batch_size");
  const batch = bs && bs > 0 ? { value: bs, written: true } : { value: 8, written: false };
  const seqLen = dialect === "llamafactory" ? v.int("cutoff_len") : (v.int("max_length") ?? v.int("max_seq_length"));
  const checkpointing = v.bool("gradient_checkpointing") === true;
  const fsdp = ctx.launcher === "fsdp";
  const input: SimulationInput = {
    mechanism: fsdp ? "fully_shard" : r.mechanism === "autocast" ? "autocast" : "none",
    layout: { dp_replicate: fsdp ? 1 : (W ?? 1), dp_shard: fsdp ? W! : 1, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1 },
    ddp: !fsdp && (W ?? 1) > 1,
    paramDtype: param,
    reduceDtype: reduce,
    trainingDtype: storage,
    model: { name: "llama3", flavor },
    localBatchSize: batch.value,
    ...(seqLen && seqLen > 0 ? { seqLen } : {}),
    activationCheckpoint: checkpointing ? "full" : "none",
    settingNames: { storage: "the load dtype", param: "the AMP dtype" },
    gradientDivideFactorOne: false,
  };
  let sim: ReturnType<typeof simulate>;
  try {
    sim = simulate(input);
  } catch {
    return { known: false, why: "the engine could not simulate this run" };
  }
  const m = sim?.memory;
  if (!m?.perGpuBytes) return { known: false, why: "the engine could not simulate this run" };
  const persistentTerms = m.terms.filter((t) => t.kind === "persistent").map((t) => ({ name: t.name, bytes: t.bytes }));
  const out: TransformersMemory = { known: true, model: name, flavor, input, persistent: m.perGpuBytes.persistent, terms: seqLen ? m.terms.map((t) => ({ name: t.name, bytes: t.bytes })) : persistentTerms, batch, checkpointing };
  if (seqLen && seqLen > 0) {
    out.seqLen = seqLen;
    out.reserved = m.perGpuBytes.reserved;
    out.peak = m.perGpuBytes.peak;
  }
  return out;
}

/** One line for the hover and the report. */
export function memoryLine(m: TransformersMemory): string {
  if (!m.known) return `Memory estimate: unknown: ${m.why}.`;
  const terms = m.terms.map((t) => `${t.name.replace(/_/g, " ")} ${formatBytes(t.bytes)}`).join(", ");
  const head = `Memory estimate (the engine's Llama-3 ${m.flavor} from \`model_name_or_path: ${m.model}\`)`;
  const batch = `batch ${m.batch.value}${m.batch.written ? "" : " (TrainingArguments default)"}`;
  if (m.seqLen === undefined) return `${head}: ≈ ${formatBytes(m.persistent)} per GPU of parameters, gradients and optimizer states (${terms}); activations not included: no sequence length in this file.`;
  return `${head}: ≈ ${formatBytes(m.reserved!)} per GPU reserved (${formatBytes(m.peak!)} allocated) at ${batch} × ${m.seqLen} tokens, gradient checkpointing ${m.checkpointing ? "on" : "off"}: ${terms}.`;
}
