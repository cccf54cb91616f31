/**
 * lightning/fsdp-norm-clipping: Norm-based gradient clipping with the FSDP strategy.
 *
 * Norm clipping with the FSDP strategy (FSDPPrecision raises).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, insertLineAfter, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";

export const fsdpNormClipping: FrameworkRule<LightningContext> = {
  codes: ["lightning/fsdp-norm-clipping"],
  restsOn: [],
  run({ t, doc, st }) {
    const d = diagnostics("lightning");
    const clipVal = t.num("gradient_clip_val");
    const clipAlg = t.entry("gradient_clip_algorithm");
    if (st.family === "fsdp" && clipVal !== undefined && clipVal > 0 && (!clipAlg || clipAlg.value.value !== "value")) {
      const clipE = t.entry("gradient_clip_val")!;
      d.add("fsdp-norm-clipping", "error", clipE.range, { message: `\`gradient_clip_val: ${clipVal}\` with FSDP clips by norm, which FSDPPrecision rejects: MisconfigurationException`, detail: `\`gradient_clip_val: ${clipVal}\` with the FSDP strategy clips by norm, which FSDPPrecision does not support: Lightning raises MisconfigurationException (Lightning-AI/pytorch-lightning#19235). Clip by value, or clip manually through the FSDP API.` }, [
        clipAlg ? fix("Set gradient_clip_algorithm: value", [replaceValue(clipAlg, "value")], true) : fix("Add gradient_clip_algorithm: value", [insertLineAfter(doc, clipE.range, "gradient_clip_algorithm: value")], true),
      ]);
    }
    return d.out;
  },
};
