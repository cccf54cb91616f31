/**
 * The visual report: view-model, what-if matrix, the charts (HTML text around SVG shapes: exact elements,
 * deterministic bytes) and the HTML page's content security policy. No browser: the HTML is checked as text
 * (e2e/report.test.mjs measures the page in chromium at 400, 520 and 1200 px).
 */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import type { AnalysisSettings } from "../server/src/core/analysis";
import {
  buildReportView,
  contentSecurityPolicy,
  dtypeStripHtml,
  memoryChartHtml,
  renderReportHtml,
  throughputChartHtml,
  throughputOf,
  whatIfMatrixHtml,
  WHAT_IF_VERSIONS,
  WHAT_IF_WORLD_SIZES,
  type MemoryView,
  type ThroughputView,
} from "../server/src/core/report";
import { MEMORY_COLOURS, MEMORY_PLOT_WIDTH, segClass, thousands, TPUT_PLOT_WIDTH } from "../server/src/core/report/svg";
import { REPORT_CSS } from "../server/src/core/report/html";
import { runCliCaptured } from "./support/cli";

const ROOT = resolve(__dirname, "..");
const example = (name: string): string => readFileSync(resolve(ROOT, "examples", name), "utf8");
const analyse = (name: string, text = example(name), settings: AnalysisSettings = {}) => analyzeDocument(`file:///ws/${name}`, text, settings);

/** Every match of a regex's first group. */
const all = (s: string, re: RegExp): string[] => [...s.matchAll(new RegExp(re.source, "g"))].map((m) => m[1]!);
const count = (s: string, needle: string): number => s.split(needle).length - 1;
const attr = (el: string, name: string): number => Number(new RegExp(`\\b${name}="([^"]*)"`).exec(el)![1]);

const SEED = analyse("tp_only_8gpu.toml");
const SEED_VIEW = buildReportView(SEED);

