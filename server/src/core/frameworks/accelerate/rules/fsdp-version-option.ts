/**
 * accelerate/fsdp-version-option: FSDP1-only options, or the wrong reshard_after_forward type for the FSDP version.
 *
 * FSDP1 options under `fsdp_version: 2`, and `fsdp_reshard_after_forward` of the wrong kind for the FSDP version.
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { removeKey, fix, replaceValue } from "../../common/edits";
import { STRATEGIES, V1_ONLY } from "../data";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const fsdpVersionOption: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/fsdp-version-option"],
  restsOn: [],
  run({ doc, v, distType, fsdpVersion }) {
    const d = diagnostics("accelerate");
    if (distType !== "FSDP") return d.out;
    const f = v.at("fsdp_config");
    const raf = f.entry("fsdp_reshard_after_forward");
    if (fsdpVersion === 2) {
      for (const k of V1_ONLY) {
        if (!f.has(k)) continue;
        d.add("fsdp-version-option", "warning", f.keyRange(k), { message: fitMessage(`\`${k}\` is an FSDP1 option: with \`fsdp_version: 2\` accelerate ignores it`), detail: `\`${k}\` is an FSDP1 option; with \`fsdp_version: 2\` accelerate ignores it (or warns and drops it). Remove it, or run \`accelerate to-fsdp2\` to convert the file.` }, [fix(`Remove \`${k}\``, removeKey(doc, f.sectionRange(k)!), true)]);
      }
      if (raf && raf.value.kind === "string" && STRATEGIES.includes((raf.value.value as string).toUpperCase())) {
        const s = (raf.value.value as string).toUpperCase();
        const to = s === "FULL_SHARD" || s === "HYBRID_SHARD" ? "true" : "false";
        d.add("fsdp-version-option", "error", raf.value.range, { message: fitMessage(`With \`fsdp_version: 2\`, \`fsdp_reshard_after_forward: ${s}\` makes accelerate raise ValueError (use ${to})`), detail: `With \`fsdp_version: 2\`, \`fsdp_reshard_after_forward\` must be a boolean; the FSDP1 strategy "${s}" makes accelerate raise ValueError. ${s} corresponds to ${to}.` }, [fix(`Replace with ${to}`, [replaceValue(raf, to)], true)]);
      }
    } else if (raf && raf.value.kind === "boolean") {
      // FSDP1 never reads it: `accelerate launch` always exports FSDP_SHARDING_STRATEGY (utils/launch.py:313@v1.14.0,
      // default FULL_SHARD), and the plugin falls back to reshard_after_forward only when no sharding strategy is set
      // (utils/dataclasses.py:1845-1854@v1.14.0; the same at v1.6.0–v1.12.0, absent before). So its FSDP1 type check
      // is never reached through the launcher: the value is ignored, nothing raises (held-back LLaMA-Factory fork).
      d.add("fsdp-version-option", "information", raf.value.range, { message: fitMessage(`With FSDP1, \`fsdp_reshard_after_forward\` is not read: \`fsdp_sharding_strategy\` decides`), detail: `With FSDP1 (\`fsdp_version\` ${f.has("fsdp_version") ? "1" : "absent, so 1"}), accelerate launch always passes a sharding strategy (\`fsdp_sharding_strategy\`, default FULL_SHARD), and the FSDP plugin reads \`reshard_after_forward\` only when none is set, so this value has no effect. It is FSDP2's option (\`fsdp_version: 2\`).` });
    }
    return d.out;
  },
};
