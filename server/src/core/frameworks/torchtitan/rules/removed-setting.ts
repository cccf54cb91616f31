/**
 * removed-key (for settings the key-schema rules do not see: a Python config function's keyword arguments and
 * attribute writes): a field the targeted torchtitan no longer has. Passed as a keyword to its config dataclass it
 * raises TypeError ("got an unexpected keyword argument") when the function runs; assigned as an attribute it is
 * silently ignored. Which of the two the code does is not modelled, so a warning. Example:
 * `expert_tensor_parallel_degree`, removed from ParallelismConfig by c4b409af2 (#3167, 2026-04-30).
 */
import { diag } from "../../../diagnostics/build";
import type { TitanRule } from "../context";

export const removedSetting: TitanRule = {
  codes: ["removed-key"],
  restsOn: ["version"],
  // On a default or inferred version (a fork may still have the field) it is only information.
  warningOnAssumed: "information",
  run(ctx) {
    // A version dated by a window (a fork's code allows 2026-04-09 or later): a field removed inside the window may
    // still be the fork's, so only a removal before every date of the window is a finding.
    const from = ctx.version.window?.from;
    return (ctx.removedSettings ?? []).filter((r) => from === undefined || r.since <= from).map((r) =>
      diag("removed-key", "warning", r.range, `${r.key} no longer exists in torchtitan ${ctx.version.value.id} (removed ${r.since}): TypeError as a keyword, ignored as an attribute`, undefined, {
        detail: `${r.key} was removed on ${r.since} by ${r.by}; torchtitan ${ctx.version.value.id} (${ctx.version.detail}) does not have it. Passed as a keyword argument its config class raises TypeError ("unexpected keyword argument") when the config function runs; assigned as an attribute it is ignored. Remove it.`,
      }),
    );
  },
};
