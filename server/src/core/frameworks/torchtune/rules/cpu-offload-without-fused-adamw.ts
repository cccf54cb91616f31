/**
 * torchtune/cpu-offload-without-fused-adamw: FSDP CPU offload without fused AdamW: the CPU optimizer step is slow.
 *
 * `fsdp_cpu_offload: True` without `optimizer.fused: True`: a slow CPU optimizer step.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, insertLineAfter, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";

export const cpuOffloadWithoutFusedAdamw: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/cpu-offload-without-fused-adamw"],
  restsOn: [],
  run({ v, doc }) {
    const d = diagnostics("torchtune");
    const optComp = v.entry("optimizer", "_component_");
    const cpuOff = v.entry("fsdp_cpu_offload");
    if (cpuOff && cpuOff.value.value === true) {
      const fused = v.entry("optimizer", "fused");
      if (!fused || fused.value.value !== true) {
        const fixes = fused ? [fix("Set fused: True", [replaceValue(fused, "True")], true)] : optComp ? [fix("Add fused: True", [insertLineAfter(doc, optComp.range, "fused: True")], true)] : [];
        d.add("cpu-offload-without-fused-adamw", "information", cpuOff.value.range, { message: "`fsdp_cpu_offload: True` runs the optimizer step on the CPU, which is slow with `optimizer.fused` " + (fused ? "False" : "unset"), detail: "`fsdp_cpu_offload: True` runs the optimizer step on the CPU; with `optimizer.fused` " + (fused ? "False" : "unset") + " that step is slow. torchtune recommends `fused: True` for CPU offload." }, fixes);
      }
    }
    return d.out;
  },
};
