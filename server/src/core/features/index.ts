/**
 * Editor features over an AnalysisResult, as plain data (the server converts to LSP objects 1:1).
 */
import type { AnalysisResult } from "../analysis";
import { complete, topLevelKeyItems, type CompletionItem } from "./completion";
import { lensMemory } from "../engine";
import { diagnosticMarkdown } from "./explain";
import { parseVersion } from "../frameworks/torchtitan/versions";
import { pythonCompletions } from "../frameworks/torchtitan/python/completion";
import { containsPosition } from "../model/lineIndex";
import type { Diagnostic, Fix, Position, Range } from "../model/types";

export function hoverAt(result: AnalysisResult, position: Position): { markdown: string; range: Range } | undefined {
  // A file that was not analysed (too large, binary, nested too deep) says why: anywhere in a file that
  // looks like a training config, on the first line of any other file.
  if (result.doc.skipped && (result.likelyFramework || position.line === 0)) {
    const line = result.doc.lines.lineCount > 0 ? position.line : 0;
    const end = Math.min(result.doc.lines.lineText(line).length, 10_000);
    return { markdown: `**Precision Lens** — ${result.doc.skipped}`, range: { start: { line, character: 0 }, end: { line, character: end } } };
  }
  // Targets are listed most specific first; the first containing the position wins.
  const t = result.hovers.find((h) => containsPosition(h.range, position));
  // A diagnostic's long explanation (its message is one short sentence) leads the hover over its range.
  const explained = result.diagnostics.filter((d) => d.detail && containsPosition(d.range, position));
  if (!explained.length) return t ? { markdown: t.markdown, range: t.range } : undefined;
  const blocks = explained.map((d) => diagnosticMarkdown(d, { forHover: true }));
  if (t) blocks.push(t.markdown);
  return { markdown: blocks.join("\n\n---\n\n"), range: t?.range ?? explained[0]!.range };
}

export interface QuickFix {
  title: string;
  fix: Fix;
  diagnostic: Diagnostic;
}

/** Quick fixes are derived from the diagnostics' `data` alone (the client sends them back to us). */
export function quickFixes(diagnostics: readonly Diagnostic[]): QuickFix[] {
  const out: QuickFix[] = [];
  for (const d of diagnostics) {
    if (d.source !== "precision-lens") continue;
    for (const f of d.data?.fixes ?? []) out.push({ title: f.title, fix: f, diagnostic: d });
  }
  return out;
}

/**
 * One line: where the run is (layout and GPUs) and what precision it gets. Without a known layout it opens
 * with the framework's name, unless `framework: false` says the caller prints that name already (the CLI's
 * `axolotl · …`, the language status), so that it is not said twice.
 */
