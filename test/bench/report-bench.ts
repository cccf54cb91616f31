/**
 * Benchmark of the visual report (node --import tsx test/bench/report-bench.ts [--iterations N]): the
 * view-model (which analyses the config once per what-if cell, 55 cells for a power-of-two world size and
 * a release), the SVG/HTML rendering, for each torchtitan example. Prints medians and p95; asserts nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../../server/src/core/analyze";
import { buildReportView, renderReportHtml } from "../../server/src/core/report";

const argIdx = process.argv.indexOf("--iterations");
const N = argIdx > 0 ? Math.max(5, Number(process.argv[argIdx + 1]) || 30) : 30;
const DIR = join(import.meta.dirname, "..", "..", "examples");

function time(fn: () => unknown): { median: number; p95: number } {
  for (let i = 0; i < 5; i++) fn();
  const s: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    fn();
    s.push(performance.now() - t0);
  }
  s.sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]! };
}

const fmt = (v: number) => v.toFixed(2).padStart(7);
console.log(`report bench, ${N} iterations (ms: median / p95)`);
console.log(`${"file".padEnd(22)} ${"cells".padStart(5)}  ${"view".padStart(17)}  ${"html".padStart(17)}  bytes`);
for (const f of readdirSync(DIR).filter((n) => n.endsWith(".toml")).sort()) {
  const path = join(DIR, f);
  const r = analyzeDocument(pathToFileURL(path).href, readFileSync(path, "utf8"));
  const view = buildReportView(r);
  const v = time(() => buildReportView(r));
  const h = time(() => renderReportHtml(view, { nonce: "benchNonce00", interactive: true }));
  const bytes = renderReportHtml(view, { nonce: "benchNonce00", interactive: true }).length;
  console.log(`${f.padEnd(22)} ${String(view.whatIf?.cells.length ?? 0).padStart(5)}  ${fmt(v.median)} / ${fmt(v.p95)}  ${fmt(h.median)} / ${fmt(h.p95)}  ${bytes}`);
}
