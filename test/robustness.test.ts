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
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { TestLspClient } from "./support/lspClient";
import { rng } from "./support/rng";
import { ATTACKS } from "./support/attacks";
import { applyFix } from "./support/fixture";
import { runCliCaptured } from "./support/cli";
import { MAX_REPEATED_DIAGNOSTICS } from "../server/src/core/model/limits";

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

/*
 * Issue #18: a generator per attack class of the issue, seeded sizes (ROBUSTNESS_SEED). Each input runs
 * through the bundled CLI in its own process with a time and heap bound (HEAP_18_MB, CLI_TIMEOUT_MS) and
 * must answer right; then the language server, under the same inputs, answers a hover on another document
 * within 1 s (a liveness bound: the attack's own analysis is awaited first, with its own timeout).
 */
const HEAP_18_MB = 256;

interface Case18 {
  cls: string;
  name: string;
  /** Files of the case's folder (the config first); a Buffer is written as bytes. */
  files: Record<string, string | Buffer>;
  /** Symbolic links to create in the folder: name → target. */
  links?: Record<string, string>;
  /** CLI arguments (run in the folder, or in its subfolder `cwd`). */
  args: string[];
  cwd?: string;
  /** Environment variables added to the run's. */
  env?: Record<string, string>;
  /** Runs in the folder before the CLI does (a cache written, then damaged). */
  prepare?(dir: string): void;
  /** Checks the CLI's answer (and the folder, after it: a file --fix rewrote). */
  expect(out: { status: number | null; stdout: string; stderr: string }, dir: string): void;
}

const ATTACK_SIZE = (r: () => number): number => int(r, 20_000, 200_000);
const codesOf = (stdout: string): string[] => (JSON.parse(stdout) as { files: { diagnostics: { code: string }[] }[] }).files.flatMap((f) => f.diagnostics.map((d) => d.code));
const DS = (n: number): string => `{"zero_optimization": {"stage": 3}, "bf16": {"enabled": true}, ${Array.from({ length: n }, () => '"train_batch_size": 8').join(", ")}}\n`;

