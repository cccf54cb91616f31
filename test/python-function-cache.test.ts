/**
 * Issue #36: config functions' results kept across edits (frameworks/torchtitan/python/functionCache.ts). Over
 * random edits of generated registries, of a torchtitan-shaped registry with shared helpers, module constants and
 * a workspace module, and of the corpus's real registries, the analysis with the cache is byte for byte the
 * analysis without it (every lazy feature read); and an edit re-evaluates exactly the functions that read what it
 * changed. The edits include the module walk's cases (parse/python.ts reuses an unchanged top-level statement's
 * comments and error nodes, shifted when it moved): edits at statement boundaries, functions inserted and removed,
 * a syntax error inside one function, edits in comments and decorators.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import type { AnalysisEnv } from "../server/src/core/analysis";
import { clearPyFunctionCache, pyFunctionCache } from "../server/src/core/frameworks/torchtitan/python/functionCache";
import { forgetPythonTrees, parsePythonDocument, pyModuleOf } from "../server/src/core/parse/python";
import { clearPyModuleCache } from "../server/src/core/parse/pyModuleCache";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { LineIndex } from "../server/src/core/model/lineIndex";
import { registry } from "./bench/python";
import { rng } from "./support/rng";

const DOC = "/ws/reg/config_registry.py";
const URI = "file:///ws/reg/config_registry.py";
const COMMON = "/ws/reg/common.py";

function memEnv(files: Record<string, string>): AnalysisEnv {
  return { readFile: (p) => files[p], listDir: () => [], documentPath: DOC, workspaceRoots: ["/ws"] };
}

/** The analysis as the server publishes it and every lazy feature (hovers, hints, lenses, report) read. */
function dump(uri: string, text: string, env: () => AnalysisEnv): string {
  return JSON.stringify(analyzeDocument(uri, text, {}, env()));
}

/** The analysis with the cache (as the server runs it after the edits before), and a cold one. */
function both(uri: string, text: string, env: () => AnalysisEnv): { cached: string; fresh: string; hits: number; misses: number } {
  pyFunctionCache.hits = 0;
  pyFunctionCache.misses = 0;
  const cached = dump(uri, text, env);
  const { hits, misses } = pyFunctionCache;
  pyFunctionCache.enabled = false;
  forgetPythonTrees();
  clearPyModuleCache();
  try {
    return { cached, fresh: dump(uri, text, env), hits, misses };
  } finally {
    pyFunctionCache.enabled = true;
  }
}

const PIECES = ["x", "1", " ", "\n", "(", ")", ":", "=", '"', "#", "    ", "\n    config.training.steps = 7", "\n    config.training.mixed_precision_param = \"float16\"", "\n\ndef g() -> Trainer.Config:\n    return _trainer()\n", "[", "]"];
const DTYPES = ['"bfloat16"', '"float32"', '"float16"', "DTYPE", "REDUCE"];

/** One edit: a number or a dtype changed, a line added or removed, a function renamed, or any piece typed anywhere. */
function edit(text: string, next: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const kind = next();
  if (kind < 0.25) {
    const nums = [...text.matchAll(/\b\d+\b/g)];
    if (nums.length) {
      const m = pick(nums);
      return text.slice(0, m.index) + pick(["1", "2", "4", "8", "-1", "0", "16"]) + text.slice(m.index! + m[0].length);
    }
  }
  if (kind < 0.45) {
    const strs = [...text.matchAll(/"(bfloat16|float32|float16)"|\bDTYPE\b|\bREDUCE\b/g)];
    if (strs.length) {
      const m = pick(strs);
      return text.slice(0, m.index) + pick(DTYPES) + text.slice(m.index! + m[0].length);
    }
  }
  const lines = text.split("\n");
  if (kind < 0.55) {
    const at = Math.floor(next() * lines.length);
    lines.splice(at, 0, pick(["", "# a comment", "X = 3", "# precision-lens: world-size=16", "TP = 4"]));
    return lines.join("\n");
  }
  if (kind < 0.65 && lines.length > 5) {
    lines.splice(Math.floor(next() * lines.length), 1);
    return lines.join("\n");
  }
  if (kind < 0.72) {
    const defs = [...text.matchAll(/^def (\w+)/gm)];
    if (defs.length) {
      const m = pick(defs);
      const to = `${m[1]}${Math.floor(next() * 3)}`;
      return text.replaceAll(new RegExp(`\\b${m[1]}\\b`, "g"), to);
    }
  }
  const at = Math.floor(next() * (text.length + 1));
  if (next() < 0.4) return text.slice(0, at) + text.slice(Math.min(text.length, at + 1 + Math.floor(next() * 12)));
  return text.slice(0, at) + pick(PIECES) + text.slice(at);
}

