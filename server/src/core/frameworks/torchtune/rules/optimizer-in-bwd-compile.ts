/**
 * torchtune/optimizer-in-bwd-compile: compile: True compiles the optimizer step, which optimizer_in_bwd rejects.
 *
 * `optimizer_in_bwd: True` with `compile: True` in the distributed full/QAT recipes, where
 * compile also compiles the optimizer step (torchtune ≥ 0.7.0; version from the workspace pin).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, indentOf } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";
import { compilesOptimizerStep, TORCHTUNE_NEWEST, torchtuneVersion } from "../version";

export const optimizerInBwdCompile: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/optimizer-in-bwd-compile"],
  restsOn: ["version"],
  run({ v, doc, env, distributed, recipe }) {
    const d = diagnostics("torchtune");
    const oib = v.entry("optimizer_in_bwd");
    if (!oib || oib.value.value !== true) return d.out;
    const compile = v.entry("compile");
    const fullOrQatDistributed = distributed && (!recipe || /full_finetune_distributed|qat_distributed/.test(recipe));
    const tv = torchtuneVersion(env);
    const compilesStep = compilesOptimizerStep(tv);
    if (compile && compile.value.value === true && fullOrQatDistributed && compilesStep !== false) {
      const ind = indentOf(doc, compile.range);
      const eol = doc.lines.eol;
      // Pinned ≥ 0.7.0: the launch fails (error). No pin: the newest torchtune is assumed, and said, as a
      // warning (torchtune 0.6.1 and older compile only the model and the loss, where this config runs).
      const msg = compilesStep
        ? `\`compile: True\` also compiles the optimizer step (${tv.detail}), which the distributed full/QAT recipes reject with \`optimizer_in_bwd: True\` (ValueError "optimizer_in_bwd not supported with compiling the optimizer step"). Compile the model and loss only.`
        : `${tv.detail[0]!.toUpperCase()}${tv.detail.slice(1)}: there \`compile: True\` also compiles the optimizer step, which the distributed full/QAT recipes reject with \`optimizer_in_bwd: True\` (ValueError "optimizer_in_bwd not supported with compiling the optimizer step"). torchtune 0.6.1 and older compile only the model and the loss, where this config runs. Compile the model and loss only to be safe with both.`;
      const short = compilesStep
        ? `\`compile: True\` with \`optimizer_in_bwd: True\` raises ValueError (${tv.detail})`
        : `No torchtune pin, so ${TORCHTUNE_NEWEST} is assumed: there \`compile: True\` is rejected with \`optimizer_in_bwd: True\``;
      d.add("optimizer-in-bwd-compile", compilesStep ? "error" : "warning", compile.value.range, { message: short, detail: msg }, [
        fix("Compile model and loss only", [{ range: { start: compile.keyRange.end, end: compile.value.range.end }, newText: `:${eol}${ind}  model: true${eol}${ind}  loss: true${eol}${ind}  optimizer_step: false` }], true),
      ]);
    }
    return d.out;
  },
};
