/**
 * A second real LSP client: headless Neovim (Debian's neovim, 0.7+) runs test/nvim/lsp-check.lua, which
 * starts dist/server.js with vim.lsp.start_client + buf_attach_client on a copy of the seed example, and
 * records the diagnostics, a hover, the quick fixes and the buffer after applying one. Skipped with a
 * message when nvim is absent, except under CI=true, where that fails (.ci/run installs neovim).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";

const ROOT = resolve(__dirname, "..");
const nvim = spawnSync("nvim", ["--version"], { encoding: "utf8" });
const have = nvim.status === 0;
const why = "nvim is not installed (apt-get install -y neovim); the Neovim client test is skipped";
const skip = !have && process.env.CI !== "true" ? why : false;

interface Lsp {
  code: string;
  severity: number;
  source: string;
  message: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}
interface Outcome {
  steps: string[];
  error?: string;
  nvim?: { major: number; minor: number };
  diagnostics?: Lsp[];
  nvim_diagnostics?: { lnum: number; col: number; severity: number; source: string }[];
  hover?: string;
  actions?: string[];
  applied?: string;
  after_line?: string;
  after_diagnostics?: Lsp[];
}

describe("Neovim as an LSP client", { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), "pl-nvim-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let o: Outcome;
  const seedText = readFileSync(join(ROOT, "examples", "tp_only_8gpu.toml"), "utf8");
  const tpLine = seedText.split("\n").findIndex((l) => l.startsWith("tensor_parallel_degree"));

  it("runs the Lua client to the end", () => {
    assert.ok(have, why);
    const file = join(dir, "tp_only_8gpu.toml");
    copyFileSync(join(ROOT, "examples", "tp_only_8gpu.toml"), file);
    const outFile = join(dir, "out.json");
    const r = spawnSync("nvim", ["--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n", "-c", `luafile ${join(ROOT, "test", "nvim", "lsp-check.lua")}`], {
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, PL_NODE: process.execPath, PL_SERVER: join(ROOT, "dist", "server.js"), PL_FILE: file, PL_OUT: outFile, HOME: dir, XDG_STATE_HOME: dir, XDG_DATA_HOME: dir, XDG_CACHE_HOME: dir },
    });
    assert.equal(r.status, 0, `nvim exited ${r.status} ${r.signal ?? ""}: ${r.stderr}`);
    o = JSON.parse(readFileSync(outFile, "utf8")) as Outcome;
    assert.equal(o.error, undefined, o.error);
    assert.deepEqual(o.steps, ["attached", "diagnostics", "hover", "code actions", "applied", "diagnostics after the fix"]);
  });

  it("the seed warning arrives in Neovim's diagnostics", () => {
    assert.ok(o, "the Lua client ran");
    assert.deepEqual(o.diagnostics!.map((d) => [d.code, d.severity, d.source, d.range.start.line, d.range.start.character, d.range.end.character]), [["no-mixed-precision", 2, "precision-lens", tpLine, 0, "tensor_parallel_degree = 8".length]]);
    assert.match(o.diagnostics![0]!.message, /^No mixed precision: TP-only on 8 GPUs trains in fp32/);
    // vim.diagnostic holds it too (0-based lnum, WARN = 2).
    assert.deepEqual(o.nvim_diagnostics, [{ lnum: tpLine, col: 0, severity: 2, source: "precision-lens" }]);
  });

  it("a hover on the TP degree shows the resolved precision", () => {
    assert.ok(o, "the Lua client ran");
    assert.match(o.hover ?? "", /\*\*TP-only on 8 GPUs\*\*/);
    assert.match(o.hover ?? "", /\| compute \(matmuls\) \| `float32` \|/);
  });

  it("applying the quick fix lowers the degree and the warning goes", () => {
    assert.ok(o, "the Lua client ran");
    assert.equal(o.actions?.length, 3, JSON.stringify(o.actions));
    assert.match(o.applied ?? "", /^Lower tensor_parallel_degree to 4/);
    assert.equal(o.after_line, "tensor_parallel_degree = 4");
    assert.deepEqual(o.after_diagnostics?.map((d) => d.code), []);
  });
});
