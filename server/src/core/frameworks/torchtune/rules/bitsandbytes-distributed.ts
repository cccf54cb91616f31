/**
 * torchtune/bitsandbytes-distributed: A bitsandbytes optimizer in a distributed recipe.
 *
 * A bitsandbytes optimizer in a distributed config (single-device only; fails under FSDP2).
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";

export const bitsandbytesDistributed: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/bitsandbytes-distributed"],
  restsOn: [],
  run({ v, distributed }) {
    const d = diagnostics("torchtune");
    const optComp = v.entry("optimizer", "_component_");
    if (optComp && typeof optComp.value.value === "string" && (optComp.value.value as string).startsWith("bitsandbytes.") && distributed) {
      d.add("bitsandbytes-distributed", "warning", optComp.value.range, { message: fitMessage(`\`${optComp.value.value as string}\` in a distributed config: paged AdamW fails under FSDP2`), detail: `\`${optComp.value.value as string}\` in a distributed config: bitsandbytes optimizers are documented for single-device recipes only, and paged AdamW fails under FSDP2 (meta-pytorch/torchtune#1856).` }, [
        fix("Use torchao.prototype.low_bit_optim.AdamW8bit", [replaceValue(optComp, "torchao.prototype.low_bit_optim.AdamW8bit")], true),
      ]);
    }
    return d.out;
  },
};
