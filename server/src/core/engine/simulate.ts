/**
 * The dtype simulator's entry: builds the simulation context from the resolved input (autocast, FSDP2
 * policy, float8 recipe), runs the forward pass (forward.ts), derives the backward pass (backward.ts), the
 * collectives (collectives.ts) and the memory and throughput estimates, and says whether mixed precision
 * applies.
 *
 * No per-mode answers live here: every dtype comes out of a rule applied to the ops' inputs.
 */
import { Assumptions } from "./assumptions";
import { autocastEnabled, type AutocastPolicy } from "./autocast";
import { deriveCollectives } from "./collectives";
import type { SimContext } from "./context";
import { isLowPrecision, type EDType } from "./dtypes";
import { clampPolicy, fsdpLifecycle } from "./fsdp";
import { float8Recipe, isFloat8Converted } from "./float8";
import { paramResults, runBackward } from "./backward";
import { runForward } from "./forward";
import { estimateMemory } from "./memory";
import { estimateStepThroughput } from "./throughput";
import { modelArch, paramCounts } from "./models";
import { llama3Graph, type OpName } from "./ops";
import type { Simulation, SimulationInput } from "./types";

/**
 * The simulation is a pure function of its input, and an edit that does not touch a key the input reads (a
 * comment, an unrelated value) gives the same input: the last few results are kept, keyed by the input's
 * JSON (issue #21). Callers treat a Simulation as read-only.
 */
const memo = new Map<string, Simulation | undefined>();
const MEMO_ENTRIES = 32;

function inputKey(input: SimulationInput): string {
  return JSON.stringify(input, (_k, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? `#number:${v}` : v === undefined ? "#undefined" : v));
}

export function simulate(input: SimulationInput): Simulation | undefined {
  if (input.mechanism === "error") return undefined;
  const key = inputKey(input);
  if (memo.has(key)) {
    const hit = memo.get(key);
    memo.delete(key);
    memo.set(key, hit);
    return hit;
  }
  const sim = simulateUncached(input);
  if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
  memo.set(key, sim);
  return sim;
}

function simulateUncached(input: SimulationInput): Simulation | undefined {
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
