/**
 * accelerate/deepspeed-config-missing: The referenced DeepSpeed config file was not found.
 *
 * The DeepSpeed file link (spec other-frameworks.md §2.4): `deepspeed-config-missing` (information) when
 * `deepspeed_config_file` is not found, deepspeed/precision-mismatch when `mixed_precision` conflicts with the file.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { requestedMode } from "../../common/deepspeedLinks";
import { relateLast } from "../../common/related";
import type { FrameworkRule } from "../../common/rule";
import { firstFitting } from "../../../diagnostics/build";
import { baseName, unreadLink } from "../../common/linkedFiles";
import { OUTSIDE_WORKSPACE } from "../../../workspace/boundary";
import { dsConflict } from "../../deepspeed/linked";
import type { AccelerateContext } from "../context";

export const deepspeedLink: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/deepspeed-config-missing", "deepspeed/precision-mismatch"],
  restsOn: [],
  run({ v, env, dsFileEntry, dsRel: rel, ds }) {
    const d = diagnostics("accelerate");
    if (!dsFileEntry || !rel) return d.out;
    if (!ds) {
      const u = unreadLink(env, rel);
      if (u.outside) d.add("deepspeed-config-missing", "information", dsFileEntry.value.range, `DeepSpeed config ${OUTSIDE_WORKSPACE}: its own settings cannot be checked`, undefined, undefined, `The DeepSpeed config \`${u.name}\` ${OUTSIDE_WORKSPACE}: its own settings cannot be checked (the run is still DeepSpeed: fp32 master weights in the ZeRO optimizer).`);
      else if (env.documentPath && !rel.includes("${")) d.add("deepspeed-config-missing", "information", dsFileEntry.value.range, "DeepSpeed config not found relative to this file: its own settings cannot be checked", undefined, undefined, `The DeepSpeed config \`${rel}\` was not found relative to this file, so its own settings cannot be checked (the run is still DeepSpeed: fp32 master weights in the ZeRO optimizer); accelerate fails to launch if the path does not exist from the launch directory.`);
      return d.out;
    }
    // deepspeed/precision-mismatch on the YAML side.
    const req = requestedMode(v, "accelerate");
    const c = dsConflict(ds.facts, req.mode);
    if (c && req.key) d.add("deepspeed/precision-mismatch", c.inferred ? "information" : "warning", v.keyRange(...req.key), firstFitting([`${req.label} here, but ${rel} has ${c.what}: ${c.brief}`, `${req.label} here, but ${baseName(rel)} has ${c.what}: ${c.brief}`, `${req.label} here, but its DeepSpeed file has ${c.what}: ${c.brief}`]), undefined, undefined, `${req.label} here, but ${rel} has ${c.what}. ${c.consequence}`);
    if (c) relateLast(d, "deepspeed/precision-mismatch", ds.path, c.entry.range, `${rel} has ${c.what}`);
    return d.out;
  },
};
