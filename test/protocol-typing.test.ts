/**
 * Typing a config into the server (issue #14): examples/tp_only_8gpu.toml is typed line by line,
 * character by character (each line is emptied, then retyped one keystroke per didChange), and after every
 * keystroke the published diagnostics still hold the seed warning, except while its own line (or the
 * header of its table, before its name is complete) is being typed. Waits on each publishDiagnostics by
 * version, with a timeout; never sleeps.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { TestLspClient, type Published } from "./support/lspClient";

const EXAMPLE = resolve(__dirname, "../examples/tp_only_8gpu.toml");
const URI = pathToFileURL(EXAMPLE).href;
const TEXT = readFileSync(EXAMPLE, "utf8");
const LINES = TEXT.split("\n");
const TP_LINE = LINES.findIndex((l) => l.startsWith("tensor_parallel_degree"));
const PAR_HEADER = LINES.indexOf("[parallelism]");
const AC_HEADER = LINES.indexOf("[activation_checkpoint]");

describe("typing a config keystroke by keystroke", () => {
  let client: TestLspClient;
  before(async () => {
    client = new TestLspClient();
    await client.initialize([{ uri: pathToFileURL(resolve(__dirname, "../examples")).href, name: "examples" }]);
  });
  after(async () => {
    await client.shutdown();
  });

  it("the seed warning stays after every keystroke except those on its own line", async () => {
    assert.ok(TP_LINE > 0 && PAR_HEADER > 0 && AC_HEADER > 0);
    let version = 1;
    const opened = client.waitForDiagnostics(URI, (p) => p.version === 1);
    await client.open(URI, TEXT);
    assert.ok(hasSeed(await opened));

    const missing: string[] = [];
    let keystrokes = 0;
    let checkedMidEdit = false;
    const send = async (text: string): Promise<Published> => {
      const v = ++version;
      const waiting = client.waitForDiagnostics(URI, (p) => p.version === v, 20_000);
      await client.change(URI, v, text);
      return waiting;
    };
    for (let i = 0; i < LINES.length; i++) {
      const full = LINES[i]!;
      if (!full.length) continue;
      for (let k = 0; k <= full.length; k++) {
        const typed = full.slice(0, k);
        const lines = [...LINES];
        lines[i] = typed;
        const p = await send(lines.join("\n"));
        keystrokes++;
        // Its own line, and its table's header before the name is complete (the degrees belong to another table then).
        const own = i === TP_LINE || (i === PAR_HEADER && typed.length < "[parallelism".length);
        if (!own && !hasSeed(p)) missing.push(`line ${i + 1} typed as ${JSON.stringify(typed)}: ${p.diagnostics.map((d) => d.code).join(", ") || "no diagnostics"}`);
        if (own && i === TP_LINE && k < full.length) assert.ok(!hasSeed(p), `the seed warning is guessed for ${JSON.stringify(typed)}`);
        if (i === AC_HEADER && typed === "[activation_checkpoint") {
          // Mid-edit, with a syntax error in the file: hover, inlay hint and code lens are still there.
          assert.ok(p.diagnostics.some((d) => d.code === "toml-syntax" && d.range.start.line === i));
          const h = await client.conn.sendRequest<{ contents: { value: string } } | null>("textDocument/hover", { textDocument: { uri: URI }, position: { line: TP_LINE, character: 3 } });
          assert.match(h!.contents.value, /\*\*TP-only on 8 GPUs\*\*/);
          assert.match(h!.contents.value, /does not parse: this picture is of the rest of the file/);
          const hints = await client.conn.sendRequest<{ label: string }[]>("textDocument/inlayHint", { textDocument: { uri: URI }, range: { start: { line: 0, character: 0 }, end: { line: 1000, character: 0 } } });
          assert.deepEqual(hints.map((x) => x.label), [" → 1 on 8 GPUs"]);
          const lenses = await client.conn.sendRequest<{ command: { title: string } }[]>("textDocument/codeLens", { textDocument: { uri: URI } });
          assert.match(lenses[0]!.command.title, /TP-only on 8 GPUs: no mixed precision/);
          checkedMidEdit = true;
        }
      }
    }
    assert.ok(checkedMidEdit);
    assert.ok(keystrokes >= TEXT.replace(/\n/g, "").length, `${keystrokes} keystrokes`);
    assert.deepEqual(missing, []);
  });
});

function hasSeed(p: Published): boolean {
  return p.diagnostics.some((d) => d.code === "no-mixed-precision" && d.range.start.line === TP_LINE);
}
