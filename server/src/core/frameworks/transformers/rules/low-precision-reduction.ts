/**
 * transformers/low-precision-reduction: accelerate FSDP under bf16/fp16: gradients reduced in 16 bits; FSDP2's fp32
 * upcast is a no-op at accelerate 1.13.0.
 *
 * Accelerate's FSDP plugin under `bf16`/`fp16`: MixedPrecision with param_dtype = reduce_dtype
 * = the AMP dtype (accelerate utils/dataclasses.py:2116-2118@v1.14.0), so gradients are reduced in 16 bits
 * (information); and with FSDP2 at accelerate 1.13.0 the fp32 upcast of the trainable parameters is a no-op
 * (fsdp_utils.py:740@v1.13.0, accelerate#3979, fixed at fsdp_utils.py:714@v1.14.0): a model loaded in bf16 keeps
 * bf16 master weights (warning when the accelerate pin says 1.13.x and the load dtype is written here).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { TransformersRule } from "../context";
import { fsdp2UpcastNoOp } from "../data";

export const lowPrecisionReduction: TransformersRule = {
  codes: ["transformers/low-precision-reduction"],
  // The accelerate version (the no-op is 1.13.x only) and the launcher: the no-op warning on an assumed one is information.
  restsOn: ["version", "launcher"],
  warningOnAssumed: "information",
  versionOf: "accelerate",
  run(ctx) {
    const d = diagnostics("transformers");
    const { launcher, amp, load, versions, fsdpVersion, v, accel, launcherFrom } = ctx;
    if (launcher !== "fsdp" || amp.value === "no") return d.out;
    const low = amp.value;
    // The anchor: `fsdp` here, or (FSDP from the accelerate config) the first key of this file.
    const fsdpE = v.entry("fsdp") ?? (launcherFrom === "accelerate" ? v.entry(v.childKeys()[0] ?? "") : undefined);
    void accel;
    const ver = fsdpVersion!.value;
    if (ver === 2 && fsdp2UpcastNoOp(versions.accelerate.value) && (load.value === "bfloat16" || load.value === "float16")) {
      d.add("low-precision-reduction", "warning", load.entry?.value.range ?? fsdpE?.value.range, `accelerate ${versions.accelerate.value}: the FSDP2 fp32 upcast is a no-op, the ${load.value === "bfloat16" ? "bf16" : "fp16"} weights stay the master copy`, undefined, undefined, `With FSDP2 and mixed precision, accelerate means to upcast the trainable parameters to fp32 before sharding, but at ${versions.accelerate.value} (${versions.accelerate.detail}) the upcast only rebinds a local variable (accelerate#3979), so the parameters loaded in ${load.detail} stay 16-bit: no fp32 master weights or optimizer state. Upgrade accelerate to 1.14.0 or load the model in fp32.`);
      return d.out;
    }
    d.add("low-precision-reduction", "information", fsdpE?.value.range, `FSDP${ver} through accelerate reduces gradients in ${low} (reduce_dtype follows the ${low} mixed precision)`, undefined, undefined, `accelerate builds the FSDP${ver} MixedPrecision policy with param_dtype = reduce_dtype = ${low} from the Trainer's mixed precision, so gradients are reduced across ranks in ${low}. An fp32 reduction needs a mixed_precision_policy with reduce_dtype float32 in the accelerate config.`);
    return d.out;
  },
};