describe("what-if matrix (world sizes × torchtitan versions)", () => {
  const w = SEED_VIEW.whatIf!;
  it("covers 1 … 1024 GPUs × v0.1.0 … v0.2.2 and PR #2213, row-major", () => {
    assert.deepEqual(w.worldSizes, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
    assert.deepEqual(w.versions.map((v) => v.id), ["v0.1.0", "v0.2.0", "v0.2.1", "v0.2.2", "v0.2.2+pr2213"]);
    assert.equal(w.cells.length, 55);
    w.cells.forEach((c, i) => {
      assert.equal(c.worldSize, w.worldSizes[Math.floor(i / 5)]);
      assert.equal(c.version, w.versions[i % 5]!.id);
    });
  });
  it("marks exactly the analysed cell as current: 8 GPUs, v0.2.2", () => {
    assert.deepEqual(w.current, { worldSize: 8, version: "v0.2.2" });
    assert.deepEqual(w.cells.filter((c) => c.current).map((c) => [c.worldSize, c.version]), [[8, "v0.2.2"]]);
  });
  it("each cell is the analyser's answer at that world size and version", () => {
    const cell = (ws: number, v: string) => w.cells.find((c) => c.worldSize === ws && c.version === v)!;
    // TP 8 on 8 GPUs: no mixed precision in the maybe_enable_amp releases, autocast with PR #2213.
    for (const v of ["v0.1.0", "v0.2.0", "v0.2.1", "v0.2.2"]) assert.deepEqual([cell(8, v).mechanism, cell(8, v).compute], ["none", "float32"], v);
    assert.deepEqual([cell(8, "v0.2.2+pr2213").mechanism, cell(8, "v0.2.2+pr2213").compute], ["autocast", "bfloat16"]);
    // 16 GPUs: -1 resolves to 2, FSDP shards, bf16 compute.
    assert.deepEqual([cell(16, "v0.2.2").mechanism, cell(16, "v0.2.2").compute, cell(16, "v0.2.2").layoutName], ["fully_shard", "bfloat16", SEED_VIEW.whatIf && analyse("tp_only_8gpu.toml", undefined, { worldSize: 16 }).layoutName]);
    // Fewer GPUs than TP needs: the launch fails, with the validation error kept for the tooltip.
    assert.equal(cell(4, "v0.2.2").mechanism, "error");
    assert.ok(cell(4, "v0.2.2").error && cell(4, "v0.2.2").error!.length > 0);
    assert.equal(cell(4, "v0.2.2").peakBytes, undefined);
    // Memory per cell is the engine's estimate for that layout: the current cell equals the analysis.
    // (the reserved peak, as nvidia-smi shows it).
    assert.equal(cell(8, "v0.2.2").peakBytes, SEED.simulation!.memory.perGpuBytes!.reserved);
    assert.equal(cell(16, "v0.2.2").peakBytes, analyse("tp_only_8gpu.toml", undefined, { worldSize: 16 }).simulation!.memory.perGpuBytes!.reserved);
    assert.ok(cell(16, "v0.2.2").peakBytes! < cell(8, "v0.2.2").peakBytes!, "sharding over more GPUs lowers memory per GPU");
  });
  it("sets in-file directives aside for the other cells, and the directive's cell is current", () => {
    const text = `# precision-lens: torchtitan-version=v0.1.0 world-size=8\n${example("tp_only_8gpu.toml")}`;
    const w2 = buildReportView(analyse("tp_only_8gpu.toml", text)).whatIf!;
    assert.deepEqual(w2.current, { worldSize: 8, version: "v0.1.0" });
    const pr = w2.cells.find((c) => c.worldSize === 8 && c.version === "v0.2.2+pr2213")!;
    assert.equal(pr.mechanism, "autocast", "the directive's version does not leak into the PR #2213 column");
    assert.equal(w2.cells.find((c) => c.worldSize === 16 && c.version === "v0.1.0")!.mechanism, "fully_shard", "nor its world size into other rows");
    assert.deepEqual(w2.cells.filter((c) => c.current).map((c) => [c.worldSize, c.version]), [[8, "v0.1.0"]]);
  });
  it("adds the config's own world size and main-branch version when they are not on the grid", () => {
    const w3 = buildReportView(analyse("tp_only_8gpu.toml", undefined, { worldSize: 24, torchtitanVersion: "main@2025-08-01" })).whatIf!;
    assert.deepEqual(w3.worldSizes, [1, 2, 4, 8, 16, 24, 32, 64, 128, 256, 512, 1024]);
    assert.deepEqual(w3.versions.map((v) => v.id), ["v0.1.0", "main@2025-08-01", "v0.2.0", "v0.2.1", "v0.2.2", "v0.2.2+pr2213"]);
    assert.equal(w3.cells.length, 12 * 6);
    assert.deepEqual(w3.cells.filter((c) => c.current).map((c) => [c.worldSize, c.version]), [[24, "main@2025-08-01"]]);
  });
  it("exists only for torchtitan configs", () => {
    const yaml = analyzeDocument("file:///ws/acc.yaml", "compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\n");
    assert.equal(yaml.framework, "accelerate");
    assert.equal(buildReportView(yaml).whatIf, undefined);
    assert.equal(buildReportView(SEED, { noWhatIf: true }).whatIf, undefined);
  });
  it("the grid constants are the issue's: powers of two to 1024, the TOML releases and PR #2213", () => {
    assert.deepEqual(WHAT_IF_WORLD_SIZES, Array.from({ length: 11 }, (_, i) => 2 ** i));
    assert.deepEqual(WHAT_IF_VERSIONS.map((v) => v.label), ["v0.1.0", "v0.2.0", "v0.2.1", "v0.2.2", "PR #2213"]);
  });
});

describe("what-if matrix", () => {
  const svg = whatIfMatrixHtml(SEED_VIEW.whatIf!);
  const spans = (cell: string): string[] => all(cell, /<span class="pl-l\d">(?:<b>)?([^<]*)/);
  it("has one cell element per (world size, version), exactly one highlighted", () => {
    assert.equal(count(svg, 'class="pl-cell '), 55);
    const current = all(svg, /<div (class="pl-cell [^"]*pl-current[^>]*)>/);
    assert.equal(current.length, 1);
    assert.match(current[0]!, /data-world-size="8" data-version="v0\.2\.2" aria-current="true"/);
    assert.match(current[0]!, /pl-mech-none/);
  });
  it("writes mechanism · compute, tokens/s and memory in each cell, and names its version (shown when the cells wrap)", () => {
    const cell = /<div class="pl-cell pl-mech-none pl-current"[^>]*>(.*?)<\/div>/.exec(svg)![1]!;
    const tps = SEED.simulation!.throughput!.tokensPerSecondPerGpu;
    assert.ok(tps > 0);
    assert.deepEqual(spans(cell), ["no MP · fp32", `${thousands(tps)} tok/s`, `${(SEED.simulation!.memory.perGpuBytes!.reserved / 2 ** 30).toFixed(1)} GiB peak`]);
    assert.match(cell, /^<span class="pl-cver">v0\.2\.2<\/span>/);
    const pr = /<div class="pl-cell pl-mech-autocast" data-world-size="8" data-version="v0.2.2\+pr2213"[^>]*>(.*?)<\/div>/.exec(svg)![1]!;
    assert.equal(spans(pr)[0], "autocast · bf16");
    assert.match(pr, /<span class="pl-cver">PR #2213<\/span>/);
    assert.equal(count(svg, "<b>launch fails</b>"), 15, "1, 2 and 4 GPUs cannot hold TP 8, in every version");
  });
  it("column headers and row labels", () => {
    for (const h of ["v0.1.0", "v0.2.0", "v0.2.1", "v0.2.2", "PR #2213"]) assert.ok(svg.includes(`<span class="pl-mver"><b>${h}</b></span>`), h);
    for (const h of ["1 GPU", "8 GPUs", "1024 GPUs"]) assert.match(svg, new RegExp(`<span class="pl-mws[^"]*">${h}</span>`), h);
  });
  it("no SVG text and no fixed width: every figure is HTML text that wraps (issue #34)", () => {
    assert.doesNotMatch(svg, /<svg|<text|\bwidth="/);
  });
  it("is deterministic", () => assert.equal(whatIfMatrixHtml(buildReportView(analyse("tp_only_8gpu.toml")).whatIf!), svg));
});

describe("memory chart", () => {
  // The bar alone, without the GPU's capacity line (tested below).
  const m: MemoryView = { ...SEED_VIEW.memory! };
  delete m.capacity;
  it("stacks the engine's terms; widths are proportional to bytes and add up to the peak", () => {
    // The engine's terms (they add up to the allocated peak), then the allocator's reserve up to the reserved peak.
    const bytes = SEED.simulation!.memory.perGpuBytes!;
    assert.deepEqual(m.segments.map((s) => s.name), [...SEED.simulation!.memory.terms.filter((t) => t.bytes > 0).map((t) => t.name), "allocator_reserve"]);
    assert.equal(m.segments.at(-1)!.bytes, bytes.reserved - bytes.peak);
    assert.equal(m.peakBytes, bytes.reserved);
    assert.equal(m.allocatedBytes, bytes.peak);
    const svg = memoryChartHtml(m);
    const rects = all(svg, /(<rect class="pl-seg pl-seg-(?:\d+|reserve) pl-kind-[^"]*"[^>]*data-term="[^"]*"[^>]*>)/);
    assert.equal(rects.length, m.segments.length);
    const widths = rects.map((r) => attr(r, "width"));
    // No capacity: the peak spans the whole plot.
    widths.forEach((wd, i) => assert.ok(Math.abs(wd - (m.segments[i]!.bytes / m.peakBytes) * MEMORY_PLOT_WIDTH) <= 0.05, `${m.segments[i]!.name}: ${wd}`));
    assert.ok(Math.abs(widths.reduce((a, b) => a + b, 0) - MEMORY_PLOT_WIDTH) < 0.3);
    // Each starts where the previous ended.
    const xs = rects.map((r) => attr(r, "x"));
    for (let i = 1; i < xs.length; i++) assert.ok(Math.abs(xs[i]! - (xs[i - 1]! + widths[i - 1]!)) <= 0.15, `x of ${i}`);
    assert.match(svg, /GPU memory not known \(no GPU type\)/);
    assert.doesNotMatch(svg, /pl-capacity/);
    // The bar stretches to its box; every word is HTML text outside the SVG.
    assert.match(svg, /<svg class="pl-memory" width="100%" height="30" viewBox="0 0 400 30" preserveAspectRatio="none"/);
    assert.doesNotMatch(svg, /<text/);
  });
  it("the peak is a line of its own under the bar, whole, even far over the GPU (issue #34: \"222.9 GiB peal\")", () => {
    const cap = m.peakBytes / 3;
    const over = memoryChartHtml({ ...m, capacity: { bytes: cap, label: "A100 80GB", source: "setting" } });
    const peak = /<p class="pl-peak pl-over">(.*?)<\/p>/.exec(over)![1]!;
    assert.equal(peak.replace(/<[^>]*>/g, ""), `${(m.peakBytes / 2 ** 30).toFixed(1)} GiB peak over the A100 80GB's ${(cap / 2 ** 30).toFixed(1)} GiB`);
    assert.match(peak, /^<span class="pl-num">[\d.]+ GiB peak<\/span>/, "the figure and its word never break apart");
    assert.ok(over.indexOf('class="pl-peak') > over.indexOf("</svg>"), "under the bar, not in it");
  });
  it("no two memory terms share a colour (issue #34: two pairs did), and each colour class has its own value", () => {
    const classes = Array.from({ length: MEMORY_COLOURS }, (_, i) => segClass({ kind: "activation" }, i));
    assert.equal(new Set(classes).size, MEMORY_COLOURS);
    const fills = classes.map((c) => new RegExp(`\\.${c} \\{ fill: (var\\(--pl-[a-z]+\\)); \\}`).exec(REPORT_CSS)?.[1]);
    assert.ok(fills.every(Boolean), `every class has a fill: ${fills}`);
    assert.equal(new Set(fills).size, MEMORY_COLOURS, `distinct fills: ${fills}`);
    const defs = fills.map((f) => new RegExp(`${f!.slice(4, -1)}: ([^;]+);`).exec(REPORT_CSS)![1]!.trim());
    assert.equal(new Set(defs).size, MEMORY_COLOURS, `distinct values: ${defs}`);
    // The seed's bar: every segment its own class, the reserve apart.
    const seg = all(memoryChartHtml(m), /<rect class="pl-seg (pl-seg-[^ ]+) /);
    assert.ok(seg.length >= 7, `${seg.length} terms`);
    assert.equal(new Set(seg).size, seg.length, `segment classes ${seg}`);
  });
  it("draws the GPU's capacity as a line, scales to it, and flags a peak above it", () => {
    const cap = 2 * m.peakBytes;
    const svg = memoryChartHtml({ ...m, capacity: { bytes: cap, label: "Test GPU", source: "setting" } });
    const line = /<line class="pl-capacity"[^>]*>/.exec(svg)![0];
    assert.equal(attr(line, "x1"), MEMORY_PLOT_WIDTH);
    const total = all(svg, /(<rect class="pl-seg pl-seg-(?:\d|reserve) pl-kind-[^>]*>)/).reduce((a, r) => a + attr(r, "width"), 0);
    assert.ok(Math.abs(total - MEMORY_PLOT_WIDTH / 2) < 0.3, `half the plot: ${total}`);
    assert.match(svg, />Test GPU: <span class="pl-num">[\d.]+ GiB<\/span></);
    assert.doesNotMatch(svg, /pl-over/);
    const over = memoryChartHtml({ ...m, capacity: { bytes: m.peakBytes / 2, label: "Small GPU", source: "setting" } });
    assert.match(over, /<p class="pl-peak pl-over"><span class="pl-num">[\d.]+ GiB peak</);
  });
  it("escapes term names and details", () => {
    const bad: MemoryView = { segments: [{ name: '<b>"x"</b>', kind: "persistent", bytes: 1, detail: "a & b" }], peakBytes: 1, allocatedBytes: 1, persistentBytes: 1 };
    const svg = memoryChartHtml(bad);
    assert.ok(!svg.includes("<b>"));
    assert.match(svg, /&lt;b&gt;&quot;x&quot;&lt;\/b&gt;/);
    assert.match(svg, /a &amp; b/);
  });
});

describe("dtype strip", () => {
  it("one forward and one gradient cell per op, classed by dtype", () => {
    const svg = dtypeStripHtml(SEED_VIEW.dtypeStrip!);
    const ops = SEED.simulation!.forward.length;
    assert.equal(count(svg, 'data-row="forward"'), ops);
    assert.equal(count(svg, 'data-row="grad"'), ops);
    assert.equal(count(svg, "pl-dt pl-dt-float32"), 2 * ops + 1, "every cell fp32 in the seed case (+1 legend swatch)");
    // Op names break after an underscore when a card is narrow, never inside a word.
    assert.match(svg, /<span class="pl-opname">attention_<wbr>residual<\/span>/);
    assert.doesNotMatch(svg, /pl-dt-bfloat16/);
  });
  it("FSDP bf16: matmuls bf16, the loss fp32, and the legend lists both", () => {
    const v = buildReportView(analyse("fsdp_8gpu.toml"), { noWhatIf: true });
    const svg = dtypeStripHtml(v.dtypeStrip!);
    assert.match(svg, /<span class="pl-dtcell pl-dt pl-dt-bfloat16" data-op="wq" data-row="forward" title="[^"]*">bf16</);
    assert.match(svg, /<span class="pl-dtcell pl-dt pl-dt-float32" data-op="loss" data-row="forward" title="[^"]*">fp32</);
    assert.match(svg, /<\/svg> bfloat16<\/li>/);
    assert.match(svg, /<\/svg> float32<\/li>/);
  });
});

describe("throughput bars and the throughput plug-in", () => {
  it("without a throughput model: the config as written, tokens/s as —, memory shown", () => {
    const noModel = { ...SEED, simulation: { ...SEED.simulation! } };
    delete noModel.simulation.throughput;
    assert.equal(throughputOf(noModel.simulation), undefined);
    const view = buildReportView(noModel, { noWhatIf: true });
    const svg = throughputChartHtml(view.throughput);
    assert.equal(view.throughput.bars.length, 1);
    assert.match(svg, /<li class="pl-bar pl-current" data-label="TP-only as written" /);
    assert.doesNotMatch(svg, /<rect class="pl-tput/);
    assert.match(svg, /No throughput estimate in this build/);
    assert.match(svg, /<span class="pl-num pl-tok pl-muted-p">—<\/span>/);
  });
  it("bar widths are proportional to tokens/s; a bar without a figure shows —", () => {
    const t: ThroughputView = {
      bars: [
        { label: "TP-only fp32 (as written)", tokensPerSecondPerGpu: 1000, peakBytes: 70 * 2 ** 30, current: true },
        { label: "TP 4 + FSDP 2, bf16", tokensPerSecondPerGpu: 4000, current: false },
        { label: "autocast (PR #2213)", tokensPerSecondPerGpu: 2500, current: false },
        { label: "unknown", current: false },
      ],
    };
    const svg = throughputChartHtml(t);
    const widths = all(svg, /(<rect class="pl-tput[^>]*>)/).map((r) => attr(r, "width"));
    assert.deepEqual(widths, [TPUT_PLOT_WIDTH / 4, TPUT_PLOT_WIDTH, (TPUT_PLOT_WIDTH * 2500) / 4000]);
    assert.match(svg, />1,000 tok\/s</);
    assert.match(svg, />4,000 tok\/s</);
    assert.match(svg, /<span class="pl-num pl-mem">70\.0 GiB peak<\/span>/);
    assert.doesNotMatch(svg, /<text/, "figures are HTML text, never SVG text cut at the chart's edge");
    assert.equal(count(svg, "pl-tput-current"), 1);
    assert.doesNotMatch(svg, /No throughput estimate/);
  });
  it("reads simulation.throughput (the issue's JSON shape) into the view, the matrix and the capacity line", () => {
    const r = analyse("tp_only_8gpu.toml");
    // The report Markdown is lazy (core/lazy.ts): build it from the real simulation before the fake replaces it.
    assert.match(r.reportMarkdown ?? "", /tokens\/s/);
    const throughput = {
      tokensPerSecondPerGpu: 1234.4,
      stepSeconds: 13.3,
      mfu: 0.21,
      gpu: { value: "h100-sxm", source: "default" },
      alternatives: [
        // The model lists the configured run first: it becomes the current bar.
        { label: "TP 8 as configured (float32)", mechanism: "none", compute: "float32", tokensPerSecondPerGpu: 1234.4, peakBytes: 7e10 },
        { label: "TP 4 + FSDP 2 in bf16", mechanism: "fully_shard", compute: "bfloat16", tokensPerSecondPerGpu: 3000, peakBytes: 3e10 },
        { label: "broken", tokensPerSecondPerGpu: Number.NaN, peakBytes: -1 },
        { nolabel: true },
      ],
    };
    (r.simulation as unknown as { throughput?: unknown }).throughput = throughput;
    const v = buildReportView(r, { noWhatIf: true, gpuMemory: (g) => (g === "h100-sxm" ? { bytes: 80e9, label: "H100 SXM 80 GB" } : undefined) });
    assert.deepEqual(v.throughput.gpu, { value: "h100-sxm", source: "default" });
    assert.equal(v.throughput.mfu, 0.21);
    assert.deepEqual(
      v.throughput.bars.map((b) => [b.label, b.tokensPerSecondPerGpu, b.current]),
      [["TP 8 as configured (float32)", 1234.4, true], ["TP 4 + FSDP 2 in bf16", 3000, false], ["broken", undefined, false]],
    );
    assert.equal(v.throughput.bars[2]!.peakBytes, undefined, "a negative size is dropped");
    assert.deepEqual(v.memory!.capacity, { bytes: 80e9, label: "H100 SXM 80 GB", source: "default" });
    const html = renderReportHtml(v, { nonce: "n0nce-for-tests" });
    assert.match(html, /GPU h100-sxm \(default\) · step ≈ 13\.30 s · MFU ≈ 21%/);
    assert.match(html, />1,234 tok\/s</);
  });
});

describe("HTML page", () => {
  const NONCE = "AbC123+/xyz=";
  const webview = renderReportHtml(SEED_VIEW, { nonce: NONCE, interactive: true });
  const file = renderReportHtml(SEED_VIEW, { nonce: NONCE });

  /** The declarations of one selector in the page's stylesheet (a selector list counts for each member). */
  const rule = (html: string, selector: string): Record<string, string> => {
    const css = /<style[^>]*>([\s\S]*?)<\/style>/.exec(html)![1]!.replace(/\/\*[\s\S]*?\*\//g, "");
    const out: Record<string, string> = {};
    for (const m of css.matchAll(/([^{}]+)\{([^}]*)\}/g)) {
      if (!m[1]!.split(",").map((x) => x.trim()).includes(selector)) continue;
      for (const d of m[2]!.split(";")) {
        const [k, ...v] = d.split(":");
        if (k?.trim() && v.length) out[k.trim()] = v.join(":").trim();
      }
    }
    return out;
  };

  it("no chart keeps a fixed width or a scroll box: the sections share a row or stack (issues #20, #34)", () => {
    assert.doesNotMatch(webview, /pl-scroll|overflow-x/);
    assert.equal(rule(webview, ".pl-grid > section").flex, "1 1 360px");
    const bars = all(webview, /(<svg class="pl-(?:memory|tputbar)"[^>]*>)/);
    assert.equal(bars.length, 4);
    for (const svg of bars) assert.match(svg, /width="100%"[^>]*preserveAspectRatio="none"/);
    // The full report's tables shrink and wrap instead of scrolling in their own box.
    assert.equal(rule(webview, ".pl-md table")["display"], undefined);
  });

  it("the what-if grid has one column per version at full width and wraps each world size's cells below 700 px", () => {
    assert.equal(rule(webview, ".pl-mrow")["grid-template-columns"], "5.5em repeat(5, minmax(0, 1fr))");
    const narrow = /@media \(max-width: 700px\) \{([\s\S]*?)\n\}/.exec(webview)![1]!;
    assert.match(narrow, /\.pl-mhead \{ display: none; \}/);
    assert.match(narrow, /\.pl-cver \{ display: block; \}/);
    assert.match(narrow, /grid-template-columns: repeat\(auto-fill, minmax\(6\.5em, 1fr\)\)/);
  });

  it("a hovered or focused what-if cell is outlined unlike the current cell (issue #20: both were the accent)", () => {
    const current = rule(webview, ".pl-cell.pl-current");
    const hover = rule(webview, ".pl-interactive .pl-cell:hover");
    const focus = rule(webview, ".pl-interactive .pl-cell:focus");
    assert.equal(current.outline, "3px solid var(--pl-accent)");
    assert.deepEqual(hover, focus);
    assert.match(hover.outline!, /dashed var\(--pl-fg\)/, "hover outline dashed in the text colour");
    // The current cell hovered keeps its accent and gets the dash: still told apart from a plain hover.
    assert.equal(rule(webview, ".pl-interactive .pl-cell.pl-current:hover").outline, "3px dashed var(--pl-accent)");
  });

  it("a what-if cell over the GPU's memory is red and dashed, never a mechanism's green (issue #34)", () => {
    const over = rule(webview, ".pl-cell.pl-over");
    assert.equal(over.border, "2px dashed var(--pl-red)");
    assert.match(over.background!, /var\(--pl-red\)/);
    // Later than the mechanism colours in the sheet, so it wins over .pl-mech-fully_shard's green.
    const css = /<style[^>]*>([\s\S]*?)<\/style>/.exec(webview)![1]!;
    assert.ok(css.indexOf(".pl-cell.pl-over {") > css.indexOf(".pl-mech-fully_shard {"));
  });

  it("the page's prose has no raw backticks or § references, and every PR number is a link (issue #20)", () => {
    for (const [name, r] of [["seed", SEED], ["fsdp", analyse("fsdp_8gpu.toml")], ["torchtune", analyzeDocument("file:///ws/x.yaml", readFileSync(resolve(ROOT, "examples/yaml/torchtune/llama3_8b_full_bf16.yaml"), "utf8"))]] as const) {
      const html = renderReportHtml(buildReportView(r), { nonce: NONCE, interactive: true });
      const prose = html.replace(/<style[\s\S]*?<\/style>|<script[\s\S]*?<\/script>|<svg[\s\S]*?<\/svg>|(?:title|data-label)="[^"]*"|<div class="pl-chart pl-matrix"[\s\S]*?<\/section>/g, "");
      const text = prose.replace(/<[^>]*>/g, "");
      assert.equal(text.includes("`"), false, `${name}: a raw backtick`);
      assert.deepEqual(text.match(/§\s?\d/g), null, `${name}: a § reference`);
      // "PR #2213" in prose: the number is the text of a link to that pull request.
      const bare = [...prose.matchAll(/PR (<a [^>]*>)?#(\d+)/g)].filter((m) => !m[1] || !m[1].includes(`/pull/${m[2]}"`)).map((m) => m[0]);
      assert.deepEqual(bare, [], `${name}: PR numbers without a link`);
    }
    assert.ok(/PR <a href="https:\/\/github\.com\/pytorch\/torchtitan\/pull\/2213">#2213<\/a>/.test(webview), "the seed report names PR #2213 with its link");
  });

  it("webview: a strict CSP, only the nonce's style and script", () => {
    const csp = all(webview, /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/);
    assert.deepEqual(csp, [`default-src 'none'; style-src 'nonce-${NONCE}'; script-src 'nonce-${NONCE}'; base-uri 'none'; form-action 'none'`]);
    assert.equal(contentSecurityPolicy({ nonce: NONCE, interactive: true }), csp[0]);
    assert.deepEqual(all(webview, /<(style|script)\b/), ["style", "script"]);
    assert.deepEqual(all(webview, /<(?:style|script) nonce="([^"]*)">/), [NONCE, NONCE]);
    assert.doesNotMatch(webview, /unsafe-inline|unsafe-eval/);
    assert.doesNotMatch(webview, /\sstyle="/, "no inline style attributes (blocked by the CSP)");
    assert.doesNotMatch(webview, /\son[a-z]+="/i, "no inline event handlers");
    assert.doesNotMatch(webview, /\bsrc=/, "no resource is loaded by URL");
    // Links are only anchors to upstream pages (a pull request a figure cites), never a stylesheet or an image.
    for (const m of webview.matchAll(/<(\w+)[^>]*\bhref="([^"]*)"/g)) {
      assert.equal(m[1], "a", m[0]);
      assert.match(m[2]!, /^https:\/\/github\.com\/pytorch\/(pytorch|torchtitan)\/(pull|issues)\/\d+$/);
    }
    assert.deepEqual([...new Set(all(webview, /(https?:\/\/[^"'\s)]+)/))].filter((u) => !/^https:\/\/github\.com\/pytorch\//.test(u)), [], "the only URLs are upstream links");
    assert.match(webview, /acquireVsCodeApi\(\)/);
    assert.match(webview, /postMessage\(\{ type: "whatIf", worldSize: Number\(el\.dataset\.worldSize\), version: el\.dataset\.version \}\)/);
  });
  it("file: no script at all", () => {
    assert.deepEqual(all(file, /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/), [`default-src 'none'; style-src 'nonce-${NONCE}'; base-uri 'none'; form-action 'none'`]);
    assert.doesNotMatch(file, /<script/);
    assert.doesNotMatch(file, /click a cell/);
  });
  it("holds the four charts and the reviewer's two answers: dtypes and the throughput comparison", () => {
    for (const cls of ["pl-memory-chart", "pl-throughput", "pl-strip", "pl-matrix"]) assert.equal(count(file, `class="pl-chart ${cls}"`), 1, cls);
    // The precision table comes first, before the charts.
    assert.ok(file.indexOf('<section id="pl-precision">') < file.indexOf('<section id="pl-memory">'));
    assert.match(file, /<tr><th scope="row">parameter storage<\/th><td><code>float32<\/code><\/td><td>training\.dtype \(default float32\)<\/td><\/tr>/);
    assert.match(file, /<h1>Precision report: tp_only_8gpu\.toml<\/h1>/);
    assert.match(file, /TP-only on 8 GPUs: no mixed precision/);
    assert.match(file, /\[no-mixed-precision\] line 26/);
  });
  it("colours are theme variables with fallbacks", () => {
    assert.match(file, /--pl-fg: var\(--vscode-editor-foreground, #[0-9a-f]{6}\)/);
    assert.match(file, /\.pl-dt-bfloat16 \{ fill: var\(--pl-blue\); \}/);
    assert.doesNotMatch(file.replace(/<style[\s\S]*<\/style>/, ""), /#[0-9a-f]{6}\b/i, "no colour value outside the stylesheet");
  });
  it("rejects a nonce that could break out of the policy", () => {
    assert.throws(() => renderReportHtml(SEED_VIEW, { nonce: "x'; script-src *" }), /nonce/);
    assert.throws(() => renderReportHtml(SEED_VIEW, { nonce: "" }), /nonce/);
  });
  it("escapes what comes from the file", () => {
    const r = analyzeDocument("file:///ws/%3Cscript%3Ealert(1)%3C%2Fscript%3E.toml", example("tp_only_8gpu.toml"));
    const html = renderReportHtml(buildReportView(r, { noWhatIf: true }), { nonce: NONCE });
    assert.ok(!html.includes("<script>alert(1)"));
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;\.toml/);
  });
  it("a YAML config without model sizes: the precision table first, no empty chart section (issue #34)", () => {
    const f = resolve(ROOT, "examples/yaml/accelerate/fsdp2_bf16.yaml");
    const html = renderReportHtml(buildReportView(analyzeDocument(pathToFileURL(f).href, readFileSync(f, "utf8"))), { nonce: NONCE, interactive: true });
    assert.doesNotMatch(html, /id="pl-memory"|id="pl-throughput"|class="pl-grid"/);
    assert.match(html, /<p class="pl-note" id="pl-nocharts">No memory or throughput estimate: the model's sizes are not known here\.<\/p>/);
    const first = html.indexOf("<section");
    assert.equal(html.slice(first, first + 26), '<section id="pl-precision"');
    assert.deepEqual(all(html, /<th scope="row">([^<]*)<\/th>/), ["parameter storage", "compute (matmuls)", "gradients", "gradient reduction", "optimizer state"]);
    assert.match(html, /<th scope="row">compute \(matmuls\)<\/th><td><code>bfloat16<\/code><\/td><td>FSDP policy param_dtype = <code>mixed_precision: bf16<\/code><\/td>/);
  });
  it("a file that is not a training config gets a page that says so, without charts", () => {
    const r = analyzeDocument("file:///ws/pyproject.toml", '[project]\nname = "x"\n');
    const html = renderReportHtml(buildReportView(r), { nonce: NONCE });
    assert.match(html, /Not a training config Precision Lens analyses/);
    assert.doesNotMatch(html, /<svg/);
  });
});

describe("every example", () => {
  it("gets a view and a page without throwing, each with one CSP and only escaped content", () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (/\.(toml|ya?ml|json)$/.test(e.name)) files.push(join(dir, e.name));
      }
    };
    walk(resolve(ROOT, "examples"));
    assert.ok(files.length >= 11);
    for (const f of files) {
      const r = analyzeDocument(pathToFileURL(f).href, readFileSync(f, "utf8"));
      const html = renderReportHtml(buildReportView(r), { nonce: "exampleNonce", interactive: true });
      assert.equal(count(html, 'http-equiv="Content-Security-Policy"'), 1, f);
      assert.deepEqual(all(html, /<(script|style)\b/), ["style", "script"], f);
      if (r.framework === "torchtitan") assert.equal(count(html, 'aria-current="true"'), 1, `${f}: one current what-if cell`);
    }
  });
});

describe("precision-lens explain --format html", () => {
  it("writes the page with the four charts to stdout; exit code as for text", () => {
    const r = runCliCaptured(["explain", "--format", "html", "examples/tp_only_8gpu.toml"], ROOT);
    assert.equal(r.code, 0);
    assert.equal(r.err, "");
    assert.match(r.out, /^<!DOCTYPE html>\n<html lang="en">/);
    assert.equal(count(r.out, '<svg class="pl-memory"'), 1);
    assert.equal(count(r.out, '<svg class="pl-tputbar"'), 3);
    assert.equal(count(r.out, 'class="pl-cell '), 55);
    const nonce = /style-src 'nonce-([^']+)'/.exec(r.out)![1]!;
    assert.match(r.out, new RegExp(`<style nonce="${nonce.replace(/[+/=]/g, "\\$&")}">`));
    assert.doesNotMatch(r.out, /<script/);
    const eq = runCliCaptured(["explain", "--format=html", "--world-size", "16", "examples/tp_only_8gpu.toml"], ROOT);
    assert.match(eq.out, /data-world-size="16" data-version="v0\.2\.2" aria-current="true"/);
    assert.equal(runCliCaptured(["explain", "--format", "html", "examples/ddp_tp_error.toml"], ROOT).code, 1);
  });
  it("still refuses other formats", () => {
    const r = runCliCaptured(["explain", "--format", "json", "examples/tp_only_8gpu.toml"], ROOT);
    assert.equal(r.code, 2);
    assert.match(r.err, /explain takes only/);
  });
});
