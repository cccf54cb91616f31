/** The verl rules, in the order they report. Adding a rule: a file here and a line below. */
import type { FrameworkRule } from "../../common/rule";
import type { VerlContext } from "../context";
import { VL1 } from "./bf16-weights-adamw";
import { VL2 } from "./dtype-name";
import { VL3 } from "./param-dtype-not-applied";
import { VL4 } from "./fp16-without-loss-scaling";
import { VL5 } from "./low-precision-reduction";
import { VL6 } from "./mixed-precision-needs-plus";
import { VL7 } from "./megatron-dtype";

export const VERL_RULES: readonly FrameworkRule<VerlContext>[] = [VL6, VL2, VL7, VL1, VL3, VL4, VL5];
