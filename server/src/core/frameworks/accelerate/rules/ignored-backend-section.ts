/**
 * accelerate/ignored-backend-section: A deepspeed_config / fsdp_config section under another distributed_type: accelerate launch ignores it.
 *
 * a `deepspeed_config` section under a `distributed_type` other than DEEPSPEED, or an `fsdp_config`
 * section under one other than FSDP, is read and then ignored by `accelerate launch`. The launcher picks DeepSpeed or
 * FSDP from `distributed_type` alone unless the command line passes `--use_deepspeed` / `--use_fsdp`
 * (commands/launch.py:1214-1239 and 1387-1407@v1.14.0; :995 and 1151-1174@v0.34.2); the section's keys are copied
 * onto the arguments (:1258-1270@v1.14.0) but only the DeepSpeed launcher exports them
 * (utils/launch.py:565-567@v1.14.0, `ACCELERATE_USE_DEEPSPEED`, `ACCELERATE_DEEPSPEED_ZERO_STAGE`), so a `zero3.yaml`
 * set to `distributed_type: NO` runs one process without ZeRO, with whatever precision that gives. An empty section
 * (`deepspeed_config: {}`, as `accelerate config` writes them) is silent. The finding holds for every launch line but
 * one that passes the flag, which it names.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

const SECTIONS = [
  { key: "deepspeed_config", type: "DEEPSPEED", flag: "--use_deepspeed", what: "DeepSpeed" },
  { key: "fsdp_config", type: "FSDP", flag: "--use_fsdp", what: "FSDP" },
] as const;

export const ignoredBackendSection: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/ignored-backend-section"],
  restsOn: [],
  run({ v, distType, distEntry }) {
    const d = diagnostics("accelerate");
    if (!distType || !distEntry) return d.out;
    for (const s of SECTIONS) {
      if (distType === s.type || !v.isSection(s.key)) continue;
      const keys = v.at(s.key).childKeys();
      if (keys.length === 0) continue;
      const range = v.keyRange(s.key);
      if (!range) continue;
      const stage = s.key === "deepspeed_config" ? v.num("deepspeed_config", "zero_stage") : undefined;
      const runs = distType === "NO" ? "one process" : distType === "MULTI_GPU" ? "DDP" : `\`${distType}\``;
      d.add("ignored-backend-section", "warning", range, `\`${s.key}\` is ignored with \`distributed_type: ${distType}\`: ${s.what}${stage !== undefined ? ` ZeRO-${stage}` : ""} does not run (${runs})`, undefined, undefined,
        `\`accelerate launch\` chooses ${s.what} from \`distributed_type\` (here ${distType}) unless the command line passes \`${s.flag}\`; the ${keys.length} key(s) under \`${s.key}\` (${keys.slice(0, 4).map((k) => `\`${k}\``).join(", ")}${keys.length > 4 ? ", …" : ""}) are copied onto the launch arguments, but only the ${s.what} launcher uses them, so the run is ${runs}${s.key === "deepspeed_config" ? " with no ZeRO partitioning and no fp32 master partitions" : " without FSDP sharding"}. Set \`distributed_type: ${s.type}\` to run ${s.what}, or remove the section.`);
    }
    return d.out;
  },
};
