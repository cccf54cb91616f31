/** The Lightning rules (spec other-frameworks.md §3.5), in the order they report. Adding a rule: a file here and a line below. */
import { parseNotesRule, yamlBooleansRule, type FrameworkRule } from "../../common/rule";
import { looksBoolKey } from "../../common/yamlBooleans";
import type { LightningContext } from "../context";
import { deepspeedLink } from "./deepspeed-link";
import { unknownPrecision } from "./unknown-precision";
import { precisionAndPlugin } from "./precision-and-plugin";
import { fp16MixedOnCpu } from "./fp16-mixed-on-cpu";
import { modelParallelSizes } from "./model-parallel-sizes";
import { legacyPrecisionAlias } from "./legacy-precision-alias";
import { fsdpUnsupportedPrecision } from "./fsdp-unsupported-precision";
import { deepspeedUnsupportedPrecision } from "./deepspeed-unsupported-precision";
import { modelParallelUnsupportedPrecision } from "./model-parallel-unsupported-precision";
import { fsdpNormClipping } from "./fsdp-norm-clipping";
import { fp16TrueWithoutLossScaling } from "./fp16-true-without-loss-scaling";
import { pureBf16 } from "./pure-bf16";
import { lowPrecisionReduction } from "./low-precision-reduction";

export const LIGHTNING_RULES: readonly FrameworkRule<LightningContext>[] = [parseNotesRule("lightning"), legacyPrecisionAlias, unknownPrecision, fsdpUnsupportedPrecision, deepspeedUnsupportedPrecision, modelParallelUnsupportedPrecision, fsdpNormClipping, fp16TrueWithoutLossScaling, pureBf16, lowPrecisionReduction, precisionAndPlugin, fp16MixedOnCpu, modelParallelSizes, deepspeedLink, yamlBooleansRule("lightning", () => false, looksBoolKey)];
