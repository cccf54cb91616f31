/**
 * Benchmark (npm run bench): analysis, simulation and both together, for the repository's example
 * configs and a large synthetic config. Prints medians, p95 and ratios; asserts nothing. Ends with
 * didChange → publishDiagnostics latency beside yaml-language-server (YAML_LANGUAGE_SERVER_BIN or the
 * devDependency; skipped with a message when absent) and their ratio.
 *
 * Then the peers section (peers.ts: taplo, tombi, yaml-language-server from bench/peers, as ratios).
 *
 * `--toml-parse-only`: only the TOML parse figure (fast path against toml-eslint-parser, issue #21).
 *
 *   node --import tsx test/bench/bench.ts [--iterations N] [--peers-only] [--toml-parse-only] [--runs N] [--files 1000,10000] [--edits N]
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../../server/src/core/analyze";
import { NO_ENV } from "../../server/src/core/analysis";
import type { ParallelLayout } from "../../server/src/core/analysis";
import { renderDtypeTableMarkdown, renderSimulationMarkdown, simulate, simulationInputFromConfig, simulationToJson } from "../../server/src/core/engine";
import type { SimulationInput } from "../../server/src/core/engine/types";
import { eraById } from "../../server/src/core/frameworks/torchtitan/eras";
import { readKnobs } from "../../server/src/core/frameworks/torchtitan/knobs";
import { parseTomlDocument, parseTomlDocumentSlow } from "../../server/src/core/parse/toml";
import { peersBench, torchtitanToml } from "./peers";
import { pythonBench } from "./python";

const argIdx = process.argv.indexOf("--iterations");
const N = argIdx > 0 ? Math.max(5, Number(process.argv[argIdx + 1]) || 200) : 200;
const ROOT = join(import.meta.dirname, "..", "..");
const BUDGET_MS = 1;

interface Stats {
  median: number;
  p95: number;
  min: number;
}

function time(fn: () => unknown, iterations = N): Stats {
  for (let i = 0; i < Math.min(50, iterations); i++) fn(); // warm-up (JIT)
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const q = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!;
  return { median: q(0.5), p95: q(0.95), min: samples[0]! };
}

const ms = (x: number) => `${x.toFixed(3)} ms`;
const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length));

/** The simulation input an analyser would build: layout and mechanism from the v0.2.2 era seam. */
function inputFor(text: string, uri: string): SimulationInput | undefined {
  const r = analyzeDocument(uri, text, {}, NO_ENV);
  if (r.framework !== "torchtitan" || !r.parallel || !r.mechanism || r.mechanism === "error") return undefined;
  const l = r.parallel as ParallelLayout;
  if (l.dp_shard < 1) return undefined;
  const d = eraById("maybe-enable-amp").decide(l, r.worldSize?.value ?? 8, {});
  const knobs = readKnobs(r.doc, "2026-02-20");
  return simulationInputFromConfig(r.doc, {
    mechanism: r.mechanism,
    layout: l,
    ddp: d.ddp,
    paramDtype: knobs.param.dtype ?? "bfloat16",
    reduceDtype: knobs.reduce.dtype ?? "float32",
    trainingDtype: knobs.trainingDtype.dtype ?? "float32",
    versionDate: "2026-02-20",
  });
}

function synthetic(): string {
  // A torchtitan config the size of the full v0.2.2 schema many times over: every table, long arrays,
  // comments on every line, plus many extension tables (custom_config_module style).
  const out: string[] = ["# synthetic benchmark config", "# precision-lens: world-size=64", "[job]", 'dump_folder = "./outputs"', 'description = "bench"', ""];
  out.push("[model]", 'name = "llama3"', 'flavor = "70B"', 'converters = ["quantize.linear.float8"]', "");
  out.push("[training]", "local_batch_size = 2", "seq_len = 8192", 'mixed_precision_param = "bfloat16"', 'mixed_precision_reduce = "float32"', "");
  out.push("[parallelism]", "data_parallel_replicate_degree = 2", "data_parallel_shard_degree = -1", "tensor_parallel_degree = 8", "pipeline_parallel_degree = 2", "");
  out.push("[activation_checkpoint]", 'mode = "selective"', 'selective_ac_option = "op"', "");
  out.push("[quantize.linear.float8]", 'recipe_name = "rowwise"', `filter_fqns = [${Array.from({ length: 200 }, (_, i) => `"layers.${i}.attention.wq"`).join(", ")}]`, "");
  for (let s = 0; s < 200; s++) {
    out.push(`[experimental_ext_${s}]  # extension table ${s}`);
    for (let k = 0; k < 25; k++) out.push(`key_${k} = ${k % 3 === 0 ? `"value ${k}"` : k % 3 === 1 ? String(k * 1.5) : "true"}  # comment ${k}`);
    out.push("");
  }
  return out.join("\n");
}

