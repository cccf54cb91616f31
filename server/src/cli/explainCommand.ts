/** `precision-lens explain`: the full precision report of one config, as Markdown or one HTML page. */
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { analyzeDocument, formatOf } from "../core/analyze";
import { buildReportView, renderReportHtml } from "../core/report";
import { collectConfigs, decodeUtf8, readBounded } from "../host/files";
import { nodeEnv } from "../host/nodeEnv";
import { escapeControls } from "../host/terminal";
import { exitCode } from "./checkCommand";
import { addEncodingDiagnostic, missingFunction, splitFunction } from "./checkFile";
import type { CliIO } from "./io";
import { parseCheckArgs } from "./options";
import { USAGE, UsageError } from "./usage";

/** `html`: the visual report (charts, what-if matrix) as one self-contained page instead of Markdown. */
export function explain(args: string[], io: CliIO, html = false): number {
  const opts = parseCheckArgs(args, io.cwd);
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
    io.stderr(`precision-lens: ${escapeControls(opts.paths[0]!)}: ${errors[0]?.error ?? "not a single file"}\n`);
    return 2;
  }
  const f = files[0]!;
  const read = readBounded(f);
  if (!read.ok) {
    io.stderr(`precision-lens: ${escapeControls(opts.paths[0]!)}: ${read.error}\n`);
    return 2;
  }
  const text = decodeUtf8(read.bytes);
  const r = analyzeDocument(pathToFileURL(f).href, text, opts.settings, nodeEnv(f, [io.cwd], io.snapshot), formatOf(f));
  addEncodingDiagnostic(r, read.bytes);
  const missing = fn ? missingFunction(r, fn) : undefined;
  if (missing) {
    io.stderr(`precision-lens: ${escapeControls(opts.paths[0]!)}: ${missing}\n`);
    return 2;
  }
  if (html) {
    io.stdout(renderReportHtml(buildReportView(r, { settings: opts.settings }), { nonce: randomBytes(16).toString("base64") }));
    return exitCode([{ path: opts.paths[0]!, result: r }]);
  }
  const shown = escapeControls(opts.paths[0]!);
  if (!r.reportMarkdown) {
    io.stdout(`${shown}: ${escapeLines(r.frameworkReason)}; no precision report.\n`);
    for (const d of r.diagnostics) io.stdout(`- line ${d.range.start.line + 1}: ${d.severity} [${d.code}] ${escapeControls(d.message)}\n`);
    return exitCode([{ path: shown, result: r }]);
  }
  // The report ends with its own "## Diagnostics" section (every diagnostic with its explanation).
  io.stdout(escapeLines(r.reportMarkdown) + "\n");
  return exitCode([{ path: shown, result: r }]);
}

/** Escapes control characters line by line, keeping the newlines of a multi-line text. */
function escapeLines(s: string): string {
  return s.split("\n").map(escapeControls).join("\n");
}