const GENERATORS_18: Record<string, (r: () => number) => Case18> = {
  brokenHeader: (r) => {
    const n = ATTACK_SIZE(r);
    const a = ATTACKS[0]!;
    return { cls: "broken header", name: `${a.name}, ${n} chars`, files: { [a.file]: a.make(n).text }, args: ["check", "--format", "json", a.file], expect: (o) => assert.ok(codesOf(o.stdout).includes("toml-syntax"), o.stdout.slice(0, 500)) };
  },
  directiveSpaces: (r) => {
    const n = ATTACK_SIZE(r);
    const i = int(r, 1, 3);
    const a = ATTACKS[i]!;
    const expected = ["no-mixed-precision", "accelerate/low-precision-reduction", "deepspeed/low-precision-reduction"][i - 1]!;
    return { cls: "directive run of spaces", name: `${a.name}, ${n} chars`, files: { [a.file]: a.make(n).text }, args: ["check", "--format", "json", a.file], expect: (o) => assert.ok(codesOf(o.stdout).includes(expected), `${expected} expected: ${o.stdout.slice(0, 500)}`) };
  },
  manyPartKey: (r) => {
    const n = ATTACK_SIZE(r);
    const a = ATTACKS[int(r, 4, 5)]!;
    return { cls: "many-part dotted key", name: `${a.name}, ${n} chars`, files: { [a.file]: a.make(n).text }, args: ["check", "--format", "json", a.file], expect: (o) => assert.deepEqual(codesOf(o.stdout), ["not-analysed"]) };
  },
  longNeighbourLines: (r) => {
    const n = ATTACK_SIZE(r);
    const a = ATTACKS[int(r, 7, 10)]!;
    const { text, neighbours } = a.make(n);
    return { cls: "long neighbour-file lines", name: `${a.name}, ${n} chars`, files: { [a.file]: text, ...neighbours }, args: ["check", "--format", "json", a.file], expect: (o) => assert.ok(codesOf(o.stdout).includes("no-mixed-precision"), o.stdout.slice(0, 500)) };
  },
  hugeDuplicateKeys: (r) => {
    const n = int(r, 2_000, 20_000);
    return {
      cls: "huge duplicate keys",
      name: `DeepSpeed JSON with ${n} duplicate keys`,
      files: { "ds_config.json": DS(n) },
      args: ["check", "--format", "json", "ds_config.json"],
      expect: (o) => assert.equal(codesOf(o.stdout).filter((c) => c === "deepspeed/duplicate-key").length, MAX_REPEATED_DIAGNOSTICS + 1),
    };
  },
  symlinkOut: () => ({
    cls: "symlink out of the tree",
    name: "ln -s / rootfs beside a config, check .",
    files: { "train.toml": TITAN },
    links: { rootfs: "/" },
    args: ["check", "--format", "json", "."],
    expect: (o) => assert.deepEqual((JSON.parse(o.stdout) as { files: { path: string }[] }).files.map((f) => f.path), ["train.toml"]),
  }),
  prototypeNames: (r) => {
    const v = pick(r, ["constructor", "__proto__", "toString", "hasOwnProperty"]);
    return {
      cls: "prototype names",
      name: `Lightning precision: ${v}, directive gpu=${v}`,
      files: { "light.yaml": `# precision-lens: gpu=${v}\ntrainer:\n  precision: ${v}\n  accelerator: gpu\n` },
      args: ["check", "--format", "json", "light.yaml"],
      expect: (o) => {
        assert.notEqual(o.status, 3, o.stdout.slice(0, 500));
        assert.ok(!codesOf(o.stdout).includes("internal-error"), o.stdout.slice(0, 500));
      },
    };
  },
  controlCharacters: (r) => {
    const c = pick(r, ["\\n::error::pwned", "\\u001b[2J", "\\u202e", "\\n::add-mask::x"]);
    return {
      cls: "control characters",
      name: `key name with ${JSON.stringify(c)}, --format github`,
      files: { "train.toml": TITAN.replace("[job]\n", `[job]\n"k${c}" = 1\n`) },
      args: ["check", "--format", "github", "train.toml"],
      expect: (o) => {
        assert.doesNotMatch(o.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, "raw control character");
        assert.ok(o.stdout.split("\n").every((l) => !/^::(add-mask|error::pwned)/.test(l)), "forged workflow command");
      },
    };
  },
  encodings: (r) => {
    const kind = pick(r, ["utf16", "nul", "utf8"] as const);
    const bytes = kind === "utf16" ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TITAN, "utf16le")]) : kind === "nul" ? Buffer.concat([Buffer.from([0]), Buffer.from(TITAN)]) : Buffer.from(TITAN.replace('description = "', 'description = "\u0000').replace("\u0000", "\ufffd"), "utf8").fill(0xff, 40, 41);
    return {
      cls: "invalid UTF-8 / UTF-16 / NUL",
      name: `config as ${kind}`,
      files: { "train.toml": bytes },
      args: ["check", "--format", "json", "train.toml"],
      expect: (o) => {
        assert.notEqual(o.status, 0, "a config that cannot be read as UTF-8 does not pass silently");
        assert.match(o.stdout + o.stderr, /train\.toml/);
      },
    };
  },
};

