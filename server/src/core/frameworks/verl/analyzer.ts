/**
 * verl (RL post-training): run scripts launching `verl.trainer.main_ppo` with Hydra overrides, and verl trainer
 * YAMLs. The context composes the config (context.ts), the rules (rules/, one file per check), the resolution
 * of the actor's dtypes (resolve.ts) and the hover (hover.ts).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { failedLaunch, frameworkAnalysis } from "../common/result";
import { runRules } from "../common/rule";
import { verlContext } from "./context";
import { detectVerl } from "./detect";
import { verlHover } from "./hover";
import { resolveVerl } from "./resolve";
import { VERL_RULES } from "./rules/index";

export const verlAnalyzer: FrameworkAnalyzer = {
  id: "verl",
  formats: ["shell", "yaml"],
  detect: detectVerl,
  analyze: analyzeVerl,
};

function analyzeVerl(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const ctx = verlContext(doc, settings, env);
  const diagnostics = runRules(ctx, VERL_RULES, { worldSize: ctx.worldSize, version: ctx.versionFact });
  const r = resolveVerl(ctx);
  const hover = () => verlHover(ctx, r, failedLaunch(diagnostics));
  return frameworkAnalysis({ resolution: { layoutName: r.layoutName, mechanism: r.mechanism, table: r.table }, diagnostics, hover, worldSize: ctx.worldSize, engine: r.engineSpec });
}
