/**
 * verl/bf16-weights-adamw: An actor or critic trained with model_dtype bf16: AdamW on bf16 weights, no fp32 master
 * copy.
 *
 * An actor or critic trained under FSDP with `fsdp_config.model_dtype: bf16`. The worker loads the
 * model in that dtype and builds the optimizer over those parameters, so AdamW's moments and the weights it
 * updates are bf16 with no fp32 master copy: verl's own worker says "we have to create model in fp32.
 * Otherwise, the optimizer is in bf16, which is incorrect" (`workers/fsdp_workers.py` line 376 at 0.7.1), and
 * defaults `model_dtype` to fp32 for every trained role (`_generated_ppo_trainer.yaml` 0.6.1 – 0.9.1). At
 * verl's default actor learning rate (1e-6) most updates are below bf16's resolution relative to the weights
 * and round away. A warning when the learning rate is below 1e-5 (or unknown: verl's defaults are below),
 * information when it is known and larger.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { pureBf16Risk } from "../../common/pureLowPrecision";
import type { FrameworkRule } from "../../common/rule";
import { dtypeOf, type VerlContext } from "../context";

export const bf16WeightsAdamw: FrameworkRule<VerlContext> = {
  codes: ["verl/bf16-weights-adamw"],
  restsOn: [],
  run(ctx) {
    const d = diagnostics("verl");
    for (const r of ctx.roles) {
      if (!r.trains || (r.strategy.value !== "fsdp" && r.strategy.value !== "fsdp2")) continue;
      if (dtypeOf(r.modelDtype) !== "bfloat16" || r.modelDtype.origin !== "file") continue;
      const opt = String(r.optimizer?.value ?? "AdamW");
      if (!/adam/i.test(opt)) continue;
      const lr = typeof r.lr?.value === "number" ? r.lr.value : undefined;
      const { why } = pureBf16Risk({ lr });
      const lrShown = lr === undefined ? undefined : lr < 1e-3 ? lr.toExponential() : String(lr);
      const lrText = lr !== undefined ? `lr = ${lr} (${r.lr!.where})` : "an unknown learning rate";
      const severity = lr === undefined || lr < 1e-5 ? "warning" : "information";
      const key = `${r.engine}.model_dtype`;
      d.add("bf16-weights-adamw", severity, r.modelDtype.range, {
        message: `${r.name} \`model_dtype=${String(r.modelDtype.value)}\`: ${opt} on bf16 weights, no fp32 master copy${lrShown === undefined ? "" : lr! < 1e-5 ? ` (lr = ${lrShown}: small updates round away)` : ` (lr = ${lrShown})`}`,
        detail: `\`${key}=${String(r.modelDtype.value)}\`: verl loads the ${r.name} in bf16 and builds ${opt} over those parameters, so the weights and the optimizer's moments are bf16 with no fp32 master copy (verl's worker: "we have to create model in fp32. Otherwise, the optimizer is in bf16"). With ${lrText}, updates smaller than bf16 resolves relative to a weight round away.${why} Leave \`model_dtype\` at its default fp32: the FSDP mixed-precision policy still runs forward and backward in bf16 (\`mixed_precision.param_dtype\`).`,
      });
    }
    return d.out;
  },
};
