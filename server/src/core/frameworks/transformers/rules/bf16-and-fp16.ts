/**
 * transformers/bf16-and-fp16: bf16 and fp16 both true: TrainingArguments raises ValueError.
 *
 * `bf16` and `fp16` both true: TrainingArguments raises "At most one of fp16 and bf16 can be True, but not both" (training_args.py:1750@4.57.1).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { removeKey, fix } from "../../common/edits";
import type { TransformersRule } from "../context";

export const bf16AndFp16: TransformersRule = {
  codes: ["transformers/bf16-and-fp16"],
  // The file alone decides.
  restsOn: [],
  run({ v, doc, fp16E }) {
    const d = diagnostics("transformers");
    if (v.bool("bf16") === true && v.bool("fp16") === true) d.add("bf16-and-fp16", "error", fp16E!.range, "`bf16` and `fp16` are both true: TrainingArguments raises ValueError", [fix("Remove `fp16: true`", removeKey(doc, fp16E!.range), true)], undefined, "TrainingArguments.__post_init__ raises ValueError \"At most one of fp16 and bf16 can be True, but not both\". Keep one of them.");
    return d.out;
  },
};
