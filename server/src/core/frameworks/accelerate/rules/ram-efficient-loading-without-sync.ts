/**
 * accelerate/ram-efficient-loading-without-sync: RAM-efficient loading without fsdp_sync_module_states.
 *
 * FSDP1 CPU-RAM-efficient loading needs `fsdp_sync_module_states: true`.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const ramEfficientLoadingWithoutSync: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/ram-efficient-loading-without-sync"],
  restsOn: [],
  run({ v, distType, fsdpVersion }) {
    const d = diagnostics("accelerate");
    if (distType !== "FSDP") return d.out;
    const f = v.at("fsdp_config");
    if (fsdpVersion !== 2) {
      const sync = f.entry("fsdp_sync_module_states");
      const cre = f.entry("fsdp_cpu_ram_efficient_loading");
      if (sync && sync.value.value === false && (!cre || cre.value.value === true)) {
        d.add("ram-efficient-loading-without-sync", "error", sync.value.range, { message: `\`fsdp_cpu_ram_efficient_loading\` needs \`fsdp_sync_module_states: true\`: \`accelerate launch\` raises ValueError`, detail: `\`fsdp_cpu_ram_efficient_loading\` is ${cre ? "true" : "true by default at launch"} and needs \`fsdp_sync_module_states: true\` (only rank 0 loads the weights); \`accelerate launch\` raises ValueError.` }, [fix("Set fsdp_sync_module_states: true", [replaceValue(sync, "true")], true)]);
      }
    }
    return d.out;
  },
};
