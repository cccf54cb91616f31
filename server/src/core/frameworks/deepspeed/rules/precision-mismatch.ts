/**
 * deepspeed/precision-mismatch: This DeepSpeed file and the config that references it disagree on precision.
 *
 * Seen from the JSON side: a YAML config that uses this file requests another mode. The YAML side reports the
 * same code (accelerate, Axolotl and Lightning `deepspeed-link.ts`).
 */
import { firstFitting } from "../../../diagnostics/build";
import { baseName } from "../../common/linkedFiles";
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import { relateLast } from "../../common/related";
import type { DeepSpeedContext } from "../context";
import { dsConflict } from "../linked";

export const precisionMismatch: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/precision-mismatch"],
  restsOn: [],
  run({ f, referrers }) {
    const d = diagnostics("deepspeed");
    for (const r of referrers) {
      const c = dsConflict(f, r.mode, r.framework);
      if (!c) continue;
      const e = c.entry;
      d.add("precision-mismatch", c.inferred ? "information" : "warning", e.range, firstFitting([`${c.what} here, but ${r.relPath} sets ${r.label}: ${c.brief}`, `${c.what} here, but ${baseName(r.relPath)} sets ${r.label}: ${c.brief}`, `${c.what} here, but a config using this file sets ${r.label}: ${c.brief}`]), undefined, undefined, `${c.what} here, but ${r.relPath} (${r.framework}), which uses this file, sets ${r.label}. ${c.consequence}`);
      relateLast(d, "deepspeed/precision-mismatch", r.path, r.keyRange, `${r.relPath} sets ${r.label}`);
    }
    return d.out;
  },
};
