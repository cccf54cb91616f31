/**
 * Where a diagnostic's long explanation goes once its message is one short sentence: the hover over the
 * diagnostic's range and the precision report. The same Markdown block serves both, and links the code's page.
 */
import { codeHref } from "../diagnostics/codes";
import type { Diagnostic } from "../model/types";
import { mdProse } from "../model/markdown";

/**
 * `**code**` (linked to its page), the message, then the long explanation when there is one, then the related
 * locations' notes. `forHover`: the editor already shows the message and the related notes in the same hover
 * (its diagnostic part, LSP relatedInformation), so only the code and the explanation are added.
 */
export function diagnosticMarkdown(d: Diagnostic, opts: { forHover?: boolean } = {}): string {
  // Messages quote config values: they are made inert (issue #33); the code's own link is ours.
  if (opts.forHover && d.detail) return `**[${d.code}](${codeHref(d.code)})** (${d.severity}): ${mdProse(d.detail)}`;
  const lines = [`**[${d.code}](${codeHref(d.code)})** (${d.severity}): ${mdProse(d.message)}`];
  if (d.detail) lines.push("", mdProse(d.detail));
  for (const r of d.related ?? []) lines.push("", `- ${mdProse(r.message)}`);
  return lines.join("\n");
}

/** The report's diagnostics section (empty string when there are none). */
/** Separates the report from its diagnostics section (analyze.ts appends it; the HTML report lists diagnostics itself). */
export const REPORT_DIAGNOSTICS_SEPARATOR = "\n\n---\n\n## Diagnostics";

export function diagnosticsReportSection(ds: readonly Diagnostic[]): string {
  if (!ds.length) return "";
  const parts = ["## Diagnostics"];
  for (const d of ds) parts.push("", `### Line ${d.range.start.line + 1}`, "", diagnosticMarkdown(d));
  return parts.join("\n");
}
