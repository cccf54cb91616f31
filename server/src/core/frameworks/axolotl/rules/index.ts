/** The Axolotl rules (spec other-frameworks.md §4.4), in the order they report. Adding a rule: a file here and a line below. */
import { parseNotesRule, yamlBooleansRule, type FrameworkRule } from "../../common/rule";
import { looksBoolKey } from "../../common/yamlBooleans";
import type { AxolotlContext } from "../context";
import { invalidBf16Value } from "./invalid-bf16-value";
import { bf16AndFp16 } from "./bf16-and-fp16";
import { loadDtypeOnly } from "./load-dtype-only";
import { pureBf16 } from "./pure-bf16";
import { fsdpOptionConflict } from "./fsdp-option-conflict";
import { fp16FullFinetune } from "./fp16-full-finetune";
import { deprecatedFsdp1Syntax } from "./deprecated-fsdp1-syntax";
import { bitsandbytesFsdp2 } from "./bitsandbytes-fsdp2";
import { deepspeedLink } from "./deepspeed-link";
import { ignoredDeepspeedConfig } from "./ignored-deepspeed-config";

export const AXOLOTL_RULES: readonly FrameworkRule<AxolotlContext>[] = [parseNotesRule("axolotl"), invalidBf16Value, bf16AndFp16, loadDtypeOnly, fsdpOptionConflict, fp16FullFinetune, deprecatedFsdp1Syntax, bitsandbytesFsdp2, deepspeedLink, ignoredDeepspeedConfig, pureBf16, yamlBooleansRule("axolotl", () => false, looksBoolKey)];
