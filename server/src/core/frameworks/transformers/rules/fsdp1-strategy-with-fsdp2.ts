/**
 * transformers/fsdp1-strategy-with-fsdp2: An FSDP1-only `fsdp` strategy (hybrid_shard, no_shard) with FSDP2, the
 * default from transformers 5.10.1: ValueError.
 *
 * An `fsdp` sharding strategy that only FSDP1 has (`no_shard`, `hybrid_shard`,
 * `hybrid_shard_zero2`) with FSDP version 2. From transformers 5.10.1 `fsdp_config.version` defaults to 2
 * (training_args.py:2736@5.10.1; 1 at 5.9.0, :2812), and with version 2 TrainingArguments.__post_init__ maps only
 * `full_shard` / `shard_grad_op` to `reshard_after_forward` and raises ValueError "`fsdp=…` is only available with
 * FSDP1" for the others (training_args.py:2826-2839@5.10.1). An error resting on the transformers version when the
 * version 2 is that default (the central gate makes it a warning without a pin); none when the file sets
 * `fsdp_config.version`.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { restingOn } from "../../../provenance";
import type { TransformersRule } from "../context";
import { versionAtLeast } from "../../../workspace/packagePin";
import { FSDP1_ONLY_STRATEGIES, FSDP2_DEFAULT_SINCE } from "../data";

export const fsdp1StrategyWithFsdp2: TransformersRule = {
  codes: ["transformers/fsdp1-strategy-with-fsdp2"],
  restsOn: ["version"],
  versionOf: "transformers",
  run(ctx) {
    const d = diagnostics("transformers");
    const { v, fsdpVersion, versions, launcherFrom } = ctx;
    const e = v.entry("fsdp");
    if (!e || launcherFrom !== "file" || fsdpVersion?.value !== 2) return d.out;
    // `fsdp: "hybrid_shard auto_wrap"` or a list of options.
    const items = e.value.kind === "string" ? (e.value.value as string).split(/\s+/) : v.entriesUnder("fsdp").map((x) => (x.value.kind === "string" ? (x.value.value as string) : ""));
    const bad = items.find((s) => FSDP1_ONLY_STRATEGIES.includes(s.toLowerCase()));
    if (!bad) return d.out;
    // Before 5.10.1 the check does not exist: version 2 set explicitly there is not this rule's to judge.
    if (fsdpVersion.source === "file" && !versionAtLeast(versions.transformers.value, FSDP2_DEFAULT_SINCE)) return d.out;
    d.add("fsdp1-strategy-with-fsdp2", "error", e.value.range, `\`fsdp: ${bad}\` with FSDP2 (${fsdpVersion.source === "file" ? "`fsdp_config.version: 2`" : `the default from transformers ${FSDP2_DEFAULT_SINCE}`}): TrainingArguments raises ValueError, it is FSDP1 only`, undefined, undefined, `FSDP2 has no \`${bad}\` strategy: with FSDP version 2 (${fsdpVersion.detail}) TrainingArguments maps only \`full_shard\` and \`shard_grad_op\` to \`reshard_after_forward\` and raises ValueError "\`fsdp=${bad}\` is only available with FSDP1". Set \`fsdp_config.version: 1\`, or use \`full_shard\` (a 2-D mesh for hybrid sharding goes through \`parallelism_config\`).`);
    restingOn(d.out[0]!, fsdpVersion.source === "file" ? [] : ["version"]);
    return d.out;
  },
};
