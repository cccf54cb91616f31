/** The Megatron-LM rules, in the order they report. Adding a rule: a file here and a line below. */
import type { FrameworkRule } from "../../common/rule";
import type { MegatronContext } from "../context";
import { bf16AndFp16 } from "./bf16-and-fp16";
import { parallelSizes } from "./parallel-sizes";
import { fp8WithoutBf16 } from "./fp8-without-bf16";
import { precisionAwareOptimizer } from "./precision-aware-optimizer";
import { lowPrecisionGradients } from "./low-precision-gradients";

export const MEGATRON_RULES: readonly FrameworkRule<MegatronContext>[] = [bf16AndFp16, parallelSizes, precisionAwareOptimizer, fp8WithoutBf16, lowPrecisionGradients];
