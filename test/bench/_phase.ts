import { performance } from "node:perf_hooks";
import { analyzeDocument } from "../../server/src/core/analyze";
import { parsePythonDocument } from "../../server/src/core/parse/python";
import { registry } from "./python";
const lines = Number(process.argv[2] ?? 1000);
const text = registry(lines);
const fns = (text.match(/^def /gm) ?? []).length;
const mid = Math.max(1, Math.floor(fns / 2));
const target = `config.training.steps = ${mid}\n`;
const a: number[] = [], b: number[] = [];
for (let i = 0; i < 60; i++) {
  const edited = text.replace(target, `config.training.steps = ${mid + 1000 + i}\n`);
  let t = performance.now();
  parsePythonDocument("file:///bench/x.py", edited + "#");
  a.push(performance.now() - t);
  t = performance.now();
  analyzeDocument("file:///bench/config_registry.py", edited).diagnostics.length;
  b.push(performance.now() - t);
}
const med = (x: number[]) => x.slice(20).sort((p, q) => p - q)[20].toFixed(1);
console.log(`parse ${med(a)} ms, analyze ${med(b)} ms`);
