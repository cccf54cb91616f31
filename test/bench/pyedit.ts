/**
 * The Python editor path without the LSP transport: a generated registry (python.ts's `registry`) of LINES
 * lines (default 1,000) analysed ROUNDS times (default 12), each time with one literal of one function edited
 * (a keystroke's didChange: new text, new analysis, diagnostics read). Prints the median, min and max in ms and
 * the load average; asserts nothing. `node --import tsx test/bench/pyedit.ts [LINES] [ROUNDS] [append]`; add
 * `--cpu-prof` before `--import` to see where the time goes (docs/performance.md). `append`: the edit is the LSP
 * bench's instead (a comment or a line break appended at the end: no function changes).
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { analyzeDocument } from "../../server/src/core/analyze";
import { registry } from "./python";

const lines = Number(process.argv[2] ?? 1000);
const rounds = Math.max(3, Number(process.argv[3] ?? 12));
const text = registry(lines);
const fns = (text.match(/^def /gm) ?? []).length;
// The middle function's literal (`cfg_i` sets steps to i + 1).
const mid = Math.max(1, Math.floor(fns / 2));
const target = `config.training.steps = ${mid}\n`;
if (!text.includes(target)) throw new Error(`the ${lines}-line registry has no \`${target.trim()}\` to edit`);
const append = process.argv[4] === "append";
const times: number[] = [];
for (let i = 0; i < rounds; i++) {
  const edited = append ? `${text}${i % 2 ? `\n# edit ${i}\n` : "\n"}` : text.replace(target, `config.training.steps = ${mid + 1000 + i}\n`);
  const t = performance.now();
  const r = analyzeDocument("file:///bench/config_registry.py", edited);
  void r.diagnostics.length;
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log(`${lines}-line registry (${fns} config functions), ${rounds} ${append ? "appended" : ""} edits: median ${times[Math.floor(rounds / 2)]!.toFixed(1)} ms, min ${times[0]!.toFixed(1)}, max ${times[rounds - 1]!.toFixed(1)}; loadavg ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);
