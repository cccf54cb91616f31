/**
 * verl/param-dtype-not-applied: mixed_precision.param_dtype that this verl version's forward ignores (bf16 autocast
 * hard-coded).
 *
 * `mixed_precision.param_dtype` set to something other than bf16 where verl's forward ignores it.
 * Before verl 0.8.0 the FSDP engine's `forward_step` wraps the forward in `torch.autocast(dtype=torch.bfloat16)`
 * whatever the policy says (`workers/engine/fsdp/transformer_impl.py` at 0.7.1; fixed by verl-project/verl#6150,
 * first released in 0.8.0), and the legacy critic (`workers/critic/dp_critic.py` at 0.7.1) does the same. The
 * engine runs when `trainer.use_legacy_worker_impl=disable`; the legacy actor honours `param_dtype`. Matmuls
 * then run in bf16 although the config asks for fp32 (or fp16). Rests on the verl version: silent when the
 * newest release is assumed (it has the fix).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import { dtypeOf, type VerlContext } from "../context";
import { hardCodesBf16 } from "../resolve";

export const paramDtypeNotApplied: FrameworkRule<VerlContext> = {
  codes: ["verl/param-dtype-not-applied"],
  restsOn: ["version"],
  run(ctx) {
    const d = diagnostics("verl");
    for (const r of ctx.roles) {
      if (r.strategy.value !== "fsdp" && r.strategy.value !== "fsdp2") continue;
      const p = r.paramDtype;
      const dt = dtypeOf(p);
      if (!p || p.origin !== "file" || !dt || dt === "bfloat16" || !hardCodesBf16(ctx, r)) continue;
      const where = ctx.workers === "engine" ? "the FSDP engine's forward_step (trainer.use_legacy_worker_impl=disable)" : "the legacy critic (dp_critic.py)";
      d.add("param-dtype-not-applied", "warning", p.range, {
        message: `${r.name}: \`param_dtype=${String(p.value)}\` is not applied in forward: ${ctx.version.detail.replace(/ pinned in .*$/, "")} autocasts to bf16`,
        detail: `${where} wraps the ${r.name}'s forward in torch.autocast(dtype=torch.bfloat16) at ${ctx.version.detail}, whatever \`${r.engine}.mixed_precision.param_dtype\` says, so matmuls run in bf16, not ${dt}. verl 0.8.0 honours it (verl-project/verl#6150). Upgrade verl${ctx.workers === "engine" && r.name === "actor" ? ", or use the legacy workers (`trainer.use_legacy_worker_impl=auto`)" : ""}.`,
      });
    }
    return d.out;
  },
};
