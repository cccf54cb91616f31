/**
 * NeMo AutoModel recipe YAMLs (`_target_` components): the context (context.ts), the rules (rules/, one file
 * per check), the resolution per strategy (resolve.ts) and the hover (hover.ts).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { failedLaunch, frameworkAnalysis } from "../common/result";
import { runRules } from "../common/rule";
import { automodelContext } from "./context";
import { detectAutomodel } from "./detect";
import { automodelHover } from "./hover";
import { resolveAutomodel } from "./resolve";
import { AUTOMODEL_RULES } from "./rules/index";

export const automodelAnalyzer: FrameworkAnalyzer = {
  id: "automodel",
  formats: ["yaml"],
  detect: detectAutomodel,
  analyze: analyzeAutomodel,
};

function analyzeAutomodel(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const ctx = automodelContext(doc, settings, env);
  const diagnostics = runRules(ctx, AUTOMODEL_RULES, { worldSize: ctx.worldSize, model: ctx.modelFact });
  const r = resolveAutomodel(ctx);
  const hover = () => automodelHover(ctx, r, failedLaunch(diagnostics));
  return frameworkAnalysis({ resolution: { layoutName: r.layoutName, mechanism: r.mechanism, table: r.table }, diagnostics, hover, worldSize: ctx.worldSize, engine: r.engineSpec });
}