export function headline(result: AnalysisResult, opts: { framework?: boolean } = {}): string | undefined {
  if (!result.framework) return undefined;
  const n = result.worldSize?.value;
  const where = result.layoutName && n ? (n === 1 ? result.layoutName : `${result.layoutName} on ${n} GPUs`) : result.framework;
  if (opts.framework === false && where === result.framework) {
    const line = headline(result);
    if (!line?.startsWith(`${where}: `)) return line;
    const rest = line.slice(where.length + 2);
    return rest.charAt(0).toUpperCase() + rest.slice(1);
  }
  if (result.precision?.setBy && result.mechanism !== "error") return `${where}: precision set by ${result.precision.setBy}`;
  // No precision table and no error: a setting the dtypes rest on was not read (a verl --config-name YAML not in the
  // workspace); the headline says so instead of claiming a failure no diagnostic reports.
  if (!result.precision && result.mechanism !== "error" && !result.diagnostics.some((d) => d.severity === "error")) return `${where}: precision not known (a setting it rests on was not read)`;
  const compute = result.precision ? `${result.precision.compute.dtype ?? "unknown"} compute` : "a dtype setting fails at launch";
  // The launcher unknown and its candidates disagree on some rows (transformers/candidates.ts): no one mechanism is
  // claimed; the rows that differ are named.
  const p = result.precision;
  const byLauncher = p && result.mechanism !== "error" ? (["paramStorage", "compute", "gradReduce"] as const).filter((k) => p[k].byLauncher) : [];
  if (byLauncher.length) {
    const words = { paramStorage: "parameter storage", compute: "compute", gradReduce: "gradient reduction" } as const;
    return `${where}: ${p!.compute.dtype ? `${compute}; ` : ""}${byLauncher.map((k) => words[k]).join(", ")} by launcher (launcher unknown)`;
  }
  switch (result.mechanism) {
    case "error":
      return `${where}: the launch fails`;
    case "none":
      // No autocast and no sharded policy; the model may still be cast whole to a low-precision dtype
      // (torchtune, DeepSpeed, full bf16 training).
      if (result.precision?.compute.dtype && result.precision.compute.dtype !== "float32") {
        const master = result.precision.paramStorage.dtype === "float32" ? "fp32 master weights" : "no fp32 master weights";
        return `${where}: model cast to ${result.precision.compute.dtype}, ${master} (no autocast)`;
      }
      return `${where}: no mixed precision (${compute})`;
    case "fully_shard":
      return `${where}: FSDP mixed precision (${compute})`;
    case "autocast":
      return `${where}: autocast (${compute})`;
    default:
      return where;
  }
}

export interface CodeLensData {
  range: Range;
  title: string;
  command: string;
  arguments: unknown[];
}

/** The command the client registers to open the read-only precision report. */
export const OPEN_REPORT_COMMAND = "precisionLens.openReport";

/** One lens at the top of a claimed file: the resolved mode; clicking opens the full report. */
export function codeLenses(result: AnalysisResult): CodeLensData[] {
  // A registry's lens opens its function's report (the second argument).
  if (result.codeLenses) return result.codeLenses.map((l) => ({ range: l.range, title: l.title, command: OPEN_REPORT_COMMAND, arguments: l.configFunction ? [result.uri, l.configFunction] : [result.uri] }));
  const h = headline(result);
  if (!h || !result.reportMarkdown) return [];
  const top = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return [{ range: top, title: `Precision Lens: ${h}${lensMemory(result.simulation)}`, command: OPEN_REPORT_COMMAND, arguments: [result.uri] }];
}

/**
 * Completion for the framework of the document. torchtitan completes from its versioned schema, also
 * while the file does not parse, and in a new TOML file that has only comments so far, so a config can be
 * written from scratch. Other TOML files (pyproject.toml, Cargo.toml) get nothing.
 */
export function completionsAt(result: AnalysisResult, position: Position): CompletionItem[] {
  if (result.format === "python") return result.framework === "torchtitan" ? pythonCompletions(result.doc, position) : [];
  if ((result.format === "yaml" || result.format === "json") && result.keyCompletions) return topLevelKeyItems(result.doc, result.format, result.keyCompletions, position);
  if (result.format !== "toml") return [];
  // A torchtitan config, one that does not parse mid-edit, or a new file with nothing but comments yet.
  const blank = result.framework === null && !result.likelyFramework && !result.doc.skipped && isNearlyEmpty(result.doc.text);
  const isTitan = result.framework === "torchtitan" || result.likelyFramework === "torchtitan" || blank;
  if (!isTitan) return [];
  const when = (result.torchtitanVersion && parseVersion(result.torchtitanVersion.value)?.date) ?? "v0.2.2";
  return complete(result.doc, when, position, result.torchtitanSchemaSources);
}

/** True for a new file: at most one line of content besides comments (e.g. a half-typed `[`). */
function isNearlyEmpty(text: string): boolean {
  const content = text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== "" && !l.trim().startsWith("#"));
  return content.length <= 1 && !content.some((l) => l.includes("="));
}
