/**
 * accelerate/bare-no-boolean: A bare no/NO that PyYAML reads as a boolean where accelerate expects a string.
 *
 * `mixed_precision` written as a YAML 1.1 boolean (no, off, ...): the launch crashes (error).
 * `distributed_type: no` is the boolean False too, but accelerate launches it as one process
 * (config_args.py L169-173 converts only a str; launch.py L1222-1240 matches no multi-process type): no
 * finding for False; True (yes/on) also runs one process, which is a warning (issue #17 §5).
 * `mixed_precision: no` (False) crashes only from accelerate 0.34.0 (context.ts ACCELERATE_BOOL_MIXED_CRASH_SINCE):
 * before it accelerate converts False to "no" (an information note that the file breaks on upgrade). The error
 * rests on the accelerate version: without a pin the central gate makes it a warning. True crashes at every version.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";
import { restingOn } from "../../../provenance";

export const bareNoBoolean: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/bare-no-boolean"],
  // The accelerate version (False is "no" before 0.34.0); its True and distributed_type findings hold at every version.
  restsOn: ["version"],
  run({ mixedEntry, distEntry, falseIsNo, version }) {
    const d = diagnostics("accelerate");
    for (const [e, word, quoted] of [
      [mixedEntry, "mixed_precision", "'no'"],
      [distEntry, "distributed_type", '"NO"'],
    ] as const) {
      if (!e || e.value.kind !== "boolean") continue;
      const raw = e.value.raw ?? String(e.value.value);
      if (word === "distributed_type") {
        if (e.value.value === false) continue;
        d.add("bare-no-boolean", "warning", e.value.range, { message: `\`distributed_type: ${raw}\` is the boolean True in YAML 1.1: accelerate matches no distributed type and launches one process`, detail: `\`distributed_type: ${raw}\` is read by PyYAML (YAML 1.1) as the boolean True, not a string; accelerate converts only strings to a DistributedType, so no multi-process launcher is chosen and the script runs as one process. Write the type you mean, e.g. "MULTI_GPU".` }, [
          fix('Write "MULTI_GPU"', [replaceValue(e, '"MULTI_GPU"')], false),
        ]);
        restingOn(d.out[d.out.length - 1]!, []);
        continue;
      }
      if (falseIsNo) {
        d.add("bare-no-boolean", "information", e.value.range, { message: `\`mixed_precision: ${raw}\` is the boolean False in YAML 1.1: ${version.value as string} reads it as "no", accelerate 0.34.0 and later crash on it; quote it`, detail: `PyYAML (YAML 1.1) reads \`${raw}\` as the boolean False. ${version.value as string} (${version.detail}) converts a False \`mixed_precision\` to "no" when it loads the config, so this launch runs without mixed precision; from accelerate 0.34.0 the bool reaches \`.lower()\` and the launch crashes (AttributeError). Quote it: 'no'.` }, [
          fix("Quote it: 'no'", [replaceValue(e, "'no'")], true),
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
      d.add("bare-no-boolean", "error", e.value.range, { message: `\`${word}: ${raw}\` is the boolean ${e.value.value ? "True" : "False"} in YAML 1.1, not a string: ${crash}; quote it`, detail: long }, [
        fix(`Quote it: ${replacement}`, [replaceValue(e, replacement)], true),
      ]);
      // False crashes only from 0.34.0: that verdict rests on the accelerate version; True on nothing.
      if (e.value.value === true) restingOn(d.out[d.out.length - 1]!, []);
    }
    return d.out;
  },
};
