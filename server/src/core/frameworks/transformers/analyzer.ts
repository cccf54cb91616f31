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
import { launcherCandidates, type LauncherCandidate } from "./candidates";
import type { Diagnostic } from "../../model/types";
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
  const candidates = launcherCandidates(ctx);
  const rules = candidates.length ? TRANSFORMERS_RULES.map((rule) => everyLauncher(rule, candidates)) : TRANSFORMERS_RULES;
  const diagnostics = runRules(ctx, rules, (rule) => transformersFacts(ctx, rule));
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

/**
 * A rule that rests on the launcher, when the launcher is unknown: a finding of it stands only when the rule makes
 * it (the same code on the same range) under every candidate launcher (candidates.ts); one true under some
 * candidates only (`pure-16-bit`: no fp32 master weights without DeepSpeed/FSDP) is not a finding about the run.
 * What stands goes through the gate as before. Rules that do not rest on the launcher run once.
 */
function everyLauncher(rule: TransformersRule, candidates: readonly LauncherCandidate[]): TransformersRule {
  if (!rule.restsOn.includes("launcher")) return rule;
  return {
    ...rule,
    run(ctx) {
      const out = rule.run(ctx);
      if (!out.length) return out;
      const key = (d: Diagnostic) => `${d.code}@${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character}`;
      const under = candidates.map((c) => new Set(rule.run(c.ctx).map(key)));
      return out.filter((d) => under.every((s) => s.has(key(d))));
    },
  };
}
