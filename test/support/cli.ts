/** Runs the CLI in-process and captures its output (the bundled dist/cli.js only wraps this). */
import { runCli } from "../../server/src/cliMain";

export function runCliCaptured(args: string[], cwd: string): { code: number; out: string; err: string } {
  let out = "";
  let err = "";
  const code = runCli(args, { stdout: (s) => (out += s), stderr: (s) => (err += s), cwd });
  return { code, out, err };
}
