/**
 * The visual precision report as one self-contained HTML page: the SVG charts of svg.ts, the facts, the
 * diagnostics, the assumptions and the full text report. No external resource of any kind (no fonts,
 * images, scripts or stylesheets by URL); a content security policy that allows only the page's own
 * nonce-carrying <style> (and, in VS Code's webview, its one nonce-carrying <script>).
 *
 * Colours are CSS variables that take VS Code's theme colours when the page runs in a webview
 * (`--vscode-*`), with light/dark fallbacks for a browser.
 */
import { dtypeStripHtml, esc, gib, memoryChartHtml, throughputChartHtml, whatIfGridRule, whatIfMatrixHtml } from "./svg";
import type { ReportView } from "./view";

export interface HtmlOptions {
  /** A fresh random value per page (base64); it authorises the page's <style> and <script>. */
  nonce: string;
  /**
   * VS Code webview: what-if cells become buttons that post `{type: "whatIf", worldSize, version}`, and a
   * link posts `{type: "openMarkdown"}` (through `acquireVsCodeApi`). Without it the page has no script.
   */
  interactive?: boolean;
}

/** The policy of the page: nothing but the nonce-carrying style and script. */
export function contentSecurityPolicy(opts: HtmlOptions): string {
  const parts = ["default-src 'none'", `style-src 'nonce-${opts.nonce}'`];
  if (opts.interactive) parts.push(`script-src 'nonce-${opts.nonce}'`);
  parts.push("base-uri 'none'", "form-action 'none'");
  return parts.join("; ");
}

const NONCE = /^[A-Za-z0-9+/=_-]{8,128}$/;

