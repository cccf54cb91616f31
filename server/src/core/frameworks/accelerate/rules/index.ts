/** The accelerate rules (spec other-frameworks.md §2.6), in the order they report. Adding a rule: a file here and a line below. */
import { parseNotesRule, yamlBooleansRule, type FrameworkRule } from "../../common/rule";
import { looksBoolKey } from "../../common/yamlBooleans";
import type { AccelerateContext } from "../context";
import { AC1 } from "./AC1";
import { AC10 } from "./AC10";
import { AC11 } from "./AC11";
import { AC12 } from "./AC12";
import { AC13 } from "./AC13";
import { AC14 } from "./AC14";
import { AC2 } from "./AC2";
import { AC3 } from "./AC3";
import { AC4 } from "./AC4";
import { AC5 } from "./AC5";
import { AC6 } from "./AC6";
import { AC7 } from "./AC7";
import { AC8 } from "./AC8";
import { AC9 } from "./AC9";
import { deepspeedLink } from "./deepspeed-link";

/** `mixed_precision` / `distributed_type` booleans are AC1's (a sharper code than yaml-1.1-boolean). */
const AC1_PATHS = (p: string[]) => p.length === 1 && (p[0] === "mixed_precision" || p[0] === "distributed_type");

export const ACCELERATE_RULES: readonly FrameworkRule<AccelerateContext>[] = [
  parseNotesRule("accelerate"),
  AC1,
  AC3,
  AC2,
  AC4,
  AC14,
  deepspeedLink,
  AC6,
  AC7,
  AC8,
  AC13,
  AC9,
  AC10,
  AC5,
  AC11,
  AC12,
  yamlBooleansRule("accelerate", AC1_PATHS, looksBoolKey),
];
