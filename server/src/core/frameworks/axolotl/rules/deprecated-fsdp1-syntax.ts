/**
 * axolotl/deprecated-fsdp1-syntax: Deprecated FSDP1 configuration syntax.
 *
 * The deprecated FSDP1 `fsdp:` list, and `fsdp_`-prefixed keys under `fsdp_config`.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { removeKey, fix } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AxolotlContext } from "../context";

export const deprecatedFsdp1Syntax: FrameworkRule<AxolotlContext> = {
  codes: ["axolotl/deprecated-fsdp1-syntax"],
  restsOn: [],
  run({ v, doc, fsdpList, fsdpVersion }) {
    const d = diagnostics("axolotl");
    // An empty `fsdp: []` configures nothing: there is no FSDP1 list to migrate (issue #17 fresh set, wauwau0977/FineTuningTrial).
    if (fsdpList && fsdpList.value.kind === "array" && (fsdpList.value.items?.length ?? 0) > 0) {
      const migrate = fsdpVersion === undefined ? fix("Replace the legacy list with fsdp_version: 2", [{ range: fsdpList.range, newText: "fsdp_version: 2" }], true) : fix("Remove the legacy fsdp list", removeKey(doc, fsdpList.range), true);
      d.add("deprecated-fsdp1-syntax", "warning", fsdpList.keyRange, "The `fsdp:` list is the deprecated FSDP1 syntax (Axolotl warns): use `fsdp_config` with `fsdp_version: 2`", [migrate], undefined, "The `fsdp:` list is the deprecated FSDP1 syntax (Axolotl warns). Configure FSDP with un-prefixed keys under `fsdp_config` and `fsdp_version: 2`.");
    }
    const prefixed = v.childKeys("fsdp_config").filter((k) => k.startsWith("fsdp_") && k !== "fsdp_version");
    if (prefixed.length) {
      const keys = prefixed.length === 1 ? `the deprecated \`fsdp_\`-prefixed key \`${prefixed[0]!}\`` : `${prefixed.length} deprecated \`fsdp_\`-prefixed keys (\`${prefixed[0]!}\`, …)`;
      const detail = `\`fsdp_config\` uses deprecated \`fsdp_\`-prefixed keys (${prefixed.map((k) => `\`${k}\``).join(", ")}); Axolotl warns and wants the un-prefixed names${fsdpVersion === 2 ? "" : " together with `fsdp_version: 2`"}.`;
      d.add("deprecated-fsdp1-syntax", "warning", v.keyRange("fsdp_config"), `\`fsdp_config\` uses ${keys}: Axolotl wants un-prefixed names`, [
        fix("Strip the fsdp_ prefixes", prefixed.map((k) => ({ range: v.keyRange("fsdp_config", k)!, newText: k.replace(/^fsdp_/, "") })), true),
      ], undefined, detail);
    }
    return d.out;
  },
};
