/**
 * deepspeed/string-boolean: A precision switch written as a string boolean ("enabled": "true"): DeepSpeed reads the
 * boolean, HF Trainer rejects it.
 *
 * A precision switch written as a string boolean (`"enabled": "true"`). DeepSpeed reads it as the
 * boolean (its precision configs are pydantic models with `enabled: bool`, runtime/precision_config.py:44 and
 * :91@v0.18.0; pydantic 2 coerces "true"/"false"/"yes"/"no"/"on"/"off"/"1"/"0", case-insensitive, checked with
 * pydantic 2.14.4), so standalone DeepSpeed runs as the string says, and the precision table reads it the same way.
 * Under HF Trainer the string is compared with TrainingArguments' bool and differs: the Trainer raises the
 * fill_match ValueError (transformers integrations/deepspeed.py:137-197@v4.57.1; transformers/deepspeed-value-mismatch reports it from
 * the TrainingArguments side). Information here, with a fix writing the JSON boolean.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";
import { stringBool } from "../facts";

export const stringBoolean: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/string-boolean"],
  restsOn: [],
  run({ f }) {
    const d = diagnostics("deepspeed");
    for (const e of [f.bf16Entry, f.fp16Entry]) {
      if (!e || e.value.kind !== "string") continue;
      const b = stringBool(e.value.value as string);
      if (b === undefined) continue;
      const block = e.path[0]!;
      d.add("string-boolean", "information", e.value.range, `\`${block}.enabled\` is the string ${JSON.stringify(e.value.value)}: DeepSpeed reads ${b}, HF Trainer rejects it as a mismatch; write ${b}`, [fix(`Write ${b}`, [replaceValue(e, String(b))], true)], undefined, `DeepSpeed validates \`${block}.enabled\` with pydantic, which turns the string ${JSON.stringify(e.value.value)} into ${b}, so DeepSpeed alone runs with ${block} ${b ? "on" : "off"}. HF Trainer compares the value as written with its own bool (\`${block}\` in TrainingArguments) and raises "Please correct the following DeepSpeed config values that mismatch TrainingArguments values". Write the JSON boolean ${b}.`);
    }
    return d.out;
  },
};
