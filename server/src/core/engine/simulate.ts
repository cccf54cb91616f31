/**
 * The dtype simulator: runs the Llama3 op graph (ops.ts) through the general rules — autocast table,
 * FSDP2 policy clamping and module-boundary casts, ordinary promotion, float8 linears — and derives the
 * backward pass, the collectives and the memory estimate from the forward result.
 *
 * No per-mode answers live here: every dtype comes out of a rule applied to the ops' inputs.
 */
import { Assumptions } from "./assumptions";
import { autocastEnabled, autocastOutcome, type AutocastPolicy } from "./autocast";
import { reshardAfterForward, type SimContext } from "./context";
import { isFloating, isLowPrecision, type EDType } from "./dtypes";
import { castForwardInputs, clampPolicy, fsdpLifecycle } from "./fsdp";
import { float8Recipe, isFloat8Converted } from "./float8";
import { estimateMemory } from "./memory";
import { estimateStepThroughput } from "./throughput";
import { modelArch, paramCounts, type ParamGroup } from "./models";
import { llama3Graph, type AtenStep, type InputRef, type OpDef, type OpName } from "./ops";
import { promoteTypes } from "./promote";
import type { Collective, OpGrad, OpResult, ParamResult, Simulation, SimulationInput, StepResult } from "./types";

export function simulate(input: SimulationInput): Simulation | undefined {
  if (input.mechanism === "error") return undefined;
  const ctx = buildContext(input);
  const forward = runForward(ctx);
  const params = paramResults(ctx, forward);
  const backward = runBackward(ctx, forward);
  const collectives = deriveCollectives(ctx, forward, params);
  const linear = params.find((p) => p.op === "wq")!;
  const memory = estimateMemory(ctx, forward, params);
  const mp = mixedPrecision(ctx);
  const sim: Simulation = {
    mechanism: input.mechanism,
    mixedPrecisionApplied: mp.applied,
    mixedPrecisionReason: mp.reason,
    storageDtype: ctx.storage,
    computeDtype: forward.find((o) => o.op === "wq")!.dtype,
    forward,
    backward,
    params,
    grad: { computed: linear.gradProduced, stored: linear.stored },
    optimizerState: linear.optimizerState,
    collectives,
    memory,
    assumptions: ctx.assumptions.list(),
    notes: ctx.notes,
    errors: ctx.errors,
  };
  if (ctx.autocast) sim.autocast = { dtype: ctx.autocast.dtype, active: ctx.autocast.active, note: ctx.autocast.note };
  if (ctx.fsdp) sim.fsdp = { policy: ctx.fsdp.policy, lifecycle: ctx.fsdp.lifecycle, castForwardInputs: ctx.fsdp.castForwardInputs };
  if (ctx.float8) sim.float8 = { recipe: ctx.float8.recipe.name, convertedOps: [...ctx.float8.converted], fsdpFloat8AllGather: ctx.float8.fsdpAllGather, tensorParallelFloat8: ctx.float8.tpFloat8 };
  if (ctx.arch) sim.model = { name: ctx.arch.name, flavor: ctx.arch.flavor, params: paramCounts(ctx.arch).total, attention: ctx.arch.dims.attention };
  const throughput = estimateStepThroughput(ctx, forward, collectives, memory, input.gpu);
  if (throughput) {
    sim.throughput = throughput;
    sim.assumptions = ctx.assumptions.list();
  }
  return sim;
}

