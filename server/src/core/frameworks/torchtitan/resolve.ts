/**
 * Resolves parameter storage, compute and gradient-reduction dtypes from the mechanism and the knobs,
 * with FSDP2's MixedPrecisionPolicy clamping (pytorch-dtypes.md §2.2). CUDA autocast to fp32 is NOT
 * disabled (torchtitan.md §1.4 notes, corrected; engine/autocast.ts `autocastEnabled`): it stays on and
 * runs matmuls and attention in fp32, up-casting bf16 storage.
 */
import type { ResolvedPrecision } from "../../analysis";
import type { PrecisionKnobs } from "./context";
import type { MechanismDecision } from "./eras";
import type { ParallelLayout } from "../../analysis";

/** One GPU: there is no gradient reduction at all (null, shown as "none", as for the YAML/JSON frameworks). */
const ONE_DEVICE = { dtype: null, knob: "one device: no gradient reduction; gradients stay in training.dtype" } as const;

export function resolvePrecision(decision: MechanismDecision, knobs: PrecisionKnobs, layout: ParallelLayout): ResolvedPrecision | undefined {
  if (decision.mechanism === "error") return undefined;
  const oneDevice = layout.dp_replicate * layout.dp_shard * layout.cp * layout.tp * layout.pp === 1;
  const storage = knobs.trainingDtype.dtype;
  if (!storage) return undefined; // an unknown training.dtype fails model construction (KeyError)
  const storageKnob = knobs.trainingDtype.isDefault ? "training.dtype (default float32)" : "training.dtype";
  const paramStorage = { dtype: storage, knob: storageKnob };

  if (decision.mechanism === "fully_shard") {
    const p = knobs.param.dtype;
    const r = knobs.reduce.dtype;
    if (!p || !r) return undefined; // KeyError while building the MixedPrecisionPolicy
    const compute = p === storage ? { dtype: storage, knob: `${storageKnob}: MixedPrecisionPolicy.param_dtype equals the storage dtype, so no cast` } : { dtype: p, knob: "training.mixed_precision_param (FSDP MixedPrecisionPolicy.param_dtype)" };
    const gradReduce = r === p ? { dtype: compute.dtype, knob: "training.mixed_precision_reduce equals param_dtype, so FSDP reduces in the gradient dtype" } : { dtype: r, knob: "training.mixed_precision_reduce (FSDP MixedPrecisionPolicy.reduce_dtype)" };
    return { paramStorage, compute, gradReduce };
  }
  if (decision.mechanism === "autocast") {
    const p = knobs.param.dtype;
    if (!p) return undefined; // KeyError in maybe_enable_amp
    const compute =
      p === storage
        ? { dtype: storage, knob: p === "float32" ? `${storageKnob}: CUDA autocast to fp32 stays on, and the fp32 weights need no cast` : storageKnob }
        : p === "float32"
          ? { dtype: p, knob: `training.mixed_precision_param = float32: CUDA autocast to fp32 stays on and up-casts the ${storage} weights and activations of matmuls and attention` }
          : { dtype: p, knob: "training.mixed_precision_param (torch.autocast dtype, matmuls only)" };
    const gradReduce = decision.ddp ? { dtype: storage, knob: "DDP all-reduces gradients in their own dtype (training.dtype)" } : oneDevice ? { ...ONE_DEVICE } : { dtype: storage, knob: "no data-parallel gradient reduction; gradients stay in training.dtype" };
    return { paramStorage, compute, gradReduce };
  }
  // No mixed precision: everything in the storage dtype.
  const noDp = layout.dp_replicate === 1 && layout.dp_shard === 1 && layout.cp === 1;
  return {
    paramStorage,
    compute: { dtype: storage, knob: `${storageKnob}: no mixed precision in this layout` },
    gradReduce: oneDevice ? { ...ONE_DEVICE } : { dtype: storage, knob: noDp ? "no data-parallel gradient reduction; gradients stay in training.dtype" : "gradients are reduced in training.dtype" },
  };
}
