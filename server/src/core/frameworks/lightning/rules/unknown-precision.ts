/**
 * lightning/unknown-precision: A precision value Lightning does not accept.
 *
 * `precision` is not a Lightning precision: Trainer raises ValueError (fix: the nearest one).
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import { nearest } from "../../common/wording";
import type { LightningContext } from "../context";
import { CANONICAL, GUESS } from "../data";

export const unknownPrecision: FrameworkRule<LightningContext> = {
  codes: ["lightning/unknown-precision"],
  restsOn: [],
  run({ pe, valid }) {
    const d = diagnostics("lightning");
    if (pe && !valid) {
      const raw = String(pe.value.value);
      const to = GUESS[raw.toLowerCase()] ?? nearest(raw, CANONICAL);
      d.add("unknown-precision", "error", pe.value.range, { message: fitMessage(`\`precision: ${pe.value.raw ?? raw}\` is not a Lightning precision: Trainer raises ValueError`, to ? `; did you mean ${to}?` : ""), detail: `\`precision: ${pe.value.raw ?? raw}\` is not a Lightning precision: Trainer raises ValueError "Precision ${raw} is invalid". Allowed: ${CANONICAL.join(", ")} (legacy 16, bf16, 32, 64).${to ? ` Did you mean ${to}?` : ""}` }, to ? [fix(`Use ${to}`, [replaceValue(pe, to)], true)] : []);
    }
    return d.out;
  },
};
