// npm run package: bundles (npm run build must have run), then vsce packages an allow-listed .vsix offline
// (--no-dependencies: every runtime dependency is inside the esbuild bundles) and prints its size.
import { spawnSync } from "node:child_process";
import { statSync, readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const out = `dist/${pkg.name}-${pkg.version}.vsix`;
const LIMIT = 1024 * 1024;
const started = Date.now();
const r = spawnSync(
  process.execPath,
  ["node_modules/@vscode/vsce/vsce", "package", "--no-dependencies", "--allow-missing-repository", "--no-rewrite-relative-links", "--out", out],
  { stdio: "inherit" },
);
if (r.status !== 0) process.exit(r.status ?? 1);
const size = statSync(out).size;
console.log(`${out}: ${size} bytes (${(size / 1024).toFixed(1)} KiB) in ${Date.now() - started} ms`);
if (size > LIMIT) {
  console.error(`${out} is over the 1 MiB budget`);
  process.exit(1);
}
