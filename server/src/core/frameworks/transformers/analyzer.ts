/**
 * transformers TrainingArguments files (YAML or JSON), with TRL and LLaMA-Factory as dialects: the context
 * computed once (context.ts: dialect, versions, each precision fact with its source, the launcher and the linked
 * DeepSpeed file), the rules HF1–HF8 (rules/), the resolution per launcher (resolve.ts) and the hover (hover.ts).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { failedLaunch, frameworkAnalysis } from "../common/result";
import { runRules } from "../common/rule";
import type { Facts } from "../../provenance";
import { transformersContext, type TransformersContext } from "./context";
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
  const diagnostics = runRules(ctx, TRANSFORMERS_RULES, transformersFacts(ctx));
  const r = transformersResolution(ctx);
  const hover = transformersHover(ctx, r, failedLaunch(diagnostics));
  return frameworkAnalysis({ resolution: r, diagnostics, hover, worldSize: ctx.worldSize });
}

/**
 * The facts the transformers rules rest on (core/provenance.ts): the world size, the launcher (this file's
 * `deepspeed`/`fsdp` keys, an accelerate config named by a directive or a run script, or none found: plain
 * assumed) and the linked DeepSpeed config (this file's `deepspeed:` path or mapping, or the launcher's).
 */
export function transformersFacts(ctx: TransformersContext): Facts {
  const facts: Facts = { worldSize: ctx.worldSize };
  const a = ctx.accel;
  facts.launcher =
    ctx.launcherFrom === "file"
      ? { value: ctx.launcher, kind: "file", detail: ctx.launcher === "deepspeed" ? "`deepspeed` in this file" : "`fsdp` in this file" }
      : ctx.launcherFrom === "accelerate" && a
        ? { value: ctx.launcher === "plain" ? "accelerate" : ctx.launcher, kind: a.source, detail: `${a.rel} (${a.how})` }
        : { value: "plain", kind: "default", detail: "no launcher config found" };
  if (ctx.ds && (ctx.dsSource === "file" || ctx.dsSource === "inline")) facts.linkedConfig = { value: ctx.dsSource === "inline" ? "inline `deepspeed:`" : ctx.dsRel ?? "deepspeed", kind: "file", detail: "named by this file" };
  else if (ctx.ds && ctx.dsSource === "launcher" && a) facts.linkedConfig = { value: a.dsRel ?? "deepspeed", kind: a.source, detail: `named by ${a.rel}` };
  return facts;
}
