/**
 * axolotl/fsdp-option-conflict: An FSDP2-only option without FSDP2, or DeepSpeed together with FSDP.
 *
 * Options that need FSDP2 (fp8 all-gather, fp32 norms), and DeepSpeed together with FSDP.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { AxolotlContext } from "../context";

export const fsdpOptionConflict: FrameworkRule<AxolotlContext> = {
  codes: ["axolotl/fsdp-option-conflict"],
  restsOn: [],
  run({ v, fsdp2, hasFsdpConfig, dsOn, fsdpOn, fsdpList }) {
    const d = diagnostics("axolotl");
    const fp8ag = v.entry("fp8_enable_fsdp_float8_all_gather");
    if (fp8ag && fp8ag.value.value === true && !fsdp2) d.add("fsdp-option-conflict", "error", fp8ag.keyRange, "`fp8_enable_fsdp_float8_all_gather` requires `fsdp_version: 2`: Axolotl raises ValueError.");
    const fp32n = v.entry("fp32_norms");
    if (fp32n && fp32n.value.value === true && !(fsdp2 && hasFsdpConfig)) d.add("fsdp-option-conflict", "error", fp32n.keyRange, "`fp32_norms` requires `fsdp_config` with `fsdp_version: 2`: Axolotl raises ValueError.");
    if (dsOn && fsdpOn) {
      const legacy = fsdpList !== undefined && fsdpList.value.kind !== "null";
      d.add(legacy ? "fsdp-option-conflict" : "fsdp-option-conflict", legacy ? "error" : "error", v.keyRange("deepspeed"), `\`deepspeed\` together with ${legacy ? "`fsdp`" : "`fsdp_config`"}: use one of DeepSpeed or FSDP.${legacy ? " Axolotl raises ValueError." : " (Axolotl's own check only covers the legacy `fsdp` list; the HF Trainer then rejects both at once.)"}`);
    }
    return d.out;
  },
};
