/**
 * lightning/precision-and-plugin: Both precision and a Precision plugin are set.
 *
 * Both `precision` and a Precision plugin: Lightning raises ValueError.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";

export const precisionAndPlugin: FrameworkRule<LightningContext> = {
  codes: ["lightning/precision-and-plugin"],
  restsOn: [],
  run({ t, pe }) {
    const d = diagnostics("lightning");
    const plugins = t.entriesUnder("plugins").filter((e) => /(class_path|_target_)$/.test(e.path[e.path.length - 1]!) && /Precision/.test(String(e.value.value)));
    const pluginStr = t.entry("plugins");
    const pluginPrecision = plugins[0] ?? (pluginStr && /precision/i.test(String(pluginStr.value.value)) ? pluginStr : undefined);
    if (pe && pluginPrecision) d.add("precision-and-plugin", "error", pe.keyRange, { message: "Both `precision` and a Precision plugin are set: Lightning raises ValueError", detail: `Both \`precision\` and a Precision plugin (${String(pluginPrecision.value.value)}) are set: Lightning raises ValueError "Received both \`precision=...\` and \`plugins=...\`". Keep one.` });
    return d.out;
  },
};
