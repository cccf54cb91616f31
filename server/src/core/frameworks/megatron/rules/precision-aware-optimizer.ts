/**
 * megatron/precision-aware-optimizer: Optimizer dtype flags the optimizer config rejects (precision-aware optimizer).
 *
 * Optimizer dtype flags the optimizer config rejects (megatron/core/optimizer/optimizer_config.py
 * `OptimizerConfig.__post_init__` and megatron/training/arguments.py at core_v0.16.1), each an assertion at
 * launch:
 * - `--main-grads-dtype`, `--main-params-dtype` or `--exp-avg-dtype` other than fp32 without
 *   `--use-precision-aware-optimizer` ("… can only be fp32 when not using precision-aware optimizer");
 * - `--use-precision-aware-optimizer` without `--use-distributed-optimizer`, or with an optimizer other than adam;
 * - `--accumulate-allreduce-grads-in-fp32` with `--main-grads-dtype bf16` under --bf16.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { MegatronContext } from "../context";

export const precisionAwareOptimizer: FrameworkRule<MegatronContext> = {
  codes: ["megatron/precision-aware-optimizer"],
  restsOn: ["version"],
  run({ flag, absentUnknown }) {
    const d = diagnostics("megatron");
    const pao = flag("use-precision-aware-optimizer");
    if (!pao) {
      // Concluded from a missing --use-precision-aware-optimizer: not when the arguments are not all known.
      for (const n of absentUnknown ? [] : ["main-grads-dtype", "main-params-dtype", "exp-avg-dtype", "exp-avg-sq-dtype"]) {
        const f = flag(n);
        if (f && typeof f.value === "string" && f.value !== "fp32" && !/^\$/.test(f.value)) d.add("precision-aware-optimizer", "error", f.valueRange ?? f.range, `\`--${n} ${f.value}\` without \`--use-precision-aware-optimizer\`: the optimizer config asserts fp32`);
      }
    } else {
      if (!flag("use-distributed-optimizer") && !flag("use-megatron-fsdp") && !absentUnknown) d.add("precision-aware-optimizer", "error", pao.range, "`--use-precision-aware-optimizer` without `--use-distributed-optimizer`: the optimizer config asserts it");
      const opt = flag("optimizer");
      if (opt && typeof opt.value === "string" && opt.value !== "adam" && !/^\$/.test(opt.value)) d.add("precision-aware-optimizer", "error", opt.valueRange ?? opt.range, `\`--optimizer ${opt.value}\` with \`--use-precision-aware-optimizer\`: only adam is supported`);
    }
    const acc = flag("accumulate-allreduce-grads-in-fp32");
    const mg = flag("main-grads-dtype");
    if (flag("bf16") && acc && mg && mg.value === "bf16") d.add("precision-aware-optimizer", "error", mg.valueRange ?? mg.range, "`--main-grads-dtype bf16` with `--accumulate-allreduce-grads-in-fp32`: validate_args asserts fp32");
    return d.out;
  },
};