export const REPORT_CSS = `
:root {
  --pl-fg: var(--vscode-editor-foreground, #1f2328);
  --pl-bg: var(--vscode-editor-background, #ffffff);
  --pl-muted: var(--vscode-descriptionForeground, #656d76);
  --pl-border: var(--vscode-panel-border, #d0d7de);
  --pl-track: var(--vscode-editorWidget-background, #eef1f4);
  --pl-accent: var(--vscode-focusBorder, #0969da);
  --pl-link: var(--vscode-textLink-foreground, #0969da);
  --pl-blue: var(--vscode-charts-blue, #3b82f6);
  --pl-orange: var(--vscode-charts-orange, #e8912d);
  --pl-green: var(--vscode-charts-green, #2da44e);
  --pl-red: var(--vscode-charts-red, #cf222e);
  --pl-purple: var(--vscode-charts-purple, #8250df);
  --pl-yellow: var(--vscode-charts-yellow, #bf8700);
  /* Six more for the memory terms (VS Code's themes name six chart colours; these read in both). */
  --pl-teal: #1b9e9e;
  --pl-pink: #d6409f;
  --pl-brown: #8c5a2b;
  --pl-navy: #3949ab;
  --pl-lime: #7cb342;
  --pl-slate: #78909c;
  --pl-font: var(--vscode-font-family, system-ui, -apple-system, "Segoe UI", sans-serif);
  --pl-mono: var(--vscode-editor-font-family, ui-monospace, monospace);
}
@media (prefers-color-scheme: dark) {
  :root {
    --pl-fg: var(--vscode-editor-foreground, #e6edf3);
    --pl-bg: var(--vscode-editor-background, #0d1117);
    --pl-muted: var(--vscode-descriptionForeground, #8d96a0);
    --pl-border: var(--vscode-panel-border, #30363d);
    --pl-track: var(--vscode-editorWidget-background, #161b22);
    --pl-accent: var(--vscode-focusBorder, #4493f8);
    --pl-link: var(--vscode-textLink-foreground, #4493f8);
  }
}
body { color: var(--pl-fg); background: var(--pl-bg); font-family: var(--pl-font); font-size: max(13px, var(--vscode-editor-font-size, 13px)); line-height: 1.45; margin: 0; padding: 16px clamp(10px, 3vw, 24px) 32px; overflow-wrap: anywhere; }
h1 { font-size: 18px; margin: 0 0 4px; font-weight: 600; }
h2 { font-size: 14px; margin: 22px 0 6px; font-weight: 600; border-bottom: 1px solid var(--pl-border); padding-bottom: 3px; }
p { margin: 4px 0; }
.pl-headline { font-size: 14px; }
.pl-facts { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 8px 0 0; padding: 0; list-style: none; }
.pl-facts b { font-weight: 600; }
.pl-note, .pl-muted-p { color: var(--pl-muted); }
.pl-warn { color: var(--pl-red); font-weight: 600; }
.pl-grid { display: flex; flex-wrap: wrap; gap: 0 32px; align-items: flex-start; }
/* Every section fits the pane: no chart keeps a fixed width, every figure is text that wraps (issue #34). */
.pl-grid > section { flex: 1 1 360px; min-width: 0; }
section, .pl-chart { min-width: 0; max-width: 100%; }
.pl-num { white-space: nowrap; }
.pl-strong { font-weight: 600; }
.pl-note .pl-num, .pl-legend .pl-num { font-variant-numeric: tabular-nums; }
.pl-swatch { display: inline-block; vertical-align: -1px; flex: none; }
ul.pl-legend { list-style: none; margin: 4px 0; padding: 0; }
ul.pl-legend li { margin: 2px 0; }
ul.pl-legend-inline { display: flex; flex-wrap: wrap; gap: 2px 16px; }
/* Memory: the bar stretches to the box (its strokes do not), the labels are text around it. */
svg.pl-memory { display: block; width: 100%; height: 30px; overflow: visible; }
.pl-cap { margin: 0 0 4px; color: var(--pl-muted); }
.pl-capkey { display: inline-block; width: 0; height: 1em; border-left: 2px dashed var(--pl-red); margin-right: 6px; vertical-align: -2px; }
.pl-peak { font-weight: 600; margin: 4px 0 0; }
.pl-peak.pl-over { color: var(--pl-red); }
.pl-overnote { font-weight: 400; }
.pl-track { fill: var(--pl-track); stroke: var(--pl-border); }
.pl-capacity { stroke: var(--pl-red); stroke-width: 2; stroke-dasharray: 4 3; }
.pl-seg { stroke: var(--pl-bg); stroke-width: 1; }
.pl-seg-0 { fill: var(--pl-blue); }
.pl-seg-1 { fill: var(--pl-purple); }
.pl-seg-2 { fill: var(--pl-yellow); }
.pl-seg-3 { fill: var(--pl-orange); }
.pl-seg-4 { fill: var(--pl-red); }
.pl-seg-5 { fill: var(--pl-green); }
.pl-seg-6 { fill: var(--pl-teal); }
.pl-seg-7 { fill: var(--pl-pink); }
.pl-seg-8 { fill: var(--pl-brown); }
.pl-seg-9 { fill: var(--pl-navy); }
.pl-seg-10 { fill: var(--pl-lime); }
.pl-seg-11 { fill: var(--pl-slate); }
.pl-seg-reserve { fill: var(--pl-muted); fill-opacity: 0.45; stroke-dasharray: 3 2; }
/* dtype strip: one small card per op (name, forward, grad); the cards wrap. */
.pl-ops { display: grid; grid-template-columns: repeat(auto-fill, minmax(6.5em, 1fr)); gap: 4px; margin: 6px 0; }
.pl-op { display: flex; flex-direction: column; gap: 2px; min-width: 0; font-size: 12px; }
.pl-opname { font-family: var(--pl-mono); overflow-wrap: break-word; }
.pl-dtcell { display: block; text-align: center; padding: 2px 0; border: 1px solid var(--pl-border); border-radius: 2px; background: color-mix(in srgb, var(--pl-muted) 35%, transparent); }
.pl-dt { fill: var(--pl-muted); fill-opacity: 0.35; stroke: var(--pl-border); }
.pl-dt-float32 { fill: var(--pl-orange); }
.pl-dt-bfloat16 { fill: var(--pl-blue); }
.pl-dt-float16 { fill: var(--pl-purple); }
.pl-dt-float8 { fill: var(--pl-green); }
.pl-dt-float64 { fill: var(--pl-red); }
.pl-dt-none { fill: none; }
.pl-dtcell.pl-dt-float32 { background: color-mix(in srgb, var(--pl-orange) 35%, transparent); }
.pl-dtcell.pl-dt-bfloat16 { background: color-mix(in srgb, var(--pl-blue) 35%, transparent); }
.pl-dtcell.pl-dt-float16 { background: color-mix(in srgb, var(--pl-purple) 35%, transparent); }
.pl-dtcell.pl-dt-float8 { background: color-mix(in srgb, var(--pl-green) 35%, transparent); }
.pl-dtcell.pl-dt-float64 { background: color-mix(in srgb, var(--pl-red) 35%, transparent); }
.pl-dtcell.pl-dt-none { background: none; }
/* Throughput: one row per configuration, its label whole, the bar stretching, the figures after it. */
ul.pl-bars { list-style: none; margin: 4px 0; padding: 0; }
.pl-bar { margin: 0 0 8px; }
.pl-barlabel { display: block; }
.pl-barrow { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 10px; }
svg.pl-tputbar { flex: 1 1 120px; min-width: 60px; height: 18px; }
.pl-barrow .pl-mem { margin-left: auto; }
.pl-tput { fill: var(--pl-blue); fill-opacity: 0.6; }
.pl-tput-current { fill-opacity: 1; }
/* What-if: a grid of world sizes × versions; each cell's text wraps between words. */
.pl-matrix { margin: 6px 0; }
.pl-mrow { display: grid; gap: 4px; margin: 0 0 4px; align-items: stretch; }
.pl-mhead { text-align: left; }
.pl-mws { align-self: center; }
.pl-cell { display: flex; flex-direction: column; min-width: 0; padding: 4px 6px; font-size: 12px; border: 1px solid var(--pl-border); border-radius: 3px; overflow-wrap: normal; word-break: normal; background: color-mix(in srgb, var(--pl-muted) 12%, transparent); }
.pl-cell .pl-l1 { font-size: 13px; }
.pl-cver { display: none; color: var(--pl-muted); }
.pl-mech-fully_shard { background: color-mix(in srgb, var(--pl-green) 22%, transparent); }
.pl-mech-autocast { background: color-mix(in srgb, var(--pl-blue) 22%, transparent); }
.pl-mech-none { background: color-mix(in srgb, var(--pl-orange) 25%, transparent); }
.pl-mech-error { background: color-mix(in srgb, var(--pl-red) 12%, transparent); }
/* Over the GPU's memory: red, dashed, and never the "fits" green (issue #34). */
.pl-cell.pl-over { border: 2px dashed var(--pl-red); background: color-mix(in srgb, var(--pl-red) 14%, transparent); }
.pl-cell.pl-over .pl-l3 { color: var(--pl-red); font-weight: 600; }
.pl-cell.pl-current { outline: 3px solid var(--pl-accent); outline-offset: -1px; }
.pl-interactive .pl-cell { cursor: pointer; }
/* Hover and keyboard focus: a thin dashed outline in the text colour, unlike the current cell's solid accent. */
.pl-interactive .pl-cell:hover, .pl-interactive .pl-cell:focus { outline: 1.5px dashed var(--pl-fg); outline-offset: -1px; }
.pl-interactive .pl-cell.pl-current:hover, .pl-interactive .pl-cell.pl-current:focus { outline: 3px dashed var(--pl-accent); outline-offset: -1px; }
/* Narrower than a row of every version: each world size heads its own line and its cells wrap, each naming its version. */
@media (max-width: 700px) {
  .pl-mhead { display: none; }
  .pl-mrow { grid-template-columns: repeat(auto-fill, minmax(6.5em, 1fr)) !important; margin-bottom: 10px; }
  .pl-mws { grid-column: 1 / -1; font-weight: 600; }
  .pl-cver { display: block; }
}
/* The precision table (every framework) first. */
table.pl-dtypes { border-collapse: collapse; margin: 6px 0; overflow-wrap: break-word; }
table.pl-dtypes td:nth-child(2) code { white-space: nowrap; }
table.pl-dtypes td:last-child { overflow-wrap: anywhere; }
table.pl-dtypes th, table.pl-dtypes td { border: 1px solid var(--pl-border); padding: 2px 6px; text-align: left; vertical-align: top; }
ul.pl-list { margin: 4px 0; padding-left: 18px; }
.pl-sev-error { color: var(--pl-red); }
.pl-sev-warning { color: var(--pl-orange); }
code, pre { font-family: var(--pl-mono); }
pre { white-space: pre-wrap; font-size: 12px; background: var(--pl-track); padding: 8px; border-radius: 3px; }
code { font-size: 0.95em; background: var(--pl-track); padding: 0 3px; border-radius: 3px; }
.pl-md table { border-collapse: collapse; margin: 6px 0; max-width: 100%; }
.pl-md th, .pl-md td { border: 1px solid var(--pl-border); padding: 2px 6px; text-align: left; vertical-align: top; }
.pl-md h3, .pl-md h4, .pl-md h5, .pl-md h6 { font-size: 1em; margin: 14px 0 4px; }
a, button.pl-link { color: var(--pl-link); }
button.pl-link { background: none; border: none; padding: 0; font: inherit; cursor: pointer; text-decoration: underline; }
`;