function buildContext(input: SimulationInput): SimContext {
  const assumptions = new Assumptions(input.assumptions);
  const arch = modelArch(input.model?.name, input.model?.flavor);
  const shapeArch = arch ?? modelArch("llama3", "debugmodel")!;
  const storage: EDType = input.trainingDtype;
  const ctx: SimContext = {
    input,
    assumptions,
    shapeArch,
    graph: llama3Graph(arch?.dims.attention ?? "sdpa"),
    storage,
    fsdpDegree: 1,
    errors: [],
    notes: [],
  };
  if (arch) ctx.arch = arch;
  else if (input.model?.name || input.model?.flavor) ctx.notes.push(`Model ${input.model?.name ?? "llama3"}/${input.model?.flavor ?? "debugmodel"} is not a known llama3 flavor: dtypes use the Llama3 block, memory has no absolute sizes.`);
  const L = input.layout;
  if (input.mechanism === "autocast") {
    const dtype: EDType = input.paramDtype;
    const device = input.device ?? "cuda";
    const on = autocastEnabled(device, dtype);
    const active = on.enabled;
    const note = !on.enabled
      ? `torch.autocast(${device}, dtype=${dtype}): PyTorch warns "${on.warning}" and runs the region without autocast`
      : isLowPrecision(dtype)
        ? `torch.autocast(${device}, dtype=${dtype}) wraps forward and loss; backward runs outside it`
        : `torch.autocast(${device}, dtype=${dtype}) wraps forward and loss and stays on (only non-CUDA autocast checks the dtype): linears, matmuls and attention cast their inputs to ${dtype}; backward runs outside it`;
    const rms = assumptions.get("rms_norm_autocast");
    ctx.autocast = { device, dtype, active, note, extras: rms === "fallthrough" ? {} : { rmsNorm: rms as AutocastPolicy } };
  }
  if (input.mechanism === "fully_shard") {
    const policyParam: EDType = input.paramDtype;
    const policy = clampPolicy({ paramDtype: policyParam, reduceDtype: input.reduceDtype }, storage);
    const grad = assumptions.get("fsdp_unsharded_grad_dtype") as "param" | "reduce";
    ctx.fsdp = { policy, lifecycle: fsdpLifecycle(policy, { unshardedGradDtype: grad }), castForwardInputs: input.castForwardInputs ?? true, policyParamDtype: policyParam };
    ctx.fsdpDegree = Math.max(1, L.dp_shard * L.cp);
  }
  if (input.float8) {
    const recipe = float8Recipe(input.float8.recipe);
    if (input.float8.recipe && input.float8.recipe !== recipe.name) ctx.notes.push(`Unknown float8 recipe "${input.float8.recipe}": simulated as ${recipe.name}.`);
    const filter = input.float8.filterFqns ?? [];
    if (filter.includes("auto_filter_small_kn")) assumptions.get("float8_filter_auto");
    const converted = new Set<OpName>();
    for (const p of shapeArch.params) {
      if (!p.isLinear) continue;
      const [out, inF] = p.shape as [number, number];
      if (isFloat8Converted(p.fqn.replace("layers.*.", "layers.0."), inF, out, filter)) converted.add(p.op as OpName);
    }
    const fsdpAllGather = !!input.float8.fsdpFloat8AllGather && recipe.supportsFsdpFloat8AllGather && input.mechanism === "fully_shard" && L.dp_shard > 1;
    if (input.float8.fsdpFloat8AllGather && !fsdpAllGather) {
      ctx.notes.push(recipe.supportsFsdpFloat8AllGather ? "enable_fsdp_float8_all_gather has no effect: it needs FSDP with dp_shard > 1 (CP alone does not count)." : `enable_fsdp_float8_all_gather is not supported with the ${recipe.name} recipe.`);
    }
    const tpFloat8 = !!input.float8.float8TensorParallel && recipe.supportsFloat8TensorParallel && L.tp > 1;
    ctx.float8 = { recipe, converted, fsdpAllGather, tpFloat8 };
  }
  return ctx;
}

function paramGroup(ctx: SimContext, op: OpName): ParamGroup | undefined {
  return ctx.shapeArch.params.find((p) => p.op === op);
}

/** The parameter as an op computes with it, before any autocast cast. */
function paramComputeDtype(ctx: SimContext): EDType {
  return ctx.fsdp ? ctx.fsdp.lifecycle.compute : ctx.storage;
}

