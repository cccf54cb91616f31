/**
 * The npm package (`npm pack`): what the pre-commit hook and any LSP editor install. It carries only the
 * bundles and the bin shim, has no runtime dependencies (the bundles are self-contained), installs offline,
 * and its `precision-lens-language-server --stdio` bin speaks LSP.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { TestLspClient } from "./support/lspClient";

const ROOT = resolve(__dirname, "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string; bin: Record<string, string>; dependencies?: Record<string, string>; scripts: Record<string, string> };
const SEED = join(ROOT, "examples", "tp_only_8gpu.toml");
const SEED_TEXT = readFileSync(SEED, "utf8");
const TP_LINE = SEED_TEXT.split("\n").findIndex((l) => l.startsWith("tensor_parallel_degree"));

describe("npm package", () => {
  const tmp = mkdtempSync(join(tmpdir(), "pl-npm-"));
  let tarball = "";
  let files: string[] = [];
  const prefix = join(tmp, "install");
  const binDir = join(prefix, "node_modules", ".bin");
  after(() => rmSync(tmp, { recursive: true, force: true }));

  before(() => {
    // --ignore-scripts: the prepack build already ran (npm test builds first); rebuilding here would rewrite
    // dist/ under the protocol tests running in parallel.
    const out = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", tmp], { cwd: ROOT, encoding: "utf8" });
    const info = (JSON.parse(out) as { filename: string; files: { path: string }[] }[])[0]!;
    tarball = join(tmp, info.filename);
    files = info.files.map((f) => f.path).sort();
  });

  it("carries only the bundles, the bin shim and the docs; npm pack builds them first", () => {
    // Besides the bundles: the diagnostic pages, which the server links from each diagnostic (file: URIs).
    assert.deepEqual(files.filter((f) => !f.startsWith("docs/diagnostics/")), ["CHANGELOG.md", "LICENSE", "README.md", "bin/precision-lens-language-server.js", "dist/cli-main.js", "dist/cli.js", "dist/server-main.js", "dist/server.js", "package.json"]);
    assert.ok(files.includes("docs/diagnostics/no-mixed-precision.md") && files.includes("docs/diagnostics/accelerate/bare-no-boolean.md"));
    assert.deepEqual(pkg.bin, { "precision-lens": "./dist/cli.js", "precision-lens-language-server": "./bin/precision-lens-language-server.js" });
    assert.equal(pkg.scripts.prepack, "node scripts/build.mjs");
    assert.equal(pkg.dependencies, undefined, "the bundles are self-contained: no runtime dependencies");
  });

  it("installs offline into an empty folder", () => {
    const r = spawnSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--prefix", prefix, tarball], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const installed = JSON.parse(readFileSync(join(prefix, "node_modules", pkg.name, "package.json"), "utf8")) as { version: string };
    assert.equal(installed.version, pkg.version);
  });

  it("the installed precision-lens bin checks a config", () => {
    const r = spawnSync(join(binDir, "precision-lens"), ["check", "--format", "json", SEED], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const f = (JSON.parse(r.stdout) as { files: { diagnostics: { code: string }[] }[] }).files[0]!;
    assert.deepEqual(f.diagnostics.map((d) => d.code), ["no-mixed-precision"]);
  });

  it("precision-lens-language-server --stdio: initialize, the seed warning, a hover", async () => {
    const c = new TestLspClient({ command: join(binDir, "precision-lens-language-server"), args: ["--stdio"], cwd: tmp });
    try {
      const init = await c.initialize(null);
      assert.equal(init.capabilities.hoverProvider, true);
      const uri = pathToFileURL(SEED).href;
      const published = c.waitForDiagnostics(uri);
      await c.open(uri, SEED_TEXT);
      const p = await published;
      assert.deepEqual(p.diagnostics.map((d) => [d.code, d.range.start.line]), [["no-mixed-precision", TP_LINE]]);
      const h = await c.conn.sendRequest<{ contents: { value: string } } | null>("textDocument/hover", { textDocument: { uri }, position: { line: TP_LINE, character: 2 } });
      assert.match(h?.contents.value ?? "", /\*\*TP-only on 8 GPUs\*\*/);
    } finally {
      await c.shutdown();
    }
  });
});
