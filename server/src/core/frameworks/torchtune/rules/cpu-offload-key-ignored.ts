/**
 * torchtune/cpu-offload-key-ignored: fsdp.cpu_offload is never read; the recipes read fsdp_cpu_offload.
 *
 * `fsdp.cpu_offload` is never read (recipes read the top-level `fsdp_cpu_offload`).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { appendLine, removeKey, fix } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";

export const cpuOffloadKeyIgnored: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/cpu-offload-key-ignored"],
  restsOn: [],
  run({ v, doc }) {
    const d = diagnostics("torchtune");
    if (v.has("fsdp", "cpu_offload")) {
      const e = v.entry("fsdp", "cpu_offload")!;
      const onlyChild = v.childKeys("fsdp").length === 1;
      const value = e.value.raw ?? String(e.value.value);
      const top = v.has("fsdp_cpu_offload");
      const edits = onlyChild
        ? [{ range: v.sectionRange("fsdp")!, newText: top ? "" : `fsdp_cpu_offload: ${value}` }]
        : [...removeKey(doc, e.range), ...(top ? [] : [appendLine(doc, `fsdp_cpu_offload: ${value}`)])];
      d.add("cpu-offload-key-ignored", "warning", e.keyRange, { message: "`fsdp.cpu_offload` has no effect: torchtune recipes only read the top-level `fsdp_cpu_offload`", detail: "`fsdp.cpu_offload` is never read: torchtune recipes only read the top-level `fsdp_cpu_offload`, so this setting has no effect." }, [fix("Move to top-level fsdp_cpu_offload", edits, true)]);
    }
    return d.out;
  },
};
