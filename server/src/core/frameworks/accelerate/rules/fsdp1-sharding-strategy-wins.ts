/**
 * accelerate/fsdp1-sharding-strategy-wins: FSDP1 under accelerate launch: the exported sharding strategy wins over
 * reshard_after_forward.
 *
 * FSDP1 `fsdp_reshard_after_forward` alone probably still runs FULL_SHARD under `accelerate launch`.
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, insertLineAfter } from "../../common/edits";
import { STRATEGIES } from "../data";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const fsdp1ShardingStrategyWins: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/fsdp1-sharding-strategy-wins"],
  restsOn: [],
  run({ doc, v, distType, fsdpVersion }) {
    const d = diagnostics("accelerate");
    if (distType !== "FSDP") return d.out;
    const f = v.at("fsdp_config");
    const raf = f.entry("fsdp_reshard_after_forward");
    if (fsdpVersion !== 2) {
      if (raf && raf.value.kind === "string" && (raf.value.value as string).toUpperCase() !== "FULL_SHARD" && STRATEGIES.includes((raf.value.value as string).toUpperCase()) && !f.has("fsdp_sharding_strategy")) {
        const s = (raf.value.value as string).toUpperCase();
        d.add("fsdp1-sharding-strategy-wins", "information", raf.value.range, { message: fitMessage(`\`fsdp_reshard_after_forward: ${s}\` alone probably still runs FULL_SHARD under accelerate launch`), detail: `With FSDP1 under \`accelerate launch\`, FSDP_SHARDING_STRATEGY is always exported (default FULL_SHARD) and the v1 plugin prefers it, so \`fsdp_reshard_after_forward: ${s}\` alone probably still runs FULL_SHARD. Also set \`fsdp_sharding_strategy: ${s}\`.` }, [
          fix(`Add fsdp_sharding_strategy: ${s}`, [insertLineAfter(doc, raf.range, `fsdp_sharding_strategy: ${s}`)], true),
        ]);
      }
    }
    return d.out;
  },
};
