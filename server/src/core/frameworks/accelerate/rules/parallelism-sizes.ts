/**
 * accelerate/parallelism-sizes: Parallelism sizes that do not fit the world size or each other.
 *
 * `parallelism_config` sizes accelerate rejects (product ≠ world size, TP/CP with pure replication, CP with SP, CP without FSDP2).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const parallelismSizes: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/parallelism-sizes"],
  restsOn: ["worldSize"],
  run({ v, par, worldSize, distType, fsdpVersion }) {
    const d = diagnostics("accelerate");
    const { sizes, explicit } = par;
    if (!explicit) return d.out;
    const header = v.keyRange("parallelism_config");
    const { dp_replicate_size: rep, dp_shard_size: shard, tp_size: tp, cp_size: cp, sp_size: sp } = sizes as Record<string, number>;
    const product = rep! * shard! * tp! * cp! * sp!;
    if (worldSize && worldSize.source !== "distributed_type" && product !== worldSize.value) {
      d.add("parallelism-sizes", "error", header, { message: `The parallelism sizes multiply to ${product} but the world size is ${worldSize.value}: accelerate requires them to be equal`, detail: `The parallelism sizes multiply to ${product} (dp_replicate ${rep} × dp_shard ${shard} × tp ${tp} × cp ${cp}${sp! > 1 ? ` × sp ${sp}` : ""}) but the world size is ${worldSize.value} (${worldSize.detail}); accelerate requires them to be equal.` });
    }
    if ((tp! > 1 || cp! > 1) && rep! > 1 && shard === 1) {
      d.add("parallelism-sizes", "error", header, { message: `TP/CP with pure replication (dp_replicate ${rep}, dp_shard 1) is rejected by accelerate (ValueError)`, detail: `TP/CP with pure replication (dp_replicate ${rep}, dp_shard 1) is rejected by accelerate (ValueError); shard the data-parallel dimension (dp_shard > 1) or drop dp_replicate.` });
    }
    if (cp! > 1 && sp! > 1) d.add("parallelism-sizes", "error", header, "Context parallelism (cp_size > 1) with sequence parallelism (sp_size > 1): accelerate raises ValueError");
    if (cp! > 1 && !(distType === "FSDP" && fsdpVersion === 2)) {
      d.add("parallelism-sizes", "error", header, { message: `Context parallelism (cp_size ${cp}) needs FSDP2; this config uses ${distType === "FSDP" ? "FSDP1" : distType ?? "no FSDP"}`, detail: `Context parallelism (cp_size ${cp}) needs FSDP2 (\`distributed_type: FSDP\` with \`fsdp_config.fsdp_version: 2\`); this config uses ${distType === "FSDP" ? "FSDP1" : distType ?? "no FSDP"}.` });
    }
    return d.out;
  },
};