function main(): void {
  const exampleDir = join(ROOT, "examples");
  let files: string[] = [];
  try {
    files = readdirSync(exampleDir).filter((f) => f.endsWith(".toml")).sort();
  } catch {
    files = [];
  }
  const configs = files.map((f) => ({ name: f, text: readFileSync(join(exampleDir, f), "utf8") }));
  const big = synthetic();
  configs.push({ name: `synthetic (${big.split("\n").length} lines, ${(big.length / 1024).toFixed(0)} KiB)`, text: big });

  console.log(`Precision Lens benchmark — ${N} iterations each, Node ${process.version}, ${new Date().toISOString()}`);
  console.log(`Simulation budget: ${BUDGET_MS} ms per typical config.\n`);
  console.log(`${pad("config", 46)} ${pad("analyze median", 15)} ${pad("p95", 11)} ${pad("simulate median", 16)} ${pad("p95", 11)} ${pad("sim/budget", 11)} ${pad("both median", 12)} sim/analyze`);
  const simMedians: number[] = [];
  for (const c of configs) {
    const uri = `file:///bench/${c.name.split(" ")[0]}`;
    const a = time(() => analyzeDocument(uri, c.text, {}, NO_ENV));
    const input = inputFor(c.text, uri);
    if (!input) {
      console.log(`${pad(c.name, 46)} ${pad(ms(a.median), 15)} ${pad(ms(a.p95), 11)} ${pad("(no simulation: launch fails / not torchtitan)", 16)}`);
      continue;
    }
    const s = time(() => simulate(input));
    const both = time(() => {
      const r = analyzeDocument(uri, c.text, {}, NO_ENV);
      const sim = simulate(input);
      return [r, sim && simulationToJson(sim)];
    });
    simMedians.push(s.median);
    console.log(
      `${pad(c.name, 46)} ${pad(ms(a.median), 15)} ${pad(ms(a.p95), 11)} ${pad(ms(s.median), 16)} ${pad(ms(s.p95), 11)} ${pad(`${((s.median / BUDGET_MS) * 100).toFixed(1)}%`, 11)} ${pad(ms(both.median), 12)} ${(s.median / a.median).toFixed(2)}×`,
    );
  }

  // Simulation alone across the spec's modes (8B), plus rendering.
  console.log("\nsimulate() alone, llama3 8B, per mode:");
  const L = (p: Partial<ParallelLayout>): ParallelLayout => ({ dp_replicate: 1, dp_shard: 1, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1, ...p });
  const base = { paramDtype: "bfloat16", reduceDtype: "float32", trainingDtype: "float32", ddp: false, model: { name: "llama3", flavor: "8B" }, localBatchSize: 1, seqLen: 8192 } as const;
  const modes: [string, SimulationInput][] = [
    ["(a) FP32, TP 8", { ...base, mechanism: "none", layout: L({ tp: 8 }) }],
    ["(b) autocast + DDP 8", { ...base, mechanism: "autocast", ddp: true, layout: L({ dp_replicate: 8 }) }],
    ["(c) FSDP2-MP, HSDP 2×4 + TP 2 + PP 2", { ...base, mechanism: "fully_shard", layout: L({ dp_replicate: 2, dp_shard: 4, tp: 2, pp: 2 }) }],
    ["(d) FSDP2-MP + float8 rowwise", { ...base, mechanism: "fully_shard", layout: L({ dp_shard: 8 }), float8: { recipe: "rowwise", filterFqns: ["output"] } }],
  ];
  for (const [name, input] of modes) {
    const s = time(() => simulate(input));
    simMedians.push(s.median);
    console.log(`  ${pad(name, 40)} median ${ms(s.median)}  p95 ${ms(s.p95)}  (${((s.median / BUDGET_MS) * 100).toFixed(1)}% of the budget)`);
  }
  const sim = simulate(modes[2]![1])!;
  const r1 = time(() => simulationToJson(sim));
  const r2 = time(() => renderSimulationMarkdown(sim));
  const r3 = time(() => renderDtypeTableMarkdown(sim));
  console.log(`  simulationToJson median ${ms(r1.median)}, renderSimulationMarkdown ${ms(r2.median)}, renderDtypeTableMarkdown ${ms(r3.median)}`);

  simMedians.sort((a, b) => a - b);
  const worst = simMedians[simMedians.length - 1] ?? 0;
  console.log(`\nWorst simulate() median: ${ms(worst)} = ${(worst / BUDGET_MS).toFixed(3)}× the ${BUDGET_MS} ms budget (${worst < BUDGET_MS ? "within" : "OVER"} budget).`);

  yamlAndJson();
  brokenFiles();
  hostileYaml();
}

