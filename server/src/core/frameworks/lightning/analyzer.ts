/**
 * PyTorch Lightning trainer configs (spec other-frameworks.md §3): LightningCLI YAML (`trainer:` with
 * class_path/init_args, optionally under a `fit:` subcommand), Hydra trainer configs (`_target_:
 * lightning.pytorch.trainer.Trainer`, or a trainer config group file with a `defaults` list), and LitGPT's
 * top-level `precision`. The context computed once (context.ts, strategy.ts), the rules PL1–PL12 and the
 * DeepSpeed strategy's `config` link (rules/), the resolution per strategy × precision (resolve.ts), the
 * hover (hover.ts).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model";
import { launchErrors } from "../common/diagnosticBuilder";
import { withPerOp } from "../common/engineView";
import { toResolved } from "../common/precisionTable";
import { runRules } from "../common/rule";
import { lightningContext } from "./context";
import { detectLightning } from "./detect";
import { lightningHover } from "./hover";
import { engineSpecFor, resolveLightning } from "./resolve";
import { LIGHTNING_RULES } from "./rules/index";

export { detectLightning };
export { TRAINER_ROOTS } from "./data";

export const lightningAnalyzer: FrameworkAnalyzer = {
  id: "lightning",
  formats: ["yaml"],
  detect: detectLightning,
  analyze: analyzeLightning,
};

function analyzeLightning(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const ctx = lightningContext(doc, settings, env);
  const diagnostics = runRules(ctx, LIGHTNING_RULES);
  const r = resolveLightning(ctx);
  const failed = launchErrors({ out: diagnostics });
  const { markdown, hovers, inlayHints } = lightningHover(ctx, r, failed);
  const { worldSize } = ctx;
  const out: FrameworkAnalysis = { layoutName: r.layoutName, mechanism: failed.length ? "error" : r.mechanism, diagnostics, hovers, reportMarkdown: withPerOp(markdown, engineSpecFor(ctx.precision, ctx.st, r.parallel, worldSize?.value, r.table?.P.dtype)), inlayHints };
  if (r.table) out.precision = toResolved(r.table);
  if (worldSize) out.worldSize = worldSize;
  if (r.parallel) out.parallel = r.parallel;
  return out;
}
