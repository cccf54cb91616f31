/**
 * automodel/mixed-precision-not-applied: FSDP2's mp_policy on one GPU: FSDP2 is not applied, an fp32 model computes
 * in fp32.
 *
 * An fp32 model with FSDP2's bf16 (or fp16) `mp_policy` on one GPU. NeMo AutoModel skips
 * `fully_shard` on a single-rank world (nemo_automodel 0.7.0 `components/distributed/fsdp2.py`
 * `fsdp2_sharding_enabled`: "also skips … the MixedPrecisionPolicy cast of parameters to the compute dtype"),
 * and the LLM recipe adds no autocast, so forward and backward run in fp32: slower and heavier than the policy
 * says. Rests on the world size (the setting or the recipe's `torchrun --nproc-per-node 1` comment).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { AutomodelContext } from "../context";
import { resolveAutomodel } from "../resolve";

export const mixedPrecisionNotApplied: FrameworkRule<AutomodelContext> = {
  codes: ["automodel/mixed-precision-not-applied"],
  restsOn: ["worldSize"],
  warningOnAssumed: "information",
  run(ctx) {
    const d = diagnostics("automodel");
    if (ctx.strategy !== "fsdp2" || ctx.worldSize?.value !== 1 || ctx.model.dtype !== "float32" || !ctx.training) return d.out;
    const { policy } = resolveAutomodel(ctx);
    if (policy.param === "float32") return d.out;
    const at = ctx.v.entry("distributed", "mp_policy", "param_dtype")?.value.range ?? ctx.model.entry?.value.range;
    d.add("mixed-precision-not-applied", "warning", at, { message: `On one GPU FSDP2 is not applied, so its ${policy.param === "bfloat16" ? "bf16" : "fp16"} mp_policy is not either: compute runs in fp32`, detail: `NeMo AutoModel skips fully_shard on a single-rank world, and with it the MixedPrecisionPolicy cast (${policy.paramFrom}); the recipe adds no autocast, so the fp32 model (${ctx.model.detail}) computes in fp32 (world size ${ctx.worldSize!.detail}). Run on 2+ GPUs, or load the model in bf16 for single-GPU runs (then without an fp32 master copy).` });
    return d.out;
  },
};