const SCRIPT = `
(function () {
  const vscode = acquireVsCodeApi();
  // The page is re-rendered after every analysis of the config: keep the reader's scroll position.
  const state = vscode.getState();
  if (state && typeof state.scrollY === "number") window.scrollTo(0, state.scrollY);
  let pending = false;
  window.addEventListener("scroll", () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; vscode.setState({ scrollY: window.scrollY }); });
  });
  for (const el of document.querySelectorAll(".pl-cell")) {
    el.setAttribute("tabindex", "0");
    el.setAttribute("role", "button");
    const send = () => vscode.postMessage({ type: "whatIf", worldSize: Number(el.dataset.worldSize), version: el.dataset.version });
    el.addEventListener("click", send);
    el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); send(); } });
  }
  const md = document.getElementById("pl-open-markdown");
  if (md) md.addEventListener("click", () => vscode.postMessage({ type: "openMarkdown" }));
})();
`;

/**
 * Inline Markdown of the analysis's own texts as HTML: `code`, **bold**, _italic_, [text](https://…), and
 * PyTorch / torchtitan pull-request numbers as links (five digits and more are PyTorch's; torchtitan's
 * are fewer). Everything is escaped first; only https links are made.
 */
export function inline(s: string): string {
  const parts = s.split(/(`[^`\n]+`)/);
  return parts
    .map((p, i) => {
      if (i % 2 === 1) return `<code>${esc(p.slice(1, -1))}</code>`;
      let t = esc(p);
      t = t.replace(/\[([^\]]+)\]\((https:\/\/[^)\s]+)\)/g, (_m, text: string, url: string) => `<a href="${url}">${text}</a>`);
      t = t.replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>").replace(/(^|[\s(])_([^_]+)_(?=$|[\s).,;:])/g, "$1<i>$2</i>");
      t = t.replace(/(PRs? |issue |#)#?(\d{3,6})\b/g, (_m: string, lead: string, n: string) => {
        const repo = n.length >= 5 ? "pytorch/pytorch" : "pytorch/torchtitan";
        const kind = /issue/.test(lead) ? "issues" : "pull";
        return `${lead === "#" ? "" : lead}<a href="https://github.com/${repo}/${kind}/${n}">#${n}</a>`;
      });
      return t;
    })
    .join("");
}

