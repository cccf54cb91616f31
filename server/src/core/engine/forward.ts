/**
 * The forward pass of the dtype simulation: each op of the graph (ops.ts) through autocast, FSDP2's
 * module-boundary casts, ordinary promotion and float8 linears, step by step.
 */
import { autocastOutcome } from "./autocast";
import type { SimContext } from "./context";
import { isFloating, type EDType } from "./dtypes";
import { castForwardInputs } from "./fsdp";
import type { ParamGroup } from "./models";
import type { AtenStep, InputRef, OpDef, OpName } from "./ops";
import { promoteTypes } from "./promote";
import type { OpResult, StepResult } from "./types";

function paramGroup(ctx: SimContext, op: OpName): ParamGroup | undefined {
  return ctx.shapeArch.params.find((p) => p.op === op);
}

/** The parameter as an op computes with it, before any autocast cast. */
export function paramComputeDtype(ctx: SimContext): EDType {
  return ctx.fsdp ? ctx.fsdp.lifecycle.compute : ctx.storage;
}

export function runForward(ctx: SimContext): OpResult[] {
  const values = new Map<InputRef, EDType>([["tokens", "int64"]]);
  const results = new Map<OpName, OpResult>();
  const firstBlock = new Map<OpName, EDType>();
  const blockOps = ctx.graph.filter((o) => o.scope === "block");
  const runOp = (op: OpDef): void => {
    const r = evalOp(ctx, op, values);
    values.set(op.name, r.dtype);
    results.set(op.name, r);
  };
  runOp(ctx.graph.find((o) => o.name === "tok_embeddings")!);
  // Two blocks: the first sees the embedding output, the second the previous block's output; the second
  // is the steady state every later block repeats.
  for (let layer = 0; layer < 2; layer++) {
    values.set("block_input", layer === 0 ? values.get("tok_embeddings")! : values.get("ffn_residual")!);
    for (const op of blockOps) runOp(op);
    if (layer === 0) for (const op of blockOps) firstBlock.set(op.name, results.get(op.name)!.dtype);
  }
  const diff = blockOps.filter((o) => firstBlock.get(o.name) !== results.get(o.name)!.dtype);
  if (diff.length) ctx.notes.push(`The first block differs from later blocks: ${diff.map((o) => `${o.name} ${firstBlock.get(o.name)}`).join(", ")} (table shows later blocks).`);
  for (const op of ctx.graph.filter((o) => o.scope === "model" && o.name !== "tok_embeddings")) runOp(op);
  return ctx.graph.map((o) => results.get(o.name)!);
}

function evalOp(ctx: SimContext, op: OpDef, values: Map<InputRef, EDType>): OpResult {
  let inputs = op.inputs.map((ref) => values.get(ref)!);
  let boundary = "";
  if (ctx.fsdp && op.unitEntry) {
    const cast = castForwardInputs(inputs, { paramDtype: ctx.fsdp.policyParamDtype, castForwardInputs: ctx.fsdp.castForwardInputs });
    if (cast.some((d, i) => d !== inputs[i])) boundary = `FSDP pre-forward cast its floating inputs to ${ctx.fsdp.policyParamDtype}; `;
    inputs = cast;
    op.inputs.forEach((ref, i) => {
      if (ref === "block_input") values.set(ref, inputs[i]!);
    });
  }
  const pg = op.param ? paramGroup(ctx, op.name) : undefined;
  const param = pg ? paramComputeDtype(ctx) : undefined;
  if (op.kind === "linear" && ctx.float8?.converted.has(op.name)) return evalFloat8Linear(ctx, op, inputs, param!, boundary);
  const steps: StepResult[] = [];
  let cur: EDType[] = inputs;
  let autocastCast: EDType | undefined;
  let weightCast: EDType | undefined;
  let paramSeen = param;
  for (const step of op.steps) {
    const operands = [...cur, ...(step.usesParam && param ? [param] : []), ...(step.buffer ? [step.buffer] : [])];
    const s = evalStep(ctx, step, operands, inputs);
    steps.push({ aten: step.aten, dtype: s.dtype, reason: s.reason });
    if (s.castTo) {
      // Autocast casts each floating operand not already in the target dtype; record which ones.
      if (cur.some((d) => isFloating(d) && d !== s.castTo)) autocastCast = s.castTo;
      if (step.usesParam && param && param !== s.castTo) {
        paramSeen = s.castTo;
        weightCast = s.castTo;
      }
    }
    cur = [s.dtype];
  }
  const dtype = cur[0]!;
  const internal = steps.map((s) => s.dtype).find((d) => d !== dtype && isFloating(d) && (steps.length > 1));
  const decisive = steps.length === 1 ? steps[0]!.reason : summarizeSteps(steps);
  const r: OpResult = { op: op.name, kind: op.kind, dtype, inputs, rule: boundary + decisive, steps };
  if (paramSeen) r.param = paramSeen;
  if (autocastCast) r.autocastCast = autocastCast;
  if (weightCast) r.weightCast = weightCast;
  if (internal && op.kind === "rope") r.computeDtype = internal;
  if (op.kind === "attention") annotateAttention(ctx, r);
  if (op.kind === "norm" && dtype !== "float32") r.rule += " (internal accumulation in float32; rstd float32)";
  return r;
}

