/**
 * The torchtitan rule registry. Each rule is one concern, in its own file named by its code.
 * Order does not matter: diagnostics are sorted by position before publishing.
 */
import type { TitanRule } from "../context";
import { cpAttentionUnsupported } from "./cp-attention-unsupported";
import { cpuOffloadWithoutFsdp } from "./cpu-offload-without-fsdp";
import { ddpWithOtherParallelism } from "./ddp-with-other-parallelism";
import { dtypeValues } from "./dtype-values";
import { epNeedsTpMesh } from "./ep-needs-tp-mesh";
import { epWithoutFsdpMesh } from "./ep-without-fsdp-mesh";
import { fp32ParamDtype } from "./fp32-param-dtype";
import { fsdpTpGradAllreduceDtype } from "./fsdp-tp-grad-allreduce-dtype";
import { memoryExceedsGpu } from "./memory-exceeds-gpu";
import { noEffect } from "./no-effect";
import { noMixedPrecision } from "./no-mixed-precision";
import { parallelDims } from "./parallel-dims";
import { ppBubble } from "./pp-bubble";
import { pp1f1bMicrobatches } from "./pp-1f1b-microbatches";
import { pureBf16 } from "./pure-bf16";
import { removedSetting } from "./removed-setting";
import { launchFlagRejected } from "./launch-flag-rejected";
import { modelNotInRelease, moduleNotInRelease } from "./model-not-in-release";
import { SCHEMA_RULES } from "../schema/rules";

export const TITAN_RULES: readonly TitanRule[] = [
  parallelDims,
  ddpWithOtherParallelism,
  epWithoutFsdpMesh,
  epNeedsTpMesh,
  noMixedPrecision,
  dtypeValues,
  fp32ParamDtype,
  pureBf16,
  fsdpTpGradAllreduceDtype,
  noEffect,
  cpuOffloadWithoutFsdp,
  cpAttentionUnsupported,
  ppBubble,
  pp1f1bMicrobatches,
  memoryExceedsGpu,
  removedSetting,
  launchFlagRejected,
  modelNotInRelease,
  moduleNotInRelease,
  ...SCHEMA_RULES,
];
