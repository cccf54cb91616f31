/**
 * The schema and cross-field rules (issue #4), registered in TITAN_RULES with one spread. Each rule
 * lives in rules/<code>.ts.
 */
import type { TitanRule } from "../context";
import { bf16StorageFp32Compute } from "../rules/bf16-storage-fp32-compute";
import { globalBatchSize, ppMicrobatch, seqLenDivisibility } from "../rules/batch-shape";
import { keepLatestK, seedCheckpoint, validationSteps } from "../rules/checkpoint";
import { asyncTpWithoutCompile, memoryBudgetWithoutCompile } from "../rules/compile-required";
import { float8AllGatherNoEffect, float8EmulateCompile, float8GroupedMmPpCp, float8RecipeWithAllGather, mxTpCompile, quantizeGpuUnsupported, quantizeWithoutCompile } from "../rules/quantize-constraints";
import { mixedQuantization, unknownConverter } from "../rules/unknown-converter";
import { deprecatedKey, extensionSectionWithoutModule, movedKey, removedKey, unknownKey, unknownSection } from "../rules/unknown-key";
import { invalidValue, wrongType } from "../rules/wrong-type";
import { forkConfig } from "../rules/fork-config";

export const SCHEMA_RULES: readonly TitanRule[] = [
  unknownKey,
  unknownSection,
  movedKey,
  removedKey,
  deprecatedKey,
  extensionSectionWithoutModule,
  forkConfig,
  wrongType,
  invalidValue,
  unknownConverter,
  mixedQuantization,
  float8GroupedMmPpCp,
  mxTpCompile,
  float8EmulateCompile,
  float8RecipeWithAllGather,
  float8AllGatherNoEffect,
  quantizeWithoutCompile,
  quantizeGpuUnsupported,
  asyncTpWithoutCompile,
  memoryBudgetWithoutCompile,
  seqLenDivisibility,
  globalBatchSize,
  ppMicrobatch,
  keepLatestK,
  seedCheckpoint,
  validationSteps,
  bf16StorageFp32Compute,
];

/** Every code the schema rules emit (for docs and fixture `ignore` lists). */
export const SCHEMA_RULE_CODES: readonly string[] = SCHEMA_RULES.flatMap((r) => r.codes);