/** Issue #33's attack classes on the Python registry reader: each must finish under the same time and heap bounds. */
const PY_HEAD = "from torchtitan.config import TrainingConfig\nfrom torchtitan.trainer import Trainer\nimport copy\n";
const pyCheck = (file: string): Case18["expect"] => (o) => {
  assert.ok(o.status === 0 || o.status === 1, `exit ${o.status}: ${o.stderr.slice(0, 300)}`);
  assert.ok(!codesOf(o.stdout).includes("internal-error"), o.stdout.slice(0, 300));
  assert.match(o.stdout, new RegExp(file.replace(".", "\\.")));
};
const GENERATORS_33: Record<string, (r: () => number) => Case18> = {
  constantFanOut: (r) => {
    const width = int(r, 8, 16);
    const lines = ["A9 = 1"];
    for (let i = 8; i >= 0; i--) lines.push(`A${i} = [${Array.from({ length: width }, () => `A${i + 1}`).join(", ")}]`);
    return { cls: "#33 constant fan-out", name: `9 lines of ${width} names`, files: { "reg.py": `${PY_HEAD}${lines.join("\n")}\n\ndef cfg() -> Trainer.Config:\n    x = A0\n    return Trainer.Config(training=TrainingConfig(steps=1))\n` }, args: ["check", "--format", "json", "reg.py"], expect: pyCheck("reg.py") };
  },
  keywordFanOut: (r) => {
    const width = int(r, 8, 16);
    const lines = ["K9 = 1"];
    for (let i = 8; i >= 0; i--) lines.push(`K${i} = TrainingConfig(${Array.from({ length: width }, (_, j) => `a${j}=K${i + 1}`).join(", ")})`);
    return { cls: "#33 keyword fan-out", name: `9 lines of ${width} keywords`, files: { "reg.py": `${PY_HEAD}${lines.join("\n")}\n\ndef cfg() -> Trainer.Config:\n    return Trainer.Config(training=K0)\n` }, args: ["check", "--format", "json", "reg.py"], expect: pyCheck("reg.py") };
  },
  helperFanOut: (r) => {
    const width = int(r, 6, 12);
    const helpers = Array.from({ length: 8 }, (_, i) => `def h${i}():\n    return [${Array.from({ length: width }, () => `h${i + 1}()`).join(", ")}]\n`).join("\n");
    return { cls: "#33 call fan-out", name: `8 helpers calling the next ${width} times`, files: { "reg.py": `${PY_HEAD}${helpers}\ndef h8():\n    return 1\n\ndef cfg() -> Trainer.Config:\n    x = h0()\n    return Trainer.Config(training=TrainingConfig(steps=1))\n` }, args: ["check", "--format", "json", "reg.py"], expect: pyCheck("reg.py") };
  },
  sharedDeepCopy: (r) => {
    const n = int(r, 30, 60);
    const chain = Array.from({ length: n }, (_, i) => `    x${i + 1} = [x${i}, x${i}]`).join("\n");
    return { cls: "#33 shared deep copies", name: `x${n} = [x${n - 1}, x${n - 1}], deepcopy`, files: { "reg.py": `${PY_HEAD}\ndef cfg() -> Trainer.Config:\n    x0 = TrainingConfig(steps=1)\n${chain}\n    y = copy.deepcopy(x${n})\n    return Trainer.Config(training=TrainingConfig(steps=1))\n` }, args: ["check", "--format", "json", "reg.py"], expect: pyCheck("reg.py") };
  },
  importFanOut: (r) => {
    const fns = int(r, 20, 40);
    const pad = `# ${"x".repeat(200)}\n`.repeat(1500);
    const base = `${PY_HEAD}${pad}def base() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(steps=1))\n`;
    const reg = `${PY_HEAD}from basecfg import base\n\n${Array.from({ length: fns }, (_, i) => `def f${i}() -> Trainer.Config:\n    return base()\n`).join("\n")}`;
    return { cls: "#33 import fan-out", name: `${fns} functions importing a 300 kB module`, files: { "reg.py": reg, "basecfg.py": base }, args: ["check", "--format", "json", "reg.py"], expect: pyCheck("reg.py") };
  },
  nestedImport: (r) => {
    const depth = int(r, 20_000, 100_000);
    const kind = pick(r, ["(", "[", "-"] as const);
    const deep = kind === "-" ? `X = ${"-".repeat(depth)}1\n` : `X = ${kind.repeat(depth)}${(kind === "(" ? ")" : "]").repeat(depth)}\n`;
    return { cls: "#33 nesting", name: `an imported module nesting ${depth} \`${kind}\` deep`, files: { "reg.py": `${PY_HEAD}from deep import X\n\ndef cfg() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(steps=X))\n`, "deep.py": deep }, args: ["check", "--format", "json", "reg.py"], expect: pyCheck("reg.py") };
  },
  linkOutside: (r) => {
    // The workspace is ws/ (a git repository, and the CLI's folder); secret-outside/ds.json lies beside it.
    const how = pick(r, ["../", "absolute", "symlink"] as const);
    const link = how === "../" ? "../secret-outside/ds.json" : how === "absolute" ? "@ABS@/secret-outside/ds.json" : "ds.json";
    const accel = (l: string): string => `compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 4\ndeepspeed_config:\n  deepspeed_config_file: ${l}\n`;
    return {
      cls: "#33 link outside the workspace",
      name: `deepspeed_config_file by ${how}`,
      files: { "ws/.git/HEAD": "ref: refs/heads/main\n", "secret-outside/ds.json": '{"fp16": {"enabled": true}, "zero_optimization": {"stage": 2}}\n', "ws/accelerate.yaml": accel(link) },
      ...(how === "symlink" ? { links: { "ws/ds.json": "secret-outside/ds.json" } } : {}),
      cwd: "ws",
      prepare: (dir) => writeFileSync(join(dir, "ws/accelerate.yaml"), accel(link.replace("@ABS@", dir))),
      args: ["check", "--format", "json", "accelerate.yaml"],
      expect: (o, dir) => {
        const codes = codesOf(o.stdout);
        assert.ok(codes.includes("accelerate/deepspeed-config-missing") && !codes.includes("deepspeed/precision-mismatch"), `${how}: read outside the workspace: ${o.stdout.slice(0, 800)}`);
        assert.match(o.stdout, /DeepSpeed config is outside the workspace and was not read/);
        assert.ok(!o.stdout.includes(dir) && !o.stdout.includes("secret-outside"), `${how}: the outside path in the output`);
      },
    };
  },
  corruptCache: (r) => {
    // A code cache written by one run, then damaged as a crash or a disk can leave it: the next run is unaffected.
    const damage = pick(r, ["bit", "zero", "truncate", "fifo"] as const);
    const bit = int(r, 0, 8 * 4096);
    let reference = "";
    return {
      cls: "#33 corrupted code cache",
      name: damage === "bit" ? `bit ${bit} flipped` : damage,
      files: { "train.toml": TITAN },
      env: { XDG_CACHE_HOME: "", HOME: "" },
      prepare(dir) {
        this.env = { XDG_CACHE_HOME: join(dir, "xdg"), HOME: dir, PRECISION_LENS_NO_CODE_CACHE: "" };
        const run = (extra: Record<string, string>) => spawnSync(process.execPath, [CLI, "check", "--format", "json", "train.toml"], { cwd: dir, encoding: "utf8", timeout: CLI_TIMEOUT_MS, env: { ...process.env, ...this.env, ...extra } });
        // The answer without a cache, from the CLI in this process (one spawn less).
        reference = runCliCaptured(["check", "--format", "json", "train.toml"], dir).out;
        run({});
        const cacheDir = join(dir, "xdg", "precision-lens");
        const bin = readdirSync(cacheDir).find((f) => f.endsWith(".bin"));
        assert.ok(bin, "the first run wrote a cache");
        const file = join(cacheDir, bin);
        const bytes = readFileSync(file);
        if (damage === "fifo") {
          rmSync(file);
          execFileSync("mkfifo", [file]);
        } else if (damage === "bit") {
          const at = bit >> 3;
          bytes[at % bytes.length] = bytes[at % bytes.length]! ^ (1 << (bit & 7));
          writeFileSync(file, bytes, { mode: 0o600 });
        } else writeFileSync(file, damage === "zero" ? bytes.fill(0, 28) : bytes.subarray(0, bytes.length >> 1), { mode: 0o600 });
      },
      args: ["check", "--format", "json", "train.toml"],
      expect: (o) => {
        assert.equal(o.stdout, reference, `${damage}: another answer than without a cache`);
      },
    };
  },
  fixLayout: (r) => {
    // The remove-key quick fix (HF8 on a one-line JSON, AC4 on an accelerate flow mapping) over generated
    // layouts: the result parses and only the target key is gone (the CLI checks the file within its bounds).
    const json = r() < 0.5;
    const sp = pick(r, ["", " ", "  "]);
    const extra = ['"per_device_train_batch_size"', '"learning_rate"', '"num_train_epochs"', '"logging_steps"'].slice(0, int(r, 0, 4)).map((k, i) => `${k}:${sp}${i + 1}`);
    const members = [`"output_dir":${sp}"out"`, `"bf16":${sp}true`, `"fp16":${sp}true`, ...extra];
    const at = int(r, 0, members.length - 1);
    const [fp16] = members.splice(2, 1);
    members.splice(at, 0, fp16!);
    const flowKeys = ["deepspeed_config_file: ds.json", "zero_stage: 3", ...Array.from({ length: int(r, 0, 3) }, (_, i) => `k${i}: ${i}`)];
    const flowAt = int(r, 0, flowKeys.length - 1);
    const [zs] = flowKeys.splice(1, 1);
    flowKeys.splice(flowAt, 0, zs!);
    const file = json ? "training_args.json" : "accelerate_config.yaml";
    const text = json ? `{${members.join(`,${sp}`)}}\n` : `compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config: {${flowKeys.join(`,${sp || " "}`)}}\nnum_processes: 8\n`;
    return {
      cls: "#33 fix layouts",
      name: `${file}: ${text.split("\n")[json ? 0 : 2]}`,
      files: { [file]: text, "ds.json": '{"zero_optimization": {"stage": 3}}\n' },
      args: ["check", "--format", "json", file],
      expect: (o) => {
        assert.ok(codesOf(o.stdout).includes(json ? "transformers/bf16-and-fp16" : "accelerate/key-belongs-in-deepspeed-file"), o.stdout.slice(0, 500));
        const { after } = applyFix(text, json ? "transformers/bf16-and-fp16" : "accelerate/key-belongs-in-deepspeed-file", json ? "Remove" : "Remove `zero_stage`", { uri: `file:///ws/${file}` });
        if (json) {
          const want = JSON.parse(text) as Record<string, unknown>;
          delete want.fp16;
          assert.deepEqual(JSON.parse(after), want, after);
        } else {
          const want = flowKeys.filter((k) => k !== "zero_stage: 3");
          assert.equal(after, `compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config: {${want.join(`,${sp || " "}`)}}\nnum_processes: 8\n`);
        }
      },
    };
  },
};

