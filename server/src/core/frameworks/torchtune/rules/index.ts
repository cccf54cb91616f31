/** The torchtune rules (spec other-frameworks.md §1.5), in the order they report. Adding a rule: a file here and a line below. */
import { looksBoolKey } from "../../common/yamlBooleans";
import { parseNotesRule, yamlBooleansRule, type FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";
import { TT1 } from "./TT1";
import { TT10 } from "./TT10";
import { TT11 } from "./TT11";
import { TT12 } from "./TT12";
import { TT2 } from "./TT2";
import { TT3 } from "./TT3";
import { TT4 } from "./TT4";
import { TT5 } from "./TT5";
import { TT6 } from "./TT6";
import { TT7 } from "./TT7";
import { TT8 } from "./TT8";
import { TT9 } from "./TT9";

export const TORCHTUNE_RULES: readonly FrameworkRule<TorchtuneContext>[] = [
  parseNotesRule("torchtune"),
  TT2,
  TT1,
  TT3,
  TT4,
  TT5,
  TT6,
  TT7,
  TT8,
  TT9,
  TT10,
  TT11,
  TT12,
  yamlBooleansRule("torchtune", () => false, looksBoolKey),
];