function summarizeSteps(steps: StepResult[]): string {
  return steps.map((s) => `${s.aten} → ${s.dtype}`).join("; ") + `. ${steps[steps.length - 1]!.reason}`;
}

function annotateAttention(ctx: SimContext, r: OpResult): void {
  const backend = ctx.arch?.dims.attention ?? "sdpa";
  if (backend === "sdpa" && r.dtype === "float32") {
    const b = ctx.assumptions.get("fp32_sdpa_backend");
    r.rule += b === "math" ? " — float32 SDPA runs the Math backend (cuDNN/Flash need 16-bit inputs)" : " — float32 SDPA runs the memory-efficient backend";
  }
  if (backend === "flex") ctx.assumptions.get("flex_attention_autocast", !!ctx.autocast?.active);
}

interface StepOutcome {
  dtype: EDType;
  reason: string;
  castTo?: EDType;
}

function evalStep(ctx: SimContext, step: AtenStep, operands: EDType[], opInputs: EDType[]): StepOutcome {
  const ac = ctx.autocast;
  if (ac?.active) {
    if (step.higherOrder && ctx.assumptions.get("flex_attention_autocast") === "cast") {
      return { dtype: ac.dtype, reason: `${step.aten} autocast impl casts q/k/v to ${ac.dtype}`, castTo: ac.dtype };
    }
    if (!step.higherOrder) {
      const o = autocastOutcome({ op: step.aten, inputs: operands, ...(step.rule === "explicit" && step.dtype ? { explicitDtype: step.dtype } : {}) }, ac);
      if (o.kind === "error") {
        ctx.errors.push(o.reason);
        return { dtype: operands[0]!, reason: o.reason };
      }
      if (o.kind === "policy") {
        const out: StepOutcome = { dtype: o.dtype, reason: o.reason };
        if (o.castInputsTo && operands.some((d) => isFloating(d) && d !== o.castInputsTo)) out.castTo = o.castInputsTo;
        return out;
      }
      const native = nativeStep(ctx, step, operands, opInputs);
      return { dtype: native.dtype, reason: `${o.reason}; ${native.reason}` };
    }
    const native = nativeStep(ctx, step, operands, opInputs);
    return { dtype: native.dtype, reason: `${step.aten} is a higher-order op and falls through autocast; ${native.reason}` };
  }
  return nativeStep(ctx, step, operands, opInputs);
}

