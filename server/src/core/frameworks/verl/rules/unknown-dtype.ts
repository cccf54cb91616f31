/**
 * verl/unknown-dtype: A dtype verl's PrecisionType does not accept: the worker raises RuntimeError.
 *
 * A dtype verl's `PrecisionType.to_dtype` does not accept (`verl/utils/torch_dtypes.py`: fp16,
 * float16, 16, fp32, float32, 32, bf16, bfloat16) in `model_dtype` or `mixed_precision.*_dtype` of a role
 * that builds an FSDP model: the worker raises RuntimeError "unexpected precision" while building it.
 * `torch.bfloat16` written as a string is one such value.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import { nearest } from "../../common/wording";
import type { VerlContext, VerlValue } from "../context";
import { VERL_DTYPES } from "../data";

export const unknownDtype: FrameworkRule<VerlContext> = {
  codes: ["verl/unknown-dtype"],
  restsOn: [],
  run(ctx) {
    const d = diagnostics("verl");
    for (const r of ctx.roles) {
      if (r.strategy.value !== "fsdp" && r.strategy.value !== "fsdp2") continue;
      const checks: [string, VerlValue | undefined][] = [["model_dtype", r.modelDtype], ["mixed_precision.param_dtype", r.paramDtype], ["mixed_precision.reduce_dtype", r.reduceDtype], ["mixed_precision.buffer_dtype", r.bufferDtype]];
      for (const [k, v] of checks) {
        if (!v || v.origin !== "file" || v.value === undefined || v.value === null) continue;
        if (String(v.value) in VERL_DTYPES) continue;
        const stripped = String(v.value).replace(/^torch\./, "");
        const near = stripped in VERL_DTYPES ? stripped : nearest(stripped, Object.keys(VERL_DTYPES));
        d.add("unknown-dtype", "error", v.range, { message: `${r.name}: \`${k}=${String(v.value)}\` raises RuntimeError "unexpected precision"${near ? ` (use \`${near}\`)` : ""}`, detail: `verl reads \`${r.engine}.${k}\` through PrecisionType.to_dtype, which accepts fp16/float16/16, fp32/float32/32 and bf16/bfloat16 only; any other value raises RuntimeError "unexpected precision: ${String(v.value)}" while the ${r.name} worker builds its model.` });
      }
    }
    return d.out;
  },
};
