/**
 * The backward pass of the dtype simulation, derived from the forward result: gradient dtypes per op,
 * and per parameter the gradient as produced, accumulated, reduced and stored, and the optimizer state.
 */
import type { SimContext } from "./context";
import type { EDType } from "./dtypes";
import { byOp, paramComputeDtype } from "./forward";
import type { OpName } from "./ops";
import type { OpGrad, OpResult, ParamResult } from "./types";

export function runBackward(ctx: SimContext, forward: OpResult[]): OpGrad[] {
  return forward.map((r) => {
    const g: OpGrad = { op: r.op, gradOutput: r.dtype, gradInputs: r.inputs.filter((d) => d !== "int64"), computeDtype: r.autocastCast ?? r.weightCast ?? r.dtype };
    if (r.float8 && ctx.float8) {
      const rec = ctx.float8.recipe;
      g.computeDtype = rec.gradOutput;
      g.note = `grad_output quantised to ${rec.gradOutput}; grad-weight GEMM ${rec.gradWeightHighPrecision ? `in ${r.dtype}` : `in float8`}; results in ${r.dtype}`;
    } else if (r.autocastCast || r.weightCast) {
      const c = (r.autocastCast ?? r.weightCast)!;
      g.note = `backward GEMMs in ${c}; gradients flow back through the autocast casts (ToCopyBackward)${r.autocastCast ? ` to the ${r.inputs[0]} input` : ""}${r.weightCast ? ` and to the ${paramComputeDtype(ctx)} weight` : ""}`;
    }
    if (r.op === "loss") {
      g.gradOutput = "float32";
      g.computeDtype = "float32";
      g.note = r.inputs[0] !== "float32" ? `loss gradient is float32, cast to ${r.inputs[0]} by .float()'s backward` : "float32 throughout";
    }
    if (r.op === "tok_embeddings") g.gradInputs = [];
    return g;
  });
}

export function paramResults(ctx: SimContext, forward: OpResult[]): ParamResult[] {
  const out: ParamResult[] = [];
  const hook = ctx.input.ddp && !ctx.fsdp ? ctx.assumptions.get("ddp_comm_hook") : "none";
  for (const p of ctx.shapeArch.params) {
    const r = byOp(forward, p.op as OpName);
    const compute = r.param ?? ctx.storage;
    const produced = compute;
    let accumulated: EDType;
    let reduce: EDType | undefined;
    let stored: EDType = ctx.storage;
    if (ctx.fsdp) {
      accumulated = ctx.fsdp.lifecycle.unshardedGrad;
      if (ctx.fsdpDegree > 1 || ctx.input.layout.dp_replicate > 1) reduce = ctx.fsdp.lifecycle.reduce;
      stored = ctx.fsdp.lifecycle.shardedGrad;
    } else {
      // Autocast casts are autograd-visible: ToCopyBackward returns the gradient in the parameter's dtype.
      accumulated = ctx.storage;
      if (ctx.input.ddp) reduce = hook === "bf16_compress" ? "bfloat16" : hook === "fp16_compress" ? "float16" : accumulated;
    }
    const res: ParamResult = { fqn: p.fqn, op: p.op as OpName, storage: ctx.storage, compute, gradProduced: produced, gradAccumulated: accumulated, stored, optimizerState: ctx.input.optimizerStateDtype ?? ctx.storage };
    if (reduce) res.reduce = reduce;
    if (r.float8) res.float8 = true;
    out.push(res);
  }
  return out;
}
