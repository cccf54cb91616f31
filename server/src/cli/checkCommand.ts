/** `precision-lens check`: every path, streamed file by file; the exit code from counters. */
import { relative, resolve } from "node:path";
import { collectConfigs, MAX_FILE_BYTES } from "../host/files";
import { logLine, stderrLine } from "../host/terminal";
import { analyzeStdin, errorsOnly, versionNotApplied } from "./check";
import { checkFile, missingFunction, splitFunction } from "./checkFile";
import type { CliIO } from "./io";
import type { CheckOptions } from "./options";
import { checkWriter, count, type CheckCounters, type FileOutcome } from "./stream";
import { EXIT_INTERNAL } from "./usage";

export function check(opts: CheckOptions, io: CliIO): number {
  // Streaming (cli/stream.ts): each file is written and released as soon as it is analysed; the exit code
  // and --max-warnings come from counters. Read errors go to stderr at the end, as before.
  const out = checkWriter(opts.format, io.cwd, (s) => io.stdout(s), { verbose: opts.verbose, quiet: opts.quiet });
  const counters: CheckCounters = { internal: false, failed: false, errors: false, warnings: 0 };
  const readErrors: string[] = [];
  const fixErrors: string[] = [];
  const seen = new Set<string>();
  const done = (o: FileOutcome): void => {
    count(counters, o);
    if (o.error) readErrors.push(stderrLine(o.path, o.error));
    if (o.fixError) fixErrors.push(stderrLine(o.path, o.fixError));
    if (o.result) {
      const note = versionNotApplied(opts.settings, o.result);
      if (note) io.stderr(stderrLine(o.path, note));
    }
    if (opts.quiet && o.result) {
      o.quietWarnings = o.result.diagnostics.filter((d) => d.severity === "warning").length;
      o.result = errorsOnly(o.result);
    }
    out.file(o);
  };
  for (const arg of opts.paths) {
    const { path: p, fn } = splitFunction(arg);
    if (p === "-") {
      done(analyzeStdin(opts.stdinFilename!, opts.settings, io, MAX_FILE_BYTES));
      continue;
    }
    const { files, raw, errors, skipped } = collectConfigs(p, io.cwd, seen);
    for (const e of errors) done(e);
    if (opts.verbose) for (const s of skipped) io.stderr(stderrLine(s.path, s.error));
    const fileOpts = fn ? { ...opts, settings: { ...opts.settings, configFunction: fn } } : opts;
    const named = resolve(io.cwd, p);
    const tree = files.length === 1 && files[0] === named ? undefined : named;
    for (const f of files) {
      const o: FileOutcome = { ...checkFile(f, relative(io.cwd, f) || f, fileOpts, io, raw.get(f), tree), absPath: f };
      if (f === resolve(io.cwd, p)) o.named = true;
      const missing = fn && o.result ? missingFunction(o.result, fn) : undefined;
      done(missing ? { path: o.path, error: missing } : o);
    }
  }
  out.end();
  for (const e of readErrors) io.stderr(e);
  for (const e of fixErrors) io.stderr(e);
  const code = counters.internal ? EXIT_INTERNAL : counters.failed ? 2 : counters.errors ? 1 : 0;
  if (code !== 0 && code !== 1) return code;
  const warnings = counters.warnings;
  const tooMany = opts.maxWarnings !== undefined && warnings > opts.maxWarnings;
  if (tooMany) io.stderr(`${logLine(`precision-lens: ${warnings} warning${warnings === 1 ? "" : "s"}, more than --max-warnings ${opts.maxWarnings}`)}\n`);
  return tooMany ? 1 : code;
}

export function exitCode(outcomes: FileOutcome[]): number {
  if (outcomes.some((o) => o.result?.diagnostics.some((d) => d.code === "internal-error"))) return EXIT_INTERNAL;
  if (outcomes.some((o) => o.error || o.fixError)) return 2;
  return outcomes.some((o) => o.result?.diagnostics.some((d) => d.severity === "error")) ? 1 : 0;
}