/** Hostile and large YAML (moved here from timed test assertions): an alias bomb and a 1,000-line config. */
function hostileYaml(): void {
  const names = "abcdefghi".split("");
  let bomb = `a: &a [${Array(9).fill('"lol"').join(",")}]\n`;
  for (let i = 1; i < names.length; i++) bomb += `${names[i]}: &${names[i]} [${Array(9).fill("*" + names[i - 1]).join(",")}]\n`;
  let big = "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\ndtype: bf16\n";
  for (let i = 0; big.split("\n").length < 1000; i++) big += `extra_${i}:\n  _component_: torchtune.x.y\n  a: 1\n  b: [1, 2]\n`;
  console.log("\nHostile / large YAML, analyzeDocument:");
  for (const [name, t] of [["alias bomb (~387M nodes unbounded)", bomb], ["1,000-line torchtune config", big]] as const) {
    const st = time(() => analyzeDocument("file:///bench/c.yaml", t, {}, NO_ENV), 20);
    console.log(`  ${pad(name, 36)} median ${ms(st.median)}  p95 ${ms(st.p95)}`);
  }
}

/** Broken files (issue #14): the seed example intact, and with one, a header and three syntax errors. */
function brokenFiles(): void {
  const text = readFileSync(join(ROOT, "examples", "tp_only_8gpu.toml"), "utf8");
  const variants: [string, string][] = [
    ["intact", text],
    ["`steps = ` (1 error)", text.replace("steps = 1000", "steps = ")],
    ["`[training` (broken header)", text.replace("[training]", "[training")],
    ["3 errors", text.replace("steps = 1000", "steps = ").replace("[model]", "[model").replace('mode = "selective"', "mode = 'sel")],
  ];
  console.log("\nBroken files (tp_only_8gpu.toml), analyzeDocument (recovery: one more parse per error, at most 8):");
  for (const [name, t] of variants) {
    const st = time(() => analyzeDocument("file:///bench/train.toml", t, {}, NO_ENV), Math.min(N, 100));
    console.log(`  ${pad(name, 30)} median ${ms(st.median)}  p95 ${ms(st.p95)}`);
  }
}

/** The YAML/JSON examples (torchtune, accelerate, Lightning, Axolotl, DeepSpeed) through the same core. */
function yamlAndJson(): void {
  const dir = join(ROOT, "examples", "yaml");
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d, { withFileTypes: true })) {
      if (n.isDirectory()) walk(join(d, n.name));
      else if (/\.(ya?ml|json)$/.test(n.name)) files.push(join(d, n.name));
    }
  };
  walk(dir);
  console.log(`\nYAML / JSON examples (${files.length} files), analyzeDocument:`);
  const medians: number[] = [];
  for (const f of files.sort()) {
    const text = readFileSync(f, "utf8");
    const uri = `file://${f}`;
    const fw = analyzeDocument(uri, text, {}, NO_ENV).framework ?? "none";
    const st = time(() => analyzeDocument(uri, text, {}, NO_ENV), Math.min(N, 100));
    medians.push(st.median);
    console.log(`  ${pad(f.slice(dir.length + 1), 44)} ${pad(fw, 11)} median ${ms(st.median)}  p95 ${ms(st.p95)}`);
  }
  medians.sort((a, b) => a - b);
  console.log(`  worst median ${ms(medians.at(-1) ?? 0)} = ${((medians.at(-1) ?? 0) / 20).toFixed(3)}× the 20 ms diagnostics budget`);
}

