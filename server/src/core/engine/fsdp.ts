/**
 * FSDP2 `MixedPrecisionPolicy` semantics (pytorch-dtypes.md §2): clamping at init, the per-tensor
 * lifecycle of one parameter, and the module-boundary casts. Pure functions over dtypes.
 */
import type { EDType } from "./dtypes";
import { isFloating } from "./dtypes";

export interface MixedPrecisionPolicy {
  paramDtype?: EDType;
  reduceDtype?: EDType;
  outputDtype?: EDType;
  castForwardInputs?: boolean;
}

export interface ClampedPolicy {
  /** dtype of the sharded parameter (= model init dtype, `training.dtype`). */
  origDtype: EDType;
  /** After clamping; undefined = no cast (compute in origDtype). */
  paramDtype?: EDType;
  /** After clamping; undefined = reduce in the gradient's dtype. */
  reduceDtype?: EDType;
  /** Which clamping steps fired, user-facing. */
  notes: string[];
}

/** `FSDPParam.init_dtype_attrs` (§2.2): reduce==param → None (on the policy values), then param==orig → None. */
export function clampPolicy(policy: MixedPrecisionPolicy, origDtype: EDType): ClampedPolicy {
  const notes: string[] = [];
  let reduce = policy.reduceDtype;
  let param = policy.paramDtype;
  if (reduce !== undefined && reduce === param) {
    notes.push(`reduce_dtype equals param_dtype (${param}), so FSDP clears it (reduce in the gradient dtype)`);
    reduce = undefined;
  }
  if (param !== undefined && param === origDtype) {
    notes.push(`param_dtype equals the parameter's own dtype (${origDtype}), so FSDP does not cast`);
    param = undefined;
  }
  const out: ClampedPolicy = { origDtype, notes };
  if (param !== undefined) out.paramDtype = param;
  if (reduce !== undefined) out.reduceDtype = reduce;
  return out;
}

export interface FsdpLifecycle {
  sharded: EDType;
  allGatherInput: EDType;
  unsharded: EDType;
  compute: EDType;
  unshardedGrad: EDType;
  /** dtype of the reduce-scatter (and HSDP all-reduce) buffer. */
  reduce: EDType;
  /** dtype of the final sharded `.grad`. */
  shardedGrad: EDType;
  /** With gradient sync disabled (accumulation, PP): dtype unsharded grads accumulate in between microbatches. */
  accumulation: EDType;
}

export interface LifecycleOptions {
  /**
   * Named assumption `fsdp_unsharded_grad_dtype`: "param" (releases read: unsharded grad = param_dtype)
   * or "reduce" (PRs #194434/#197203: autograd accumulates directly in reduce_dtype). §2.8.
   */
  unshardedGradDtype?: "param" | "reduce";
}

/** §2.3/§2.4: dtype of every tensor in one parameter's life under a clamped policy. */
export function fsdpLifecycle(p: ClampedPolicy, opts: LifecycleOptions = {}): FsdpLifecycle {
  const compute = p.paramDtype ?? p.origDtype;
  const reduce = p.reduceDtype ?? compute;
  const unshardedGrad = opts.unshardedGradDtype === "reduce" && p.reduceDtype ? p.reduceDtype : compute;
  return {
    sharded: p.origDtype,
    allGatherInput: compute, // cast before the all-gather
    unsharded: compute,
    compute,
    unshardedGrad,
    reduce,
    shardedGrad: p.origDtype,
    // reduce_dtype set: FSDP upcasts after each backward into an fp32 accumulator (PR #125191);
    // reduce None: autograd accumulates the unsharded grads in their own dtype.
    accumulation: p.reduceDtype ?? unshardedGrad,
  };
}

/**
 * §2.6 pre-forward: with cast_forward_inputs and a *policy* param_dtype (not clamped), floating tensors
 * are cast to it; non-floating (int, bool, complex) and already-matching tensors are left alone.
 */
export function castForwardInputs(inputs: readonly EDType[], policy: MixedPrecisionPolicy): EDType[] {
  const cast = policy.castForwardInputs ?? true;
  if (!cast || policy.paramDtype === undefined) return [...inputs];
  return inputs.map((d) => (isFloating(d) ? policy.paramDtype! : d));
}

/** §2.6 post-forward: `output_dtype` casts floating outputs. */
export function castForwardOutputs(outputs: readonly EDType[], policy: MixedPrecisionPolicy): EDType[] {
  if (policy.outputDtype === undefined) return [...outputs];
  return outputs.map((d) => (isFloating(d) ? policy.outputDtype! : d));
}
