/**
 * One diagnostic in the CLI's JSON output: code, severity, message and range as before, plus the code's
 * page (`href`, the same address as LSP's codeDescription.href and SARIF's helpUri), the long explanation
 * (`detail`), the editor tags and the related locations when the core has them.
 */
import { codeAliases, codeHref } from "../core/diagnostics/codes";
import type { Diagnostic } from "../core/model/types";

export function diagnosticJson(d: Diagnostic): Record<string, unknown> {
  const out: Record<string, unknown> = { code: d.code, severity: d.severity, message: d.message, range: d.range, href: codeHref(d.code) };
  const aliases = codeAliases(d.code);
  if (aliases.length) out.aliases = [...aliases];
  if (d.detail) out.detail = d.detail;
  const tags = [...(d.unnecessary ? ["unnecessary"] : []), ...(d.deprecated ? ["deprecated"] : [])];
  if (tags.length) out.tags = tags;
  if (d.related?.length) out.related = d.related.map((r) => ({ uri: r.location.uri, range: r.location.range, message: r.message }));
  return out;
}
