/**
 * verl/fp16-without-loss-scaling: fp16 parameters where this verl version creates no loss scaler.
 *
 * fp16 as the FSDP `param_dtype` where verl creates no loss scaler. fp16 gradients underflow
 * without one. The engine creates a ShardedGradScaler for fp16 from verl 0.8.0
 * (`workers/engine/fsdp/transformer_impl.py` `_build_fsdp_module`), the legacy actor since 0.6.1
 * (`workers/actor/dp_actor.py`); verl 0.7.1's engine and its legacy critic (`dp_critic.py`) have none. Rests
 * on the verl version.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import { dtypeOf, type VerlContext } from "../context";
import { paramDtype, versionFixed } from "../resolve";

export const fp16WithoutLossScaling: FrameworkRule<VerlContext> = {
  codes: ["verl/fp16-without-loss-scaling"],
  restsOn: ["version"],
  run(ctx) {
    const d = diagnostics("verl");
    if (versionFixed(ctx)) return d.out;
    for (const r of ctx.roles) {
      if (!r.trains || (r.strategy.value !== "fsdp" && r.strategy.value !== "fsdp2")) continue;
      if (paramDtype(ctx, r).dtype !== "float16") continue;
      const noScaler = ctx.workers === "engine" || r.name === "critic";
      if (!noScaler) continue;
      const v = r.paramDtype ?? r.legacyDtype;
      if (!v || v.origin !== "file" || dtypeOf(v) !== "float16") continue;
      d.add("fp16-without-loss-scaling", "warning", v.range, {
        message: `${r.name}: fp16 parameters with no loss scaler at ${ctx.version.detail.replace(/ pinned in .*$/, "")}: small gradients underflow to zero`,
        detail: `At ${ctx.version.detail}, ${ctx.workers === "engine" ? "the FSDP engine" : "the legacy critic"} creates no gradient scaler, so fp16 gradients of the ${r.name} below fp16's range flush to zero (verl 0.8.0's engine adds a ShardedGradScaler for fp16). Use bf16, or upgrade verl.`,
      });
    }
    return d.out;
  },
};
