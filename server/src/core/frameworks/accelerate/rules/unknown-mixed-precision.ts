/**
 * accelerate/unknown-mixed-precision: mixed_precision is not one of no, fp16, bf16, fp8.
 *
 * `mixed_precision` is not one of no, fp16, bf16, fp8: accelerate raises ValueError.
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import { nearest } from "../../common/wording";
import { MIXED, MIXED_MAP } from "../data";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const unknownMixedPrecision: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/unknown-mixed-precision"],
  restsOn: [],
  run({ mixedEntry }) {
    const d = diagnostics("accelerate");
    if (mixedEntry && mixedEntry.value.kind === "string") {
      const m = (mixedEntry.value.value as string).toLowerCase();
      if (!MIXED.includes(m)) {
        const to = MIXED_MAP[m] ?? nearest(m, MIXED);
        const quote = (s: string) => (s === "no" ? "'no'" : s);
        d.add("unknown-mixed-precision", "error", mixedEntry.value.range, { message: fitMessage(`\`mixed_precision: ${mixedEntry.value.raw ?? m}\` is not one of no, fp16, bf16, fp8: accelerate raises ValueError`, to ? `; did you mean ${quote(to)}?` : ""), detail: `\`mixed_precision: ${mixedEntry.value.raw ?? m}\` is not one of no, fp16, bf16, fp8: accelerate raises ValueError "Unknown mixed_precision mode".${to ? ` Did you mean ${quote(to)}?` : ""}` }, to ? [fix(`Change to ${quote(to)}`, [replaceValue(mixedEntry, quote(to))], true)] : []);
      }
    }
    return d.out;
  },
};
