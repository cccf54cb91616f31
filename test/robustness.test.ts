/**
 * Robustness (issue #10): seeded hostile inputs — deep nesting, huge sizes, control characters, huge
 * numbers, out-of-range positions — through the bundled CLI and the bundled language server. Every input
 * runs under a time and memory bound enforced from outside: the CLI in a child process with a timeout and
 * `--max-old-space-size`, the server in one child process with `--max-old-space-size` and a deadline on
 * each answer. Nothing here measures speed; a bound that is hit is a hang or a blow-up, and fails.
 *
 *   ROBUSTNESS_SEED=7 ROBUSTNESS_INPUTS=300 node --import tsx --test test/robustness.test.ts
 *
 * Defaults: seed 1, 14 inputs (about 10 s; part of `npm test`). A failure prints the seed and the input's
 * generator so it reproduces.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { TestLspClient } from "./support/lspClient";
import { rng } from "./support/rng";

const ROOT = resolve(__dirname, "..");
const CLI = join(ROOT, "dist/cli.js");
const SEED = Number(process.env.ROBUSTNESS_SEED ?? 1);
const INPUTS = Number(process.env.ROBUSTNESS_INPUTS ?? 14);
/** Per input: wall-clock bound of one CLI run / one server answer, and the heap of either process. */
const CLI_TIMEOUT_MS = 30_000;
const ANSWER_TIMEOUT_MS = 15_000;
const HEAP_MB = 384;


const TITAN = readFileSync(join(ROOT, "examples/tp_only_8gpu.toml"), "utf8");
const ACCEL = readFileSync(join(ROOT, "examples/yaml/accelerate/fsdp2_bf16.yaml"), "utf8");
const CONTROL = ["\u0000", "\u0007", "\u001b[2J", "\u001b]0;pwned\u0007", "\u202e", "\u2066", "\u0085", "\r", "\u2028", "\ufeff", "\ud800"];
const HUGE = ["10000000000", "9223372036854775807", "-9223372036854775808", "1048577", "1048576", "1e23", "inf", "nan", "0x7fffffff", "-1", "0"];

interface Input {
  name: string;
  ext: "toml" | "yaml" | "json";
  text: string;
}

type Gen = (r: () => number) => Input;

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: () => number, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

const GENERATORS: Record<string, Gen> = {
  tomlNestedArrays: (r) => {
    const n = int(r, 10, 5000);
    return { name: `toml arrays nested ${n}`, ext: "toml", text: `${TITAN}\n[extra]\nzz = ${"[".repeat(n)}1${"]".repeat(n)}\n` };
  },
  tomlNestedInline: (r) => {
    const n = int(r, 10, 3000);
    return { name: `toml inline tables nested ${n}`, ext: "toml", text: `${TITAN}\n[extra]\nzz = ${"{a = ".repeat(n)}1${"}".repeat(n)}\n` };
  },
  tomlLongString: (r) => {
    const n = int(r, 50_000, 400_000);
    const q = pick(r, ['"', "'", '"""', "'''"]);
    return { name: `toml ${q} string of ${n}`, ext: "toml", text: TITAN.replace("[job]\n", `[job]\nnote = ${q}${"x\\u00e9 ".repeat(1).replace(/\\/g, q.startsWith("'") ? "" : "\\")}${"y".repeat(n)}${q}\n`) };
  },
  tomlOversize: (r) => {
    const n = int(r, 520_000, 2_000_000);
    return { name: `toml of ${n} chars`, ext: "toml", text: TITAN + "#".repeat(n) + "\n" };
  },
  tomlControl: (r) => {
    const c = Array.from({ length: int(r, 1, 4) }, () => pick(r, CONTROL)).join("");
    const esc = [...c].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
    return { name: `toml control chars ${JSON.stringify(c)}`, ext: "toml", text: TITAN.replace("[job]\n", `[job]\n"k${esc}" = "v${esc}"\nraw${c}key = 1\n# ${c}\n`) };
  },
  tomlHugeNumbers: (r) => {
    const tp = pick(r, HUGE);
    const ws = pick(r, HUGE);
    return { name: `toml tp=${tp} world-size=${ws}`, ext: "toml", text: `# precision-lens: world-size=${ws}\n` + TITAN.replace("tensor_parallel_degree = 8", `tensor_parallel_degree = ${tp}`).replace("pipeline_parallel_degree = 1", `pipeline_parallel_degree = ${pick(r, HUGE)}`) };
  },
  yamlNestedFlow: (r) => {
    const n = int(r, 10, 5000);
    return { name: `yaml flow nested ${n}`, ext: "yaml", text: `${ACCEL}zz: ${"[".repeat(n)}1${"]".repeat(n)}\n` };
  },
  yamlCompactSeq: (r) => {
    const n = int(r, 10, 5000);
    return { name: `yaml compact sequence nested ${n}`, ext: "yaml", text: `${ACCEL}zz:\n${"- ".repeat(n)}1\n` };
  },
  yamlBlockNesting: (r) => {
    const n = int(r, 10, 700);
    return { name: `yaml block nesting ${n}`, ext: "yaml", text: `${ACCEL}zz:\n${Array.from({ length: n }, (_, i) => " ".repeat(i + 1) + "a:").join("\n")} 1\n` };
  },
  yamlControlAndNumbers: (r) => {
    const c = pick(r, CONTROL);
    return { name: `yaml control ${JSON.stringify(c)} and ${pick(r, HUGE)}`, ext: "yaml", text: ACCEL.replace(/num_processes: \d+/, `num_processes: ${pick(r, HUGE)}`) + `"k${c}": "v${c}"\n` };
  },
  jsonNested: (r) => {
    const n = int(r, 10, 20_000);
    return { name: `json nested ${n}`, ext: "json", text: `{"zero_optimization": {"stage": 3}, "bf16": {"enabled": true}, "x": ${"[".repeat(n)}${"]".repeat(n)}}` };
  },
  jsonHuge: (r) => {
    const n = pick(r, HUGE);
    return { name: `json train_batch_size ${n}`, ext: "json", text: `{"train_batch_size": ${n}, "train_micro_batch_size_per_gpu": ${pick(r, HUGE)}, "gradient_accumulation_steps": 1, "bf16": {"enabled": true}, "zero_optimization": {"stage": 2}, "\u001b[2J": 1}` };
  },
};

