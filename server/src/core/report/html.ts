/**
 * The visual precision report as one self-contained HTML page: the SVG charts of svg.ts, the facts, the
 * diagnostics, the assumptions and the full text report. No external resource of any kind (no fonts,
 * images, scripts or stylesheets by URL); a content security policy that allows only the page's own
 * nonce-carrying <style> (and, in VS Code's webview, its one nonce-carrying <script>).
 *
 * Colours are CSS variables that take VS Code's theme colours when the page runs in a webview
 * (`--vscode-*`), with light/dark fallbacks for a browser.
 */
import { dtypeStripSvg, esc, gib, memoryBarSvg, throughputBarsSvg, whatIfMatrixSvg } from "./svg";
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
.pl-grid > section { flex: 1 1 440px; min-width: 0; }
/* Charts keep their natural size (their text never shrinks below 12 px): a chart wider than the pane
   scrolls sideways inside its own box while the page around it reflows. */
.pl-scroll { overflow-x: auto; max-width: 100%; padding-bottom: 4px; }
.pl-chart { max-width: none; display: block; }
.pl-chart text { font-family: var(--pl-font); font-size: 13px; }
.pl-text { fill: var(--pl-fg); }
.pl-muted { fill: var(--pl-muted); }
.pl-strong { font-weight: 600; }
.pl-chart .pl-small { font-size: 12px; }
.pl-chart .pl-oplabel { font-size: 12px; font-family: var(--pl-mono); }
.pl-over { fill: var(--pl-red); }
.pl-track { fill: var(--pl-track); stroke: var(--pl-border); }
.pl-capacity { stroke: var(--pl-red); stroke-width: 2; stroke-dasharray: 4 3; }
.pl-seg { stroke: var(--pl-bg); stroke-width: 1; }
.pl-seg-0 { fill: var(--pl-blue); }
.pl-seg-1 { fill: var(--pl-purple); }
.pl-seg-2 { fill: var(--pl-yellow); }
.pl-seg-3 { fill: var(--pl-orange); }
.pl-seg-4 { fill: var(--pl-red); }
.pl-seg-5 { fill: var(--pl-green); }
.pl-seg-reserve { fill: var(--pl-muted); fill-opacity: 0.45; stroke-dasharray: 3 2; }
.pl-dt { fill: var(--pl-muted); fill-opacity: 0.35; stroke: var(--pl-border); }
.pl-dt-float32 { fill: var(--pl-orange); }
.pl-dt-bfloat16 { fill: var(--pl-blue); }
.pl-dt-float16 { fill: var(--pl-purple); }
.pl-dt-float8 { fill: var(--pl-green); }
.pl-dt-float64 { fill: var(--pl-red); }
.pl-dt-none { fill: none; }
.pl-tput { fill: var(--pl-blue); fill-opacity: 0.6; }
.pl-tput-current { fill-opacity: 1; }
.pl-cellbg { fill: var(--pl-muted); fill-opacity: 0.12; stroke: var(--pl-border); }
.pl-mech-fully_shard .pl-cellbg { fill: var(--pl-green); fill-opacity: 0.22; }
.pl-mech-autocast .pl-cellbg { fill: var(--pl-blue); fill-opacity: 0.22; }
.pl-mech-none .pl-cellbg { fill: var(--pl-orange); fill-opacity: 0.25; }
.pl-mech-error .pl-cellbg { fill: var(--pl-red); fill-opacity: 0.12; }
.pl-over .pl-cellbg { stroke: var(--pl-red); stroke-width: 2; stroke-dasharray: 4 3; }
.pl-current .pl-cellbg { stroke: var(--pl-accent); stroke-width: 3; }
.pl-interactive .pl-cell { cursor: pointer; }
/* Hover and keyboard focus: a thin dashed outline in the text colour, unlike the current cell's solid accent. */
.pl-interactive .pl-cell:hover .pl-cellbg, .pl-interactive .pl-cell:focus .pl-cellbg { stroke: var(--pl-fg); stroke-width: 1.5; stroke-dasharray: 5 3; }
.pl-interactive .pl-cell.pl-current:hover .pl-cellbg, .pl-interactive .pl-cell.pl-current:focus .pl-cellbg { stroke: var(--pl-accent); stroke-width: 3; stroke-dasharray: 5 3; }
.pl-cell:focus { outline: none; }
ul.pl-list { margin: 4px 0; padding-left: 18px; }
.pl-sev-error { color: var(--pl-red); }
.pl-sev-warning { color: var(--pl-orange); }
code, pre { font-family: var(--pl-mono); }
pre { white-space: pre-wrap; font-size: 12px; background: var(--pl-track); padding: 8px; border-radius: 3px; }
code { font-size: 0.95em; background: var(--pl-track); padding: 0 3px; border-radius: 3px; }
.pl-md table { border-collapse: collapse; margin: 6px 0; display: block; overflow-x: auto; max-width: 100%; }
.pl-md th, .pl-md td { border: 1px solid var(--pl-border); padding: 2px 6px; text-align: left; vertical-align: top; }
.pl-md h3 { font-size: 1em; margin: 14px 0 4px; }
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

