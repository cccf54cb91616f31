/** The accelerate rules (spec other-frameworks.md §2.6), in the order they report. Adding a rule: a file here and a line below. */
import { parseNotesRule, yamlBooleansRule, type FrameworkRule } from "../../common/rule";
import { looksBoolKey } from "../../common/yamlBooleans";
import type { AccelerateContext } from "../context";
import { bareNoBoolean } from "./bare-no-boolean";
import { parallelismSizes } from "./parallelism-sizes";
import { fp16PreferBf16 } from "./fp16-prefer-bf16";
import { fp8WithoutBackend } from "./fp8-without-backend";
import { fsdp1ShardingStrategyWins } from "./fsdp1-sharding-strategy-wins";
import { unknownKey } from "./unknown-key";
import { unknownMixedPrecision } from "./unknown-mixed-precision";
import { keyBelongsInDeepspeedFile } from "./key-belongs-in-deepspeed-file";
import { lowPrecisionReduction } from "./low-precision-reduction";
import { fsdpVersionOption } from "./fsdp-version-option";
import { fsdp2UnsupportedOption } from "./fsdp2-unsupported-option";
import { ramEfficientLoadingWithoutSync } from "./ram-efficient-loading-without-sync";
import { parallelismKeyWithoutPrefix } from "./parallelism-key-without-prefix";
import { ignoredBackendSection } from "./ignored-backend-section";
import { ignoredDeepspeedKey } from "./ignored-deepspeed-key";
import { deepspeedLink } from "./deepspeed-link";

/** `mixed_precision` / `distributed_type` booleans are bare-no-boolean's (a sharper code than yaml-1.1-boolean). */
const AC1_PATHS = (p: string[]) => p.length === 1 && (p[0] === "mixed_precision" || p[0] === "distributed_type");

export const ACCELERATE_RULES: readonly FrameworkRule<AccelerateContext>[] = [
  parseNotesRule("accelerate"),
  bareNoBoolean,
  unknownMixedPrecision,
  unknownKey,
  keyBelongsInDeepspeedFile,
  ignoredBackendSection,
  ignoredDeepspeedKey,
  deepspeedLink,
  fsdpVersionOption,
  fsdp2UnsupportedOption,
  ramEfficientLoadingWithoutSync,
  fsdp1ShardingStrategyWins,
  parallelismKeyWithoutPrefix,
  parallelismSizes,
  lowPrecisionReduction,
  fp16PreferBf16,
  fp8WithoutBackend,
  yamlBooleansRule("accelerate", AC1_PATHS, looksBoolKey),
];
