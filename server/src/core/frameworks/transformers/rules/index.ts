/** The transformers rules, in the order they report. Adding a rule: a file here and a line below. */
import { parseNotesRule, yamlBooleansRule } from "../../common/rule";
import { looksBoolKey } from "../../common/yamlBooleans";
import type { TransformersRule } from "../context";
import { HF1 } from "./HF1";
import { HF2 } from "./HF2";
import { HF3 } from "./HF3";
import { HF4 } from "./HF4";
import { HF5 } from "./HF5";
import { HF6 } from "./HF6";
import { HF7 } from "./HF7";
import { HF8 } from "./HF8";
import { HF9 } from "./HF9";
import { HF10 } from "./HF10";
import { HF11 } from "./HF11";
import { HF12 } from "./HF12";
import { HF13 } from "./HF13";

export type { TransformersRule };

export const TRANSFORMERS_RULES: readonly TransformersRule[] = [parseNotesRule("transformers"), HF8, HF9, HF10, HF11, HF13, HF7, HF3, HF4, HF5, HF6, HF2, HF12, HF1, yamlBooleansRule("transformers", () => false, looksBoolKey)];
