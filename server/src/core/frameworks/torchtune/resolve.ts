/**
 * torchtune resolution into the shared precision model (spec other-frameworks.md §1.3): always pure
 * `dtype`, no autocast and no FSDP mixed-precision policy; the layout from the parallel dims.
 */
import type { ParallelLayout } from "../../analysis";
import type { DType } from "../../model/types";
import { simLayout, type EngineSpec } from "../common/engineView";
import { dt, noReduce, type PrecisionTable } from "../common/precisionTable";
import { layout } from "../common/resolvedLayout";
import type { View } from "../common/view";
import type { TorchtuneContext } from "./context";
import { DTYPES } from "./data";

export interface TorchtuneResolution {
  layoutName: string;
  parallel: ParallelLayout | undefined;
  table: PrecisionTable;
  notes: string[];
  assumptions: string[];
  engineSpec: EngineSpec | undefined;
}

export function resolveTorchtune(ctx: TorchtuneContext): TorchtuneResolution {
  const { v, training, singleDevice, worldSize, repDim, shardDim, tpDim, cpDim, dtypeName, isLora, cpuOffload, modelComp, dtypeEntry } = ctx;
  const W = worldSize?.value;
  let parallel: ParallelLayout | undefined;
  let layoutName: string;
  if (!training) {
    layoutName = "generation / evaluation (no training)";
  } else if (singleDevice) {
    layoutName = "single device";
    parallel = layout({});
  } else {
    const shard = shardDim === -1 ? (W ? Math.max(1, Math.floor(W / (repDim * tpDim * cpDim))) : undefined) : shardDim;
    const parts: string[] = [];
    if (shard !== undefined && shard > 1 && repDim > 1) parts.push("HSDP");
    else if ((shard ?? 2) > 1 || cpDim > 1) parts.push("FSDP2");
    else if (repDim > 1) parts.push("replicated (no gradient sync)");
    if (tpDim > 1) parts.push("TP");
    if (cpDim > 1) parts.push("CP");
    layoutName = parts.join("+") || "single device";
    if (shard !== undefined) parallel = layout({ dp_replicate: repDim, dp_shard: shard, tp: tpDim, cp: cpDim });
  }
  const table = tuneTable(v, dtypeName, singleDevice || W === 1, isLora, cpuOffload);
  if (!training) table.R = noReduce("no training (generation, evaluation or quantization): no gradients");
  const notes: string[] = [];
  if (cpuOffload) notes.push("`fsdp_cpu_offload`: parameters, gradients and optimizer state live on the CPU (in the same dtype); the optimizer step runs on the CPU.");
  if (v.bool("enable_fp8_training")) notes.push("`enable_fp8_training`: Linear layers except `output` run float8 matmuls (torchao Float8Linear).");
  if (/qlora/.test(modelComp)) notes.push("QLoRA: the frozen base weights are stored in NF4 and dequantised to the compute dtype in forward.");
  const assumptions: string[] = [];
  if (!dtypeEntry) assumptions.push("`torchtune-missing-dtype` — no `dtype` key: recipes read `cfg.dtype` directly, so the run most likely fails at config access; shown as fp32 (what `get_dtype(None)` returns).");
  const storage = table.P.dtype as DType;
  const engineSpec: EngineSpec | undefined = !training
    ? undefined
    : singleDevice
      ? { mechanism: "none", layout: layout({}), ddp: false, param: storage, reduce: storage, storage }
      : { mechanism: "fully_shard", layout: simLayout(parallel, true, false), ddp: false, param: storage, reduce: storage, storage };
  return { layoutName, parallel, table, notes, assumptions, engineSpec };
}

function tuneTable(v: View, dtypeName: string | undefined, single: boolean, lora: boolean, cpuOffload: boolean): PrecisionTable {
  const dtype: DType = (dtypeName && DTYPES[dtypeName]) || "float32";
  const src = dtypeName ? `\`dtype: ${dtypeName}\`` : "no `dtype` (fp32 assumed)";
  const opt = v.str("optimizer", "_component_") ?? "";
  const eightBit = /8bit/i.test(opt);
  const where = cpuOffload ? " (on CPU)" : "";
  return {
    P: dt(dtype, `${src}${lora ? "; base frozen, LoRA adapters in the same dtype" : ""}${where}`),
    C: dt(dtype, `${src} (no autocast)`),
    G: dt(dtype, `${src}${where}`),
    R: single ? noReduce("single-device recipe: no gradient reduction") : dt(dtype, `${src} (fully_shard without a mixed-precision policy)`),
    O: eightBit ? dt("8-bit", `\`${opt}\` (quantized states)`) : dt(dtype, `${src}: optimizer states follow the parameters${where}`),
  };
}
