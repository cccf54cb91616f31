/**
 * bf16-storage-fp32-compute: bf16 parameter storage with fp32 compute: every matmul up-casts.
 *
 * training.dtype against the mixed-precision settings (spec torchtitan.md §2.1, §7 item 6):
 * training.dtype = "bfloat16" (bf16 storage, no fp32 master weights) with mixed_precision_param =
 * "float32" asks for fp32 compute on bf16 weights: FSDP up-casts the bf16 parameters to fp32 for every
 * matmul, so the run pays fp32 compute and memory traffic while keeping bf16's precision loss in the
 * weights and optimizer state. Warning; torchtitan does not validate the combination (#1646).
 */
import { diag, fix } from "../../../diagnostics/build";
import type { TitanRule } from "../context";

export const bf16StorageFp32Compute: TitanRule = {
  codes: ["bf16-storage-fp32-compute"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const { trainingDtype, param } = ctx.knobs;
    if (trainingDtype.isDefault || trainingDtype.dtype !== "bfloat16") return [];
    if (param.isDefault || param.dtype !== "float32" || !param.entry) return [];
    const how = ctx.decision.mechanism === "fully_shard" ? "FSDP up-casts the bf16 parameters to fp32 for compute" : ctx.decision.mechanism === "autocast" ? "CUDA autocast to fp32 stays on and up-casts the bf16 weights and activations of every linear and attention to fp32" : "compute follows the bf16 weights";
    return [
      diag(
        "bf16-storage-fp32-compute",
        "warning",
        param.entry.value.range,
        `bf16 storage with fp32 compute: every matmul up-casts, so fp32 cost without fp32 master weights`,
        {
          fixes: [
            fix('Change mixed_precision_param to "bfloat16"', [{ range: param.entry.value.range, newText: '"bfloat16"' }], true),
            ...(trainingDtype.entry ? [fix('Change training.dtype to "float32"', [{ range: trainingDtype.entry.value.range, newText: '"float32"' }])] : []),
          ],
        },
        {
          detail: `training.dtype = "bfloat16" stores weights, gradients and optimizer state in bf16, but mixed_precision_param = "float32" asks for fp32 compute: ${how}, so the run pays fp32 compute cost without fp32 master weights. Use mixed_precision_param = "bfloat16" for full bf16 training, or training.dtype = "float32" for fp32 masters.`,
        },
      ),
    ];
  },
};
