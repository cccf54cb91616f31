/**
 * fsdp-tp-grad-allreduce-dtype: FSDP2 + TP: the TP-mesh gradient all-reduce of replicated parameters does not follow
 * reduce_dtype (pytorch/pytorch#190626).
 *
 * Pytorch/pytorch#190626 (open; fix proposed in pytorch/pytorch#190627): under
 * FSDP2 with tensor parallelism, the gradients of TP-replicated parameters (norm weights under sequence
 * parallelism, biases, MoE routers) are all-reduced over the TP mesh (Partial → Replicate) in the gradient's own
 * dtype, not in MixedPrecisionPolicy.reduce_dtype; the reduce-scatter over the data-parallel mesh does follow
 * reduce_dtype. Scoped by the behaviour, never the format: every run where fully_shard shards over a real
 * data-parallel mesh (dp_shard × cp > 1) beside TP > 1, with bf16 param_dtype and fp32 reduce_dtype (a TOML file of
 * any era, a Python config function); never TP-only without FSDP (no FSDP reduction to compare with).
 * Information, `[inferred]`: it depends on the PyTorch version in use, which the config does not state.
 */
import { diag } from "../../../diagnostics/build";
import type { TitanRule } from "../context";
import { fsdpEnabled } from "../eras";
import { dimsAnchor } from "../locate";

export const fsdpTpGradAllreduceDtype: TitanRule = {
  codes: ["fsdp-tp-grad-allreduce-dtype"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const d = ctx.dims.resolved;
    if (ctx.decision.mechanism !== "fully_shard" || !d || d.tp <= 1 || !fsdpEnabled(d)) return [];
    if (ctx.knobs.param.dtype !== "bfloat16" || ctx.knobs.reduce.dtype !== "float32") return [];
    const where = dimsAnchor(ctx, ["tp"]);
    return [
      diag("fsdp-tp-grad-allreduce-dtype", "information", where.range, "FSDP+TP: the TP-mesh gradient all-reduce of replicated parameters runs in bf16, not reduce_dtype float32", undefined, {
        detail: `With tensor_parallel_degree = ${d.tp} under FSDP2 (dp_shard ${d.dp_shard}${d.cp > 1 ? `, cp ${d.cp}` : ""}), the gradients of TP-replicated parameters (norm weights under sequence parallelism, biases, MoE routers) are all-reduced over the TP mesh in their own dtype (bf16), not in MixedPrecisionPolicy.reduce_dtype (float32): pytorch/pytorch#190626, open, fix proposed in pytorch/pytorch#190627. The reduce-scatter over the data-parallel mesh does follow reduce_dtype. Inferred from the PyTorch issue; depends on the PyTorch version in use.`,
      }),
    ];
  },
};
