/** The DeepSpeed rules (spec other-frameworks.md §5.4), in the order they report. Adding a rule: a file here and a line below. */
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";
import { bf16AndFp16 } from "./bf16-and-fp16";
import { ampWithZero } from "./amp-with-zero";
import { autoWithoutTrainer } from "./auto-without-trainer";
import { bf16MasterWeights } from "./bf16-master-weights";
import { bf16GradAccumulation } from "./bf16-grad-accumulation";
import { lowPrecisionReduction } from "./low-precision-reduction";
import { invalidValue } from "./invalid-value";
import { batchSizeProduct } from "./batch-size-product";
import { precisionMismatch } from "./precision-mismatch";
import { stringBoolean } from "./string-boolean";
import { duplicateKey } from "./duplicate-key";
import { noBatchSize } from "./no-batch-size";
import { unknownPrecisionKey } from "./unknown-precision-key";

export const DEEPSPEED_RULES: readonly FrameworkRule<DeepSpeedContext>[] = [bf16AndFp16, ampWithZero, bf16MasterWeights, bf16GradAccumulation, lowPrecisionReduction, invalidValue, batchSizeProduct, noBatchSize, unknownPrecisionKey, duplicateKey, autoWithoutTrainer, precisionMismatch, stringBoolean];
