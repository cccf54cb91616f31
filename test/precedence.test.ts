/**
 * Precedence of the explicit world-size and version sources (issue #12, core/workspace/precedence.ts):
 * a directive in the file beats the workspace setting; the CLI's flags beat both. The winner's detail,
 * shown by the hover and the language status, names what it overrode.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { hoverAt } from "../server/src/core/features/index";
import { pathToFileURL } from "node:url";
import { runCliCaptured } from "./support/cli";
import { TestLspClient } from "./support/lspClient";
import { analyzeFixture } from "./support/fixture";

const CONFIG = `# precision-lens: world-size=32
# precision-lens: torchtitan-version=v0.2.0

[job]
description = "precedence"

[model]
name = "llama3"
flavor = "8B"

[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 8
`;
const TP_LINE = CONFIG.split("\n").indexOf("tensor_parallel_degree = 8");

describe("precedence: directive over workspace setting, CLI over both", () => {
  it("with no directive the workspace setting applies and overrides nothing", () => {
    const r = analyzeFixture(CONFIG.replace(/^# precision-lens: .*\n/gm, ""), { settings: { worldSize: 16, torchtitanVersion: "v0.1.0" } });
    assert.deepEqual([r.worldSize?.value, r.worldSize?.source, r.worldSize?.overrides], [16, "setting", undefined]);
    assert.equal(r.worldSize?.detail, "precisionLens.worldSize setting (16)");
    assert.deepEqual([r.torchtitanVersion?.value, r.torchtitanVersion?.source], ["v0.1.0", "setting"]);
  });

  it("a directive wins over the workspace setting, and says it overrode it", () => {
    const r = analyzeFixture(CONFIG, { settings: { worldSize: 16, torchtitanVersion: "v0.1.0" } });
    assert.deepEqual([r.worldSize?.value, r.worldSize?.source], [32, "directive"]);
    assert.equal(r.worldSize?.detail, "`# precision-lens: world-size=32` on line 1; overrides the precisionLens.worldSize setting (16)");
    assert.deepEqual(r.worldSize?.overrides, [{ value: 16, source: "setting", kind: "setting", detail: "precisionLens.worldSize setting (16)" }]);
    assert.deepEqual([r.torchtitanVersion?.value, r.torchtitanVersion?.source], ["v0.2.0", "directive"]);
    assert.match(r.torchtitanVersion!.detail, /torchtitan-version=v0\.2\.0` on line 2; overrides the precisionLens\.torchtitanVersion setting \(v0\.1\.0\)$/);
    assert.deepEqual(r.torchtitanVersion?.overrides?.map((o) => [o.value, o.source]), [["v0.1.0", "setting"]]);
    // The resolution follows the winner: 32 GPUs with TP 8 leave dp_shard 4, so FSDP is on.
    assert.deepEqual([r.parallel?.dp_shard, r.mechanism], [4, "fully_shard"]);
  });

  it("the hover on the TP degree says which source won and which it overrode", () => {
    const r = analyzeFixture(CONFIG, { settings: { worldSize: 16, torchtitanVersion: "v0.1.0" } });
    const h = hoverAt(r, { line: TP_LINE, character: 2 });
    assert.ok(h, "a hover on tensor_parallel_degree");
    assert.match(h.markdown, /world size: `# precision-lens: world-size=32` on line 1; overrides the precisionLens\.worldSize setting \(16\)/);
    assert.match(h.markdown, /overrides the precisionLens\.torchtitanVersion setting \(v0\.1\.0\)/);
  });

  it("settings from the command line win over the directive", () => {
    const r = analyzeFixture(CONFIG, { settings: { worldSize: 8, torchtitanVersion: "v0.2.2", origin: "cli" } });
    assert.deepEqual([r.worldSize?.value, r.worldSize?.source], [8, "setting"]);
    assert.equal(r.worldSize?.detail, "--world-size 8 on the command line; overrides `# precision-lens: world-size=32` (line 1)");
    assert.deepEqual([r.torchtitanVersion?.value, r.torchtitanVersion?.detail], ["v0.2.2", "set by --torchtitan-version v0.2.2 on the command line; overrides `# precision-lens: torchtitan-version=v0.2.0` (line 2)"]);
    assert.deepEqual([r.parallel?.dp_shard, r.mechanism], [1, "none"]);
    assert.deepEqual(r.diagnostics.map((d) => d.code), ["no-mixed-precision"]);
  });

  it("an invalid directive still warns and the setting applies", () => {
    const r = analyzeFixture(CONFIG.replace("world-size=32", "world-size=lots"), { settings: { worldSize: 16 } });
    assert.deepEqual([r.worldSize?.value, r.worldSize?.source, r.worldSize?.overrides], [16, "setting", undefined]);
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "invalid-directive").map((d) => d.range.start.line), [0]);
  });

  describe("through the CLI", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-precedence-"));
    writeFileSync(join(dir, "train.toml"), CONFIG);
    after(() => rmSync(dir, { recursive: true, force: true }));

    it("--world-size and --torchtitan-version beat the file's directives", () => {
      const r = runCliCaptured(["check", "--format", "json", "--world-size", "8", "--torchtitan-version", "v0.2.2", "train.toml"], dir);
      const f = (JSON.parse(r.out) as { files: { worldSize: { value: number; source: string }; torchtitanVersion: { value: string }; mechanism: string }[] }).files[0]!;
      assert.deepEqual([f.worldSize, f.torchtitanVersion.value, f.mechanism], [{ value: 8, source: "setting", kind: "cli" }, "v0.2.2", "none"]);
      const text = runCliCaptured(["check", "--world-size", "8", "train.toml"], dir).out;
      assert.match(text, /world size from --world-size 8 on the command line; overrides `# precision-lens: world-size=32` \(line 1\)/);
    });

    it("without flags the directives apply", () => {
      const r = runCliCaptured(["check", "--format", "json", "train.toml"], dir);
      const f = (JSON.parse(r.out) as { files: { worldSize: { value: number; source: string }; torchtitanVersion: { value: string; source: string } }[] }).files[0]!;
      assert.deepEqual([f.worldSize, f.torchtitanVersion], [{ value: 32, source: "directive", kind: "directive" }, { value: "v0.2.0", source: "directive", kind: "directive" }]);
    });
  });

  it("the language server's status summary says the directive overrode the workspace setting", async () => {
    const c = new TestLspClient();
    c.configuration = { worldSize: 16, torchtitanVersion: "v0.1.0" };
    try {
      await c.initialize(null);
      const uri = pathToFileURL(join(tmpdir(), "pl-precedence-lsp", "train.toml")).href;
      type Summary = { uri: string; worldSize: { value: number; source: string; detail: string }; version: { value: string; source: string; detail: string } };
      const summary = c.waitForNotification<Summary>("precisionLens/summaryChanged", (p) => p.uri === uri);
      await c.open(uri, CONFIG);
      const s = await summary;
      assert.deepEqual([s.worldSize.value, s.worldSize.source, s.version.value, s.version.source], [32, "directive", "v0.2.0", "directive"]);
      assert.match(s.worldSize.detail, /; overrides the precisionLens\.worldSize setting \(16\)$/);
      assert.match(s.version.detail, /; overrides the precisionLens\.torchtitanVersion setting \(v0\.1\.0\)$/);
    } finally {
      await c.shutdown();
    }
  });
});
