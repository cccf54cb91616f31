/**
 * fp32-param-dtype: mixed_precision_param = "float32": no mixed precision, on purpose.
 *
 * `mixed_precision_param = "float32"` turns mixed precision off in every mechanism
 * (FSDP casts to fp32; CUDA autocast to fp32 stays on and runs matmuls and attention in fp32: the
 * "target dtype is not supported. Disabling autocast" warning exists only for non-CUDA devices, see
 * engine/autocast.ts `autocastEnabled`). Information only: it is a legitimate choice, and also what the
 * no-mixed-precision quick fix writes.
 */
import { diag } from "../../../diagnostics/build";
import type { TitanRule } from "../context";

export const fp32ParamDtype: TitanRule = {
  codes: ["fp32-param-dtype"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const k = ctx.knobs.param;
    if (!k.entry || k.isDefault || k.dtype !== "float32" || ctx.decision.mechanism === "error") return [];
    const storage = ctx.knobs.trainingDtype.dtype ?? "float32";
    const how =
      ctx.decision.mechanism === "fully_shard"
        ? storage === "bfloat16"
          ? "FSDP up-casts the bf16 parameters to fp32 for compute"
          : "FSDP's MixedPrecisionPolicy casts to fp32, which is no cast at all"
        : ctx.decision.mechanism === "autocast"
          ? storage === "bfloat16"
            ? "CUDA autocast stays on with dtype fp32 (PyTorch disables autocast for an unsupported dtype only on CPU and other non-CUDA devices), so linears, attention and the logits up-cast the bf16 weights and activations to fp32"
            : "CUDA autocast stays on with dtype fp32 (PyTorch disables autocast for an unsupported dtype only on CPU and other non-CUDA devices), and every tensor is already fp32"
          : "this layout applies no mixed precision anyway";
    const compute = ctx.precision?.compute.dtype ?? "float32";
    return [
      diag("fp32-param-dtype", "information", k.entry.range, `mixed_precision_param = "float32": no mixed precision, compute runs in ${compute}`, undefined, {
        detail: `mixed_precision_param = "float32" means no mixed precision: ${how}. Compute runs in ${compute}.`,
      }),
    ];
  },
};
