/**
 * axolotl/invalid-bf16-value: A bf16 value (or key) Axolotl's schema rejects.
 *
 * A `bf16` value the schema rejects (e.g. the documented `full`), or the unknown key `bf16_full_eval`.
 * The pydantic schema that rejects `bf16: full` came with cc3cebfa7 (#1239, 2024-02-26; first release v0.5.0);
 * before it `full` was the documented way to get `bf16_full_eval` (README of 5b712afbe), so the verdict rests on
 * the Axolotl version. Unknown keys are dropped by the schema's `model_dump` (pydantic ignores extra fields, and
 * Axolotl's own validators call such a key "silently ignored"): `bf16_full_eval` is a warning, not a failure.
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { removeKey, fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AxolotlContext } from "../context";
import { versionAtLeast } from "../../../workspace/packagePin";

/** The first release with the pydantic config schema (cc3cebfa7, #1239). */
const SCHEMA_SINCE = "0.5.0";

export const invalidBf16Value: FrameworkRule<AxolotlContext> = {
  codes: ["axolotl/invalid-bf16-value"],
  restsOn: ["version"],
  run({ v, doc, bf16, bf16E, pinned }) {
    const d = diagnostics("axolotl");
    const full = bf16E?.value.value === "full";
    if (bf16 === "invalid" && bf16E && !(full && pinned && !versionAtLeast(pinned, SCHEMA_SINCE))) {
      d.add("invalid-bf16-value", "error", bf16E.value.range, { message: fitMessage(`\`bf16: ${bf16E.value.raw ?? String(bf16E.value.value)}\` is rejected by Axolotl's config schema (allowed: auto, true, false)`), detail: `\`bf16: ${bf16E.value.raw ?? String(bf16E.value.value)}\` is rejected by Axolotl's config schema (allowed: auto, true, false)${full ? "; the docs mention `bf16: full`, but the schema does not accept it" : ""}.` }, [fix("Use bf16: true", [replaceValue(bf16E, "true")], true)]);
    }
    const bfe = v.entry("bf16_full_eval");
    if (bfe) d.add("invalid-bf16-value", "warning", bfe.keyRange, { message: "`bf16_full_eval` is not an Axolotl config key: Axolotl ignores it", detail: "`bf16_full_eval` is not an Axolotl config key (the docs mention it, the schema does not have it): the schema drops it and the run goes on without it. For bf16 training use `bf16: true`." }, [fix("Remove bf16_full_eval", removeKey(doc, bfe.range), true)]);
    return d.out;
  },
};
