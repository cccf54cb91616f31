/**
 * The registry of framework analysers, in detection order (spec other-frameworks.md §6: the most specific
 * markers first). Adding a framework means adding it here and nowhere else.
 */
import type { FrameworkAnalyzer, FrameworkId } from "./analysis";
import { accelerateAnalyzer } from "./frameworks/accelerate";
import { axolotlAnalyzer } from "./frameworks/axolotl";
import { deepspeedAnalyzer } from "./frameworks/deepspeed";
import { lightningAnalyzer } from "./frameworks/lightning";
import { torchtuneAnalyzer } from "./frameworks/torchtune";
import { torchtitanAnalyzer } from "./torchtitan/analyzer";

export const FRAMEWORKS: readonly FrameworkAnalyzer[] = [torchtitanAnalyzer, deepspeedAnalyzer, accelerateAnalyzer, torchtuneAnalyzer, axolotlAnalyzer, lightningAnalyzer];

export function frameworkById(id: string): FrameworkAnalyzer | undefined {
  return FRAMEWORKS.find((f) => f.id === (id as FrameworkId));
}
