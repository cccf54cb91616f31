/** The Megatron-LM rules, in the order they report. Adding a rule: a file here and a line below. */
import type { FrameworkRule } from "../../common/rule";
import type { MegatronContext } from "../context";
import { MG1 } from "./bf16-and-fp16";
import { MG2 } from "./parallel-sizes";
import { MG3 } from "./fp8-without-bf16";
import { MG4 } from "./precision-aware-optimizer";
import { MG5 } from "./low-precision-gradients";

export const MEGATRON_RULES: readonly FrameworkRule<MegatronContext>[] = [MG1, MG2, MG4, MG3, MG5];
