/** accelerate/AC1: `mixed_precision`/`distributed_type` written as a YAML 1.1 boolean (no, off, ...): the launch crashes. */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const AC1: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/AC1"],
  restsOn: [],
  run({ mixedEntry, distEntry }) {
    const d = diagnostics("accelerate");
    for (const [e, word, quoted] of [
      [mixedEntry, "mixed_precision", "'no'"],
      [distEntry, "distributed_type", '"NO"'],
    ] as const) {
      if (!e || e.value.kind !== "boolean") continue;
      const raw = e.value.raw ?? String(e.value.value);
      const effect =
        word === "mixed_precision"
          ? "accelerate then calls `.lower()` on it and the launch crashes with AttributeError: 'bool' object has no attribute 'lower'"
          : "accelerate then fails to map it to a DistributedType and the launch stops with a ValueError";
      const replacement = e.value.value === false ? quoted : word === "mixed_precision" ? "'bf16'" : '"MULTI_GPU"';
      const crash = word === "mixed_precision" ? "the launch crashes (AttributeError)" : "the launch stops (ValueError)";
      const long = `\`${word}: ${raw}\` is read by PyYAML (YAML 1.1) as the boolean ${e.value.value ? "True" : "False"}, not the string "${raw}"; ${effect}. Quote it.`;
      d.add("AC1", "error", e.value.range, { message: `\`${word}: ${raw}\` is the boolean ${e.value.value ? "True" : "False"} in YAML 1.1, not a string: ${crash}; quote it`, detail: long }, [
        fix(`Quote it: ${replacement}`, [replaceValue(e, replacement)], true),
      ]);
    }
    return d.out;
  },
};
