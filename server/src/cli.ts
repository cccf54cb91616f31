/** `precision-lens` entry point (dist/cli.js). All logic lives in cliMain.ts so tests run it in-process. */
import { readFileSync } from "node:fs";
import { runCli } from "./cliMain";

// `precision-lens explain f.toml | head` closes the pipe early: stop quietly instead of crashing.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});

process.exitCode = runCli(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  cwd: process.cwd(),
  stdin: () => readFileSync(0, "utf8"),
});
