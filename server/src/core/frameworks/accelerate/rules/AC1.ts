/**
 * accelerate/AC1: `mixed_precision` written as a YAML 1.1 boolean (no, off, ...): the launch crashes (error).
 * `distributed_type: no` is the boolean False too, but accelerate launches it as one process
 * (config_args.py L169-173 converts only a str; launch.py L1222-1240 matches no multi-process type): no
 * finding for False; True (yes/on) also runs one process, which is a warning (issue #17 §5).
 */
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
      if (word === "distributed_type") {
        if (e.value.value === false) continue;
        d.add("AC1", "warning", e.value.range, { message: `\`distributed_type: ${raw}\` is the boolean True in YAML 1.1: accelerate matches no distributed type and launches one process`, detail: `\`distributed_type: ${raw}\` is read by PyYAML (YAML 1.1) as the boolean True, not a string; accelerate converts only strings to a DistributedType, so no multi-process launcher is chosen and the script runs as one process. Write the type you mean, e.g. "MULTI_GPU".` }, [
          fix('Write "MULTI_GPU"', [replaceValue(e, '"MULTI_GPU"')], false),
        ]);
        continue;
      }
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
