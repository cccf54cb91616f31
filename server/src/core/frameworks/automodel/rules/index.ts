/** The NeMo AutoModel rules, in the order they report. Adding a rule: a file here and a line below. */
import { looksBoolKey } from "../../common/yamlBooleans";
import { parseNotesRule, yamlBooleansRule, type FrameworkRule } from "../../common/rule";
import type { AutomodelContext } from "../context";
import { AM1 } from "./bf16-weights-adam";
import { AM2 } from "./dtype-name";
import { AM3 } from "./low-precision-reduction";
import { AM4 } from "./mixed-precision-not-applied";

export const AUTOMODEL_RULES: readonly FrameworkRule<AutomodelContext>[] = [parseNotesRule("automodel"), AM2, AM1, AM4, AM3, yamlBooleansRule("automodel", () => false, looksBoolKey)];
