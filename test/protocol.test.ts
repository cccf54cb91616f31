/**
 * Protocol tests: the bundled server (dist/server.js --stdio) driven over JSON-RPC, as an editor would.
 * Waits on notifications with timeouts; never sleeps.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { TestLspClient } from "./support/lspClient";

const EXAMPLE = resolve(__dirname, "../examples/tp_only_8gpu.toml");
const URI = pathToFileURL(EXAMPLE).href;
const TEXT = readFileSync(EXAMPLE, "utf8");
const TP_LINE = TEXT.split("\n").findIndex((l) => l.startsWith("tensor_parallel_degree"));

describe("language server over stdio", () => {
  let client: TestLspClient;
  before(async () => {
    client = new TestLspClient();
  });
  after(async () => {
    await client.shutdown();
  });

  it("initialize advertises hover, quick fixes and incremental sync", async () => {
    const r = await client.initialize([{ uri: pathToFileURL(resolve(__dirname, "../examples")).href, name: "examples" }]);
    assert.equal(r.capabilities.hoverProvider, true);
    assert.deepEqual(r.capabilities.codeActionProvider, { codeActionKinds: ["quickfix"] });
    assert.equal(r.capabilities.textDocumentSync, 2);
  });

  it("didOpen of the TP-only example publishes the seed warning on the TP degree", async () => {
    const waiting = client.waitForDiagnostics(URI);
    await client.open(URI, TEXT);
    const p = await waiting;
    assert.equal(p.version, 1);
    assert.equal(p.diagnostics.length, 1);
    const d = p.diagnostics[0]!;
    assert.equal(d.code, "no-mixed-precision");
    assert.equal(d.source, "precision-lens");
    assert.equal(d.severity, 2);
    assert.deepEqual(d.range, { start: { line: TP_LINE, character: 0 }, end: { line: TP_LINE, character: "tensor_parallel_degree = 8".length } });
    assert.match(d.message, /^No mixed precision: TP-only on 8 GPUs trains in fp32/);
    // Issue #12: the code's page, and what decided it (the `-1` line) as relatedInformation.
    const lsp = d as typeof d & { codeDescription?: { href: string }; relatedInformation?: { location: { uri: string; range: { start: { line: number } } }; message: string }[]; tags?: number[] };
    assert.ok(lsp.codeDescription?.href.endsWith("/docs/diagnostics/no-mixed-precision.md"), JSON.stringify(lsp.codeDescription));
    // The page bundled beside the server (docs/diagnostics), as a file: URI that opens offline.
    assert.ok(lsp.codeDescription!.href.startsWith("file://") && existsSync(fileURLToPath(lsp.codeDescription!.href)), lsp.codeDescription!.href);
    const shardLine = TEXT.split("\n").findIndex((l) => l.startsWith("data_parallel_shard_degree"));
    assert.deepEqual(lsp.relatedInformation?.map((r) => [r.location.uri, r.location.range.start.line, r.message]), [[URI, shardLine, "-1 resolves to 1 on 8 GPUs"]]);
    assert.equal(lsp.tags, undefined);
  });

  it("summaryChanged names framework, version and world size", async () => {
    type Summary = { uri: string; framework: string; version: { value: string }; worldSize: { value: number; source: string }; layoutName: string };
    const s = await client.waitForNotification<Summary>("precisionLens/summaryChanged", (p) => p.uri === URI);
    assert.deepEqual([s.framework, s.version.value, s.worldSize.value, s.worldSize.source, s.layoutName], ["torchtitan", "v0.2.2", 8, "default", "TP-only"]);
  });

  it("hover on the TP degree shows the resolved precision mode", async () => {
    const h = await client.conn.sendRequest<{ contents: { kind: string; value: string } } | null>("textDocument/hover", { textDocument: { uri: URI }, position: { line: TP_LINE, character: 3 } });
    assert.ok(h);
    assert.equal(h.contents.kind, "markdown");
    assert.match(h.contents.value, /\*\*TP-only on 8 GPUs\*\* \(world size: run_train\.sh default \(NGPU=8\)\)/);
    // The key's hover is its documentation and a summary (issue #34): the mechanism, not the whole table.
    assert.match(h.contents.value, /Mechanism: \*\*none: no mixed precision is applied\*\*/);
  });

  it("inlay hint after data_parallel_shard_degree = -1 shows the resolved value and world size", async () => {
    const line = TEXT.split("\n").findIndex((l) => l.startsWith("data_parallel_shard_degree = -1"));
    const hints = await client.conn.sendRequest<{ position: { line: number; character: number }; label: string; tooltip?: string }[]>("textDocument/inlayHint", {
      textDocument: { uri: URI },
      range: { start: { line: 0, character: 0 }, end: { line: 1000, character: 0 } },
    });
    assert.deepEqual(hints.map((h) => [h.position.line, h.position.character, h.label]), [[line, "data_parallel_shard_degree = -1".length, " → 1 on 8 GPUs"]]);
    assert.match(hints[0]!.tooltip!, /8 \/\/ \(1\*1\*8\*1\) = 1\. World size from run_train\.sh default/);
  });

  it("code lens at the top opens the report", async () => {
    const lenses = await client.conn.sendRequest<{ range: { start: { line: number } }; command: { title: string; command: string; arguments: unknown[] } }[]>("textDocument/codeLens", { textDocument: { uri: URI } });
    assert.equal(lenses.length, 1);
    assert.equal(lenses[0]!.range.start.line, 0);
    assert.match(lenses[0]!.command.title, /^Precision Lens: TP-only on 8 GPUs: no mixed precision \(float32 compute\) · ≈\d+(\.\d+)? GiB peak per GPU \(estimate\) ⚠ over the GPU's 74\.51 GiB$/);
    assert.deepEqual([lenses[0]!.command.command, lenses[0]!.command.arguments], ["precisionLens.openReport", [URI]]);
    const report = await client.conn.sendRequest<{ markdown: string }>("precisionLens/report", { uri: URI });
    assert.match(report.markdown, /v0\.2\.2 with PR #2213 \(unmerged what-if\): autocast, bf16 compute/);
  });

  it("precisionLens/reportHtml renders the webview page with the client's nonce; a bad nonce gets null", async () => {
    const r = await client.conn.sendRequest<{ html: string; title: string } | null>("precisionLens/reportHtml", { uri: URI, nonce: "protocolTestNonce1" });
    assert.ok(r);
    assert.equal(r.title, "tp_only_8gpu.toml");
    assert.match(r.html, /content="default-src 'none'; style-src 'nonce-protocolTestNonce1'; script-src 'nonce-protocolTestNonce1';/);
    assert.match(r.html, /data-world-size="8" data-version="v0\.2\.2" aria-current="true"/);
    assert.equal(await client.conn.sendRequest("precisionLens/reportHtml", { uri: URI, nonce: "'; script-src *" }), null);
  });

  it("a registry's function report: code lens arguments, reportHtml and report with configFunction", async () => {
    const file = resolve(__dirname, "fixtures/python-registry/mytitan/config_registry.py");
    const uri = pathToFileURL(file).href;
    const waiting = client.waitForDiagnostics(uri);
    await client.open(uri, readFileSync(file, "utf8"), "python");
    await waiting;
    const lenses = await client.conn.sendRequest<{ command?: { command: string; arguments?: unknown[] } }[]>("textDocument/codeLens", { textDocument: { uri } });
    assert.deepEqual(lenses.map((l) => l.command?.arguments?.[1]), ["llama3_8b_tp2", "llama3_debug_1gpu", "from_base"]);
    const page = await client.conn.sendRequest<{ html: string; title: string } | null>("precisionLens/reportHtml", { uri, nonce: "protocolTestNonce2", configFunction: "from_base" });
    assert.equal(page?.title, "config_registry.py::from_base");
    assert.match(page!.html, /id="pl-whatif"/);
    const md = await client.conn.sendRequest<{ markdown: string } | null>("precisionLens/report", { uri, configFunction: "llama3_debug_1gpu" });
    assert.match(md?.markdown ?? "", /### Simulated training step \(llama3 debugmodel, fully_shard\)/);
    assert.doesNotMatch(md?.markdown ?? "", /from_base/);
    // A name that is not an identifier is ignored: the file's report.
    const whole = await client.conn.sendRequest<{ markdown: string } | null>("precisionLens/report", { uri, configFunction: "x; y" });
    assert.match(whole?.markdown ?? "", /### Precision Lens — `from_base\(\)`/);
  });

  it("no hover away from the precision keys", async () => {
    const h = await client.conn.sendRequest("textDocument/hover", { textDocument: { uri: URI }, position: { line: 0, character: 2 } });
    assert.equal(h, null);
  });

  it("codeAction returns the fixes carried in the diagnostic's data; didChange re-publishes", async () => {
    const diag = client.published.filter((p) => p.uri === URI).at(-1)!.diagnostics[0]!;
    const actions = await client.conn.sendRequest<{ title: string; kind: string; isPreferred?: boolean; edit: { changes: Record<string, { range: unknown; newText: string }[]> } }[]>("textDocument/codeAction", {
      textDocument: { uri: URI },
      range: diag.range,
      context: { diagnostics: [diag], only: ["quickfix"] },
    });
    assert.equal(actions.length, 3);
    assert.equal(actions[0]!.kind, "quickfix");
    assert.equal(actions[0]!.isPreferred, true);
    assert.match(actions[0]!.title, /^Lower tensor_parallel_degree to 4/);
    const edits = actions[0]!.edit.changes[URI]!;
    assert.deepEqual(edits.map((e) => e.newText), ["4"]);

    const waiting = client.waitForDiagnostics(URI, (p) => p.version === 2);
    await client.change(URI, 2, TEXT.replace("tensor_parallel_degree = 8", "tensor_parallel_degree = 4"));
    const p = await waiting;
    // FSDP+TP now: only the PyTorch TP-mesh all-reduce note (issue #30), no warning.
    assert.deepEqual(p.diagnostics.map((d: { code?: unknown }) => d.code), ["fsdp-tp-grad-allreduce-dtype"]);
  });

  it("a pyproject.toml gets an empty diagnostics list and no summary framework", async () => {
    const uri = pathToFileURL(resolve(__dirname, "../examples/pyproject.toml")).href;
    const waiting = client.waitForDiagnostics(uri);
    await client.open(uri, `[project]\nname = "demo"\n[tool.ruff]\nline-length = 100\n`);
    assert.deepEqual((await waiting).diagnostics, []);
    const s = await client.conn.sendRequest<{ framework: string | null }>("precisionLens/summary", { uri });
    assert.equal(s.framework, null);
  });

  it("settings pulled from the client apply after didChangeConfiguration", async () => {
    client.configuration = { worldSize: 64, torchtitanVersion: "auto" };
    const waiting = client.waitForDiagnostics(URI, (p) => p.version === 3 && p.diagnostics.every((d: { code?: unknown }) => d.code === "fsdp-tp-grad-allreduce-dtype"));
    await client.change(URI, 3, TEXT);
    await client.conn.sendNotification("workspace/didChangeConfiguration", { settings: null });
    await waiting;
    const s = await client.conn.sendRequest<{ worldSize: { value: number; source: string }; layoutName: string }>("precisionLens/summary", { uri: URI });
    assert.deepEqual([s.worldSize.value, s.worldSize.source, s.layoutName], [64, "setting", "FSDP+TP"]);
  });

  it("binary and oversized documents get no diagnostics, a reason in the summary, and the server stays up", async () => {
    const bin = pathToFileURL(resolve(__dirname, "../examples/blob.toml")).href;
    const big = pathToFileURL(resolve(__dirname, "../examples/huge.toml")).href;
    const w1 = client.waitForDiagnostics(bin);
    const w2 = client.waitForDiagnostics(big);
    await client.open(bin, "\u0000\u0001\u0002ELF\u0000".repeat(100));
    await client.open(big, "[training]\n" + "# padding padding padding\n".repeat(30_000));
    assert.deepEqual([(await w1).diagnostics, (await w2).diagnostics], [[], []]);
    const s1 = await client.conn.sendRequest<{ framework: null; frameworkReason: string }>("precisionLens/summary", { uri: bin });
    const s2 = await client.conn.sendRequest<{ framework: null; frameworkReason: string }>("precisionLens/summary", { uri: big });
    assert.match(s1.frameworkReason, /looks binary/);
    assert.match(s2.frameworkReason, /over the limit of 512000/);
    const h = await client.conn.sendRequest<{ contents: { value: string } } | null>("textDocument/hover", { textDocument: { uri: URI }, position: { line: TP_LINE, character: 3 } });
    assert.ok(h, "the server still answers");
  });

  it("a broken edit publishes the syntax error and the server stays up", async () => {
    const waiting = client.waitForDiagnostics(URI, (p) => p.version === 4);
    await client.change(URI, 4, TEXT.replace("tensor_parallel_degree = 8", "tensor_parallel_degree = = 8"));
    const p = await waiting;
    assert.deepEqual(p.diagnostics.map((d) => d.code), ["toml-syntax"]);
    assert.equal(p.diagnostics[0]!.range.start.line, TP_LINE);
  });
});

describe("quick fixes carry the document version (issue #33)", () => {
  let client: TestLspClient;
  before(async () => {
    client = new TestLspClient();
    await client.initialize(null, { workspaceEdit: { documentChanges: true } });
  });
  after(async () => {
    await client.shutdown();
  });

  it("a client with documentChanges gets versioned edits: a fix for version 1 names version 1, one for version 2 names 2", async () => {
    const first = client.waitForDiagnostics(URI, (p) => p.version === 1 && p.diagnostics.length > 0);
    await client.open(URI, TEXT);
    const diag = (await first).diagnostics[0]!;
    type Action = { title: string; edit: { documentChanges?: { textDocument: { uri: string; version: number }; edits: { newText: string }[] }[]; changes?: unknown } };
    const ask = () => client.conn.sendRequest<Action[]>("textDocument/codeAction", { textDocument: { uri: URI }, range: diag.range, context: { diagnostics: [diag] } });
    const v1 = await ask();
    assert.ok(v1.length > 0);
    for (const a of v1) {
      assert.equal(a.edit.changes, undefined);
      assert.deepEqual(a.edit.documentChanges!.map((c) => c.textDocument), [{ uri: URI, version: 1 }]);
    }
    const second = client.waitForDiagnostics(URI, (p) => p.version === 2);
    await client.change(URI, 2, `${TEXT}\n# an edit\n`);
    await second;
    const v2 = await ask();
    assert.ok(v2.length > 0);
    assert.ok(v2.every((a) => a.edit.documentChanges![0]!.textDocument.version === 2), "recomputed for the new version");
  });
});
