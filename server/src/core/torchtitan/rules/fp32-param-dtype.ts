/**
 * fp32-param-dtype: `mixed_precision_param = "float32"` turns mixed precision off in every mechanism
 * (FSDP casts to fp32; CUDA autocast to fp32 disables itself with a PyTorch warning). Information only:
 * it is a legitimate choice, and also what the no-mixed-precision quick fix writes.
 */
import { diag } from "../../diagnostics";
import type { TitanRule } from "../context";

export const fp32ParamDtype: TitanRule = {
  codes: ["fp32-param-dtype"],
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
          ? 'CUDA autocast with dtype fp32 disables itself ("In cuda autocast, but the target dtype is not supported. Disabling autocast.")'
          : "this layout applies no mixed precision anyway";
    return [diag("fp32-param-dtype", "information", k.entry.range, `mixed_precision_param = "float32" means no mixed precision: ${how}. Compute runs in ${ctx.precision?.compute.dtype ?? "float32"}.`)];
  },
};
