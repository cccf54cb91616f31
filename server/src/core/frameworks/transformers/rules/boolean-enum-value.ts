/**
 * transformers/boolean-enum-value: A boolean (bare `no`/`off`/`yes`/`on` in YAML) where TrainingArguments wants an enum name: ValueError.
 *
 * A boolean where TrainingArguments converts the field to an enum. PyYAML follows YAML 1.1, so a bare `no`, `off`,
 * `yes`, `on` (and `true`/`false`) is a boolean: HfArgumentParser.parse_yaml_file and TrlParser load with
 * `yaml.safe_load` (hf_argparser.py:426@5.24.0, :442@4.52.3; trl/scripts/utils.py:327@v1.9.0, :192@v0.18.0), and
 * LLaMA-Factory with OmegaConf.load, which reads `no` as False too (omegaconf 2.4.0, run). `__post_init__` then
 * converts the field with the enum class (`IntervalStrategy` for `eval_strategy`/`logging_strategy`, `SaveStrategy`,
 * `HubStrategy`, `SchedulerType`, `OptimizerNames`: training_args.py:1558-1563@5.24.0, :1584-1589 and 1710@4.52.3),
 * whose `_missing_` raises ValueError "False is not a valid IntervalStrategy, please select one of [...]"
 * (utils/generic.py:670-673@5.24.0). Run at transformers 4.52.3 and 5.24.0 (oracle corner cases): every boolean
 * raises, a quoted `"no"` passes. The file alone decides (an error); a field the release at the pin does not
 * declare is left to unknown-key. Quick fix where the boolean is False and `no` is a valid value (the strategy
 * fields): quote it, `"no"`.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { TransformersRule } from "../context";
import { taKeyAtIndex, taReleaseIndex } from "../data";

/** TrainingArguments fields converted to an enum in `__post_init__`, with the class and whether `no` is a value. */
export const TA_ENUM_FIELDS: Readonly<Record<string, { cls: string; hasNo: boolean }>> = Object.freeze({
  eval_strategy: { cls: "IntervalStrategy", hasNo: true },
  evaluation_strategy: { cls: "IntervalStrategy", hasNo: true },
  logging_strategy: { cls: "IntervalStrategy", hasNo: true },
  save_strategy: { cls: "SaveStrategy", hasNo: true },
  hub_strategy: { cls: "HubStrategy", hasNo: false },
  lr_scheduler_type: { cls: "SchedulerType", hasNo: false },
  optim: { cls: "OptimizerNames", hasNo: false },
});

export const booleanEnumValue: TransformersRule = {
  codes: ["transformers/boolean-enum-value"],
  // The file alone decides: every loader the dialects use reads the word as a boolean, every release converts it.
  restsOn: [],
  run({ v, versions }) {
    const d = diagnostics("transformers");
    const at = versions.pinned.transformers ? taReleaseIndex(versions.transformers.value) : undefined;
    for (const [k, { cls, hasNo }] of Object.entries(TA_ENUM_FIELDS)) {
      const e = v.entry(k);
      if (!e || e.value.kind !== "boolean" || e.path.length !== 1) continue;
      if (at !== undefined && taKeyAtIndex(k, at) === false) continue;
      const b = e.value.value as boolean;
      const raw = e.value.raw ?? String(b);
      const word = b ? "True" : "False";
      const fixes = !b && hasNo ? [fix('Quote it: `"no"`', [replaceValue(e.value, '"no"')], true)] : undefined;
      d.add("boolean-enum-value", "error", e.value.range, `\`${k}: ${raw}\` is the boolean ${word} in YAML 1.1: TrainingArguments raises "${word} is not a valid ${cls}"`, fixes, undefined, `PyYAML (YAML 1.1, which TrlParser, HfArgumentParser and LLaMA-Factory's OmegaConf loader follow) reads \`${raw}\` as ${word}, and TrainingArguments.__post_init__ converts \`${k}\` with ${cls}(${word}), which raises ValueError "${word} is not a valid ${cls}, please select one of [...]" before training starts.${hasNo ? ' Write the value as a string: `"no"`.' : ""}`);
    }
    return d.out;
  },
};
