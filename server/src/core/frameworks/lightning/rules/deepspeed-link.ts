/**
 * lightning/deepspeed-config-missing: The referenced DeepSpeed config file was not found.
 *
 * The DeepSpeed strategy's `config` link (spec other-frameworks.md §6.7): deepspeed/precision-mismatch when `precision`
 * conflicts with the file, `deepspeed-config-missing` (information) when the file is not found.
 */
import { unreadLink } from "../../common/linkedFiles";
import { OUTSIDE_WORKSPACE } from "../../../workspace/boundary";
import { diagnostics } from "../../common/diagnosticBuilder";
import { requestedMode } from "../../common/deepspeedLinks";
import { relateLast } from "../../common/related";
import type { FrameworkRule } from "../../common/rule";
import { View } from "../../common/view";
import { firstFitting } from "../../../diagnostics/build";
import { baseName } from "../../common/linkedFiles";
import { dsConflict } from "../../deepspeed/linked";
import type { LightningContext } from "../context";

export const deepspeedLink: FrameworkRule<LightningContext> = {
  codes: ["deepspeed/precision-mismatch", "lightning/deepspeed-config-missing"],
  restsOn: [],
  run({ doc, env, st, pe, cfgRel, ds }) {
    const d = diagnostics("lightning");
    if (!cfgRel) return d.out;
    if (ds) {
      const req = requestedMode(new View(doc), "lightning");
      const c = dsConflict(ds.facts, req.mode, "lightning");
      if (c && pe) d.add("deepspeed/precision-mismatch", c.inferred ? "information" : "warning", pe.keyRange, firstFitting([`${req.label} here, but ${cfgRel} has ${c.what}: ${c.brief}`, `${req.label} here, but ${baseName(cfgRel)} has ${c.what}: ${c.brief}`, `${req.label} here, but its DeepSpeed file has ${c.what}: ${c.brief}`]), undefined, undefined, `${req.label} here, but ${cfgRel} has ${c.what}. ${c.consequence}`);
      if (c && pe) relateLast(d, "deepspeed/precision-mismatch", ds.path, c.entry.range, `${cfgRel} has ${c.what}`);
    } else if (env.documentPath && !cfgRel.includes("${")) {
      const e = st.args?.entry("config");
      const u = unreadLink(env, cfgRel);
      if (e && u.outside) d.add("deepspeed-config-missing", "information", e.value.range, `DeepSpeed config ${OUTSIDE_WORKSPACE}: its own settings cannot be checked`, undefined, undefined, `The DeepSpeed config \`${u.name}\` ${OUTSIDE_WORKSPACE}: its own settings cannot be checked. The run is still DeepSpeed (fp32 master weights in the ZeRO optimizer).`);
      else if (e) d.add("deepspeed-config-missing", "information", e.value.range, "DeepSpeed config not found next to this file or above it: its own settings cannot be checked", undefined, undefined, `The DeepSpeed config \`${cfgRel}\` was not found next to this file or in a folder above it, so its own settings cannot be checked. The run is still DeepSpeed (fp32 master weights in the ZeRO optimizer); shown with the precision block Lightning adds from \`precision\` when the file has none.`);
    }
    return d.out;
  },
};