function inputs(): Input[] {
  const r = rng(SEED);
  const names = Object.keys(GENERATORS);
  // Every generator at least once, then random ones.
  return Array.from({ length: INPUTS }, (_, i) => GENERATORS[i < names.length ? names[i]! : pick(r, names)]!(r));
}

const ALL = inputs();

describe(`robustness (seed ${SEED}, ${ALL.length} inputs)`, () => {
  it("the CLI finishes every input within its bounds, never with an internal error, JSON intact and text escaped", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-robust-"));
    try {
      ALL.forEach((input, i) => {
        const file = `in${i}.${input.ext}`;
        writeFileSync(join(dir, file), input.text);
        const where = `seed ${SEED}, input ${i} (${input.name})`;
        for (const format of ["json", "text"]) {
          const p = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, CLI, "check", "--format", format, file], { cwd: dir, encoding: "utf8", timeout: CLI_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
          assert.equal(p.signal, null, `${where}: killed (${p.signal}) — over ${CLI_TIMEOUT_MS} ms or out of memory`);
          assert.ok(p.status === 0 || p.status === 1, `${where}: exit ${p.status}\n${p.stderr.slice(0, 2000)}`);
          assert.doesNotMatch(p.stdout + p.stderr, /internal-error|Maximum call stack/, where);
          if (format === "json") {
            const j = JSON.parse(p.stdout) as { files: { path: string }[] };
            assert.deepEqual(j.files.map((f) => f.path), [file], where);
          } else {
            assert.doesNotMatch(p.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, `${where}: raw control character in text output`);
          }
        }
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("the language server", () => {
    let client: TestLspClient;
    before(async () => {
      client = new TestLspClient(undefined, [`--max-old-space-size=${HEAP_MB}`]);
      await client.initialize(null);
    });
    after(async () => {
      await client.shutdown();
    });

    const within = <T>(p: Promise<T>, what: string): Promise<T> =>
      Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ANSWER_TIMEOUT_MS} ms (server: ${client.exited ?? "running"})`)), ANSWER_TIMEOUT_MS).unref())]);

    it("answers every request on every input within its bounds, with ranges inside the document", async () => {
      const r = rng(SEED ^ 0x5eed);
      const positions = () => [
        { line: 1e9, character: 1e9 },
        { line: -1, character: -1 },
        { line: int(r, 0, 40), character: int(r, 0, 200) },
        { line: 2 ** 31, character: 0 },
        { line: 0.5, character: Number.NaN },
      ];
      for (const [i, input] of ALL.entries()) {
        const where = `seed ${SEED}, input ${i} (${input.name})`;
        const uri = pathToFileURL(join(tmpdir(), `pl-robust-${i}.${input.ext}`)).href;
        const published = client.waitForDiagnostics(uri, () => true, ANSWER_TIMEOUT_MS);
        await client.open(uri, input.text, input.ext);
        const p = await within(published, `${where}: diagnostics`);
        const lines = input.text.split(/\r\n|\r|\n|\u2028|\u2029/).length;
        for (const d of p.diagnostics) {
          assert.notEqual(d.code, "internal-error", `${where}: ${d.message}`);
          assert.ok(d.range.start.line >= 0 && d.range.end.line < lines + 1 && d.range.start.character >= 0, `${where}: ${JSON.stringify(d.range)}`);
        }
        for (const position of positions()) {
          const td = { textDocument: { uri }, position };
          await within(client.conn.sendRequest("textDocument/hover", td), `${where}: hover`);
          const items = await within(client.conn.sendRequest<{ textEdit?: { range: { start: { line: number; character: number } } } }[] | null>("textDocument/completion", td), `${where}: completion`);
          for (const it of items ?? []) if (it.textEdit) assert.ok(it.textEdit.range.start.line >= 0 && it.textEdit.range.start.character >= 0, where);
        }
        const range = { start: { line: -3, character: 0 }, end: { line: 1e9, character: 0 } };
        await within(client.conn.sendRequest("textDocument/inlayHint", { textDocument: { uri }, range }), `${where}: inlayHint`);
        await within(client.conn.sendRequest("textDocument/codeAction", { textDocument: { uri }, range, context: { diagnostics: p.diagnostics } }), `${where}: codeAction`);
        await within(client.conn.sendRequest("textDocument/documentSymbol", { textDocument: { uri } }), `${where}: documentSymbol`);
        await within(client.conn.sendRequest("textDocument/foldingRange", { textDocument: { uri } }), `${where}: foldingRange`);
        await client.conn.sendNotification("textDocument/didClose", { textDocument: { uri } });
      }
      assert.equal(client.exited, undefined, "the server is still running");
    });
  });
});
