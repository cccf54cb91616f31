/**
 * Walk benchmark (npm run bench:walk): `check` over N copies of an example config in one folder, in
 * process. Prints the time per run and per file; asserts nothing. The walk and the per-file folder
 * look-ups must stay linear (issue #10: 8,000 files once took 68 s).
 *
 *   node --import tsx test/bench/walk.ts [--files N]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runCli } from "../../server/src/cliMain";

const ROOT = join(import.meta.dirname, "..", "..");
const argIdx = process.argv.indexOf("--files");
const sizes = argIdx > 0 ? [Number(process.argv[argIdx + 1]) || 10_000] : [1_000, 10_000];
const text = readFileSync(join(ROOT, "examples/fsdp_8gpu.toml"), "utf8");

for (const n of sizes) {
  const dir = mkdtempSync(join(tmpdir(), "pl-walk-"));
  for (let i = 0; i < n; i++) writeFileSync(join(dir, `c${i}.toml`), text);
  let out = "";
  const t0 = performance.now();
  const code = runCli(["check", "."], { stdout: (s) => (out += s), stderr: () => undefined, cwd: dir });
  const ms = performance.now() - t0;
  console.log(`${n} configs in one folder: ${(ms / 1000).toFixed(1)} s (${(ms / n).toFixed(2)} ms per file), exit ${code}; ${out.trim().split("\n").at(-1)}`);
  rmSync(dir, { recursive: true, force: true });
}
