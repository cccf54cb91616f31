/**
 * `check --format sarif`: a SARIF 2.1.0 log (OASIS Static Analysis Results Interchange Format) for GitHub
 * code scanning and other SARIF viewers. One run; one rule per diagnostic code that occurs (with a help
 * URI to the code's page, docs/diagnostics/<code>.md); one result per diagnostic with its location and its
 * quick fixes as SARIF fixes (artifact changes with replacements).
 *
 * Locations: artifact URIs are relative to %SRCROOT% (the working directory) when the file is under it,
 * absolute file URIs otherwise. Lines and columns are 1-based; columns count UTF-16 code units, SARIF's
 * default columnKind and the unit of the analysis core's (LSP) positions, so no conversion is needed.
 * test/sarif.test.ts validates the output against the official schema (test/fixtures/sarif-2.1.0.schema.json).
 */
import { isAbsolute, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { Diagnostic, Range, Severity } from "../core/model/types";
import { TOOL_NAME, TOOL_VERSION, type ReportedFile } from "./report";

import { codeAliases, codeHref, codeInfo, REPOSITORY_URL } from "../core/diagnostics/codes";
import { table } from "../core/model/table";

export { REPOSITORY_URL };
export const SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json";

/** SARIF has no "information"/"hint": both are notes. */
const LEVEL: Readonly<Record<Severity, "error" | "warning" | "note">> = table({ error: "error", warning: "warning", information: "note", hint: "note" });

/** The code's documentation page (the same address LSP's codeDescription.href and the CLI's JSON carry). */
export function helpUri(code: string): string {
  return codeHref(code);
}

/** A SARIF region from a zero-based, end-exclusive LSP range. */
function region(r: Range): Record<string, number> {
  return { startLine: r.start.line + 1, startColumn: r.start.character + 1, endLine: r.end.line + 1, endColumn: r.end.character + 1 };
}

function artifactLocation(file: ReportedFile, cwd: string): { uri: string; uriBaseId?: string } {
  const rel = relative(cwd, file.absPath);
  if (rel && !rel.startsWith("..") && !isAbsolute(rel)) return { uri: rel.split(sep).map(encodeURIComponent).join("/"), uriBaseId: "%SRCROOT%" };
  return { uri: pathToFileURL(file.absPath).href };
}

type SarifRule = { id: string; deprecatedIds?: string[]; name: string; shortDescription: { text: string }; helpUri: string; help: { text: string }; defaultConfiguration: { level: string } };

/**
 * Builds a SARIF log file by file (the streaming CLI releases each file's analysis after `results`): the
 * rules accumulate in first-seen order, the results are returned per file, `log` wraps them at the end.
 */
export class SarifBuilder {
  private readonly rules: SarifRule[] = [];
  private readonly ruleIndex = new Map<string, number>();
  constructor(private readonly cwd: string) {}

  private ruleFor(d: Diagnostic): number {
    let i = this.ruleIndex.get(d.code);
    if (i === undefined) {
      i = this.rules.length;
      this.ruleIndex.set(d.code, i);
      // SARIF 2.1.0 §3.49.4 deprecatedIds: the old codes (issue #34), so a viewer keeps results filed under them together.
      const aliases = codeAliases(d.code);
      this.rules.push({
        id: d.code,
        ...(aliases.length ? { deprecatedIds: [...aliases] } : {}),
        name: d.code.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : "")),
        shortDescription: { text: codeInfo(d.code)?.summary ?? `Precision Lens diagnostic ${d.code}` },
        helpUri: helpUri(d.code),
        help: { text: `See ${helpUri(d.code)}` },
        defaultConfiguration: { level: LEVEL[d.severity] },
      });
    }
    return i;
  }

  /** One file's SARIF results (one per diagnostic, with its fixes). */
  results(f: ReportedFile): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    const location = artifactLocation(f, this.cwd);
    for (const d of f.result.diagnostics) {
      const result: Record<string, unknown> = {
        ruleId: d.code,
        ruleIndex: this.ruleFor(d),
        level: LEVEL[d.severity],
        message: { text: d.message },
        locations: [{ physicalLocation: { artifactLocation: location, region: region(d.range) } }],
      };
      const fixes = d.data?.fixes ?? [];
      if (fixes.length) {
        result.fixes = fixes.map((fx) => ({
          description: { text: fx.title },
          artifactChanges: [{ artifactLocation: location, replacements: fx.edits.map((e) => ({ deletedRegion: region(e.range), insertedContent: { text: e.newText } })) }],
        }));
      }
      out.push(result);
    }
    return out;
  }

  /** The log around the results (the rules seen so far; `results` is the last key of the one run). */
  log(results: unknown[]): Record<string, unknown> {
    return {
      $schema: SARIF_SCHEMA_URI,
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: TOOL_NAME, version: TOOL_VERSION, semanticVersion: TOOL_VERSION, informationUri: REPOSITORY_URL, rules: this.rules } },
          originalUriBaseIds: { "%SRCROOT%": { uri: pathToFileURL(this.cwd.endsWith(sep) ? this.cwd : this.cwd + sep).href } },
          columnKind: "utf16CodeUnits",
          results,
        },
      ],
    };
  }
}

export function toSarif(files: readonly ReportedFile[], cwd: string): unknown {
  const b = new SarifBuilder(cwd);
  const results: unknown[] = [];
  for (const f of files) results.push(...b.results(f));
  return b.log(results);
}
