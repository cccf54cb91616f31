/**
 * DeepSpeed JSON configs (spec other-frameworks.md §5): the context computed once (context.ts, with the
 * facts of facts.ts and the YAML configs that use the file), the rules (rules/, one file per code),
 * the resolution per ZeRO stage (resolve.ts) and the hover (hover.ts). linked.ts is what the YAML
 * analysers read a linked DeepSpeed file through.
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { failedLaunch, frameworkAnalysis } from "../common/result";
import { runRules } from "../common/rule";
import { deepSpeedContext } from "./context";
import { detectDeepSpeed } from "./detect";
import { deepSpeedHover } from "./hover";
import { resolveDeepSpeed } from "./resolve";
import { DEEPSPEED_RULES } from "./rules/index";

export { detectDeepSpeed };

export const deepspeedAnalyzer: FrameworkAnalyzer = {
  id: "deepspeed",
  formats: ["json", "yaml"],
  detect: detectDeepSpeed,
  analyze(doc, settings, env) {
    return analyzeDeepSpeed(doc, settings, env);
  },
};

function analyzeDeepSpeed(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const ctx = deepSpeedContext(doc, settings, env);
  const diagnostics = runRules(ctx, DEEPSPEED_RULES, { worldSize: ctx.worldSize });
  const r = resolveDeepSpeed(ctx);
  const hover = () => deepSpeedHover(ctx, r, failedLaunch(diagnostics));
  return frameworkAnalysis({ resolution: r, diagnostics, hover, worldSize: ctx.worldSize, });
}
