/**
 * torchtitan Python registries: a synthetic 1,000-line registry (config functions chained with `config =
 * base()` and attribute assignments) analysed whole, and an ordinary 1,000-line Python file that must cost
 * nothing measurable (the raw-text pre-check refuses it before parsing). Prints medians; asserts nothing.
 */
import { performance } from "node:perf_hooks";
import { analyzeDocument } from "../../server/src/core/analyze";
import { buildReportView } from "../../server/src/core/report";

/** A registry of `lines` lines: `base()` and config functions of 7 lines each, each built on the one before (a base every tenth). */
export function registry(lines: number): string {
  const out = ["from torchtitan.config import ParallelismConfig, TrainingConfig", "from torchtitan.trainer import Trainer", "", "", "def base() -> Trainer.Config:", "    return Trainer.Config(training=TrainingConfig(steps=10), parallelism=ParallelismConfig(tensor_parallel_degree=2))", ""];
  for (let i = 0; out.length < lines; i++) {
    out.push("", `def cfg_${i}() -> Trainer.Config:`, `    config = ${i % 10 === 0 ? "base" : `cfg_${i - 1}`}()`, `    config.training.steps = ${i + 1}`, `    config.parallelism.pipeline_parallel_degree = ${1 + (i % 2)}`, `    config.training.mixed_precision_param = "bfloat16"`, "    return config");
  }
  const kept = out.slice(0, lines);
  // A `def` cut before its body would be a syntax error (the 5,000-line registry ended so until issue #36's
  // per-function cache): the line becomes a comment.
  if (/^def /.test(kept.at(-1) ?? "")) kept[kept.length - 1] = "# (cut)";
  return kept.join("\n") + "\n";
}

/** A registry with `functions` config functions besides `base()` (the bench's "200-function registry"). */
export function registryWithFunctions(functions: number): string {
  return registry(7 + 7 * functions);
}

function ordinary(lines: number): string {
  const out = ["import os", ""];
  for (let i = 0; out.length < lines; i++) out.push(`def f_${i}(x):`, `    return os.path.join(str(x), "${i}")`, "");
  return out.join("\n");
}

function median(fn: () => unknown, n: number): number {
  const s: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn();
    s.push(performance.now() - t);
  }
  s.sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export function pythonBench(iterations = 20): void {
  const reg = registry(1000);
  const plain = ordinary(1000);
  const fns = (reg.match(/^def /gm) ?? []).length;
  const r = analyzeDocument("file:///bench/config_registry.py", reg);
  const a = median(() => analyzeDocument("file:///bench/config_registry.py", reg), iterations);
  const b = median(() => analyzeDocument("file:///bench/app.py", plain), iterations * 10);
  console.log("\ntorchtitan Python registries, analyzeDocument:");
  console.log(`  1,000-line registry (${fns} config functions, ${r.codeLenses?.length ?? 0} code lenses): median ${a.toFixed(1)} ms`);
  console.log(`  1,000-line ordinary Python file (must be refused by the pre-check): median ${b.toFixed(3)} ms`);
  // One function's report (FILE.py::fn, the code lens): its analysis, per-op simulation and 11 × 4 what-if cells.
  const last = `cfg_${fns - 2}`;
  const one = analyzeDocument("file:///bench/config_registry.py", reg, { configFunction: last });
  const cells = buildReportView(one).whatIf?.cells.length ?? 0;
  const c = median(() => buildReportView(analyzeDocument("file:///bench/config_registry.py", reg, { configFunction: last })), Math.max(3, Math.floor(iterations / 4)));
  console.log(`  one function's report (${last}, the deepest chain; ${cells} what-if cells): median ${c.toFixed(1)} ms`);
}
