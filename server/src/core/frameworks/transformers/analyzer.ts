/**
 * transformers TrainingArguments files (YAML or JSON), with TRL and LLaMA-Factory as dialects: the context
 * computed once (context.ts: dialect, versions, each precision fact with its source, the launcher and the linked
 * DeepSpeed file), the rules (rules/, one file per code), the resolution per launcher (resolve.ts) and the hover (hover.ts).
 * Severity follows from the facts each rule rests on (core/provenance.ts): the launcher, the linked DeepSpeed
 * config, and the version of the package whose behaviour the rule reads.
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import type { FactValue, Facts } from "../../provenance";
import { versionAtLeast } from "../../workspace/packagePin";
import { failedLaunch, frameworkAnalysis } from "../common/result";
import { runRules } from "../common/rule";
import { transformersContext, versionsOf, type TransformersContext } from "./context";
import { completionKeys, TRL_DTYPE_FP32_SINCE } from "./data";
import { defineLazy } from "../../model/lazy";
import { detectDialect, detectTransformers } from "./detect";
import { transformersHover } from "./hover";
import { transformersResolution } from "./resolve";
import { TRANSFORMERS_RULES, type TransformersRule } from "./rules/index";

export { detectTransformers };

export const transformersAnalyzer: FrameworkAnalyzer = {
  id: "transformers",
  formats: ["yaml", "json"],
  detect: detectTransformers,
  analyze: analyzeTransformers,
  keyCompletions: (doc, env) => {
    const v = versionsOf(env);
    return completionKeys(detectDialect(doc)?.dialect ?? "trainer", { transformers: v.transformers.value, trl: v.trl.value, llamafactory: v.llamafactory.value, pinned: v.pinned });
  },
};

function analyzeTransformers(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const ctx = transformersContext(doc, settings, env);
  const diagnostics = runRules(ctx, TRANSFORMERS_RULES, (rule) => transformersFacts(ctx, rule));
  const r = transformersResolution(ctx);
  const out = frameworkAnalysis({ resolution: r, diagnostics, hover: () => transformersHover(ctx, r, failedLaunch(diagnostics)), worldSize: ctx.worldSize });
  const pv = ctx.versions;
  out.packageVersions = Object.fromEntries((["transformers", "trl", "llamafactory", "accelerate"] as const).map((k) => [k, { value: pv[k].value, kind: pv.pinned[k] ? "workspace-pin" : "inferred" }]));
  // Completion reads the key table at the pinned versions, only when an editor asks.
  return defineLazy(out, "keyCompletions", () => completionKeys(ctx.dialect, { transformers: ctx.versions.transformers.value, trl: ctx.versions.trl.value, llamafactory: ctx.versions.llamafactory.value, pinned: ctx.versions.pinned }));
}

/** The facts one rule rests on: the version is that of the package it reads (`versionOf`), the dialect's by default. */
export function transformersFacts(ctx: TransformersContext, rule: TransformersRule): Facts {
  const { facts, dialect, versions } = ctx;
  const pkg = rule.versionOf ?? (dialect === "trainer" ? "transformers" : dialect);
  let version: FactValue = facts.versions[pkg];
  // TRL before 1.0 leaves a load dtype not written to from_pretrained, whose default is transformers' (fp32 in 4.x).
  if (pkg === "trl" && !rule.loadFree && ctx.loadFromVersion && !versionAtLeast(versions.trl.value, TRL_DTYPE_FP32_SINCE)) {
    const t = facts.versions.transformers;
    version = { value: `${version.value as string}, ${t.value as string}`, kind: version.kind === "workspace-pin" && t.kind === "workspace-pin" ? "workspace-pin" : "inferred", detail: version.kind === "workspace-pin" && t.kind === "workspace-pin" ? `${version.detail}; ${t.detail}` : "not both pinned" };
  }
  return { worldSize: ctx.worldSize, launcher: facts.launcher, linkedConfig: facts.linkedConfig, version };
}
