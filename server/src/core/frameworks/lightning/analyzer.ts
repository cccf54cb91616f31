/**
 * PyTorch Lightning trainer configs (spec other-frameworks.md §3): LightningCLI YAML (`trainer:` with
 * class_path/init_args, optionally under a `fit:` subcommand), Hydra trainer configs (`_target_:
 * lightning.pytorch.trainer.Trainer`, or a trainer config group file with a `defaults` list), and LitGPT's
 * top-level `precision`. The context computed once (context.ts, strategy.ts), the rules (one file per code) and the
 * DeepSpeed strategy's `config` link (rules/), the resolution per strategy × precision (resolve.ts), the
 * hover (hover.ts).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { failedLaunch, frameworkAnalysis } from "../common/result";
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
  const diagnostics = runRules(ctx, LIGHTNING_RULES, { worldSize: ctx.worldSize });
  const r = resolveLightning(ctx);
  const hover = () => lightningHover(ctx, r, failedLaunch(diagnostics));
  const engine = engineSpecFor(ctx.runs, ctx.st, r.parallel, ctx.worldSize?.value, r.table?.P.dtype);
  return frameworkAnalysis({ resolution: r, diagnostics, hover, worldSize: ctx.worldSize, engine });
}