/** Client activation, measured by the last real-editor run (npm run test:e2e writes .e2e-artifacts/timings.json). */
function activation(): void {
  const p = join(ROOT, ".e2e-artifacts", "timings.json");
  let t: { clientActivateMs?: number; clientReadyMs?: number } | undefined;
  try {
    t = JSON.parse(readFileSync(p, "utf8"));
  } catch {
    t = undefined;
  }
  if (!t || t.clientActivateMs === undefined) {
    console.log("\nClient activation: not measured here (it needs a real workbench); run `npm run test:e2e`, then `npm run bench` prints it.");
    return;
  }
  console.log(`\nClient activation (last npm run test:e2e, code-server 1.100): activate() ${t.clientActivateMs} ms (${(t.clientActivateMs / 50).toFixed(2)}× the 50 ms budget); server ready ${t.clientReadyMs} ms after activate() (${((t.clientReadyMs ?? 0) / 300).toFixed(2)}× the 300 ms budget).`);
}

/** The language server over stdio, as an editor drives it: spawn → initialize, didOpen → diagnostics, hover. */
async function protocol(): Promise<void> {
  const { TestLspClient } = await import("../support/lspClient");
  const file = join(ROOT, "examples", "tp_only_8gpu.toml");
  const text = readFileSync(file, "utf8");
  const line = text.split("\n").findIndex((l) => l.startsWith("tensor_parallel_degree"));
  const t0 = performance.now();
  const c = new TestLspClient();
  await c.initialize(null);
  const init = performance.now() - t0;
  const opens: number[] = [];
  const hovers: number[] = [];
  for (let i = 0; i < 20; i++) {
    const uri = `file:///bench/${i}/train.toml`;
    const t1 = performance.now();
    const wait = c.waitForDiagnostics(uri);
    await c.open(uri, text);
    await wait;
    opens.push(performance.now() - t1);
    const t2 = performance.now();
    await c.conn.sendRequest("textDocument/hover", { textDocument: { uri }, position: { line, character: 2 } });
    hovers.push(performance.now() - t2);
  }
  await c.shutdown();
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`\nLanguage server over stdio (dist/server.js): spawn → initialize ${ms(init)} (${(init / 300).toFixed(2)}× the 300 ms budget)`);
  console.log(`  didOpen → publishDiagnostics: first ${ms(opens[0]!)}, median ${ms(med(opens.slice(1)))}; hover median ${ms(med(hovers))} (${(med(hovers) / 50).toFixed(2)}× the 50 ms budget)`);
}

/** yaml-language-server's bin: $YAML_LANGUAGE_SERVER_BIN, else a local devDependency install; undefined when absent. */
function yamlLanguageServerBin(): string | undefined {
  const candidates = [process.env.YAML_LANGUAGE_SERVER_BIN, join(ROOT, "node_modules", "yaml-language-server", "bin", "yaml-language-server")];
  return candidates.find((c): c is string => !!c && existsSync(c));
}

/**
 * didChange → publishDiagnostics median for one server on one document: open, wait for the first publish,
 * then `edits` full-text changes, each waiting for the publish that follows it.
 */
async function changeLatency(server: { command: string; args: string[] } | undefined, uri: string, text: string, languageId: string, edits = 40): Promise<number> {
  const { TestLspClient } = await import("../support/lspClient");
  const c = new TestLspClient(server);
  try {
    await c.initialize(null);
    const first = c.waitForDiagnostics(uri);
    await c.open(uri, text, languageId);
    await first;
    const samples: number[] = [];
    for (let v = 2; v < edits + 2; v++) {
      const next = c.waitForDiagnostics(uri);
      const t0 = performance.now();
      await c.change(uri, v, `${text}${v % 2 ? "\n# edit\n" : "\n"}`);
      await next;
      samples.push(performance.now() - t0);
    }
    samples.sort((a, b) => a - b);
    return samples[Math.floor(samples.length / 2)]!;
  } finally {
    await c.shutdown();
  }
}

/**
 * TOML parse time, the fast path (parse/tomlFast.ts) against toml-eslint-parser alone (issue #21), timed
 * alternately in one run: all TOML files of ../shared/corpus/torchtitan (one sample = every file once),
 * and the peers bench's 1,000- and 10,000-line torchtitan configs.
 */
