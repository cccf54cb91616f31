/**
 * Issue #33 (and #36's evaluation part): the Python evaluator's one budget, values shared instead of unfolded,
 * module-level names evaluated once, modules parsed once per content version, and a config function's answer
 * depending on its own inputs only. Inputs come from small generators (seeded), never from timing.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import type { AnalysisEnv } from "../server/src/core/analysis";
import { analyzePyFunctions } from "../server/src/core/frameworks/torchtitan/python/analyzer";
import { configFunctions, evaluateConfig, MAX_EVAL_STEPS, ModuleSet, TOO_COMPLEX } from "../server/src/core/frameworks/torchtitan/python/evaluate";
import { MAX_PY_NESTING, pyNestingLine } from "../server/src/core/parse/guard";
import { parsePythonDocument, pyModuleOf } from "../server/src/core/parse/python";
import { clearPyModuleCache, parsedModule, pyModuleCacheStats } from "../server/src/core/parse/pyModuleCache";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { applyEdits } from "../server/src/core/diagnostics/build";
import { LineIndex } from "../server/src/core/model/lineIndex";

const HEAD = `# precision-lens: world-size=8 torchtitan-version=v0.4.0
from torchtitan.config import ParallelismConfig, TrainingConfig
from torchtitan.trainer import Trainer
import copy
`;
const URI = "file:///ws/reg/config_registry.py";
const DOC = "/ws/reg/config_registry.py";

function env(files: Record<string, string>): AnalysisEnv & { reads: string[] } {
  const reads: string[] = [];
  return { reads, readFile: (p) => (reads.push(p), files[p]), listDir: () => [], documentPath: DOC, workspaceRoots: ["/ws"] };
}

function evaluate(text: string, files: Record<string, string> = {}) {
  const doc = parsePythonDocument(URI, text);
  const module = pyModuleOf(doc)!;
  const fn = configFunctions(module).find((f) => f.name === "cfg")!;
  const e = env(files);
  const set = new ModuleSet(e);
  return { ev: evaluateConfig(fn, { module, file: URI, path: DOC, isRoot: true }, e, set), set, env: e };
}

/** Nine lines `A8 = [A9, A9, …]` … `A0 = [A1, …]`, ten names each: 10⁹ leaves if unfolded. */
function fanOut(width: number, levels: number, leaf = "TrainingConfig(dtype=\"bfloat16\")"): string {
  const lines = [`A${levels} = ${leaf}`];
  for (let i = levels - 1; i >= 0; i--) lines.push(`A${i} = [${Array.from({ length: width }, () => `A${i + 1}`).join(", ")}]`);
  return lines.join("\n");
}

