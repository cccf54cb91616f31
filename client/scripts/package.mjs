// npm run package: bundles (npm run build must have run), then vsce packages an allow-listed .vsix offline
// (--no-dependencies: every runtime dependency is inside the esbuild bundles) and prints its size.
import { spawnSync } from "node:child_process";
import { statSync, readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const out = `dist/${pkg.name}-${pkg.version}.vsix`;
// The budget: 1.25 MiB since issue #35/#34 (three more frameworks, 153 diagnostic pages with generated headers);
// the allow-list and test/vsix.test.ts's no-external-require check keep out what does not belong.
const LIMIT = 1.25 * 1024 * 1024;
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
  console.error(`${out} is over the 1.25 MiB budget`);
  process.exit(1);
}