function tomlParse(): void {
  const corpus = join(ROOT, "..", "shared", "corpus", "torchtitan");
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".toml")) files.push(join(d, e.name));
    }
  };
  if (existsSync(corpus)) walk(corpus);
  const sets: { name: string; texts: string[]; iterations: number }[] = [];
  if (files.length) sets.push({ name: `corpus torchtitan (${files.length} files)`, texts: files.sort().map((f) => readFileSync(f, "utf8")), iterations: Math.min(N, 100) });
  else console.log(`
TOML parse: ${corpus} is absent, corpus row skipped.`);
  sets.push({ name: "1,000-line TOML", texts: [torchtitanToml(1000)], iterations: Math.min(N, 200) });
  sets.push({ name: "10,000-line TOML", texts: [torchtitanToml(10_000)], iterations: Math.min(N, 40) });
  console.log(`
TOML parse, toml-eslint-parser alone → with the fast path (medians of alternating runs; ratio after/before):`);
  for (const s of sets) {
    const run = (parse: (uri: string, text: string) => unknown) => () => {
      for (const t of s.texts) parse("file:///bench/train.toml", t);
    };
    const slow = run(parseTomlDocumentSlow);
    const fast = run(parseTomlDocument);
    for (let i = 0; i < 10; i++) (slow(), fast()); // warm-up (JIT)
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < s.iterations; i++) {
      let t0 = performance.now();
      slow();
      a.push(performance.now() - t0);
      t0 = performance.now();
      fast();
      b.push(performance.now() - t0);
    }
    const med = (x: number[]) => x.sort((p, q) => p - q)[Math.floor(x.length / 2)]!;
    const before = med(a);
    const after = med(b);
    console.log(`  ${pad(s.name, 34)} ${pad(ms(before), 11)} → ${pad(ms(after), 11)} ratio ${(after / before).toFixed(3)} (${(before / after).toFixed(1)}× faster)`);
  }
}

/** Instant feedback: didChange → publishDiagnostics, Precision Lens beside yaml-language-server on the same YAML. */
async function latency(): Promise<void> {
  const yamlFile = join(ROOT, "examples", "yaml", "accelerate", "fsdp2_bf16.yaml");
  const yamlText = readFileSync(yamlFile, "utf8");
  const yamlUri = pathToFileURL(yamlFile).href;
  const tomlFile = join(ROOT, "examples", "tp_only_8gpu.toml");
  const ours = await changeLatency(undefined, yamlUri, yamlText, "yaml");
  const oursToml = await changeLatency(undefined, pathToFileURL(tomlFile).href, readFileSync(tomlFile, "utf8"), "toml");
  console.log(`\nInstant feedback, didChange → publishDiagnostics median (40 edits):`);
  console.log(`  Precision Lens: ${ms(ours)} on ${yamlFile.slice(ROOT.length + 1)}, ${ms(oursToml)} on ${tomlFile.slice(ROOT.length + 1)}`);
  const bin = yamlLanguageServerBin();
  if (!bin) {
    console.log("  yaml-language-server: skipped, not installed (add the devDependency, or set YAML_LANGUAGE_SERVER_BIN to its bin/yaml-language-server); no ratio.");
    return;
  }
  const theirs = await changeLatency({ command: process.execPath, args: [bin, "--stdio"] }, yamlUri, yamlText, "yaml");
  const ratio = ours / theirs;
  console.log(`  yaml-language-server (${bin}): ${ms(theirs)} on the same file`);
  console.log(`  ratio Precision Lens / yaml-language-server: ${ratio.toFixed(3)} (goal < 0.25: ${ratio < 0.25 ? "met" : "NOT met"})`);
}

if (process.argv.includes("--toml-parse-only")) {
  tomlParse();
} else if (process.argv.includes("--peers-only")) {
  peersBench().catch((e) => console.log(`\nPeers bench failed: ${e instanceof Error ? e.message : String(e)}`));
} else {
  main();
  tomlParse();
  pythonBench();
  activation();
  protocol()
    .catch((e) => console.log(`\nLanguage server bench skipped: ${e instanceof Error ? e.message : String(e)}`))
    .then(latency)
    .catch((e) => console.log(`\nLatency bench failed: ${e instanceof Error ? e.message : String(e)}`))
    .then(peersBench)
    .catch((e) => console.log(`\nPeers bench failed: ${e instanceof Error ? e.message : String(e)}`));
}
