/**
 * accelerate/fp8-without-backend: fp8 without an explicit backend.
 *
 * fp8 without `fp8_config.backend`: the backend (and a silent fp16 fallback) depends on what is installed.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const fp8WithoutBackend: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/fp8-without-backend"],
  restsOn: [],
  run({ v, mixed, mixedEntry, distType }) {
    const d = diagnostics("accelerate");
    if (mixed === "fp8" && !v.has("fp8_config", "backend") && mixedEntry && distType !== "DEEPSPEED") {
      d.add("fp8-without-backend", "information", mixedEntry.value.range, { message: "fp8 without `fp8_config.backend`: accelerate picks a backend, and on pre-Ada GPUs silently falls back to fp16", detail: "fp8 without `fp8_config.backend`: accelerate picks the first installed of torchao, TransformerEngine and MS-AMP, and on GPUs older than Ada/Hopper (compute capability < 8.9) it warns and silently falls back to fp16." });
    }
    return d.out;
  },
};