function runForward(ctx: SimContext): OpResult[] {
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

function byOp(forward: OpResult[], name: OpName): OpResult {
  return forward.find((o) => o.op === name)!;
}

function runBackward(ctx: SimContext, forward: OpResult[]): OpGrad[] {
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

function paramResults(ctx: SimContext, forward: OpResult[]): ParamResult[] {
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
    const res: ParamResult = { fqn: p.fqn, op: p.op as OpName, storage: ctx.storage, compute, gradProduced: produced, gradAccumulated: accumulated, stored, optimizerState: ctx.storage };
    if (reduce) res.reduce = reduce;
    if (r.float8) res.float8 = true;
    out.push(res);
  }
  return out;
}

function deriveCollectives(ctx: SimContext, forward: OpResult[], params: ParamResult[]): Collective[] {
  const L = ctx.input.layout;
  const out: Collective[] = [];
  const f = (n: OpName) => byOp(forward, n).dtype;
  if (ctx.fsdp && ctx.fsdpDegree > 1) {
    const lc = ctx.fsdp.lifecycle;
    const f8 = ctx.float8?.fsdpAllGather;
    out.push({
      name: "fsdp_all_gather",
      dtype: f8 ? ctx.float8!.recipe.weight : lc.allGatherInput,
      kind: "all_gather",
      mesh: L.cp > 1 ? "fsdp (dp_shard × cp)" : "fsdp (dp_shard)",
      when: ctx.input.layout.pp > 1 || reshardAfterForward(ctx) === false ? "forward (parameters kept unsharded for backward)" : "forward, and again in backward (resharded after forward)",
      why: f8
        ? `float8 all-gather: tensorwise Float8Linear weights are quantised to ${ctx.float8!.recipe.weight} before the all-gather (1 B/param); other parameters in ${lc.allGatherInput}`
        : ctx.fsdp.policy.paramDtype
          ? `sharded ${lc.sharded} parameters are cast to param_dtype ${lc.allGatherInput} before the all-gather`
          : `no param cast (param_dtype cleared or equal to the ${lc.sharded} storage), all-gather moves ${lc.sharded}`,
    });
    out.push({
      name: "fsdp_reduce_scatter",
      dtype: lc.reduce,
      kind: "reduce_scatter",
      mesh: out[0]!.mesh,
      when: L.pp > 1 ? "once per step (PP defers gradient sync to the last microbatch)" : "backward, per FSDP unit",
      why:
        (ctx.fsdp.policy.reduceDtype
          ? `reduce_dtype ${lc.reduce}: ${lc.unshardedGrad} unsharded gradients are copied into a ${lc.reduce} buffer, result cast to ${lc.shardedGrad} for .grad`
          : `reduce_dtype cleared/unset: reduce in the gradient dtype ${lc.reduce}, result cast to ${lc.shardedGrad} for .grad`) +
        (ctx.input.gradientDivideFactorOne === false ? "" : lc.reduce === "float16" ? "; fp16 reduction takes FSDP's pre/post-divide path, which torchtitan's divide factor 1.0 (plain sum) defeats" : "; torchtitan sets the gradient divide factor to 1.0, so this is a plain sum (the loss is already normalised)"),
    });
  }
  if (ctx.fsdp && L.dp_replicate > 1) {
    out.push({ name: "hsdp_all_reduce", dtype: ctx.fsdp.lifecycle.reduce, kind: "all_reduce", mesh: "dp_replicate", when: "backward, on the reduce-scatter output", why: `HSDP all-reduces the reduced gradient across replicas in ${ctx.fsdp.lifecycle.reduce}` });
  }
  if (ctx.input.ddp && !ctx.fsdp) {
    const d = params.find((p) => p.op === "wq")!.reduce ?? ctx.storage;
    const hook = ctx.assumptions.get("ddp_comm_hook");
    out.push({ name: "ddp_all_reduce", dtype: d, kind: "all_reduce", mesh: "dp_replicate", when: "backward, per bucket (every microbatch)", why: hook === "none" ? `DDP buckets hold ${ctx.storage} gradients (autocast never changes .grad), all-reduced as is` : `${hook} hook: bucket cast to ${d} for the all-reduce, copied back into the ${ctx.storage} bucket` });
  }
  if (L.tp > 1) {
    out.push({ name: "tp_embedding_reduce_scatter", dtype: f("tok_embeddings"), kind: "reduce_scatter", mesh: "tp", when: "forward (all-gather in backward)", why: `RowwiseParallel embedding output (Partial → Shard(1)) is ${f("tok_embeddings")}` });
    const normAg = ctx.float8?.tpFloat8 ? ctx.float8.recipe.input : f("attention_norm");
    out.push({
      name: "tp_norm_all_gather",
      dtype: normAg,
      kind: "all_gather",
      mesh: "tp",
      when: "forward, before wq/wk/wv and w1/w3 (reduce-scatter of its gradient in backward)",
      why: ctx.float8?.tpFloat8 ? `Float8 TP (PrepareFloat8ModuleInput) casts the norm output to ${normAg} before the all-gather` : `sequence-parallel norm output (Shard(1) → Replicate) is ${f("attention_norm")}; any autocast cast happens after the gather, inside the linear`,
    });
    out.push({ name: "tp_final_norm_all_gather", dtype: f("norm"), kind: "all_gather", mesh: "tp", when: "forward, before output", why: `final norm output is ${f("norm")} (plain ColwiseParallel, even with float8)` });
    out.push({ name: "tp_projection_reduce_scatter", dtype: f("wo"), kind: "reduce_scatter", mesh: "tp", when: "forward after wo and w2 (all-gather in backward)", why: `RowwiseParallel wo/w2 outputs (Partial → Shard(1)) are ${f("wo")}` });
    if (ctx.input.lossParallel ?? true) {
      const lossIn = byOp(forward, "loss").steps[0]!.dtype;
      out.push({ name: "tp_loss_all_reduce", dtype: lossIn, kind: "all_reduce", mesh: "tp", when: "loss (max, sum-exp, target logit)", why: `loss parallel reduces statistics of pred.float() (${lossIn})` });
    }
  }
  if (L.pp > 1) {
    out.push({ name: "pp_send_recv", dtype: f("ffn_residual"), kind: "send_recv", mesh: "pp", when: "every microbatch, activations forward and their gradients backward", why: `stage outputs (block outputs) are ${f("ffn_residual")}; shape inference records this dtype for the recv buffers` });
  }
  return out;
}


function mixedPrecision(ctx: SimContext): { applied: boolean; reason: string } {
  const names = ctx.input.settingNames ?? { storage: "training.dtype", param: "mixed_precision_param" };
  const why = ctx.input.mechanismReason ? ` (${ctx.input.mechanismReason})` : "";
  if (ctx.autocast) {
    const ac = ctx.autocast;
    if (!ac.active) return { applied: false, reason: ac.note };
    if (isLowPrecision(ac.dtype)) return { applied: true, reason: `torch.autocast(${ac.dtype}) on forward and loss; parameters, gradients and optimizer state stay ${ctx.storage}` };
    // CUDA autocast to a non-low-precision dtype stays on: it up-casts, it does not lower precision.
    if (ac.dtype !== ctx.storage) return { applied: false, reason: `torch.autocast(${ac.device}, dtype=${ac.dtype}) stays on: linears, attention and the logits run in ${ac.dtype}, up-cast from the ${ctx.storage} weights and activations, so the run pays ${ac.dtype} compute while parameters, gradients and optimizer state stay ${ctx.storage}` };
    return { applied: false, reason: `torch.autocast(${ac.device}, dtype=${ac.dtype}) stays on, but every tensor is already ${ac.dtype}: no mixed precision` };
  }
  if (ctx.fsdp) {
    const p = ctx.fsdp.policy;
    if (p.paramDtype && isLowPrecision(p.paramDtype)) return { applied: true, reason: `FSDP2 MixedPrecisionPolicy: ${p.origDtype} shards, ${p.paramDtype} compute, ${ctx.fsdp.lifecycle.reduce} gradient reduction` };
    if (isLowPrecision(ctx.storage)) return { applied: false, reason: `${names.storage} = ${ctx.storage}: parameters, gradients and optimizer state are ${ctx.storage} (pure low-precision training, no fp32 master copy)` };
    if (p.paramDtype) return { applied: false, reason: `FSDP casts the ${p.origDtype} parameters up to ${p.paramDtype}: no mixed precision` };
    return { applied: false, reason: `FSDP param_dtype equals the ${p.origDtype} parameters (${names.param} = ${ctx.input.paramDtype}): no cast, no mixed precision` };
  }
  if (isLowPrecision(ctx.storage)) return { applied: false, reason: `no mixed-precision mechanism${why}; ${names.storage} = ${ctx.storage} makes everything ${ctx.storage}` };
  return { applied: false, reason: `no mixed-precision mechanism applies to this layout${why}: everything trains in ${ctx.storage}` };
}
