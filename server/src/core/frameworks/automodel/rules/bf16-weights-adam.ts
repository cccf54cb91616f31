/**
 * automodel/bf16-weights-adam: A model stored in bf16/fp16 trained with Adam: no fp32 master copy.
 *
 * A training recipe whose model is stored in bf16 (or fp16) with an Adam-family optimizer and no
 * fp32 master copy. NeMo AutoModel keeps the parameters in the dtype it loads them in (`torch_dtype`, "auto" =
 * the checkpoint's, usually bf16); FSDP2's `mp_policy` casts them for compute but the sharded parameters, their
 * gradients and the optimizer's state stay in that dtype. FSDP2Config's docstring (nemo_automodel 0.7.0,
 * `components/distributed/config.py`) pairs the policy with `model.torch_dtype: float32` "for the
 * Megatron-style fp32 master-weights pattern" and points at the guide's "bf16-storage trap". Megatron-FSDP with
 * `preserve_fp32_weights: true` is exempt, and so is an optimizer that keeps its own master copy: Transformer
 * Engine's FusedAdam with `master_weights: true` (fp32 master parameters beside the bf16 ones) and FlashOptim's
 * optimizers with `master_weight_bits` written (24 or 32: bf16 weights plus stored correction bits, its
 * compressed master weights; named assumption: any written number means a master copy). A warning when the dtype is written (or from_config's auto, bf16)
 * and the learning rate is below 1e-5 or unknown; information otherwise, and when the dtype is only the
 * checkpoint's (inferred).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AutomodelContext } from "../context";

export const bf16WeightsAdam: FrameworkRule<AutomodelContext> = {
  codes: ["automodel/bf16-weights-adam"],
  restsOn: ["model"],
  warningOnAssumed: "information",
  run(ctx) {
    const d = diagnostics("automodel");
    const { model, training, optimizer, lr, strategy, v } = ctx;
    if (!training || !/adam/i.test(optimizer) || (model.dtype !== "bfloat16" && model.dtype !== "float16")) return d.out;
    if (!["fsdp2", "ddp", "megatron_fsdp"].includes(strategy)) return d.out;
    if (strategy === "megatron_fsdp" && v.bool("distributed", "preserve_fp32_weights") === true) return d.out;
    if (v.bool("optimizer", "master_weights") === true || v.num("optimizer", "master_weight_bits") !== undefined) return d.out;
    const low = model.dtype === "bfloat16" ? "bf16" : "fp16";
    const lrShown = lr === undefined ? undefined : lr < 1e-3 ? lr.toExponential() : String(lr);
    const small = lr === undefined || lr < 1e-5;
    const at = model.entry?.value.range ?? v.entry("model", "_target_")?.value.range;
    const opt = optimizer.split(".").pop()!;
    const fixes = model.entry ? [fix("Store the model in float32 (fp32 master weights)", [replaceValue(model.entry, "float32")])] : [];
    d.add(
      "bf16-weights-adam",
      small ? "warning" : "information",
      at,
      {
        message: `${opt} on ${low} weights, no fp32 master copy${lrShown === undefined ? "" : lr! < 1e-5 ? ` (lr = ${lrShown}: small updates round away)` : ` (lr = ${lrShown})`}`,
        detail: `${model.detail}: NeMo AutoModel keeps the parameters in ${low}; ${strategy === "fsdp2" ? "FSDP2's mp_policy only casts them for compute, and " : ""}the sharded parameters, their gradients and ${opt}'s state stay ${low}, with no fp32 master copy.${lrShown !== undefined ? ` With lr = ${lrShown}, updates smaller than ${low} resolves relative to a weight round away.` : ""} Set \`model.torch_dtype: float32\`${strategy === "fsdp2" ? " and keep the mp_policy's bf16 param_dtype for compute" : ""} (FSDP2Config's fp32 master-weights pattern).`,
      },
      fixes,
    );
    return d.out;
  },
};
