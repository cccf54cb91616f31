/**
 * The registry of framework analysers, in detection order (spec other-frameworks.md §6: the most specific
 * markers first). Adding a framework means adding it here and nowhere else.
 */
import type { FrameworkAnalyzer, FrameworkId } from "../analysis";
import { accelerateAnalyzer } from "./accelerate/analyzer";
import { axolotlAnalyzer } from "./axolotl/analyzer";
import { deepspeedAnalyzer } from "./deepspeed/analyzer";
import { lightningAnalyzer } from "./lightning/analyzer";
import { torchtuneAnalyzer } from "./torchtune/analyzer";
import { torchtitanAnalyzer } from "./torchtitan/analyzer";
import { transformersAnalyzer } from "./transformers/analyzer";

export const FRAMEWORKS: readonly FrameworkAnalyzer[] = [torchtitanAnalyzer, deepspeedAnalyzer, accelerateAnalyzer, torchtuneAnalyzer, axolotlAnalyzer, lightningAnalyzer, transformersAnalyzer];

export function frameworkById(id: string): FrameworkAnalyzer | undefined {
  return FRAMEWORKS.find((f) => f.id === (id as FrameworkId));
}
