/** `precision-lens` entry point (dist/cli.js). All logic lives in cliMain.ts so tests run it in-process. */
import { EXIT_INTERNAL, runCli } from "./cliMain";

// `precision-lens explain f.toml | head` closes the pipe early: stop quietly instead of crashing.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});

// A failure that escapes every per-file guard must never look like success or like "errors found" (1):
// one line, no minified-source dump, exit 3 (`npm run examples` treats anything above 1 as failure).
function crashed(e: unknown): never {
  process.stderr.write(`precision-lens: internal error: ${e instanceof Error ? e.message : String(e)}. Please report it; no file was changed by this failure.\n`);
  process.exit(EXIT_INTERNAL);
}
process.on("uncaughtException", crashed);

try {
  process.exitCode = runCli(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    cwd: process.cwd(),
  });
} catch (e) {
  crashed(e);
}
