/**
 * axolotl/load-dtype-only: bfloat16/float16: true only sets the load dtype; bf16 AMP stays on.
 *
 * `bfloat16`/`float16: true` only set the load dtype; bf16 AMP stays on unless `bf16: false`.
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, insertLineAfter, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AxolotlContext } from "../context";

export const loadDtypeOnly: FrameworkRule<AxolotlContext> = {
  codes: ["axolotl/load-dtype-only"],
  restsOn: [],
  run({ v, doc, bf16, bf16E }) {
    const d = diagnostics("axolotl");
    for (const k of ["bfloat16", "float16"] as const) {
      const e = v.entry(k);
      if (!e || e.value.value !== true || bf16 === false) continue;
      d.add("load-dtype-only", "information", e.value.range, { message: fitMessage(`\`${k}: true\` only sets the load dtype: bf16 AMP is still on for Ampere or newer GPUs`), detail: `\`${k}: true\` only sets the load dtype, but \`bf16\` is ${bf16E ? String(bf16E.value.raw ?? bf16E.value.value) : "unset (auto)"}, so bf16 AMP is still turned on for Ampere or newer GPUs. Set \`bf16: false\` for ${k} weights without AMP, or drop \`${k}\` for AMP.` }, [
        bf16E ? fix("Set bf16: false (no AMP)", [replaceValue(bf16E, "false")], true) : fix("Add bf16: false (no AMP)", [insertLineAfter(doc, e.range, "bf16: false")], true),
      ]);
    }
    return d.out;
  },
};
