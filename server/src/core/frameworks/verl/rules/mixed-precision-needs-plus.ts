/**
 * verl/mixed-precision-needs-plus: A mixed_precision override without +: Hydra rejects a key verl's config lacks.
 *
 * A `…fsdp_config.mixed_precision.<x>=…` override without `+` on verl's packaged config. verl's
 * `ppo_trainer.yaml` has no `mixed_precision` key (0.6.1 – 0.9.1: the dataclass field defaults to None and the
 * YAML omits it), and Hydra refuses to override a key the composed config lacks ("Could not override … To
 * append to your config use +…"), so the launch fails before training. Only on the packaged config (a user
 * YAML may define the key) and only for the versions read; rests on the version. A `+` override of one key does not make a plain override of
 * another key under `mixed_precision` valid: the new mapping is in struct mode too.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import { versionAtLeast } from "../../../workspace/packagePin";
import type { VerlContext } from "../context";

export const mixedPrecisionNeedsPlus: FrameworkRule<VerlContext> = {
  codes: ["verl/mixed-precision-needs-plus"],
  restsOn: ["version"],
  run(ctx) {
    const d = diagnostics("verl");
    if (ctx.doc.format !== "shell" || !ctx.base.startsWith("verl's packaged") || !versionAtLeast(ctx.version.version, "0.6.1")) return d.out;
    for (const [k, v] of ctx.values) {
      if (v.origin !== "file" || v.plus || !v.range || !/(?:^|\.)fsdp_config\.mixed_precision(?:\.|$)|^critic\.fsdp\.mixed_precision(?:\.|$)/.test(k)) continue;
      d.add("mixed-precision-needs-plus", "error", v.range, { message: "verl's config has no `mixed_precision`: Hydra rejects this override without a leading `+`", detail: `verl's packaged config (${ctx.version.detail}) has no \`mixed_precision\` key under the engine config, and Hydra refuses to override a key the config lacks ("Could not override '${k}'. To append to your config use +${k}=…"): the launch fails. Prefix the override with \`+\`.` }, [
        fix("Prefix with +", [{ range: { start: v.range.start, end: v.range.start }, newText: "+" }], true),
      ]);
    }
    return d.out;
  },
};