/** The offsets where top-level statements start (a line beginning with neither a space nor a line break). */
function boundaries(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf("\n"); i >= 0 && i + 1 < text.length; i = text.indexOf("\n", i + 1)) if (!/[ \t\n]/.test(text[i + 1]!)) out.push(i + 1);
  return out;
}

/** The [start, end) of each top-level `def` block (decorators included), by offset. */
function functionBlocks(text: string): [number, number][] {
  const starts = boundaries(text);
  const out: [number, number][] = [];
  for (let k = 0; k < starts.length; k++) {
    if (!text.startsWith("def ", starts[k]!) && !text.startsWith("@", starts[k]!)) continue;
    let j = k;
    while (j < starts.length && text.startsWith("@", starts[j]!)) j++;
    if (j >= starts.length || !text.startsWith("def ", starts[j]!)) continue;
    out.push([starts[k]!, starts[j + 1] ?? text.length]);
    k = j;
  }
  return out;
}

const DECORATORS = ["@functools.cache\n", "@register\n", "@register(name=\"x\")\n"];

/**
 * One edit of the module's structure (issue #36's incremental walk): a line, comment or blank line typed at a
 * statement boundary, a function inserted (a copy under a new name) or removed, a syntax error typed inside one
 * function, a comment's text edited, a decorator added, edited or removed.
 */