/** The text report's Markdown (headings, tables, lists, paragraphs, rules) as plain HTML, no raw markup. */
export function markdownHtml(md: string): string {
  const out: string[] = [];
  const lines = md.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === "") continue;
    if (/^\|.*\|$/.test(l)) {
      const rows: string[][] = [];
      while (i < lines.length && /^\|.*\|$/.test(lines[i]!)) rows.push(lines[i++]!.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|")));
      i--;
      const body = rows.filter((r) => !r.every((c) => /^:?-+:?$/.test(c)));
      const [head, ...rest] = body;
      out.push(`<table><thead><tr>${(head ?? []).map((c) => `<th>${inline(c)}</th>`).join("")}</tr></thead><tbody>${rest.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join("")}</tr>`).join("")}</tbody></table>`);
      continue;
    }
    const hm = /^(#{1,6}) (.*)$/.exec(l);
    if (hm) {
      const n = Math.min(6, hm[1]!.length + 2);
      out.push(`<h${n}>${inline(hm[2]!)}</h${n}>`);
      continue;
    }
    if (l === "---") {
      out.push("<hr>");
      continue;
    }
    if (/^- /.test(l)) {
      const items: string[] = [];
      while (i < lines.length && /^- /.test(lines[i]!)) items.push(lines[i++]!.slice(2));
      i--;
      out.push(`<ul class="pl-list">${items.map((t) => `<li>${inline(t)}</li>`).join("")}</ul>`);
      continue;
    }
    out.push(`<p>${inline(l.replace(/^> /, ""))}</p>`);
  }
  return out.join("\n");
}

function facts(view: ReportView): string {
  const items: string[] = [];
  if (view.version) items.push(`<li><b>torchtitan</b> ${esc(view.version.value)} <span class="pl-note">(${esc(view.version.source)})</span></li>`);
  if (view.worldSize) items.push(`<li><b>world size</b> ${view.worldSize.value} <span class="pl-note">(${esc(view.worldSize.source)})</span></li>`);
  if (view.layoutName) items.push(`<li><b>layout</b> ${esc(view.layoutName)}</li>`);
  if (view.mechanism) items.push(`<li><b>mechanism</b> ${esc(view.mechanism)}</li>`);
  if (view.precision) {
    items.push(`<li><b>params</b> ${esc(view.precision.paramStorage)}</li>`, `<li><b>compute</b> ${esc(view.precision.compute)}</li>`, `<li><b>grad reduce</b> ${esc(view.precision.gradReduce)}</li>`);
  }
  if (view.model) items.push(`<li><b>model</b> ${esc(view.model)}</li>`);
  return items.length ? `<ul class="pl-facts">${items.join("")}</ul>` : "";
}

function throughputCaption(view: ReportView): string {
  const t = view.throughput;
  const parts: string[] = [];
  parts.push(t.gpu ? `GPU ${esc(t.gpu.value)} (${esc(t.gpu.source)})` : "GPU type: not set");
  if (t.stepSeconds !== undefined) parts.push(`step ≈ ${t.stepSeconds.toFixed(2)} s`);
  if (t.mfu !== undefined) parts.push(`MFU ≈ ${(t.mfu * 100).toFixed(0)}%`);
  return `<p class="pl-note">${parts.join(" · ")}. Estimates, not measurements.</p>`;
}

/** The whole page. `opts.nonce` must be fresh per page and is validated (no quotes can reach the CSP). */
export function renderReportHtml(view: ReportView, opts: HtmlOptions): string {
  if (!NONCE.test(opts.nonce)) throw new Error("renderReportHtml: the nonce must be 8–128 base64 characters");
  const n = esc(opts.nonce);
  const body: string[] = [];
  body.push(`<header><h1>Precision report: ${esc(view.title)}</h1>`);
  if (view.headline) body.push(`<p class="pl-headline">${esc(view.headline)}</p>`);
  else body.push(`<p class="pl-headline">${esc(view.framework ? view.framework : `Not a training config Precision Lens analyses: ${view.frameworkReason}`)}</p>`);
  body.push(facts(view), "</header>");

  let gridRule = "";
  // The precision table first, for every framework (issue #34: a YAML config's report opened on empty charts).
  if (view.dtypeTable?.length) {
    body.push('<section id="pl-precision"><h2>Precision of each part of training</h2><table class="pl-dtypes"><thead><tr><th></th><th>dtype</th><th>from</th></tr></thead><tbody>');
    for (const r of view.dtypeTable) body.push(`<tr><th scope="row">${inline(r.part)}</th><td>${inline(r.dtype)}</td><td>${inline(r.from)}</td></tr>`);
    body.push("</tbody></table></section>");
  }
  if (view.framework) {
    // A chart section only when it has something to show: no memory estimate and no figure at all (a YAML
    // config of a model whose sizes are not known) is said once in a note, not as two empty charts.
    const throughputShown = !!view.throughput.withheld || view.throughput.bars.some((b) => b.tokensPerSecondPerGpu !== undefined || b.peakBytes !== undefined);
    if (view.memory || throughputShown) {
      body.push('<div class="pl-grid">');
      body.push('<section id="pl-memory"><h2>Memory per GPU</h2>');
      body.push(view.memory ? memoryChartHtml(view.memory) : `<p class="pl-note">No memory estimate: the model's sizes are not known${view.mechanism === "error" ? " or the launch fails" : ""}.</p>`);
      const cap = view.memory?.capacity;
      if (view.memory && cap && view.memory.peakBytes > cap.bytes) body.push(`<p class="pl-warn" role="note">⚠ Does not fit: the estimated peak ${gib(view.memory.peakBytes)} per GPU is over the ${gib(cap.bytes)} of an ${esc(cap.label)} (an estimate).</p>`);
      body.push("</section>");
      if (view.throughput.withheld) body.push('<section id="pl-throughput"><h2>Throughput</h2>', `<p class="pl-note">Throughput ${esc(view.throughput.withheld)}.</p>`, "</section>");
      else if (throughputShown) body.push('<section id="pl-throughput"><h2>Throughput: as written and the alternatives</h2>', throughputChartHtml(view.throughput, inline), throughputCaption(view), "</section>");
      body.push("</div>");
    } else body.push(`<p class="pl-note" id="pl-nocharts">No memory or throughput estimate: the model's sizes are not known here${view.mechanism === "error" ? " or the launch fails" : ""}.</p>`);
    if (view.dtypeStrip?.length) body.push('<section id="pl-dtypes"><h2>dtype of each op (forward output and its gradient)</h2>', dtypeStripHtml(view.dtypeStrip), "</section>");
    if (view.whatIf) {
      gridRule = whatIfGridRule(view.whatIf);
      body.push('<section id="pl-whatif"><h2>What if: world size × torchtitan version</h2>');
      body.push(
        `<p class="pl-note">Each cell is this file analysed at that world size and version: mechanism · compute dtype, tokens/s per GPU, estimated peak memory per GPU${view.memory?.capacity ? ` (⚠ and a dashed red border: over the ${esc(view.memory.capacity.label)}'s ${gib(view.memory.capacity.bytes)})` : ""}. FSDP MP = FSDP's MixedPrecisionPolicy; no MP = no mixed precision. The outlined cell is the current one${opts.interactive ? "; click a cell to write its world size or version into the file" : ""}.</p>`,
      );
      body.push(whatIfMatrixHtml(view.whatIf, view.memory?.capacity?.bytes), "</section>");
    }
  }
  if (view.diagnostics.length) {
    body.push('<section id="pl-diagnostics"><h2>Diagnostics</h2><ul class="pl-list">');
    for (const d of view.diagnostics) body.push(`<li><span class="pl-sev-${esc(d.severity)}">${esc(d.severity)}</span> [${esc(d.code)}] line ${d.line + 1}: ${inline(d.message)}</li>`);
    body.push("</ul></section>");
  }
  if (view.assumptions.length) {
    body.push('<section id="pl-assumptions"><h2>Assumptions</h2><ul class="pl-list">');
    for (const a of view.assumptions) body.push(`<li><code>${esc(a.name)}</code> = <code>${esc(a.value)}</code>: ${inline(a.doc)}</li>`);
    body.push("</ul></section>");
  }
  if (view.memory) body.push(`<p class="pl-note">Memory figures are estimates: the reserved peak ${gib(view.memory.peakBytes)} is what nvidia-smi and torchtitan's max_reserved show (the allocated peak ${gib(view.memory.allocatedBytes)} times the allocator's overhead).</p>`);
  if (view.reportMarkdown) {
    body.push('<section id="pl-text"><h2>Full report</h2>');
    if (opts.interactive) body.push('<p><button type="button" class="pl-link" id="pl-open-markdown">Open as Markdown</button></p>');
    body.push(`<details><summary>Per-op rules, collectives, memory terms</summary><div class="pl-md">${markdownHtml(view.reportMarkdown)}</div></details></section>`);
  }
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(opts)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Precision report: ${esc(view.title)}</title>`,
    `<style nonce="${n}">${REPORT_CSS}${gridRule}</style>`,
    "</head>",
    `<body class="${opts.interactive ? "pl-interactive" : "pl-static"}">`,
    ...body,
    opts.interactive ? `<script nonce="${n}">${SCRIPT}</script>` : "",
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
