/**
 * Axolotl YAML (spec other-frameworks.md §4): the context computed once (context.ts, with the `deepspeed:`
 * link), the rules (one file per code) and the DeepSpeed link (rules/), the resolution per mode (resolve.ts) and the
 * hover (hover.ts).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { failedLaunch, frameworkAnalysis } from "../common/result";
import { runRules } from "../common/rule";
import { axolotlContext } from "./context";
import { detectAxolotl } from "./detect";
import { axolotlHover } from "./hover";
import { axolotlResolution } from "./resolve";
import { AXOLOTL_RULES } from "./rules/index";

export { detectAxolotl };

export const axolotlAnalyzer: FrameworkAnalyzer = {
  id: "axolotl",
  formats: ["yaml"],
  detect: detectAxolotl,
  analyze: analyzeAxolotl,
};

function analyzeAxolotl(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const ctx = axolotlContext(doc, settings, env);
  const diagnostics = runRules(ctx, AXOLOTL_RULES, { worldSize: ctx.worldSize, version: ctx.version });
  const r = axolotlResolution(ctx);
  const hover = () => axolotlHover(ctx, r, failedLaunch(diagnostics));
  return frameworkAnalysis({ resolution: r, diagnostics, hover, worldSize: ctx.worldSize, engine: r.engine, });
}