function structuralEdit(text: string, next: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const kind = next();
  const at = pick(boundaries(text));
  const blocks = functionBlocks(text);
  if (kind < 0.2) return text.slice(0, at) + pick(["\n", "\n\n", "# boundary note\n", "X = 5\n", "# precision-lens: world-size=8\n", ""]) + text.slice(at);
  if (kind < 0.35 && blocks.length) {
    const [from, to] = pick(blocks);
    const copy = text.slice(from, to).replace(/^def (\w+)/m, (_, n: string) => `def ${n}_copy${Math.floor(next() * 5)}`);
    return text.slice(0, at) + copy + (copy.endsWith("\n") ? "" : "\n") + text.slice(at);
  }
  if (kind < 0.5 && blocks.length > 2) {
    const [from, to] = pick(blocks);
    return text.slice(0, from) + text.slice(to);
  }
  if (kind < 0.65 && blocks.length) {
    // A syntax error inside one function's body (an open bracket, a stray operator, a half-typed call).
    const [from, to] = pick(blocks);
    const body = text.indexOf("\n    ", from);
    if (body > 0 && body < to) {
      const p = body + 5 + Math.floor(next() * Math.max(1, Math.min(30, to - body - 6)));
      return text.slice(0, p) + pick(["(", " = =", "config.training(", ")", "\n    x = [", ":"]) + text.slice(p);
    }
  }
  if (kind < 0.8) {
    const cs = [...text.matchAll(/#[^\n]*/g)];
    if (cs.length) {
      const m = pick(cs);
      return text.slice(0, m.index! + 1) + pick([" edited", " precision-lens: disable=pure-16-bit", "", " (old) " + m[0].slice(1)]) + text.slice(m.index! + m[0].length);
    }
    return text.slice(0, at) + "# a new comment\n" + text.slice(at);
  }
  const decs = [...text.matchAll(/^@[^\n]*\n/gm)];
  if (decs.length && next() < 0.5) {
    const m = pick(decs);
    return text.slice(0, m.index!) + (next() < 0.5 ? "" : pick(DECORATORS)) + text.slice(m.index! + m[0].length);
  }
  if (blocks.length) {
    const [from] = pick(blocks);
    return text.slice(0, from) + pick(DECORATORS) + text.slice(from);
  }
  return text;
}

const COMMON_TEXT = `from torchtitan.config import TrainingConfig, ParallelismConfig
from torchtitan.trainer import Trainer

DTYPE = "bfloat16"


def shared_base() -> Trainer.Config:
    return Trainer.Config(training=TrainingConfig(dtype="float32", mixed_precision_param=DTYPE), parallelism=ParallelismConfig(tensor_parallel_degree=2))
`;

/** A registry shaped like torchtitan's: a shared `_trainer()` helper, constants, deep copies, a workspace module's base, functions built on functions. */
function titanShaped(functions: number, next: () => number): string {
  const out = [
    "from torchtitan.config import ParallelismConfig, TrainingConfig, CompileConfig, ActivationCheckpointConfig",
    "from torchtitan.trainer import Trainer",
    "from .common import shared_base, DTYPE",
    "import copy",
    "",
    "TP = 2",
    'REDUCE = "float32"',
    "",
    "",
    'def _trainer(dtype="bfloat16", tp=TP, steps=10) -> Trainer.Config:',
    "    return Trainer.Config(",
    "        training=TrainingConfig(mixed_precision_param=dtype, mixed_precision_reduce=REDUCE, steps=steps),",
    "        parallelism=ParallelismConfig(tensor_parallel_degree=tp, data_parallel_shard_degree=-1),",
    '        activation_checkpoint=ActivationCheckpointConfig(mode="selective"),',
    "    )",
    "",
  ];
  const names: string[] = [];
  for (let i = 0; i < functions; i++) {
    const name = `model_${i}`;
    const r = next();
    const base =
      r < 0.35 || !names.length
        ? `_trainer(${next() < 0.5 ? '"float16"' : "DTYPE"}, tp=${1 + Math.floor(next() * 4)})`
        : r < 0.55
          ? "shared_base()"
          : r < 0.8
            ? `${names[Math.floor(next() * names.length)]}()`
            : `copy.deepcopy(${names[Math.floor(next() * names.length)]}())`;
    out.push("", `def ${name}() -> Trainer.Config:`, `    config = ${base}`);
    if (next() < 0.5) out.push(`    config.training.steps = ${i + 1}`);
    if (next() < 0.3) out.push(`    config.parallelism.pipeline_parallel_degree = ${1 + (i % 2)}`);
    if (next() < 0.2) out.push(`    config.training.mixed_precision_reduce = "bfloat16"`);
    if (next() < 0.1) out.push("    for x in range(2):", "        config.training.steps += x");
    if (next() < 0.15) out.push("    config.compile = CompileConfig(enable=True)");
    out.push("    return config");
    names.push(name);
  }
  return out.join("\n") + "\n";
}

function randomEdits(name: string, uri: string, start: string, steps: number, seed: number, env: (text: string) => () => AnalysisEnv, editEnv?: (next: () => number) => void): void {
  clearPyFunctionCache();
  const next = rng(seed);
  let text = start;
  dump(uri, text, env(text));
  let hits = 0;
  for (let i = 0; i < steps; i++) {
    if (i % 15 === 14) text = start;
    else if (editEnv && next() < 0.15) editEnv(next);
    else text = next() < 0.35 ? structuralEdit(text, next) : edit(text, next);
    const r = both(uri, text, env(text));
    hits += r.hits;
    assert.equal(r.cached, r.fresh, `${name}, edit ${i}: the analysis with the cache differs from a fresh one`);
  }
  assert.ok(hits > steps, `${name}: the cache was used (${hits} functions reused over ${steps} edits)`);
}

describe("issue #36: per-function results across edits equal a fresh analysis", () => {
  it("random edits of a generated registry (chains of functions on a base)", () => {
    randomEdits("registry(220)", URI, registry(220), 45, 36, () => () => memEnv({}));
  });

  it("random edits of a torchtitan-shaped registry and of the workspace module it imports", () => {
    const files: Record<string, string> = { [COMMON]: COMMON_TEXT };
    const start = titanShaped(24, rng(5));
    randomEdits("titan-shaped", URI, start, 60, 7, (text) => () => memEnv({ ...files, [DOC]: text }), (next) => {
      files[COMMON] = next() < 0.5 ? COMMON_TEXT.replace('DTYPE = "bfloat16"', `DTYPE = "${next() < 0.5 ? "float16" : "float32"}"`) : COMMON_TEXT.replace("tensor_parallel_degree=2", `tensor_parallel_degree=${1 + Math.floor(next() * 8)}`);
    });
  });

  const corpus = ["/work/shared/corpus", join(process.cwd(), "../shared/corpus")].find((d) => existsSync(d));
  const real = corpus ? ["wild2026/slimfrkha__torchtitan/torchtitan/models/llama3/config_registry.py", "wild2026/slimfrkha__torchtitan/torchtitan/models/deepseek_v3/config_registry.py", "wild2026/guojihu-hana__torchtitan/torchtitan/models/qwen3_5/config_registry.py"].map((p) => join(corpus, p)).filter((p) => existsSync(p)) : [];
  it("random edits of the corpus's torchtitan registries (their imports read from the checkout)", { skip: real.length ? false : "the corpus (/work/shared/corpus) is absent" }, () => {
    real.forEach((path, k) => {
      const text = readFileSync(path, "utf8");
      randomEdits(path, pathToFileURL(path).href, text, 20, 100 + k, () => () => nodeEnv(path, [dirname(dirname(dirname(dirname(path))))]));
    });
  });
});

describe("issue #36: an edit re-walks only the statements it changed, and reuses unchanged results as they are", () => {
  const text = `from torchtitan.trainer import Trainer\n# head note\n\n\ndef a() -> Trainer.Config:\n    # in a\n    return Trainer.Config()\n\n\ndef b() -> Trainer.Config:\n    return Trainer.Config()  # in b\n`;
  it("an unchanged statement's comments are the same objects; a moved one's are shifted, as a fresh parse gives them", () => {
    forgetPythonTrees();
    const one = parsePythonDocument(URI, text).comments;
    assert.deepEqual(one.map((c) => [c.line, c.text]), [[1, "head note"], [5, "in a"], [10, "in b"]]);
    // A comment typed at the end: every earlier statement's comments reused, not re-walked.
    const two = parsePythonDocument(URI, `${text}# tail\n`).comments;
    assert.equal(two.length, 4);
    for (let i = 0; i < 3; i++) assert.equal(two[i], one[i], `comment ${i} is the object of the parse before`);
    // A line inserted at the top: the same statements one line lower, positions as a fresh parse's.
    const shifted = `X = 1\n${text}`;
    const three = parsePythonDocument(URI, shifted).comments;
    forgetPythonTrees();
    const cold = parsePythonDocument(URI, shifted).comments;
    assert.deepEqual(three, cold);
    assert.deepEqual(three.map((c) => [c.line, c.range.start.line, c.range.start.character]), [[2, 2, 0], [6, 6, 4], [11, 11, 29]]);
  });
  it("a line index derived from the last one equals a fresh one (random edits, CRLF and lone CR included)", () => {
    const next = rng(361);
    const pieces = ["\n", "\r\n", "\r", "x", "    ", "# c\n", "\n\n", ""];
    let text = registry(80).replace(/\n/g, (m) => (next() < 0.1 ? "\r\n" : m));
    for (let i = 0; i < 300; i++) {
      const at = Math.floor(next() * (text.length + 1));
      const cut = next() < 0.4 ? Math.floor(next() * 6) : 0;
      const edited = text.slice(0, at) + pieces[Math.floor(next() * pieces.length)] + text.slice(Math.min(text.length, at + cut));
      let prefix = 0;
      while (prefix < Math.min(text.length, edited.length) && text[prefix] === edited[prefix]) prefix++;
      let suffix = 0;
      while (suffix < Math.min(text.length, edited.length) - prefix && text[text.length - 1 - suffix] === edited[edited.length - 1 - suffix]) suffix++;
      const derived = LineIndex.afterEdit(new LineIndex(text), edited, prefix, suffix);
      const fresh = new LineIndex(edited);
      assert.equal(derived.lineCount, fresh.lineCount, `edit ${i}`);
      for (let l = 0; l < fresh.lineCount; l++) assert.equal(derived.lineStart(l), fresh.lineStart(l), `edit ${i}, line ${l}`);
      text = edited;
    }
  });
  it("a syntax error inside one function is found after its statement was reused", () => {
    forgetPythonTrees();
    parsePythonDocument(URI, text);
    const broken = text.replace("    return Trainer.Config()  # in b", "    return Trainer.Config(  # in b");
    const doc = parsePythonDocument(URI, broken);
    const errors = pyModuleOf(doc)!.errors;
    assert.ok(errors.length > 0 && errors.every((e) => e.range.start.line >= 10), JSON.stringify(errors));
    forgetPythonTrees();
    const cold = parsePythonDocument(URI, broken);
    assert.deepEqual(doc.comments, cold.comments);
    assert.deepEqual(errors, pyModuleOf(cold)!.errors);
  });
  it("an unchanged function's diagnostics are the same array as the analysis before (no copy)", () => {
    clearPyFunctionCache();
    forgetPythonTrees();
    const reg = registry(60);
    const first = analyzeDocument(URI, reg, {}, memEnv({}));
    const second = analyzeDocument(URI, reg.replace("config.training.steps = 3\n", "config.training.steps = 30\n"), {}, memEnv({}));
    const f0 = first.configFunctions!.find((f) => f.name === "cfg_0")!;
    const s0 = second.configFunctions!.find((f) => f.name === "cfg_0")!;
    assert.ok(f0.diagnostics && f0.diagnostics.length > 0, "cfg_0 has diagnostics to reuse");
    assert.equal(s0.diagnostics, f0.diagnostics);
    // cfg_2 was edited: new objects.
    assert.notEqual(second.configFunctions!.find((f) => f.name === "cfg_2")!.diagnostics, first.configFunctions!.find((f) => f.name === "cfg_2")!.diagnostics);
  });
});

describe("issue #36: an edit re-evaluates the functions that read what it changed, no others", () => {
  const HEAD = `from torchtitan.config import ParallelismConfig, TrainingConfig
from torchtitan.trainer import Trainer
from .common import shared_base

WS = 4


def _helper(dtype) -> Trainer.Config:
    return Trainer.Config(training=TrainingConfig(mixed_precision_param=dtype))


def a() -> Trainer.Config:
    return _helper("bfloat16")


def b() -> Trainer.Config:
    config = _helper("float32")
    config.parallelism.tensor_parallel_degree = WS
    return config


def c() -> Trainer.Config:
    config = b()
    config.training.steps = 3
    return config


def d() -> Trainer.Config:
    return Trainer.Config(training=TrainingConfig(steps=5))


def e() -> Trainer.Config:
    return shared_base()
`;
  const counts = (text: string, files: Record<string, string> = { [COMMON]: COMMON_TEXT }): { hits: number; misses: number } => {
    const r = both(URI, text, () => memEnv(files));
    assert.equal(r.cached, r.fresh);
    return { hits: r.hits, misses: r.misses };
  };
  const fresh = (): void => {
    clearPyFunctionCache();
    dump(URI, HEAD, () => memEnv({ [COMMON]: COMMON_TEXT }));
  };

  // Six config functions: `_helper` returns a Trainer.Config too.
  it("the same text again: every function reused", () => {
    fresh();
    assert.deepEqual(counts(HEAD), { hits: 6, misses: 0 });
  });
  it("a literal in one function's body: that function only", () => {
    fresh();
    assert.deepEqual(counts(HEAD.replace("steps=5", "steps=6")), { hits: 5, misses: 1 });
  });
  it("a shared helper: every function that calls it, directly or through another", () => {
    fresh();
    assert.deepEqual(counts(HEAD.replace("mixed_precision_param=dtype", "mixed_precision_param=dtype, steps=2")), { hits: 2, misses: 4 });
  });
  it("a base function: itself and the functions built on it", () => {
    fresh();
    assert.deepEqual(counts(HEAD.replace("tensor_parallel_degree = WS", "tensor_parallel_degree = 2")), { hits: 4, misses: 2 });
  });
  it("a module constant: the functions that read it", () => {
    fresh();
    assert.deepEqual(counts(HEAD.replace("WS = 4", "WS = 8")), { hits: 4, misses: 2 });
  });
  it("a line added above two functions: those two (their positions moved)", () => {
    fresh();
    assert.deepEqual(counts(HEAD.replace("def d()", "\ndef d()")), { hits: 4, misses: 2 });
  });
  it("the imported workspace module: the function that uses it", () => {
    fresh();
    assert.deepEqual(counts(HEAD, { [COMMON]: COMMON_TEXT.replace("tensor_parallel_degree=2", "tensor_parallel_degree=4") }), { hits: 5, misses: 1 });
  });
  it("a directive: every function", () => {
    fresh();
    assert.deepEqual(counts(`# precision-lens: world-size=16\n${HEAD}`), { hits: 0, misses: 6 });
  });
});

describe("issue #36: the analysis budget is shared as in a fresh analysis", () => {
  it("a registry past MAX_ANALYSIS_STEPS gives the fresh analysis after an edit (no result kept from it)", () => {
    // `_big()` returns a 5,000-item constant, evaluated once per call site (its anchor): two calls per function,
    // 45 functions: about 450,000 steps, past the analysis's 400,000.
    const big = `BIG = [${Array.from({ length: 5000 }, () => "1").join(", ")}]`;
    const fns = Array.from({ length: 45 }, (_, i) => `def f_${i}() -> Trainer.Config:\n    x = _big()\n    y = _big()\n    return Trainer.Config(training=TrainingConfig(steps=${i + 1}))\n`);
    const text = `from torchtitan.config import TrainingConfig\nfrom torchtitan.trainer import Trainer\n\n${big}\n\n\ndef _big():\n    return BIG\n\n\n${fns.join("\n\n")}`;
    clearPyFunctionCache();
    const first = dump(URI, text, () => memEnv({}));
    assert.match(first, /too complex to follow/, "the fresh analysis runs out of the analysis budget");
    const edited = text.replace("steps=45)", "steps=46)");
    const r = both(URI, edited, () => memEnv({}));
    assert.equal(r.cached, r.fresh);
    assert.equal(r.hits, 0, "nothing was kept from an analysis past the budget");
  });

  it("reused results whose fresh cost could pass the budget: the analysis runs fresh", () => {
    const fn = (i: number): string => `def f_${i}() -> Trainer.Config:\n    x = _big()\n    y = _big()\n    return Trainer.Config(training=TrainingConfig(steps=${i + 1}))\n`;
    const big = `BIG = [${Array.from({ length: 5000 }, () => "1").join(", ")}]`;
    const head = `from torchtitan.config import TrainingConfig\nfrom torchtitan.trainer import Trainer\n\n${big}\n\n\ndef _big():\n    return BIG\n\n\n`;
    const under = `${head}${Array.from({ length: 36 }, (_, i) => fn(i)).join("\n\n")}`;
    clearPyFunctionCache();
    assert.doesNotMatch(dump(URI, under, () => memEnv({})), /too complex to follow/, "36 functions stay within the budget");
    const over = `${under}\n\n${Array.from({ length: 8 }, (_, i) => fn(36 + i)).join("\n\n")}`;
    const r = both(URI, over, () => memEnv({}));
    assert.match(r.fresh, /too complex to follow/, "44 functions pass it");
    assert.equal(r.cached, r.fresh);
  });
});