describe("issue #33: one budget, shared values", () => {
  it("constant fan-out (9 lines of 10 names) is evaluated once per name, not 10⁹ times", () => {
    const text = `${HEAD}${fanOut(10, 9)}\n\ndef cfg() -> Trainer.Config:\n    x = A0\n    return Trainer.Config(training=TrainingConfig(dtype="float32"))\n`;
    const { ev, set } = evaluate(text);
    assert.equal(ev.tooComplex, undefined);
    assert.equal(ev.fields.get("training.dtype")?.value, "float32");
    assert.ok(set.computed <= 10, `${set.computed} module values computed: each of A0 … A9 at most once`);
  });
  it("keyword fan-out (`K0 = f(a=K1, b=K1, …)`) is evaluated once per name", () => {
    const lines = ["K9 = 1"];
    for (let i = 8; i >= 0; i--) lines.push(`K${i} = TrainingConfig(${Array.from({ length: 10 }, (_, j) => `a${j}=K${i + 1}`).join(", ")})`);
    const text = `${HEAD}${lines.join("\n")}\n\ndef cfg() -> Trainer.Config:\n    return Trainer.Config(training=K0)\n`;
    const { ev, set } = evaluate(text);
    assert.equal(ev.tooComplex, undefined);
    assert.ok(set.computed <= 10, `${set.computed}`);
    assert.equal(ev.fields.get("training.dtype")?.state, "default");
  });
  it("copy.deepcopy of a shared list (x1 = [x0, x0] … x40) copies each shared node once", () => {
    const chain = Array.from({ length: 40 }, (_, i) => `    x${i + 1} = [x${i}, x${i}]`).join("\n");
    const text = `${HEAD}\ndef cfg() -> Trainer.Config:\n    x0 = TrainingConfig(dtype="bfloat16")\n${chain}\n    y = copy.deepcopy(x40)\n    return Trainer.Config(training=TrainingConfig(dtype="float32"))\n`;
    const { ev } = evaluate(text);
    assert.equal(ev.tooComplex, undefined);
    assert.equal(ev.fields.get("training.dtype")?.value, "float32");
  });
  it("the budget is checked inside expressions: helper-call fan-out ends as 'too complex to follow', an unknown that caps severity", () => {
    const helpers = Array.from({ length: 7 }, (_, i) => `def h${i}():\n    return [${Array.from({ length: 10 }, () => `h${i + 1}()`).join(", ")}]\n`).join("\n");
    const text = `${HEAD}${helpers}\ndef h7():\n    return 1\n\ndef cfg() -> Trainer.Config:\n    c = Trainer.Config(training=TrainingConfig(dtype="float16"))\n    x = h0()\n    return c\n`;
    const { ev, set } = evaluate(text);
    assert.equal(ev.tooComplex, TOO_COMPLEX);
    assert.ok(set.steps <= MAX_EVAL_STEPS + 1, `${set.steps} steps`);
    assert.equal(ev.unreadable, TOO_COMPLEX);
    assert.equal(ev.fields.get("training.dtype")?.state, "unknown");
    const r = analyzeDocument(URI, text, {}, env({}));
    assert.ok(!r.diagnostics.some((d) => d.severity === "error"), JSON.stringify(r.diagnostics.map((d) => [d.code, d.severity])));
  });
  it("a shared module value is never changed by the function that writes to it (copy on write)", () => {
    const text = `${HEAD}BASE = Trainer.Config(training=TrainingConfig(dtype="bfloat16"))\n\ndef cfg() -> Trainer.Config:\n    c = BASE\n    d = c\n    c.training.dtype = "float16"\n    return d\n\ndef other() -> Trainer.Config:\n    return BASE\n`;
    const doc = parsePythonDocument(URI, text);
    const module = pyModuleOf(doc)!;
    const e = env({});
    const set = new ModuleSet(e);
    const root = { module, file: URI, path: DOC, isRoot: true };
    const [cfg, other] = ["cfg", "other"].map((n) => configFunctions(module).find((f) => f.name === n)!);
    const a = evaluateConfig(cfg!, root, e, set);
    const b = evaluateConfig(other!, root, e, set);
    assert.equal(a.fields.get("training.dtype")?.value, "float16", "the write shows through the alias, as in Python");
    assert.equal(b.fields.get("training.dtype")?.value, "bfloat16", "another function still reads the module's value");
    assert.equal(set.computed, 1, "BASE evaluated once for both");
  });
});

