/**
 * axolotl/deepspeed-config-missing: The referenced DeepSpeed config file was not found.
 *
 * The `deepspeed:` link (spec other-frameworks.md §6.7): deepspeed/precision-mismatch when the precision asked for here
 * conflicts with the DeepSpeed config (inline, linked or Axolotl's bundled one), and
 * `deepspeed-config-missing` (information) when the named file is not found.
 */
import { linkName, OUTSIDE_WORKSPACE } from "../../../workspace/boundary";
import { diagnostics } from "../../common/diagnosticBuilder";
import { requestedMode } from "../../common/deepspeedLinks";
import { relateLast } from "../../common/related";
import type { FrameworkRule } from "../../common/rule";
import { firstFitting } from "../../../diagnostics/build";
import { baseName } from "../../common/linkedFiles";
import { dsConflict, type LinkedDs } from "../../deepspeed/linked";
import type { AxolotlContext } from "../context";
import { AXOLOTL_BUNDLED_VERSION } from "../dsConfigs";

export const deepspeedLink: FrameworkRule<AxolotlContext> = {
  codes: ["deepspeed/precision-mismatch", "axolotl/deepspeed-config-missing"],
  restsOn: [],
  run({ v, env, ds, dsSource, dsRel }) {
    const d = diagnostics("axolotl");
    if (!ds) return d.out;
    const req = requestedMode(v, "axolotl");
    const at = req.key ? v.keyRange(...req.key) : v.keyRange("deepspeed");
    if (dsSource === "inline") {
      const c = dsConflict(ds.facts, req.mode, "axolotl");
      if (c) d.add("deepspeed/precision-mismatch", c.inferred ? "information" : "warning", at, `${req.label} here, but the inline \`deepspeed:\` mapping has ${c.what}: ${c.brief}`, undefined, undefined, `${req.label} here, but the inline \`deepspeed:\` mapping has ${c.what}. ${c.consequence}`);
    } else if (dsSource === "file") {
      const c = dsConflict(ds.facts, req.mode, "axolotl");
      if (c) d.add("deepspeed/precision-mismatch", c.inferred ? "information" : "warning", at, firstFitting([`${req.label} here, but ${dsRel!} has ${c.what}: ${c.brief}`, `${req.label} here, but ${baseName(dsRel!)} has ${c.what}: ${c.brief}`, `${req.label} here, but its DeepSpeed file has ${c.what}: ${c.brief}`]), undefined, undefined, `${req.label} here, but ${dsRel!} has ${c.what}. ${c.consequence}`);
      if (c) relateLast(d, "deepspeed/precision-mismatch", ds.path, c.entry.range, `${dsRel!} has ${c.what}`);
    } else if (dsSource === "missing") {
      if (env.documentPath) d.add("deepspeed-config-missing", "information", v.entry("deepspeed")!.value.range, missingDsShort(ds), undefined, undefined, missingDsMessage(ds.outside ? linkName(dsRel!) : dsRel!, ds));
      const c = ds.missing === "bundled" ? dsConflict(ds.facts, req.mode, "axolotl") : undefined;
      if (c) d.add("deepspeed/precision-mismatch", c.inferred ? "information" : "warning", at, firstFitting([`${req.label} here, but Axolotl's bundled ${ds.path} has ${c.what}: ${c.brief}`, `${req.label} here, but Axolotl's bundled ${baseName(ds.path)} has ${c.what}: ${c.brief}`]), undefined, undefined, `${req.label} here, but Axolotl's bundled ${ds.path} has ${c.what}. ${c.consequence}`);
    }
    return d.out;
  },
};

/** The one-sentence message; missingDsMessage is the detail. */
function missingDsShort(ds: LinkedDs): string {
  if (ds.outside) return `DeepSpeed config ${OUTSIDE_WORKSPACE}: its own settings cannot be checked (the run still uses DeepSpeed)`;
  if (ds.missing === "bundled") return `DeepSpeed config not found here: read as Axolotl's bundled ${ds.path} at axolotl ${AXOLOTL_BUNDLED_VERSION}`;
  return "DeepSpeed config not found: its own settings cannot be checked (the run still uses DeepSpeed)";
}

function missingDsMessage(rel: string, ds: LinkedDs): string {
  const where = ds.outside ? `The DeepSpeed config \`${rel}\` ${OUTSIDE_WORKSPACE}` : `The DeepSpeed config \`${rel}\` was not found next to this file or in a folder above it`;
  if (ds.missing === "bundled") {
    const f = ds.facts;
    const mode = f.bf16Enabled === true ? "bf16 enabled" : f.autoPrecision ? 'bf16/fp16 "auto" (filled from `bf16`/`fp16`)' : "no precision block";
    return `${where}; it names Axolotl's bundled ${ds.path}, so it is read as that file at axolotl ${AXOLOTL_BUNDLED_VERSION} (ZeRO-${String(f.stage)}, ${mode}${f.offloadOptimizer ? ", optimizer offloaded to the CPU" : ""}${f.offloadParam ? ", parameters offloaded to the CPU" : ""}).`;
  }
  return `${where}${ds.outside ? ":" : ", so"} its own settings cannot be checked. The run still uses DeepSpeed: fp32 master weights in the ZeRO optimizer, with the precision mode from \`bf16\`/\`fp16\` here (the HF Trainer fills "auto").`;
}
