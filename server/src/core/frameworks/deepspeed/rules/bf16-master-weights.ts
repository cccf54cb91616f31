/**
 * deepspeed/bf16-master-weights: bf16 master-weight options and what they keep in bf16.
 *
 * The bf16 master/optimizer-state options and `data_types.param_dtype` against the mode and stage.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { DType } from "../../../model/types";
import { fix, replaceValue } from "../../common/edits";
import { DS_DTYPE } from "../data";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";

export const bf16MasterWeights: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/bf16-master-weights"],
  restsOn: [],
  run({ v, f }) {
    const d = diagnostics("deepspeed");
    const bf16Block = v.has("bfloat16") && !v.has("bf16") ? "bfloat16" : "bf16";
    const optStates = v.entry(bf16Block, "bf16_optimizer_states") ?? v.entry("bf16_optimizer_states");
    const master = v.entry(bf16Block, "bf16_master_weights_and_grads") ?? v.entry("bf16_master_weights_and_grads");
    if (f.optStatesBf16 && !f.masterBf16 && optStates) {
      d.add("bf16-master-weights", "error", optStates.range, "`bf16_optimizer_states` requires `bf16_master_weights_and_grads: true`; DeepSpeed rejects the config otherwise.", [
        fix("Remove bf16_optimizer_states", [replaceValue(optStates, "false")], true),
      ]);
    }
    for (const e of [master, optStates]) {
      if (e && e.value.value === true && (f.stage === 0 || f.stage === undefined)) {
        d.add("bf16-master-weights", "error", e.range, { message: `\`${e.path[e.path.length - 1]}\` works with ZeRO stages 1–3 only, and this config runs ZeRO stage 0`, detail: `\`${e.path[e.path.length - 1]}\` works with ZeRO stages 1–3 only, and this config runs ${f.stage === undefined ? "without `zero_optimization.stage` (stage 0)" : "ZeRO stage 0"}.` });
      }
    }
    const pd = v.entry("data_types", "param_dtype");
    if (pd && pd.value.kind === "string") {
      const want = DS_DTYPE[pd.value.value as string];
      const mode: DType = f.mode === "bf16" ? "bfloat16" : f.mode === "fp16" ? "float16" : "float32";
      if (want && want !== mode) {
        d.add("bf16-master-weights", "error", pd.value.range, `\`data_types.param_dtype\` is "${pd.value.value as string}" but the enabled mode is ${f.mode}: DeepSpeed asserts that they match.`, [
          fix(`Set param_dtype to "${f.mode}"`, [replaceValue(pd, `"${f.mode}"`)], true),
        ]);
      }
    }
    return d.out;
  },
};