function cases18(): Case18[] {
  const r = rng(SEED ^ 0x18);
  return [...Object.values(GENERATORS_18), ...Object.values(GENERATORS_33)].map((g) => g(r));
}

describe(`robustness, issue #18 attack classes (seed ${SEED})`, () => {
  const CASES = cases18();
  for (const c of CASES) {
    it(`${c.cls}: ${c.name}`, () => {
      const dir = mkdtempSync(join(tmpdir(), "pl-robust18-"));
      try {
        for (const [name, body] of Object.entries(c.files)) {
          mkdirSync(dirname(join(dir, name)), { recursive: true });
          writeFileSync(join(dir, name), body);
        }
        for (const [name, target] of Object.entries(c.links ?? {})) symlinkSync(target.startsWith("/") ? target : join(dir, target), join(dir, name));
        c.prepare?.(dir);
        const p = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_18_MB}`, CLI, ...c.args], { cwd: join(dir, c.cwd ?? ""), encoding: "utf8", timeout: CLI_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...c.env } });
        const where = `seed ${SEED}, ${c.cls} (${c.name})`;
        assert.equal(p.signal, null, `${where}: killed (${p.signal}): over ${CLI_TIMEOUT_MS} ms or out of ${HEAP_18_MB} MB`);
        assert.doesNotMatch(p.stdout + p.stderr, /internal-error|Maximum call stack|heap out of memory/, where);
        c.expect({ status: p.status, stdout: p.stdout, stderr: p.stderr }, dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  describe("the language server under the same inputs", () => {
    let client: TestLspClient;
    const other = pathToFileURL(join(ROOT, "examples/tp_only_8gpu.toml")).href;
    const hoverLine = TITAN.split("\n").findIndex((l) => l.startsWith("tensor_parallel_degree"));
    before(async () => {
      client = new TestLspClient(undefined, [`--max-old-space-size=${HEAP_MB}`]);
      await client.initialize(null);
      const ready = client.waitForDiagnostics(other, () => true, ANSWER_TIMEOUT_MS);
      await client.open(other, TITAN);
      await ready;
    });
    after(async () => {
      await client.shutdown();
    });

    /**
     * Edits the other document, then hovers it: the hover is answered within 1 s (its diagnostics follow,
     * debounced by design up to latency.ts's MAX_DEBOUNCE_MS, so they get the ordinary answer timeout).
     */
    async function hoverOther(version: number, where: string): Promise<void> {
      const published = client.waitForDiagnostics(other, (p) => p.version === version, ANSWER_TIMEOUT_MS);
      await client.change(other, version, TITAN + `\n# edit ${version}\n`);
      const h = await Promise.race([
        client.conn.sendRequest<{ contents: { value: string } } | null>("textDocument/hover", { textDocument: { uri: other }, position: { line: hoverLine, character: 3 } }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${where}: no hover on the other document within 1000 ms (server: ${client.exited ?? "running"})`)), 1000).unref()),
      ]);
      assert.ok(h && h.contents.value.length > 0, `${where}: the hover has content`);
      assert.deepEqual((await published).diagnostics.map((d) => d.code), ["no-mixed-precision"], where);
    }

    it("a bad frame header: dropped, the server keeps answering", async () => {
      client.writeRaw('Content-Length 9\r\n\r\n{"id": 1}');
      await hoverOther(2, "after a bad frame header");
    });

    const dirs: string[] = [];
    after(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    it("each config input: analysed within its bound, then a hover on another document within 1 s", async () => {
      let version = 3;
      for (const [i, c] of CASES.entries()) {
        const [name, body] = Object.entries(c.files)[0]!;
        if (typeof body !== "string" || c.links) continue;
        // On disk with its neighbour files, so the server reads them as it would in a repository.
        const dir = mkdtempSync(join(tmpdir(), `pl-robust18-server-${i}-`));
        dirs.push(dir);
        for (const [n, b] of Object.entries(c.files)) {
          mkdirSync(dirname(join(dir, n)), { recursive: true });
          writeFileSync(join(dir, n), b);
        }
        const uri = pathToFileURL(join(dir, name)).href;
        const where = `seed ${SEED}, ${c.cls} (${c.name})`;
        const published = client.waitForDiagnostics(uri, () => true, ANSWER_TIMEOUT_MS);
        await client.open(uri, body, name.endsWith(".json") ? "json" : name.endsWith(".yaml") ? "yaml" : "toml");
        const p = await published;
        assert.ok(!p.diagnostics.some((d) => d.code === "internal-error"), where);
        await hoverOther(version++, where);
      }
      assert.equal(client.exited, undefined, "the server is still running");
    });
  });
});