const scroll = (svg: string): string => `<div class="pl-scroll">${svg}</div>`;

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

/** The width attribute of an SVG chart (0 for none). */
function svgWidth(svg: string): number {
  const m = /^<svg [^>]*?\bwidth="(\d+)"/.exec(svg);
  return m ? Number(m[1]) : 0;
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
  if (view.framework) {
    const memorySvg = view.memory ? memoryBarSvg(view.memory) : "";
    const throughputSvg = throughputBarsSvg(view.throughput);
    // Memory and throughput sit side by side only when both charts fit their half at natural size: each
    // section's flex basis is the wider chart, so a window too narrow for two stacks them instead of
    // cutting both charts into scroll boxes (the webview beside the explorer, about 1,000 px, issue #20).
    gridRule = `.pl-grid > section { flex-basis: ${Math.max(svgWidth(memorySvg), svgWidth(throughputSvg), 240)}px; }`;
    body.push('<div class="pl-grid">');
    body.push('<section id="pl-memory"><h2>Memory per GPU</h2>');
    body.push(view.memory ? scroll(memorySvg) : `<p class="pl-note">No memory estimate: the model's sizes are not known${view.mechanism === "error" ? " or the launch fails" : ""}.</p>`);
    const cap = view.memory?.capacity;
    if (view.memory && cap && view.memory.peakBytes > cap.bytes) body.push(`<p class="pl-warn" role="note">⚠ Does not fit: the estimated peak ${gib(view.memory.peakBytes)} per GPU is over the ${gib(cap.bytes)} of an ${esc(cap.label)} (an estimate).</p>`);
    body.push("</section>");
    if (view.throughput.withheld) body.push('<section id="pl-throughput"><h2>Throughput</h2>', `<p class="pl-note">Throughput ${esc(view.throughput.withheld)}.</p>`, "</section>");
    else body.push('<section id="pl-throughput"><h2>Throughput: as written and the alternatives</h2>', scroll(throughputSvg), throughputCaption(view), "</section>");
    body.push("</div>");
    if (view.dtypeStrip?.length) body.push('<section id="pl-dtypes"><h2>dtype of each op (forward output and its gradient)</h2>', scroll(dtypeStripSvg(view.dtypeStrip)), "</section>");
    if (view.whatIf) {
      body.push('<section id="pl-whatif"><h2>What if: world size × torchtitan version</h2>');
      body.push(
        `<p class="pl-note">Each cell is this file analysed at that world size and version: mechanism · compute dtype, tokens/s per GPU, estimated peak memory per GPU. FSDP MP = FSDP's MixedPrecisionPolicy; no MP = no mixed precision. The outlined cell is the current one${opts.interactive ? "; click a cell to write its world size or version into the file" : ""}.</p>`,
      );
      body.push(scroll(whatIfMatrixSvg(view.whatIf, view.memory?.capacity?.bytes)), "</section>");
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
