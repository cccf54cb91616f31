/** `precision-lens explain`: the full precision report of one config, as Markdown or one HTML page. */
import { pathToFileURL } from "node:url";
import { analyzeDocument, formatOf } from "../core/analyze";
import { buildReportView, renderReportHtml } from "../core/report";
import { collectConfigs, readBounded } from "../host/files";
import { nodeEnv } from "../host/nodeEnv";
import { logLine, logLines, stderrLine } from "../host/terminal";
import { exitCode } from "./checkCommand";
import { missingFunction, splitFunction } from "./checkFile";
import { addEncodingDiagnostic, decodeConfig } from "./encoding";
import type { CliIO } from "./io";
import { parseCheckArgs } from "./options";
import { versionNotApplied } from "./check";
import { USAGE, UsageError } from "./usage";

/**
 * The HTML page's CSP nonce, from node:crypto loaded here only: `check`, the common path, never pays for
 * loading it (issue #21, cheap starts).
 */
function htmlNonce(): string {
  const { randomBytes } = require("node:crypto") as typeof import("node:crypto");
  return randomBytes(16).toString("base64");
}

/** `html`: the visual report (charts, what-if matrix) as one self-contained page instead of Markdown. */
export function explain(args: string[], io: CliIO, html = false): number {
  const opts = parseCheckArgs(args, io.cwd, "explain");
  if (opts.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (opts.fix || opts.format !== "text" || opts.verbose || opts.quiet || opts.maxWarnings !== undefined || opts.stdinFilename !== undefined) throw new UsageError("explain takes only --world-size, --torchtitan-version, --gpu, --format text|html and one file");
  if (opts.paths.length !== 1) throw new UsageError("explain takes exactly one file");
  const { path: onePath, fn } = splitFunction(opts.paths[0]!);
  if (fn) opts.settings = { ...opts.settings, configFunction: fn };
  const { files, errors } = collectConfigs(onePath, io.cwd);
  if (errors.length || files.length !== 1) {
    io.stderr(stderrLine(opts.paths[0]!, errors[0]?.error ?? "not a single file"));
    return 2;
  }
  const f = files[0]!;
  const read = readBounded(f);
  if (!read.ok) {
    io.stderr(stderrLine(opts.paths[0]!, read.error));
    return 2;
  }
  const { text, encoding } = decodeConfig(read.bytes);
  const env = nodeEnv(f, [io.cwd], io.snapshot);
  const r = analyzeDocument(pathToFileURL(f).href, text, opts.settings, env, formatOf(f));
  addEncodingDiagnostic(r, read.bytes, encoding);
  const notApplied = versionNotApplied(opts.settings, r);
  if (notApplied) io.stderr(stderrLine(opts.paths[0]!, notApplied));
  const missing = fn ? missingFunction(r, fn) : undefined;
  if (missing) {
    io.stderr(stderrLine(opts.paths[0]!, missing));
    return 2;
  }
  if (html) {
    io.stdout(renderReportHtml(buildReportView(r, { settings: opts.settings, env }), { nonce: htmlNonce() }));
    return exitCode([{ path: opts.paths[0]!, result: r }]);
  }
  const shown = opts.paths[0]!; // only for the exit code: nothing of it is printed here
  if (!r.reportMarkdown) {
    io.stdout(`${logLine(`${opts.paths[0]!}: ${r.frameworkReason}; no precision report.`)}\n`);
    for (const d of r.diagnostics) io.stdout(`${logLine(`- line ${d.range.start.line + 1}: ${d.severity} [${d.code}] ${d.message}`)}\n`);
    return exitCode([{ path: shown, result: r }]);
  }
  // The report ends with its own "## Diagnostics" section (every diagnostic with its explanation).
  io.stdout(logLines(r.reportMarkdown) + "\n");
  return exitCode([{ path: shown, result: r }]);
}

