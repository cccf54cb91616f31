/**
 * torchtune recipe configs (spec other-frameworks.md §1): the context computed once (context.ts), the
 * rules TT1–TT12 (rules/, one file per code), the resolution (resolve.ts) and the hover (hover.ts).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model";
import { launchErrors } from "../common/diagnosticBuilder";
import { withPerOp } from "../common/engineView";
import { toResolved } from "../common/precisionTable";
import { runRules } from "../common/rule";
import { torchtuneContext } from "./context";
import { detectTorchtune } from "./detect";
import { torchtuneHover } from "./hover";
import { resolveTorchtune } from "./resolve";
import { TORCHTUNE_RULES } from "./rules/index";

export { detectTorchtune };

export const torchtuneAnalyzer: FrameworkAnalyzer = {
  id: "torchtune",
  formats: ["yaml"],
  detect: detectTorchtune,
  analyze: analyzeTorchtune,
};

function analyzeTorchtune(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const ctx = torchtuneContext(doc, settings, env);
  const diagnostics = runRules(ctx, TORCHTUNE_RULES);
  const r = resolveTorchtune(ctx);
  const failed = launchErrors({ out: diagnostics });
  const mechanism = failed.length || ctx.broken ? "error" : "none";
  const { markdown, hovers, inlayHints } = torchtuneHover(ctx, r, failed);
  const out: FrameworkAnalysis = { layoutName: r.layoutName, mechanism, precision: toResolved(r.table), diagnostics, hovers, reportMarkdown: withPerOp(markdown, r.engineSpec), inlayHints };
  if (ctx.worldSize) out.worldSize = ctx.worldSize;
  if (r.parallel) out.parallel = r.parallel;
  return out;
}
