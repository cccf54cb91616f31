/**
 * axolotl/pure-bf16: A full fine-tune in pure bf16 (no fp32 master copy).
 *
 * A bf16 full fine-tune without DeepSpeed or FSDP1 is pure bf16 (no fp32 master copy).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { AxolotlContext } from "../context";

export const pureBf16: FrameworkRule<AxolotlContext> = {
  codes: ["axolotl/pure-bf16"],
  restsOn: [],
  run({ v, fullFT, bf16, bf16E, dsOn, fsdpOn, fsdp2 }) {
    const d = diagnostics("axolotl");
    const amp = bf16 === true || bf16 === "auto";
    if (fullFT && amp && !dsOn && !(fsdpOn && !fsdp2) && !v.bool("fp8")) {
      d.add("pure-bf16", "information", bf16E?.value.range ?? v.keyRange("base_model"), `Full fine-tune with bf16 on ${fsdp2 ? "FSDP2" : "one GPU or DDP"}: pure bf16, no fp32 master copy of the weights`, undefined, undefined, `Full fine-tune with bf16 ${bf16 === "auto" ? "(auto, the default)" : ""} on ${fsdp2 ? "FSDP2" : "a single GPU or DDP"}: Axolotl loads the model in bf16 and ${fsdp2 ? "its FSDP2 path does not upcast" : "nothing upcasts it"}, so weights, gradients and optimizer state are pure bf16 with no fp32 master copy. Use DeepSpeed ZeRO (fp32 master partitions) if you need fp32 master weights, or accept it.`.replace("  ", " "));
    }
    return d.out;
  },
};
