/**
 * Megatron-LM resolution into the shared precision model: the model's parameters and compute in
 * `params_dtype` (--bf16 / --fp16, else fp32), FP8 GEMMs under --fp8-format, the gradient buffer in fp32 when
 * `accumulate_allreduce_grads_in_fp32` holds (implied by --bf16), and the optimizer's fp32 main parameters and
 * Adam states (`--main-params-dtype`, `--exp-avg-dtype` under `--use-precision-aware-optimizer`). The layout
 * from the parallel sizes and the world size.
 */
import type { ParallelLayout } from "../../analysis";
import { dt, noReduce, type PrecisionTable } from "../common/precisionTable";
import { layout } from "../common/resolvedLayout";
import type { MegatronContext } from "./context";
import { table } from "../../model/table";

export interface MegatronResolution {
  layoutName: string;
  parallel: ParallelLayout | undefined;
  table: PrecisionTable;
  notes: string[];
  /** The one-line summary (CLI, status): which flags set the precision and what the optimizer keeps. */
  setBy: string;
}

const DT: Record<string, string> = table({ fp32: "float32", bf16: "bfloat16", fp16: "float16", fp8: "float8_e4m3fn" });

export function resolveMegatron(ctx: MegatronContext): MegatronResolution {
  const { flag, int, paramsDtype, fp32Grads, worldSize } = ctx;
  const tp = int("tensor-model-parallel-size", 1);
  const pp = int("pipeline-model-parallel-size", 1);
  const cp = int("context-parallel-size", 1);
  const ep = int("expert-model-parallel-size", 1);
  const W = worldSize?.value;
  let parallel: ParallelLayout | undefined;
  const parts: string[] = [];
  if (tp && pp && cp) {
    const dp = W && W % (tp * pp * cp) === 0 ? W / (tp * pp * cp) : undefined;
    if (dp !== undefined) parallel = layout({ dp_replicate: dp, tp, pp, cp, ep: ep ?? 1 });
    if (tp > 1) parts.push(`TP ${tp}`);
    if (pp > 1) parts.push(`PP ${pp}`);
    if (cp > 1) parts.push(`CP ${cp}`);
    if ((ep ?? 1) > 1) parts.push(`EP ${ep}`);
    if (dp !== undefined) parts.unshift(`DP ${dp}`);
  }
  const sharded = flag("use-distributed-optimizer") ? " + distributed optimizer" : flag("use-megatron-fsdp") ? " + Megatron-FSDP" : flag("use-torch-fsdp2") ? " + torch FSDP2" : "";
  const layoutName = `Megatron-LM ${parts.join(" × ") || "data parallel"}${sharded}`;
  const src = paramsDtype === "bfloat16" ? "`--bf16`" : paramsDtype === "float16" ? "`--fp16`" : "neither `--bf16` nor `--fp16`: params_dtype fp32";
  const fp8 = flag("fp8-format");
  const grads = fp32Grads.value ? "float32" : paramsDtype;
  const pao = !!flag("use-precision-aware-optimizer");
  const mainParams = pao ? DT[String(flag("main-params-dtype")?.value ?? "fp32")] ?? "float32" : "float32";
  const expAvg = pao ? DT[String(flag("exp-avg-dtype")?.value ?? "fp32")] ?? "float32" : "float32";
  const mainGrads = pao && flag("main-grads-dtype") ? DT[String(flag("main-grads-dtype")!.value)] ?? grads : grads;
  const table: PrecisionTable = {
    P: dt(paramsDtype, `${src}${paramsDtype !== "float32" ? `; the optimizer keeps ${mainParams === "float32" ? "fp32" : mainParams} main parameters` : ""}`),
    C: dt(fp8 ? "float8_e4m3fn" : paramsDtype, fp8 ? `\`--fp8-format ${String(fp8.value)}\`: TransformerEngine GEMMs in FP8${flag("fp8-recipe") ? ` (recipe ${String(flag("fp8-recipe")!.value)})` : ""}; other ops in ${paramsDtype}` : src),
    G: dt(mainGrads, fp32Grads.why),
    R: W === 1 ? noReduce() : dt(mainGrads, fp32Grads.why),
    O: dt(expAvg, pao ? `\`--use-precision-aware-optimizer\`: exp_avg ${String(flag("exp-avg-dtype")?.value ?? "fp32")}` : "Adam states fp32 (megatron-core's default)"),
  };
  const notes: string[] = [];
  if (paramsDtype === "bfloat16") notes.push(`\`--bf16\` implies (validate_args): params_dtype bfloat16; accumulate_allreduce_grads_in_fp32 ${fp32Grads.value ? "True" : "False"} (${fp32Grads.why}).`);
  if (ctx.unknownArgs) notes.push("The launch command passes arguments only known at run time (`$@` or an unset variable); flags there are not read.");
  const setBy = `${paramsDtype === "float32" ? "no --bf16/--fp16 (fp32 model)" : `--${paramsDtype === "bfloat16" ? "bf16" : "fp16"} (${paramsDtype === "bfloat16" ? "bf16" : "fp16"} model, ${mainParams === "float32" ? "fp32" : mainParams} main params, ${grads === "float32" ? "fp32" : grads} grads)`}${fp8 ? ` + FP8 GEMMs (--fp8-format ${String(fp8.value)})` : ""}`;
  return { layoutName, parallel, table, notes, setBy };
}
