/** axolotl/AX1: a `bf16` value the schema rejects (e.g. the documented `full`), or the unknown key `bf16_full_eval`. */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { deleteLines, fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AxolotlContext } from "../context";

export const AX1: FrameworkRule<AxolotlContext> = {
  codes: ["axolotl/AX1"],
  restsOn: [],
  run({ v, doc, bf16, bf16E }) {
    const d = diagnostics("axolotl");
    if (bf16 === "invalid" && bf16E) {
      const full = bf16E.value.value === "full";
      d.add("AX1", "error", bf16E.value.range, { message: fitMessage(`\`bf16: ${bf16E.value.raw ?? String(bf16E.value.value)}\` is rejected by Axolotl's config schema (allowed: auto, true, false)`), detail: `\`bf16: ${bf16E.value.raw ?? String(bf16E.value.value)}\` is rejected by Axolotl's config schema (allowed: auto, true, false)${full ? "; the docs mention `bf16: full`, but the schema does not accept it" : ""}.` }, [fix("Use bf16: true", [replaceValue(bf16E, "true")], true)]);
    }
    const bfe = v.entry("bf16_full_eval");
    if (bfe) d.add("AX1", "error", bfe.keyRange, { message: "`bf16_full_eval` is not an Axolotl config key: the config fails validation", detail: "`bf16_full_eval` is not an Axolotl config key (the docs mention it, the schema does not have it); the config fails validation." }, [fix("Remove bf16_full_eval", [deleteLines(doc, bfe.range)], true)]);
    return d.out;
  },
};
