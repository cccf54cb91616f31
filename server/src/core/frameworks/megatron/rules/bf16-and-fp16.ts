/**
 * megatron/bf16-and-fp16: --bf16 with --fp16: validate_args asserts they are exclusive.
 *
 * `--bf16` and `--fp16` together. validate_args asserts `not args.bf16` under --fp16 (and the
 * reverse), so the launch stops (megatron/training/arguments.py at core_v0.16.1, "Parameters dtype").
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { MegatronContext } from "../context";

export const bf16AndFp16: FrameworkRule<MegatronContext> = {
  codes: ["megatron/bf16-and-fp16"],
  restsOn: [],
  run({ flag }) {
    const d = diagnostics("megatron");
    const bf16 = flag("bf16");
    const fp16 = flag("fp16");
    if (bf16 && fp16) d.add("bf16-and-fp16", "error", fp16.range, { message: "`--fp16` with `--bf16`: validate_args asserts they are exclusive, the launch stops", detail: "validate_args sets the parameter dtype from --fp16 or --bf16 and asserts the other is off (megatron/training/arguments.py, core_v0.16.1). Keep one: --bf16 on Ampere or newer." });
    return d.out;
  },
};
