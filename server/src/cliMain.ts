/**
 * The `precision-lens` command line: a thin front end over the analysis core, for CI pipelines. This file
 * dispatches; each command lives in cli/ (checkCommand, explainCommand, schemaCommand, probeCommand), its options in
 * cli/options.ts, its usage text in cli/usage.ts.
 *   precision-lens check [--world-size N] [--torchtitan-version V] [--format text|json] PATH...
 * Exit codes: 0 no error-level diagnostic, 1 at least one, 2 usage error or unreadable input.
 */
import { StdinUsageError } from "./cli/check";
import { check } from "./cli/checkCommand";
import { explain } from "./cli/explainCommand";
import type { CliIO } from "./cli/io";
import { WorkspaceSnapshot } from "./host/nodeEnv";
import { htmlFormat, parseCheckArgs } from "./cli/options";
import { probe } from "./cli/probeCommand";
import { schema } from "./cli/schemaCommand";
import { USAGE, USAGE_HINT, UsageError } from "./cli/usage";
import { logLine } from "./host/terminal";

export type { CliIO } from "./cli/io";
export { EXIT_INTERNAL } from "./cli/usage";
export { splitFunction } from "./cli/checkFile";
export { fileJson } from "./cli/stream";

export function runCli(argv: string[], cliIo: CliIO): number {
  // One workspace snapshot per run: each pin, run script and folder listing is read (and stat'ed) once.
  const io: CliIO = cliIo.snapshot ? cliIo : { ...cliIo, snapshot: new WorkspaceSnapshot() };
  try {
    const [cmd, ...rest] = argv;
    if (!cmd || cmd === "--help" || cmd === "-h" || cmd === "help") {
      io.stdout(USAGE);
      return cmd ? 0 : 2;
    }
    if (cmd === "--version") {
      io.stdout("precision-lens 0.1.0\n");
      return 0;
    }
    if (cmd === "check") {
      const opts = parseCheckArgs(rest, io.cwd);
      if (opts.help) {
        io.stdout(USAGE);
        return 0;
      }
      return check(opts, io);
    }
    if (cmd === "schema") return schema(rest, io);
    if (cmd === "probe") return probe(rest, io);
    if (cmd === "explain") return explain(htmlFormat(rest).rest, io, htmlFormat(rest).html);
    throw new UsageError(`unknown command "${cmd}"`);
  } catch (e) {
    if (e instanceof UsageError || e instanceof StdinUsageError) {
      // A short hint, as git does: the 40-line usage would bury the one line that matters (issue #34).
      io.stderr(`${logLine(`precision-lens: ${e.message}`)}\n${USAGE_HINT}\n`);
      return 2;
    }
    throw e;
  }
}
