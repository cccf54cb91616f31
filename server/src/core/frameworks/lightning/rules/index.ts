/** The Lightning rules (spec other-frameworks.md §3.5), in the order they report. Adding a rule: a file here and a line below. */
import { parseNotesRule, yamlBooleansRule, type FrameworkRule } from "../../common/rule";
import { looksBoolKey } from "../../common/yamlBooleans";
import type { LightningContext } from "../context";
import { deepspeedLink } from "./deepspeed-link";
import { PL1 } from "./PL1";
import { PL10 } from "./PL10";
import { PL11 } from "./PL11";
import { PL12 } from "./PL12";
import { PL2 } from "./PL2";
import { PL3 } from "./PL3";
import { PL4 } from "./PL4";
import { PL5 } from "./PL5";
import { PL6 } from "./PL6";
import { PL7 } from "./PL7";
import { PL8 } from "./PL8";
import { PL9 } from "./PL9";

export const LIGHTNING_RULES: readonly FrameworkRule<LightningContext>[] = [parseNotesRule("lightning"), PL2, PL1, PL3, PL4, PL5, PL6, PL7, PL8, PL9, PL10, PL11, PL12, deepspeedLink, yamlBooleansRule("lightning", () => false, looksBoolKey)];