/** A small seeded generator of registries: constants, a shared base, helpers, config functions. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function registry(r: () => number, n: number): { head: string; fns: string[] } {
  const dtypes = ["bfloat16", "float32", "float16"];
  const head = `${HEAD}D0 = "${dtypes[Math.floor(r() * 3)]}"\nTP = ${1 + Math.floor(r() * 2) * 1}\n\ndef base() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(mixed_precision_param=D0), parallelism=ParallelismConfig(tensor_parallel_degree=TP * 2))\n`;
  const fns: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = Math.floor(r() * 3);
    if (kind === 0) fns.push(`def f${i}() -> Trainer.Config:\n    return base()\n`);
    else if (kind === 1) fns.push(`def f${i}() -> Trainer.Config:\n    c = base()\n    c.training.mixed_precision_param = "${dtypes[Math.floor(r() * 3)]}"\n    return c\n`);
    else fns.push(`def f${i}() -> Trainer.Config:\n    c = copy.deepcopy(base())\n    c.parallelism.tensor_parallel_degree = ${1 << Math.floor(r() * 3)}\n    return c\n`);
  }
  return { head, fns };
}

function answers(text: string, e: AnalysisEnv = env({})): Map<string, string> {
  const doc = parsePythonDocument(URI, text);
  const { results } = analyzePyFunctions(doc, {}, e);
  return new Map(results.map((f) => [f.name, `${f.headline} | ${[...f.r.fields].map(([k, v]) => `${k}=${v.state}:${JSON.stringify(v.value)}`).join(",")}`]));
}

describe("issue #33: a config function's answer depends on its own inputs only", () => {
  for (const seed of [1, 2, 3]) {
    it(`permuting the functions of a generated registry changes no answer (seed ${seed})`, () => {
      const r = rng(seed);
      const { head, fns } = registry(r, 12);
      const before = answers(head + fns.join("\n"));
      const shuffled = [...fns];
      for (let i = shuffled.length - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
      }
      assert.deepEqual(answers(head + shuffled.join("\n")), before);
    });
  }

  it("40 identical `return base()` functions give 40 identical answers (a 300 kB imported module read once)", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-eval33-"));
    try {
      const padding = `# ${"x".repeat(200)}\n`.repeat(1500);
      writeFileSync(join(dir, "basecfg.py"), `from torchtitan.config import ParallelismConfig, TrainingConfig\nfrom torchtitan.trainer import Trainer\n${padding}\ndef base() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(mixed_precision_param="float32"), parallelism=ParallelismConfig(tensor_parallel_degree=8))\n`);
      const fns = Array.from({ length: 40 }, (_, i) => `def f${i}() -> Trainer.Config:\n    return base()\n`).join("\n");
      const text = `${HEAD}from basecfg import base\n\n${fns}`;
      const path = join(dir, "config_registry.py");
      writeFileSync(path, text);
      const doc = parsePythonDocument(pathToFileURL(path).href, text);
      const { results } = analyzePyFunctions(doc, {}, nodeEnv(path, [dir]));
      const heads = new Set(results.map((f) => f.headline));
      assert.equal(results.length, 40);
      assert.equal(heads.size, 1, [...heads].join("\n"));
      assert.match([...heads][0]!, /TP-only/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("with 1,100 functions the run script's world size is kept for every one (reads counted once per file)", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-eval33-"));
    try {
      const fns = Array.from({ length: 1100 }, (_, i) => `def f${i}() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(steps=${i + 1}))\n`).join("\n");
      const text = `from torchtitan.config import TrainingConfig\nfrom torchtitan.trainer import Trainer\n\n${fns}`;
      const path = join(dir, "config_registry.py");
      writeFileSync(path, text);
      writeFileSync(join(dir, "run_train.sh"), "#!/bin/bash\nNGPU=${NGPU:-16}\ntorchrun --nproc_per_node=${NGPU} -m torchtitan.train --module config_registry --config f1099\n");
      const doc = parsePythonDocument(pathToFileURL(path).href, text);
      const { results } = analyzePyFunctions(doc, {}, nodeEnv(path, [dir]));
      assert.equal(results.length, 1100);
      const last = results.find((f) => f.name === "f1099")!;
      assert.equal(last.r.worldSize.value, 16, last.r.worldSize.detail);
      assert.equal(last.r.worldSize.kind, "run-script");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("issue #33: modules parsed once per content version, nesting bounded before parsing", () => {
  it("eight functions and two analyses read and parse an imported module once; an edit is a new version", () => {
    clearPyModuleCache();
    const mod = `from torchtitan.config import TrainingConfig\nfrom torchtitan.trainer import Trainer\n\ndef base() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(dtype="float32"))\n`;
    const files: Record<string, string> = { "/ws/reg/basecfg.py": mod };
    const text = `${HEAD}from basecfg import base\n\n${Array.from({ length: 8 }, (_, i) => `def f${i}() -> Trainer.Config:\n    return base()\n`).join("\n")}`;
    const e = env(files);
    analyzePyFunctions(parsePythonDocument(URI, text), {}, e);
    assert.equal(e.reads.filter((p) => p === "/ws/reg/basecfg.py").length, 1, "read once for eight functions");
    assert.equal(pyModuleCacheStats.parses, 1);
    analyzePyFunctions(parsePythonDocument(URI, text + "\n"), {}, env(files));
    assert.equal(pyModuleCacheStats.parses, 1, "the server's next edit reuses the parse");
    files["/ws/reg/basecfg.py"] = mod.replace("float32", "float16");
    const { results } = analyzePyFunctions(parsePythonDocument(URI, text), {}, env(files));
    assert.equal(pyModuleCacheStats.parses, 2, "the edited module is parsed again");
    assert.equal(results[0]!.r.fields.get("training.dtype")?.value, "float16");
  });
  for (const [what, make] of [
    ["brackets", (n: number) => `x = ${"(".repeat(n)}1${")".repeat(n)}\n`],
    ["indentation", (n: number) => Array.from({ length: n }, (_, i) => `${" ".repeat(i)}if x:\n`).join("") + `${" ".repeat(n)}pass\n`],
    ["unary operators", (n: number) => `x = ${"-".repeat(n)}1\n`],
  ] as const) {
    it(`${what} nested past ${MAX_PY_NESTING} levels are found before parsing; at the limit they parse`, () => {
      assert.equal(pyNestingLine(make(MAX_PY_NESTING - 1)), undefined);
      assert.notEqual(pyNestingLine(make(MAX_PY_NESTING + 5)), undefined);
      clearPyModuleCache();
      assert.equal(parsedModule("/m.py", make(20_000)), undefined, "refused");
      assert.equal(pyModuleCacheStats.parses, 1);
    });
  }
  it("brackets inside strings and comments do not count", () => {
    assert.equal(pyNestingLine(`s = "${"(".repeat(500)}"\n# ${"[".repeat(500)}\nt = '''\n${"{".repeat(500)}\n'''\n`), undefined);
  });
  it("a registry nested too deep is not analysed and says so", () => {
    const doc = parsePythonDocument(URI, `${HEAD}X = ${"[".repeat(300)}${"]".repeat(300)}\n\ndef cfg() -> Trainer.Config:\n    return Trainer.Config()\n`);
    assert.match(doc.skipped ?? "", /nest more than 100 levels deep \(at line 5\)/);
  });
});

describe("issue #33: a quick fix edits only what belongs to the config it is offered on", () => {
  const helper = `${HEAD}
def _trainer(dtype: str) -> Trainer.Config:
    return Trainer.Config(training=TrainingConfig(mixed_precision_param=dtype))

def typo() -> Trainer.Config:
    return _trainer("bfloat1")

def other() -> Trainer.Config:
    return _trainer("float32")
`;
  it("a typo passed to a shared helper is fixed at the call site; the helper and the other config are untouched", () => {
    const r = analyzeDocument(URI, helper, {}, env({}));
    const d = r.diagnostics.find((x) => x.code === "unknown-dtype");
    assert.ok(d, JSON.stringify(r.diagnostics.map((x) => x.code)));
    const fixes = d.data?.fixes ?? [];
    assert.equal(fixes.length, 1);
    const after = applyEdits({ text: helper, lines: new LineIndex(helper) }, fixes[0]!.edits);
    assert.equal(after, helper.replace('_trainer("bfloat1")', '_trainer("bfloat16")'));
    const again = analyzeDocument(URI, after, {}, env({}));
    assert.ok(!again.diagnostics.some((x) => x.code === "unknown-dtype"));
    const fields = (text: string, name: string) => answers(text).get(name);
    assert.equal(fields(after, "other"), fields(helper, "other"), "the other config still reads float32");
  });
  it("a value from a helper's parameter with no literal to rewrite gets no fix", () => {
    const text = helper.replace('_trainer("bfloat1")', "_trainer(DT)").replace("def _trainer", 'DT = "bf" + "loat1"\n\ndef _trainer');
    const r = analyzeDocument(URI, text, {}, env({}));
    const d = r.diagnostics.find((x) => x.code === "unknown-dtype");
    assert.ok(d);
    assert.equal(d.data?.fixes, undefined);
  });
});

/** The Markdown text outside inline code spans (CommonMark: a run of n backticks closes at the next run of exactly n). */
function outsideCodeSpans(md: string): string {
  let out = "";
  for (let i = 0; i < md.length; ) {
    if (md[i] !== "`") {
      out += md[i++];
      continue;
    }
    let n = 0;
    while (md[i + n] === "`") n++;
    const fence = "`".repeat(n);
    let j = md.indexOf(fence, i + n);
    while (j >= 0 && md[j + n] === "`") j = md.indexOf(fence, j + n + 1);
    if (j < 0) {
      out += fence;
      i += n;
    } else i = j + n;
  }
  return out;
}

describe("issue #33: config values cannot inject Markdown into hovers or the report", () => {
  it("a dtype value with a link, an image, HTML and backticks shows as text", () => {
    const evil = "x`](https://evil.example) ![i](https://evil.example/p.png) <img src=x> [y](https://evil.example)";
    const text = `${HEAD}\ndef cfg() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(mixed_precision_param=${JSON.stringify(evil)}))\n`;
    const r = analyzeDocument(URI, text, {}, env({}));
    const md = [r.reportMarkdown ?? "", ...r.hovers.map((h) => h.markdown)].join("\n");
    assert.ok(md.includes("evil.example"), "the value is shown");
    const prose = outsideCodeSpans(md);
    assert.ok(prose.includes("evil.example"), "the messages quote it outside code spans too");
    assert.doesNotMatch(prose, /\]\(https:\/\/evil/);
    assert.doesNotMatch(prose, /<img/);
    const line = md.split("\n").find((l) => l.startsWith("| `training.mixed_precision_param`"));
    assert.ok(line?.includes("`` \"x`"), line);
  });
});
