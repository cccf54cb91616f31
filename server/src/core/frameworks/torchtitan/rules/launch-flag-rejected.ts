/**
 * invalid-value (a launch flag): the run script that runs this config passes `--section.option value`, and the
 * launcher's parser rejects the value at the targeted version. For a Python config function (torchtitan ≥
 * 2026-02-23) tyro types each flag by the field's annotation: a value outside a `Literal[...]`'s choices makes it
 * exit with status 2 ("invalid choice") before training starts (checked with tyro 1.0.17). Only flags of a script
 * that passes this config are read, so the launch is this config's. Example: `--training.mixed_precision_reduce
 * bfloat16` at v0.3.0, whose field is `Literal["float32"]`.
 */
import { diag } from "../../../diagnostics/build";
import type { TitanRule } from "../context";

export const launchFlagRejected: TitanRule = {
  codes: ["invalid-value"],
  restsOn: ["version"],
  run(ctx) {
    const v = ctx.version.value;
    return (ctx.rejectedFlags ?? []).slice(0, 8).map((o) => {
      const choices = o.choices.map((c) => `"${c}"`).join(", ");
      return diag("invalid-value", "error", o.at, `The launch fails: tyro rejects --${o.key} ${o.raw} from ${o.file} (torchtitan ${v.id} accepts ${choices})`, undefined, {
        related: [{ location: o.location, message: `--${o.key} ${o.raw}` }],
        detail: `${o.file} runs this config with --${o.key} ${o.raw}; tyro parses the flag against the field's Literal[${choices}] at torchtitan ${v.id} (${ctx.version.detail}) and exits with status 2 ("invalid choice").`,
      });
    });
  },
};
