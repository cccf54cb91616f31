/**
 * Megatron-LM launch scripts (`torchrun … pretrain_gpt.py $ARGS`): the flags as the config (context.ts), the
 * rules validate_args and the optimizer config apply (rules/, one file per check), the resolution (resolve.ts)
 * and the hover with the settings --bf16 implies (hover.ts).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { failedLaunch, frameworkAnalysis } from "../common/result";
import { runRules } from "../common/rule";
import { megatronContext } from "./context";
import { detectMegatron, megatronDeepSpeed } from "./detect";
import { megatronHover } from "./hover";
import { resolveMegatron } from "./resolve";
import { MEGATRON_RULES } from "./rules/index";

export const megatronAnalyzer: FrameworkAnalyzer = {
  id: "megatron",
  formats: ["shell"],
  detect: detectMegatron,
  declines: megatronDeepSpeed,
  analyze: analyzeMegatron,
};

function analyzeMegatron(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const ctx = megatronContext(doc, settings, env);
  const diagnostics = runRules(ctx, MEGATRON_RULES, { worldSize: ctx.worldSize, version: ctx.versionFact });
  const r = resolveMegatron(ctx);
  const hover = () => megatronHover(ctx, r, failedLaunch(diagnostics));
  return frameworkAnalysis({ resolution: { layoutName: r.layoutName, mechanism: "none", table: r.table, parallel: r.parallel, setBy: r.setBy }, diagnostics, hover, worldSize: ctx.worldSize });
}
