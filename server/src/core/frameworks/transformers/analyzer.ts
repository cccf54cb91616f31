/**
 * transformers TrainingArguments files (YAML or JSON), with TRL and LLaMA-Factory as dialects: the context
 * computed once (context.ts: dialect, versions, each precision fact with its source, the launcher and the linked
 * DeepSpeed file), the rules HF1–HF8 (rules/), the resolution per launcher (resolve.ts) and the hover (hover.ts).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { failedLaunch, frameworkAnalysis } from "../common/result";
import { runRules } from "../common/rule";
import { transformersContext } from "./context";
import { detectTransformers } from "./detect";
import { transformersHover } from "./hover";
import { transformersResolution } from "./resolve";
import { TRANSFORMERS_RULES } from "./rules/index";

export { detectTransformers };

export const transformersAnalyzer: FrameworkAnalyzer = {
  id: "transformers",
  formats: ["yaml", "json"],
  detect: detectTransformers,
  analyze: analyzeTransformers,
};

function analyzeTransformers(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const ctx = transformersContext(doc, settings, env);
  const diagnostics = runRules(ctx, TRANSFORMERS_RULES, { worldSize: ctx.worldSize });
  const r = transformersResolution(ctx);
  const hover = transformersHover(ctx, r, failedLaunch(diagnostics));
  return frameworkAnalysis({ resolution: r, diagnostics, hover, worldSize: ctx.worldSize });
}
