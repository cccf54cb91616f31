/** `precision-lens` entry point (dist/cli.js). All logic lives in cliMain.ts so tests run it in-process. */
import { readSync } from "node:fs";
import { MAX_FILE_BYTES } from "./host/files";
import { EXIT_INTERNAL, runCli } from "./cliMain";
import { logLine } from "./host/terminal";

// `precision-lens explain f.toml | head` closes the pipe early: stop quietly instead of crashing.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});

// A failure that escapes every per-file guard must never look like success or like "errors found" (1):
// one line, no minified-source dump, exit 3 (`npm run examples` treats anything above 1 as failure).
function crashed(e: unknown): never {
  process.stderr.write(`${logLine(`precision-lens: internal error: ${e instanceof Error ? e.message : String(e)}. Please report it; no file was changed by this failure.`)}\n`);
  process.exit(EXIT_INTERNAL);
}
process.on("uncaughtException", crashed);

/** Standard input for `check -`, read up to one byte past the file limit (the caller reports it as too large). */
function readStdinBounded(): Buffer {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(1 << 16);
  let total = 0;
  while (total <= MAX_FILE_BYTES) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") continue;
      if ((e as NodeJS.ErrnoException).code === "EOF") break;
      throw e;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
    total += n;
  }
  return Buffer.concat(chunks);
}

try {
  process.exitCode = runCli(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    cwd: process.cwd(),
    stdin: readStdinBounded,
  });
} catch (e) {
  crashed(e);
}
