/**
 * lightning/legacy-precision-alias: A legacy precision alias (16, bf16, 32, 64).
 *
 * A legacy precision alias (16, bf16) that Lightning 2 accepts with a deprecation warning. On a
 * pinned pytorch-lightning 1.x, `16` and `bf16` are the normal values (1.9.5
 * src/pytorch_lightning/trainer/connectors/accelerator_connector.py:93; the `-mixed` names came with 2.0): silent.
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";
import { CANONICAL, LEGACY } from "../data";
import { versionAtLeast } from "../../../workspace/packagePin";

export const legacyPrecisionAlias: FrameworkRule<LightningContext> = {
  codes: ["lightning/legacy-precision-alias"],
  restsOn: [],
  run({ pe, precision, lv }) {
    const d = diagnostics("lightning");
    if (!pe || pe.value.kind === "null") return d.out;
    if (lv.pinned && !versionAtLeast(lv.pinned, "2.0.0")) return d.out;
    const raw = String(pe.value.value);
    // Lightning warns only for the 16/bf16 aliases: `if str(precision)[:2] not in ("32", "64")`
    // (src/lightning/fabric/connector.py:570 at 2.6.5), so 32 and 64 are silent aliases.
    if (!CANONICAL.includes(raw) && raw in LEGACY && raw !== "32" && raw !== "64") d.add("legacy-precision-alias", "warning", pe.value.range, { message: fitMessage(`\`precision: ${pe.value.raw ?? raw}\` is a legacy alias: Lightning warns and runs ${precision}`), detail: `\`precision: ${pe.value.raw ?? raw}\` is a legacy alias: Lightning accepts it with a deprecation warning and runs ${precision}. Write \`${precision}\`.${lv.pinned ? "" : ` (${lv.detail}; on pytorch-lightning 1.x it is the normal value.)`}` }, [fix(`Use ${precision}`, [replaceValue(pe, precision)], true)]);
    return d.out;
  },
};
