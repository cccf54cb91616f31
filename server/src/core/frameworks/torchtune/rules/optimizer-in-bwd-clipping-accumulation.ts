/**
 * torchtune/optimizer-in-bwd-clipping-accumulation: optimizer_in_bwd with gradient clipping or accumulation: the
 * recipe raises.
 *
 * `optimizer_in_bwd: True` with gradient clipping or gradient accumulation: RuntimeError.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";

export const optimizerInBwdClippingAccumulation: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/optimizer-in-bwd-clipping-accumulation"],
  restsOn: [],
  run({ v }) {
    const d = diagnostics("torchtune");
    const oib = v.entry("optimizer_in_bwd");
    if (oib && oib.value.value === true) {
      const clip = v.entry("clip_grad_norm");
      const gas = v.entry("gradient_accumulation_steps");
      if (clip && clip.value.kind !== "null") {
        d.add("optimizer-in-bwd-clipping-accumulation", "error", clip.value.range, { message: "`clip_grad_norm` with `optimizer_in_bwd: True`: the recipe raises RuntimeError (gradients cannot be clipped)", detail: "`clip_grad_norm` is set while `optimizer_in_bwd: True`: the recipe raises RuntimeError (gradients are consumed during backward, so they cannot be clipped)." }, [fix("Set clip_grad_norm: null", [replaceValue(clip, "null")], true)]);
      }
      const g = v.int("gradient_accumulation_steps");
      if (gas && g !== undefined && g > 1) {
        d.add("optimizer-in-bwd-clipping-accumulation", "error", gas.value.range, { message: `\`gradient_accumulation_steps: ${g}\` with \`optimizer_in_bwd: True\`: the recipe raises RuntimeError`, detail: `\`gradient_accumulation_steps: ${g}\` with \`optimizer_in_bwd: True\`: the recipe raises RuntimeError (the optimizer steps inside every backward).` }, [fix("Set gradient_accumulation_steps: 1", [replaceValue(gas, "1")], true)]);
      }
    }
    return d.out;
  },
};
