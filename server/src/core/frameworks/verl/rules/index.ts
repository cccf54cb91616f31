/** The verl rules, in the order they report. Adding a rule: a file here and a line below. */
import type { FrameworkRule } from "../../common/rule";
import type { VerlContext } from "../context";
import { bf16WeightsAdamw } from "./bf16-weights-adamw";
import { unknownDtype } from "./unknown-dtype";
import { paramDtypeNotApplied } from "./param-dtype-not-applied";
import { fp16WithoutLossScaling } from "./fp16-without-loss-scaling";
import { lowPrecisionReduction } from "./low-precision-reduction";
import { mixedPrecisionNeedsPlus } from "./mixed-precision-needs-plus";
import { unsupportedMegatronDtype } from "./unsupported-megatron-dtype";

export const VERL_RULES: readonly FrameworkRule<VerlContext>[] = [mixedPrecisionNeedsPlus, unknownDtype, unsupportedMegatronDtype, bf16WeightsAdamw, paramDtypeNotApplied, fp16WithoutLossScaling, lowPrecisionReduction];
