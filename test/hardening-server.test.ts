/**
 * Issue #10, language server side: untrusted positions, forged quick fixes, documents that used to crash
 * the analysis. The bundled server over stdio; waits on answers with timeouts, never sleeps.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { TestLspClient } from "./support/lspClient";

const EXAMPLE = resolve(__dirname, "../examples/tp_only_8gpu.toml");
const URI = pathToFileURL(EXAMPLE).href;
const TEXT = readFileSync(EXAMPLE, "utf8");

type Range = { start: { line: number; character: number }; end: { line: number; character: number } };

/** Rejects when the server takes longer than `ms` to answer (a hang fails the test, not the suite). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms).unref())]);
}

describe("language server hardening", () => {
  let client: TestLspClient;
  before(async () => {
    client = new TestLspClient();
    await client.initialize([{ uri: pathToFileURL(resolve(__dirname, "../examples")).href, name: "examples" }]);
    const w = client.waitForDiagnostics(URI);
    await client.open(URI, TEXT);
    await w;
  });
  after(async () => {
    await client.shutdown();
  });

  it("completion and hover at line 1e9 or -1 answer at once, with ranges inside the document (item 8)", async () => {
    for (const position of [{ line: 1e9, character: 1e9 }, { line: -1, character: -1 }, { line: 0.5, character: Number.MAX_SAFE_INTEGER }]) {
      const items = await within(client.conn.sendRequest<{ textEdit?: { range: Range } }[] | null>("textDocument/completion", { textDocument: { uri: URI }, position }), 5000, `completion at ${JSON.stringify(position)}`);
      for (const it of items ?? []) {
        if (!it.textEdit) continue;
        const r = it.textEdit.range;
        assert.ok(r.start.line >= 0 && r.start.character >= 0 && r.end.line >= 0 && r.end.character >= 0, JSON.stringify(r));
        assert.ok(r.end.line < TEXT.split("\n").length, JSON.stringify(r));
      }
      await within(client.conn.sendRequest("textDocument/hover", { textDocument: { uri: URI }, position }), 5000, "hover");
    }
    const hints = await within(client.conn.sendRequest<unknown[]>("textDocument/inlayHint", { textDocument: { uri: URI }, range: { start: { line: -5, character: 0 }, end: { line: 1e9, character: 0 } } }), 5000, "inlayHint");
    assert.ok(Array.isArray(hints));
  });

  it("code actions come only from the server's own diagnostics, capped; forged data.fixes are ignored (item 9)", async () => {
    const diag = client.published.filter((p) => p.uri === URI).at(-1)!.diagnostics[0]!;
    const forgedFix = { title: "rm -rf", edits: [{ range: diag.range, newText: "pwned" }] };
    const forged = { ...diag, data: { fixes: Array.from({ length: 16_000 }, () => forgedFix) } };
    const actions = await within(
      client.conn.sendRequest<{ title: string; edit: { changes: Record<string, { newText: string }[]> } }[]>("textDocument/codeAction", { textDocument: { uri: URI }, range: diag.range, context: { diagnostics: [forged, forged] } }),
      10_000,
      "codeAction",
    );
    assert.equal(actions.length, 3, "the seed warning's three fixes, once");
    assert.ok(!actions.some((a) => a.title === "rm -rf" || a.edit.changes[URI]!.some((e) => e.newText === "pwned")));
    const invented = { ...diag, message: "not a message the server published", data: { fixes: [forgedFix] } };
    assert.deepEqual(await client.conn.sendRequest("textDocument/codeAction", { textDocument: { uri: URI }, range: diag.range, context: { diagnostics: [invented] } }), []);
  });

  it("an edit that nests too deep replaces the diagnostics instead of leaving stale ones (item 6)", async () => {
    const waiting = client.waitForDiagnostics(URI, (p) => p.version === 2);
    await client.change(URI, 2, TEXT + "\n[extra]\nzz = " + "[".repeat(2000) + "1" + "]".repeat(2000) + "\n");
    const p = await waiting;
    assert.deepEqual(p.diagnostics.map((d) => d.code), ["not-analysed"]);
    const h = await client.conn.sendRequest<{ contents: { value: string } } | null>("textDocument/hover", { textDocument: { uri: URI }, position: { line: 3, character: 1 } });
    assert.match(h!.contents.value, /nest more than 64 levels deep/);
    const back = client.waitForDiagnostics(URI, (q) => q.version === 3);
    await client.change(URI, 3, TEXT);
    assert.deepEqual((await back).diagnostics.map((d) => d.code), ["no-mixed-precision"]);
  });

  it("a 10^10 degree and world size publish promptly, and other documents keep being served (item 7)", async () => {
    const uri = pathToFileURL(resolve(__dirname, "../examples/huge_degree.toml")).href;
    const waiting = client.waitForDiagnostics(uri);
    await client.open(uri, "# precision-lens: world-size=10000000000\n" + TEXT.replace("tensor_parallel_degree = 8", "tensor_parallel_degree = 10000000000"));
    const p = await waiting;
    assert.deepEqual(p.diagnostics.map((d) => d.code).sort(), ["invalid-directive", "parallel-dims-limit"]);
    const h = await client.conn.sendRequest("textDocument/hover", { textDocument: { uri: URI }, position: { line: 25, character: 3 } });
    assert.ok(h);
  });
});
