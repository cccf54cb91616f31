/** `precision-lens` entry point (dist/cli.js). All logic lives in cliMain.ts so tests run it in-process. */
import { runCli } from "./cliMain";

process.exitCode = runCli(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  cwd: process.cwd(),
});