function nativeStep(ctx: SimContext, step: AtenStep, operands: EDType[], opInputs: EDType[]): StepOutcome {
  switch (step.rule) {
    case "explicit":
      return { dtype: step.dtype!, reason: `explicit ${step.dtype}` };
    case "weight": {
      const w = operands[operands.length - 1]!;
      return { dtype: w, reason: `${step.aten} returns the weight's dtype (${w})` };
    }
    case "type_as_input":
      return { dtype: opInputs[0]!, reason: `type_as(x) restores the input dtype (${opInputs[0]})` };
    case "to_complex": {
      const d = operands[0]!;
      if (d === "float32") return { dtype: "complex64", reason: "view_as_complex(float32) → complex64" };
      if (d === "float64") return { dtype: "complex128", reason: "view_as_complex(float64) → complex128" };
      ctx.errors.push(`view_as_complex does not support ${d}`);
      return { dtype: "complex64", reason: `view_as_complex(${d}) is not supported` };
    }
    case "to_real": {
      const d = operands[0]!;
      return { dtype: d === "complex128" ? "float64" : "float32", reason: `view_as_real(${d})` };
    }
    case "same": {
      const fl = operands.filter(isFloating);
      const distinct = [...new Set(fl)];
      if (distinct.length <= 1) return { dtype: fl[0] ?? operands[0]!, reason: `${step.aten} computes in its inputs' dtype (${fl[0]})` };
      const msg = `${step.aten}: operands have different dtypes (${distinct.join(", ")}); PyTorch raises "expected both operands to have the same dtype"`;
      ctx.errors.push(msg);
      const p = promoteTypes(distinct);
      return { dtype: "dtype" in p ? p.dtype : fl[0]!, reason: msg };
    }
    case "norm": {
      const [x, w] = operands as [EDType, EDType | undefined];
      if (w === undefined || x === w) return { dtype: x, reason: `${step.aten}(${x} input, ${w ?? "no"} weight) keeps the input dtype` };
      const rule = ctx.assumptions.get("rms_norm_mismatch");
      if (rule === "promote") {
        const p = promoteTypes([x, w]);
        const d = "dtype" in p ? p.dtype : x;
        return { dtype: d, reason: `${step.aten} with ${x} input and ${w} weight: promote → ${d} (assumption rms_norm_mismatch=promote)` };
      }
      return { dtype: x, reason: `${step.aten} with ${x} input and ${w} weight: weight multiplied in float32, output type_as(input) → ${x} (assumption rms_norm_mismatch=input)` };
    }
    case "promote": {
      const p = promoteTypes(operands);
      if ("error" in p) {
        ctx.errors.push(p.error);
        return { dtype: operands[0]!, reason: p.error };
      }
      const distinct = [...new Set(operands)];
      return { dtype: p.dtype, reason: distinct.length > 1 ? `type promotion ${distinct.join(" + ")} → ${p.dtype}` : `${step.aten} keeps ${p.dtype}` };
    }
  }
}

function evalFloat8Linear(ctx: SimContext, op: OpDef, inputs: EDType[], param: EDType, boundary: string): OpResult {
  const f8 = ctx.float8!;
  const ac = ctx.autocast?.active ? ctx.autocast : undefined;
  const x = inputs[0]!;
  // Float8Linear casts its input to the autocast dtype itself (autocast then sees no aten linear).
  const hp = ac ? ac.dtype : x;
  const reason = `${boundary}Float8Linear (${f8.recipe.name}): input and weight quantised to ${f8.recipe.input} inside _scaled_mm, output in the high-precision input dtype (${hp})${ac ? ", after casting the input to the autocast dtype" : ""}`;
  const r: OpResult = {
    op: op.name,
    kind: op.kind,
    dtype: hp,
    computeDtype: f8.recipe.input,
    inputs,
    param,
    rule: reason,
    steps: [{ aten: "_scaled_mm", dtype: hp, reason }],
    float8: true,
  };
  if (ac && x !== ac.dtype) r.autocastCast = ac.dtype;
  return r;
}

export function byOp(forward: OpResult[], name: OpName): OpResult {
  return forward.find((o) => o.op === name)!;
}
