/** The transformers rules, in the order they report. Adding a rule: a file here and a line below. */
import { parseNotesRule, yamlBooleansRule } from "../../common/rule";
import { looksBoolKey } from "../../common/yamlBooleans";
import type { TransformersRule } from "../context";
import { pure16Bit } from "./pure-16-bit";
import { lowPrecisionReduction } from "./low-precision-reduction";
import { deepspeedValueMismatch } from "./deepspeed-value-mismatch";
import { pureBf16Zero3 } from "./pure-bf16-zero3";
import { llamafactoryRejectedArgs } from "./llamafactory-rejected-args";
import { flashAttentionFp32 } from "./flash-attention-fp32";
import { unknownKey } from "./unknown-key";
import { launcherPrecisionMismatch } from "./launcher-precision-mismatch";
import { bf16AndFp16 } from "./bf16-and-fp16";
import { fsdp1StrategyWithFsdp2 } from "./fsdp1-strategy-with-fsdp2";
import { launchConfigMissing } from "./launch-config-missing";
import { trlModelDtype } from "./trl-model-dtype";
import { fp16ModelFp16Amp } from "./fp16-model-fp16-amp";
import { bf16UnsupportedGpu } from "./bf16-unsupported-gpu";
import { fp16OnBf16Checkpoint } from "./fp16-on-bf16-checkpoint";
import { booleanEnumValue, TA_ENUM_FIELDS } from "./boolean-enum-value";
import { grpoGenerationBatch } from "./grpo-generation-batch";

export type { TransformersRule };

export const TRANSFORMERS_RULES: readonly TransformersRule[] = [parseNotesRule("transformers"), bf16AndFp16, booleanEnumValue, fsdp1StrategyWithFsdp2, launchConfigMissing, trlModelDtype, grpoGenerationBatch, bf16UnsupportedGpu, fp16OnBf16Checkpoint, launcherPrecisionMismatch, deepspeedValueMismatch, pureBf16Zero3, llamafactoryRejectedArgs, flashAttentionFp32, unknownKey, lowPrecisionReduction, fp16ModelFp16Amp, pure16Bit, yamlBooleansRule("transformers", (path) => path.length === 1 && path[0]! in TA_ENUM_FIELDS, looksBoolKey)];
