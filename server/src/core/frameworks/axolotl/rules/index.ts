/** The Axolotl rules (spec other-frameworks.md §4.4), in the order they report. Adding a rule: a file here and a line below. */
import { parseNotesRule, yamlBooleansRule, type FrameworkRule } from "../../common/rule";
import { looksBoolKey } from "../../common/yamlBooleans";
import type { AxolotlContext } from "../context";
import { AX1 } from "./AX1";
import { AX2 } from "./AX2";
import { AX3 } from "./AX3";
import { AX4 } from "./AX4";
import { AX5 } from "./AX5";
import { AX6 } from "./AX6";
import { AX7 } from "./AX7";
import { AX8 } from "./AX8";
import { deepspeedLink } from "./deepspeed-link";

export const AXOLOTL_RULES: readonly FrameworkRule<AxolotlContext>[] = [parseNotesRule("axolotl"), AX1, AX2, AX3, AX5, AX6, AX7, AX8, deepspeedLink, AX4, yamlBooleansRule("axolotl", () => false, looksBoolKey)];
