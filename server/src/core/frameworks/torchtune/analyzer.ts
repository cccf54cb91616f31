/**
 * torchtune recipe configs (spec other-frameworks.md §1): the context computed once (context.ts), the
 * rules (rules/, one file per code), the resolution (resolve.ts) and the hover (hover.ts).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { failedLaunch, frameworkAnalysis } from "../common/result";
import { runRules } from "../common/rule";
import { torchtuneContext } from "./context";
import { detectTorchtune } from "./detect";
import { torchtuneHover } from "./hover";
import { resolveTorchtune } from "./resolve";
import { TORCHTUNE_RULES } from "./rules/index";
import { torchtuneVersionFact } from "./version";

export { detectTorchtune };

export const torchtuneAnalyzer: FrameworkAnalyzer = {
  id: "torchtune",
  formats: ["yaml"],
  detect: detectTorchtune,
  analyze: analyzeTorchtune,
};

function analyzeTorchtune(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const ctx = torchtuneContext(doc, settings, env);
  const diagnostics = runRules(ctx, TORCHTUNE_RULES, { worldSize: ctx.worldSize, version: torchtuneVersionFact(env) });
  const r = resolveTorchtune(ctx);
  const hover = () => torchtuneHover(ctx, r, failedLaunch(diagnostics));
  // torchtune has no mixed-precision mechanism: it builds the model in `dtype` (a broken recipe fails).
  const mechanism = ctx.broken ? "error" : "none";
  return frameworkAnalysis({ resolution: { ...r, mechanism }, diagnostics, hover, worldSize: ctx.worldSize, engine: r.engineSpec });
}
