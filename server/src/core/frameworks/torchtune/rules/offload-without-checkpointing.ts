/**
 * torchtune/offload-without-checkpointing: Activation offloading without activation checkpointing: the recipe raises.
 *
 * Activation offloading without activation checkpointing: RuntimeError.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, insertLineAfter, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";

export const offloadWithoutCheckpointing: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/offload-without-checkpointing"],
  restsOn: [],
  run({ v, doc }) {
    const d = diagnostics("torchtune");
    const offload = v.entry("enable_activation_offloading");
    if (offload && offload.value.value === true && v.bool("enable_activation_checkpointing") !== true) {
      const ac = v.entry("enable_activation_checkpointing");
      d.add("offload-without-checkpointing", "error", offload.value.range, { message: `\`enable_activation_offloading: True\` without activation checkpointing: the recipe raises RuntimeError`, detail: `\`enable_activation_offloading: True\` needs activation checkpointing, which is ${ac ? "off" : "off by default"}: the recipe raises RuntimeError.` }, [
        ac ? fix("Enable activation checkpointing", [replaceValue(ac, "True")], true) : fix("Enable activation checkpointing", [insertLineAfter(doc, offload.range, "enable_activation_checkpointing: True")], true),
      ]);
    }
    return d.out;
  },
};
