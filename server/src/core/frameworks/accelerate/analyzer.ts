/**
 * Hugging Face accelerate config YAML (spec other-frameworks.md §2): the context computed once
 * (context.ts), the rules (rules/, one file per code, named by what it checks) and the DeepSpeed link, the resolution per `distributed_type` ×
 * `mixed_precision` (resolve.ts) and the hover (hover.ts).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { failedLaunch, frameworkAnalysis } from "../common/result";
import { runRules } from "../common/rule";
import { accelerateContext } from "./context";
import { detectAccelerate } from "./detect";
import { accelerateHover } from "./hover";
import { resolveAccelerate } from "./resolve";
import { ACCELERATE_RULES } from "./rules/index";

export { detectAccelerate };

export const accelerateAnalyzer: FrameworkAnalyzer = {
  id: "accelerate",
  formats: ["yaml"],
  detect: detectAccelerate,
  analyze: analyzeAccelerate,
};

function analyzeAccelerate(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const ctx = accelerateContext(doc, settings, env);
  const diagnostics = runRules(ctx, ACCELERATE_RULES, { worldSize: ctx.worldSize, version: ctx.version });
  const r = resolveAccelerate(ctx);
  const hover = () => accelerateHover(ctx, r, failedLaunch(diagnostics));
  return frameworkAnalysis({ resolution: r, diagnostics, hover, worldSize: ctx.worldSize, engine: r.engine, });
}
