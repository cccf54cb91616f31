/** The NeMo AutoModel rules, in the order they report. Adding a rule: a file here and a line below. */
import { looksBoolKey } from "../../common/yamlBooleans";
import { parseNotesRule, yamlBooleansRule, type FrameworkRule } from "../../common/rule";
import type { AutomodelContext } from "../context";
import { bf16WeightsAdam } from "./bf16-weights-adam";
import { unknownDtype } from "./unknown-dtype";
import { lowPrecisionReduction } from "./low-precision-reduction";
import { mixedPrecisionNotApplied } from "./mixed-precision-not-applied";

export const AUTOMODEL_RULES: readonly FrameworkRule<AutomodelContext>[] = [parseNotesRule("automodel"), unknownDtype, bf16WeightsAdam, mixedPrecisionNotApplied, lowPrecisionReduction, yamlBooleansRule("automodel", () => false, looksBoolKey)];
