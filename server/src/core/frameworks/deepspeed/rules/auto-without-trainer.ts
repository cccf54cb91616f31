/**
 * deepspeed/auto-without-trainer: "auto" values in a file the deepspeed launcher runs directly.
 *
 * `"enabled": "auto"` in a file the `deepspeed` launcher runs directly (standalone DeepSpeed drops "auto").
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";

export const autoWithoutTrainer: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/auto-without-trainer"],
  restsOn: [],
  run({ f, launcher }) {
    const d = diagnostics("deepspeed");
    if (launcher) {
      for (const e of [f.bf16Entry, f.fp16Entry]) {
        if (!e || e.value.value !== "auto") continue;
        const block = e.path[0]!;
        d.add("auto-without-trainer", "warning", e.value.range, { message: fitMessage(`\`${block}.enabled: "auto"\` run directly by ${launcher}: "auto" is dropped, so the run trains in ${f.mode}`), detail: `\`${block}.enabled: "auto"\` in a file the \`deepspeed\` launcher runs directly (${launcher}): standalone DeepSpeed drops "auto" values, so ${block} is off and the run trains in ${f.mode}. "auto" only works when HF Trainer or accelerate fills it in.` }, [
          fix(`Set ${block}.enabled to true`, [replaceValue(e, "true")], block !== "fp16"),
          fix(`Set ${block}.enabled to false`, [replaceValue(e, "false")]),
        ]);
      }
    }
    return d.out;
  },
};
