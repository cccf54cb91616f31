/**
 * The registry of framework analysers, in detection order (spec other-frameworks.md §6: the most specific
 * markers first). Adding a framework means adding it here and nowhere else.
 */
import type { FrameworkAnalyzer, FrameworkId } from "../analysis";
import type { ConfigFormat } from "../model/document";
import { accelerateAnalyzer } from "./accelerate/analyzer";
import { axolotlAnalyzer } from "./axolotl/analyzer";
import { deepspeedAnalyzer } from "./deepspeed/analyzer";
import { lightningAnalyzer } from "./lightning/analyzer";
import { torchtuneAnalyzer } from "./torchtune/analyzer";
import { torchtitanAnalyzer } from "./torchtitan/analyzer";
import { transformersAnalyzer } from "./transformers/analyzer";
import { verlAnalyzer } from "./verl/analyzer";
import { megatronAnalyzer } from "./megatron/analyzer";
import { automodelAnalyzer } from "./automodel/analyzer";
import { torchtitanPythonAnalyzer } from "./torchtitan/python/analyzer";

export const FRAMEWORKS: readonly FrameworkAnalyzer[] = [torchtitanAnalyzer, torchtitanPythonAnalyzer, deepspeedAnalyzer, verlAnalyzer, megatronAnalyzer, automodelAnalyzer, accelerateAnalyzer, torchtuneAnalyzer, axolotlAnalyzer, lightningAnalyzer, transformersAnalyzer];

export function frameworkById(id: string, format?: ConfigFormat): FrameworkAnalyzer | undefined {
  return FRAMEWORKS.find((f) => f.id === (id as FrameworkId) && (!format || f.formats.includes(format))) ?? FRAMEWORKS.find((f) => f.id === (id as FrameworkId));
}
