/**
 * NeMo AutoModel resolution into the shared precision model, per strategy (nemo_automodel 0.7.0):
 * - fsdp2: parameters, gradients and optimizer state in the model's storage dtype; forward/backward in the
 *   `mp_policy.param_dtype` (default bf16), reduction in `reduce_dtype` (default fp32). On one GPU FSDP2 is not
 *   applied (`components/distributed/fsdp2.py` `fsdp2_sharding_enabled`), so the policy is not either and
 *   everything runs in the storage dtype;
 * - megatron_fsdp: compute in the storage dtype, gradients reduced in it unless `grad_reduce_in_fp32`
 *   (assumption `megatron-fsdp-preserve-fp32`: `preserve_fp32_weights: true` keeps fp32 main weights, as its
 *   docstring says, "Preserve fp32 weights if True");
 * - ddp: compute in `autocast_dtype` when set, else the storage dtype.
 */
import { simLayout, type EngineSpec } from "../common/engineView";
import { dt, noReduce, short, type PrecisionTable } from "../common/precisionTable";
import type { Mechanism } from "../../model/layout";
import type { DType } from "../../model/types";
import { dtypeFromStr, type AutomodelContext } from "./context";

export interface AutomodelResolution {
  layoutName: string;
  mechanism: Mechanism;
  table: PrecisionTable | undefined;
  notes: string[];
  assumptions: string[];
  engineSpec: EngineSpec | undefined;
  /** FSDP2's policy dtypes (written or default). */
  policy: { param: DType; reduce: DType; paramFrom: string; reduceFrom: string };
  /** FSDP2 is not applied (one GPU): the policy does nothing. */
  policySkipped: boolean;
}

function policyDtype(ctx: AutomodelContext, key: string, dflt: DType): { dtype: DType; from: string } {
  const s = ctx.v.str("distributed", "mp_policy", key);
  const d = s ? dtypeFromStr(s) : undefined;
  if (s && d && d !== "other") return { dtype: d, from: `\`mp_policy.${key}: ${s}\`` };
  return { dtype: dflt, from: `FSDP2Config's default ${key} ${short(dflt)}` };
}

export function resolveAutomodel(ctx: AutomodelContext): AutomodelResolution {
  const { model, strategy, worldSize, v, training } = ctx;
  const W = worldSize?.value;
  const storage = model.dtype;
  const st = storage ?? "unknown";
  const notes: string[] = [];
  const assumptions: string[] = [];
  if (model.how === "checkpoint") assumptions.push("`automodel-checkpoint-dtype` — `torch_dtype: auto` loads the checkpoint's dtype; shown as bf16, what most published LLM checkpoints store (the config's `torch_dtype` decides).");
  const p = policyDtype(ctx, "param_dtype", "bfloat16");
  const r = policyDtype(ctx, "reduce_dtype", "float32");
  const policy = { param: p.dtype, reduce: r.dtype, paramFrom: p.from, reduceFrom: r.from };
  const policySkipped = strategy === "fsdp2" && W === 1;
  let table: PrecisionTable | undefined;
  let mechanism: Mechanism = "none";
  let engineSpec: EngineSpec | undefined;
  let layoutName: string;
  const opt = ctx.optimizer.split(".").pop() || "the optimizer";
  const stateRow = (from: string) => (training ? dt(st, from) : dt("none", "no optimizer (not a training recipe)"));
  if (strategy === "fsdp2") {
    layoutName = policySkipped ? "single GPU (FSDP2 not applied)" : "FSDP2";
    table = {
      P: dt(st, model.detail),
      C: policySkipped ? dt(st, `one GPU: FSDP2 and its mp_policy are not applied, so compute stays in the storage dtype`) : dt(p.dtype, p.from),
      G: dt(st, "gradients are kept in the parameters' dtype"),
      R: W === 1 ? noReduce() : dt(r.dtype, r.from),
      O: stateRow(`${opt} states follow the parameters (${model.detail})`),
    };
    if (!policySkipped) {
      mechanism = "fully_shard";
      if (storage && ["float32", "bfloat16", "float16"].includes(storage)) engineSpec = { mechanism: "fully_shard", layout: simLayout(undefined, true, false), ddp: false, param: p.dtype, reduce: r.dtype, storage, settingNames: { storage: "model.torch_dtype", param: "mp_policy.param_dtype" } };
    }
  } else if (strategy === "megatron_fsdp") {
    layoutName = "Megatron-FSDP";
    const fp32Reduce = v.bool("distributed", "grad_reduce_in_fp32") === true;
    const keep = v.bool("distributed", "preserve_fp32_weights") === true;
    table = {
      P: dt(st, `${model.detail}${keep ? "; `preserve_fp32_weights: true` keeps fp32 main weights" : ""}`),
      C: dt(st, `${model.detail} (no autocast)`),
      G: dt(fp32Reduce ? "float32" : st, fp32Reduce ? "`grad_reduce_in_fp32: true`" : "`grad_reduce_in_fp32` false (MegatronFSDPConfig's default): the parameters' dtype"),
      R: W === 1 ? noReduce() : dt(fp32Reduce ? "float32" : st, fp32Reduce ? "`grad_reduce_in_fp32: true`" : "`grad_reduce_in_fp32` false (MegatronFSDPConfig's default)"),
      O: stateRow(keep ? "`preserve_fp32_weights: true`: fp32 main weights" : `${opt} states follow the parameters (\`preserve_fp32_weights\` false)`),
    };
    if (keep) table.O = dt("float32", "`preserve_fp32_weights: true`: fp32 main weights");
    assumptions.push("`megatron-fsdp-preserve-fp32` — `preserve_fp32_weights: true` keeps fp32 main weights (its docstring: \"Preserve fp32 weights if True\"); without it the optimizer works on the stored dtype.");
  } else if (strategy === "ddp") {
    layoutName = "DDP";
    const a = v.str("distributed", "autocast_dtype");
    const ad = a ? dtypeFromStr(a) : undefined;
    const compute = ad && ad !== "other" ? ad : undefined;
    table = {
      P: dt(st, model.detail),
      C: compute ? dt(compute, `\`autocast_dtype: ${a}\`: torch.autocast`) : dt(st, `${model.detail} (no autocast_dtype)`),
      G: dt(st, "gradients are kept in the parameters' dtype"),
      R: W === 1 ? noReduce() : dt(st, "DDP all-reduces the gradients in their dtype"),
      O: stateRow(`${opt} states follow the parameters (${model.detail})`),
    };
    mechanism = compute ? "autocast" : "none";
  } else {
    layoutName = `strategy ${strategy} (not modelled)`;
    notes.push(`\`distributed.strategy: ${strategy}\` is not one parse_distributed_section knows (fsdp2, megatron_fsdp, ddp).`);
  }
  if (!training) notes.push("No `optimizer`: not a training recipe (no optimizer state).");
  return { layoutName, mechanism, table, notes, assumptions, engineSpec, policy, policySkipped };
}
