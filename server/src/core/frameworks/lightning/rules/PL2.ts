/** lightning/PL2: a legacy precision alias (16, bf16) that Lightning accepts with a deprecation warning. */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";
import { CANONICAL, LEGACY } from "../data";

export const PL2: FrameworkRule<LightningContext> = {
  codes: ["lightning/PL2"],
  restsOn: [],
  run({ pe, precision }) {
    const d = diagnostics("lightning");
    if (!pe || pe.value.kind === "null") return d.out;
    const raw = String(pe.value.value);
    // Lightning warns only for the 16/bf16 aliases: `if str(precision)[:2] not in ("32", "64")`
    // (src/lightning/fabric/connector.py:570 at 2.6.5), so 32 and 64 are silent aliases.
    if (!CANONICAL.includes(raw) && raw in LEGACY && raw !== "32" && raw !== "64") d.add("PL2", "warning", pe.value.range, { message: fitMessage(`\`precision: ${pe.value.raw ?? raw}\` is a legacy alias: Lightning warns and runs ${precision}`), detail: `\`precision: ${pe.value.raw ?? raw}\` is a legacy alias: Lightning accepts it with a deprecation warning and runs ${precision}. Write \`${precision}\`.` }, [fix(`Use ${precision}`, [replaceValue(pe, precision)], true)]);
    return d.out;
  },
};
