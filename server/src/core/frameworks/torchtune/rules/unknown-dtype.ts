/**
 * torchtune/unknown-dtype: A dtype name torchtune does not accept.
 *
 * `dtype` is not a torchtune dtype name (or not a string): the recipe raises ValueError.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";
import { DTYPE_MAP, DTYPES } from "../data";

export const unknownDtype: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/unknown-dtype"],
  restsOn: [],
  run({ dtypeEntry, dtypeWritten: dtypeName }) {
    const d = diagnostics("torchtune");
    if (dtypeEntry && dtypeName !== undefined && !(dtypeName in DTYPES)) {
      const to = DTYPE_MAP[dtypeName.toLowerCase()];
      d.add("unknown-dtype", "error", dtypeEntry.value.range, { message: `\`dtype: ${dtypeName}\` is not a torchtune dtype name: recipes raise ValueError${to ? `; use \`${to}\`` : ""}`, detail: `\`dtype: ${dtypeName}\` is not a torchtune dtype name: recipes raise ValueError "Dtype ${dtypeName} must be one of fp16, bf16, fp32, fp64 for finetuning".${to ? ` Use \`${to}\`.` : ""}` }, to ? [fix(`Change to ${to}`, [replaceValue(dtypeEntry, to)], true)] : []);
    } else if (dtypeEntry && dtypeEntry.value.kind !== "string" && dtypeEntry.value.kind !== "null") {
      d.add("unknown-dtype", "error", dtypeEntry.value.range, `\`dtype\` must be one of bf16, fp32 (fp16 and fp64 parse); got ${dtypeEntry.value.raw ?? String(dtypeEntry.value.value)}.`, [fix("Change to bf16", [replaceValue(dtypeEntry, "bf16")], true)]);
    }
    return d.out;
  },
};
