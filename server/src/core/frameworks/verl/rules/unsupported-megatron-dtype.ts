/**
 * verl/unsupported-megatron-dtype: A Megatron role's megatron.dtype other than bfloat16/float16: McoreEngineConfig stops the launch.
 *
 * The Megatron workers take the
 * model's params dtype from `actor_rollout_ref.actor.megatron.dtype` (and `ref.megatron.dtype`,
 * `critic.megatron.dtype`), and the engine config's `__post_init__` asserts it is "bfloat16" or "float16"
 * (`workers/config/engine.py` at verl 0.6.1, 0.7.1 and 0.9.1); `validate_config` builds that dataclass from the
 * composed config before any worker starts, so `bf16`, `fp16` or `float32` (spellings the FSDP keys accept)
 * stop the launch with AssertionError "dtype … not supported". Read for verl 0.6.1 and later; an older pin
 * gets nothing.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import { versionAtLeast } from "../../../workspace/packagePin";
import type { VerlContext } from "../context";
import { VERL_DTYPES, VERL_MEGATRON_DTYPES } from "../data";

export const unsupportedMegatronDtype: FrameworkRule<VerlContext> = {
  codes: ["verl/unsupported-megatron-dtype"],
  restsOn: [],
  run(ctx) {
    const d = diagnostics("verl");
    if (!versionAtLeast(ctx.version.version, "0.6.1")) return d.out;
    for (const r of ctx.roles) {
      const v = r.megatronDtype;
      if (r.strategy.value !== "megatron" || !v || v.origin !== "file" || v.value === undefined || v.value === null) continue;
      const s = String(v.value);
      if (s in VERL_MEGATRON_DTYPES) continue;
      const t = VERL_DTYPES[s];
      const use = t === "bfloat16" || t === "float16" ? t : undefined;
      const key = `${r.name === "critic" ? "critic" : `actor_rollout_ref.${r.name}`}.megatron.dtype`;
      d.add("unsupported-megatron-dtype", "error", v.range, {
        message: `${r.name}: \`megatron.dtype=${s}\` fails McoreEngineConfig's check (only bfloat16 or float16)${use ? ` (use \`${use}\`)` : ""}`,
        detail: `verl builds \`${key}\` into McoreEngineConfig when validate_config reads the composed config, before any worker starts; its __post_init__ asserts the dtype is "bfloat16" or "float16" ("dtype ${s} not supported"), so the launch stops.${t === "float32" ? " The Megatron workers have no fp32-parameter mode: Megatron-Core's optimizer already keeps fp32 main parameters beside the bf16 ones." : ""}`,
      });
    }
    return d.out;
  },
};
