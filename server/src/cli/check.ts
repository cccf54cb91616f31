/** Helpers of `precision-lens check` kept out of cliMain.ts: standard input, --quiet and --max-warnings. */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { analyzeDocument, formatOf } from "../core/analyze";
import type { AnalysisResult, AnalysisSettings } from "../core/analysis";
import { nodeEnv, type WorkspaceSnapshot } from "../host/nodeEnv";
import { addEncodingDiagnostic, decodeConfig } from "./encoding";
import { copyLazy } from "../core/model/lazy";
import { LAST_TOML_DATE } from "../core/frameworks/torchtitan/versions";

export class StdinUsageError extends Error {}

/** `-` reads one config from standard input and needs --stdin-filename (its extension picks the format). */
export function checkStdinOptions(paths: readonly string[], stdinFilename: string | undefined, fix: boolean): void {
  const dashes = paths.filter((p) => p === "-").length;
  if (dashes > 1) throw new StdinUsageError("standard input (-) can be given only once");
  if (dashes === 1 && stdinFilename === undefined) throw new StdinUsageError("reading standard input (-) needs --stdin-filename NAME (its extension picks TOML, YAML or JSON)");
  if (dashes === 0 && stdinFilename !== undefined) throw new StdinUsageError("--stdin-filename needs - among the paths");
  if (dashes === 1 && fix) throw new StdinUsageError("--fix rewrites files in place and cannot be used with standard input (-)");
}

/**
 * Analyses standard input as if it were the file NAME (relative to the working directory): its extension
 * picks the format, and pins and run scripts next to that path are read as for a file on disk.
 */
export function analyzeStdin(name: string, settings: AnalysisSettings, io: { cwd: string; stdin?: () => string | Uint8Array; snapshot?: WorkspaceSnapshot }, maxBytes: number): { path: string; absPath: string; result?: AnalysisResult; error?: string } {
  const absPath = resolve(io.cwd, name);
  let input: string | Uint8Array;
  try {
    if (!io.stdin) throw new Error("no standard input");
    input = io.stdin();
  } catch (e) {
    return { path: name, absPath, error: `cannot read standard input (${(e as Error).message})` };
  }
  // Bytes are decoded and checked exactly as a file's are (invalid UTF-8, a UTF-16 byte-order mark).
  const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : input;
  if (bytes.length > maxBytes) return { path: name, absPath, error: `standard input is over the ${maxBytes}-byte limit` };
  const { text, encoding } = decodeConfig(bytes);
  const result = analyzeDocument(pathToFileURL(absPath).href, text, settings, nodeEnv(absPath, [io.cwd], io.snapshot), formatOf(name));
  addEncodingDiagnostic(result, bytes, encoding);
  return { path: name, absPath, result };
}

/** --quiet: the same result with only its error-level diagnostics. */
export function errorsOnly(r: AnalysisResult): AnalysisResult {
  const out = copyLazy(r); // not a spread: that would build the lazy hovers and report (core/model/lazy.ts)
  out.diagnostics = r.diagnostics.filter((d) => d.severity === "error");
  if (r.configFunctions) out.configFunctions = r.configFunctions.map((f) => ({ ...f, diagnostics: (f.diagnostics ?? []).filter((d) => d.severity === "error") }));
  return out;
}

/**
 * `--torchtitan-version V` that this file's analysis did not use (a TOML release on a Python registry, or
 * the reverse): said on stderr rather than ignored (issue #34). Undefined when it applied or was not given.
 */
export function versionNotApplied(settings: AnalysisSettings, r: AnalysisResult): string | undefined {
  const asked = settings.torchtitanVersion;
  if (!asked || asked === "auto" || r.framework !== "torchtitan" || !r.torchtitanVersion || r.torchtitanVersion.kind === "cli") return undefined;
  const kind = r.format === "python" ? `a torchtitan Python config registry (v0.3.0, v0.4.0, or main@YYYY-MM-DD from ${LAST_TOML_DATE})` : `a torchtitan TOML config (v0.1.0 to v0.2.2+pr2213, or main@YYYY-MM-DD up to ${LAST_TOML_DATE})`;
  return `--torchtitan-version ${asked} does not apply to ${kind}; analysed as ${r.torchtitanVersion.value} (${r.torchtitanVersion.detail ?? r.torchtitanVersion.source})`;
}
