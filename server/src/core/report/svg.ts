/**
 * The report's charts as HTML fragments, generated from the view-model (view.ts). Every word and number is
 * HTML text, which wraps at any width (issue #34: fixed-width SVG charts sat in scroll boxes with hidden
 * scrollbars beside a config and cut the peak label); SVG draws only shapes (the memory bar, the throughput
 * bars, colour swatches), in a viewBox stretched to the box's width (`preserveAspectRatio="none"`, strokes
 * that do not scale). Deterministic: the same view gives the same bytes (coordinates rounded to 0.1), so
 * tests compare exact elements without a browser. Colours are never written as values: every shape carries
 * a class (`pl-dt-bfloat16`, `pl-mech-none`, `pl-seg-2`, …) that the page's stylesheet maps to theme
 * colours, and no element has a `style` attribute, so the charts work under a content security policy
 * without 'unsafe-inline'.
 */
import type { DtypeStripOp, MemoryView, ThroughputView, WhatIfCell, WhatIfView } from "./view";
import { table } from "../model/table";

export function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** A coordinate: rounded to 0.1 px, no trailing ".0". */
export function px(v: number): string {
  const r = Math.round(v * 10) / 10;
  return Object.is(r, -0) ? "0" : String(r);
}

export function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

/** Thousands with a comma, locale-independent: 12345.6 → "12,346". */
export function thousands(v: number): string {
  return String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Tokens per second per GPU, or "—" when the throughput model gave no figure. */
export function tokensText(v: number | undefined): string {
  return v === undefined ? "—" : `${thousands(v)} tok/s`;
}

const DTYPE_SHORT: Readonly<Record<string, string>> = table({
  float64: "fp64",
  float32: "fp32",
  bfloat16: "bf16",
  float16: "fp16",
  float8_e4m3fn: "fp8",
  float8_e5m2: "fp8",
  int64: "int64",
  int32: "int32",
  complex64: "c64",
  complex128: "c128",
  bool: "bool",
});
export const shortDtype = (d: string | undefined): string => (d === undefined ? "—" : (DTYPE_SHORT[d] ?? d));

/** Class of a dtype's colour: float8 formats share one. */
const dtClass = (d: string): string => `pl-dt-${/^float8/.test(d) ? "float8" : d.replace(/[^a-z0-9]/gi, "")}`;


/** A number or a figure with its unit that never breaks inside (it wraps as a whole). */
const num = (s: string, cls = ""): string => `<span class="pl-num${cls ? ` ${cls}` : ""}">${esc(s)}</span>`;

/** A colour swatch for a legend: a 12 × 12 SVG square of a shape class. */
const swatch = (cls: string): string => `<svg class="pl-swatch" width="12" height="12" viewBox="0 0 12 12" aria-hidden="true"><rect class="${cls}" width="12" height="12"/></svg>`;

// ---------------------------------------------------------------------------------------------------
// Memory per GPU: one stacked bar of the memory terms, against the GPU's capacity when known.

/** Distinct colours of the memory terms (the stylesheet's `pl-seg-0` … `pl-seg-11`); the reserve has its own. */
export const MEMORY_COLOURS = 12;

/**
 * A segment's colour class: the allocator's reserve has its own (a hatched grey), the engine's terms take
 * the twelve colours in turn, so no two terms of one bar share a colour (issue #34: with six colours, the
 * seventh and eighth terms took the first two's).
 */
export function segClass(s: { kind: string }, i: number): string {
  return s.kind === "reserve" ? "pl-seg-reserve" : `pl-seg-${i % MEMORY_COLOURS}`;
}

/** The bar's coordinate space (the SVG stretches it to the box's width). */
export const MEMORY_PLOT_WIDTH = 400;
const MEM_BAR_H = 30;

export function memoryChartHtml(m: MemoryView): string {
  const cap = m.capacity?.bytes;
  const scaleMax = Math.max(m.peakBytes, cap ?? 0) || 1;
  const w = (b: number): number => (b / scaleMax) * MEMORY_PLOT_WIDTH;
  const over = cap !== undefined && m.peakBytes > cap;
  const out = [`<div class="pl-chart pl-memory-chart" role="group" aria-label="${esc(`Memory per GPU: ${gib(m.peakBytes)} estimated peak${cap ? ` of ${gib(cap)}` : ""}`)}">`];
  // Above the bar: the GPU's capacity (the dashed line) or why there is none.
  out.push(
    cap !== undefined
      ? `<p class="pl-cap"><span class="pl-capkey" aria-hidden="true"></span>${esc(m.capacity!.label)}: ${num(gib(cap))}</p>`
      : `<p class="pl-cap pl-note">GPU memory not known (no GPU type): bar drawn to the estimated peak</p>`,
  );
  out.push(`<svg class="pl-memory" width="100%" height="${MEM_BAR_H}" viewBox="0 0 ${MEMORY_PLOT_WIDTH} ${MEM_BAR_H}" preserveAspectRatio="none" role="img" aria-label="memory terms, stacked">`);
  out.push(`<title>Memory per GPU (estimate)</title>`);
  out.push(`<rect class="pl-track" vector-effect="non-scaling-stroke" x="0" y="0" width="${px(w(cap ?? m.peakBytes))}" height="${MEM_BAR_H}"/>`);
  let x = 0;
  m.segments.forEach((s, i) => {
    const sw = w(s.bytes);
    out.push(
      `<rect class="pl-seg ${segClass(s, i)} pl-kind-${s.kind}" vector-effect="non-scaling-stroke" data-term="${esc(s.name)}" x="${px(x)}" y="0" width="${px(sw)}" height="${MEM_BAR_H}"><title>${esc(`${s.name}: ${gib(s.bytes)} (${s.kind}) — ${s.detail}`)}</title></rect>`,
    );
    x += sw;
  });
  if (cap !== undefined) out.push(`<line class="pl-capacity" vector-effect="non-scaling-stroke" x1="${px(w(cap))}" y1="0" x2="${px(w(cap))}" y2="${MEM_BAR_H}"/>`);
  out.push("</svg>");
  // Under the bar, as text that wraps: the peak (never cut, issue #34: "222.9 GiB peal"), then the split.
  out.push(`<p class="pl-peak${over ? " pl-over" : ""}">${num(`${gib(m.peakBytes)} peak`)}${over ? ` <span class="pl-overnote">over the ${esc(m.capacity!.label)}'s ${num(gib(cap!))}</span>` : ""}</p>`);
  out.push(`<p class="pl-note">persistent ${num(gib(m.persistentBytes))} · allocated ${num(gib(m.allocatedBytes))} · reserved ${num(gib(m.peakBytes))} (estimate)</p>`);
  out.push('<ul class="pl-legend">');
  m.segments.forEach((s, i) => out.push(`<li data-term="${esc(s.name)}">${swatch(`pl-seg ${segClass(s, i)}`)} <code>${esc(s.name)}</code> — ${num(gib(s.bytes))} (${esc(s.kind)})</li>`));
  out.push("</ul></div>");
  return out.join("");
}

// ---------------------------------------------------------------------------------------------------
// dtype strip: one cell per forward op (forward output dtype), and the gradient dtype under it; the ops
// wrap onto as many lines as the width needs.

export function dtypeStripHtml(ops: readonly DtypeStripOp[]): string {
  const hasGrad = ops.some((o) => o.grad);
  const rows: { name: string; pick: (o: DtypeStripOp) => string | undefined }[] = [{ name: "forward", pick: (o) => o.forward }];
  if (hasGrad) rows.push({ name: "grad", pick: (o) => o.grad });
  const dtypes = [...new Set(ops.flatMap((o) => [o.forward, o.grad, o.compute].filter((d): d is string => !!d)).map((d) => (/^float8/.test(d) ? "float8" : d)))];
  const out = [`<div class="pl-chart pl-strip" role="group" aria-label="${esc(`dtype of each forward op (${ops.length} ops)`)}">`];
  out.push(`<p class="pl-note">Each op: its forward output's dtype${hasGrad ? ", and under it the dtype of the gradient with respect to that output" : ""}.</p>`);
  out.push('<div class="pl-ops">');
  for (const o of ops) {
    out.push(`<div class="pl-op" data-op="${esc(o.op)}"><span class="pl-opname">${esc(o.op).replace(/_/g, "_<wbr>")}</span>`);
    for (const r of rows) {
      const d = r.pick(o);
      const computeNote = r.name === "forward" && o.compute ? `, computes in ${o.compute}` : "";
      const tip = d ? `${o.op} ${r.name}: ${d}${computeNote} — ${r.name === "forward" ? o.rule : "gradient w.r.t. the output"}` : `${o.op}: no ${r.name} dtype`;
      out.push(`<span class="pl-dtcell pl-dt ${d ? dtClass(d) : "pl-dt-none"}" data-op="${esc(o.op)}" data-row="${r.name}" title="${esc(tip)}">${esc(`${shortDtype(d)}${computeNote ? "*" : ""}`)}</span>`);
    }
    out.push("</div>");
  }
  out.push("</div>");
  out.push('<ul class="pl-legend pl-legend-inline">');
  for (const d of dtypes) out.push(`<li>${swatch(`pl-dt ${dtClass(d)}`)} ${esc(d)}</li>`);
  if (ops.some((o) => o.compute)) out.push('<li class="pl-note">* computes in another dtype (see tooltip)</li>');
  out.push("</ul></div>");
  return out.join("");
}

// ---------------------------------------------------------------------------------------------------
// Throughput comparison: tokens/s per GPU as bars (the configuration as written, then alternatives).

/** Shortens a label to `n` characters with an ellipsis (the full text stays in the element's <title>). */
export function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** The bars' coordinate space (each bar's SVG stretches it to the row's width). */
export const TPUT_PLOT_WIDTH = 240;
const TPUT_BAR_H = 18;

/** `text`: how a label becomes HTML (the page passes its inline Markdown, which links PR numbers); escaped by default. */
export function throughputChartHtml(t: ThroughputView, text: (s: string) => string = esc): string {
  const subOf = (b: ThroughputView["bars"][number]): string => [b.mechanism, shortDtype(b.compute) !== "—" ? `${shortDtype(b.compute)} compute` : undefined].filter(Boolean).join(", ");
  const known = t.bars.map((b) => b.tokensPerSecondPerGpu).filter((v): v is number => v !== undefined);
  const max = Math.max(...known, 0) || 1;
  const out = [`<div class="pl-chart pl-throughput" role="group" aria-label="${esc(`Throughput comparison: ${t.bars.length} configurations`)}">`];
  out.push('<p class="pl-note">tokens/s per GPU · peak memory per GPU</p><ul class="pl-bars">');
  for (const b of t.bars) {
    const sub = subOf(b);
    out.push(`<li class="${b.current ? "pl-bar pl-current" : "pl-bar"}" data-label="${esc(b.label)}" title="${esc(`${b.label}${sub ? ` (${sub})` : ""}: ${tokensText(b.tokensPerSecondPerGpu)} per GPU, ${b.peakBytes !== undefined ? gib(b.peakBytes) : "—"} peak`)}">`);
    out.push(`<span class="pl-barlabel">${b.current ? `<b>${text(b.label)}</b>` : text(b.label)}${sub ? ` <span class="pl-note">· ${esc(sub)}</span>` : ""}</span>`);
    out.push('<span class="pl-barrow">');
    if (b.tokensPerSecondPerGpu !== undefined) {
      const bw = Math.max(1, (b.tokensPerSecondPerGpu / max) * TPUT_PLOT_WIDTH);
      out.push(`<svg class="pl-tputbar" width="100%" height="${TPUT_BAR_H}" viewBox="0 0 ${TPUT_PLOT_WIDTH} ${TPUT_BAR_H}" preserveAspectRatio="none" aria-hidden="true"><rect class="pl-tput${b.current ? " pl-tput-current" : ""}" x="0" y="0" width="${px(bw)}" height="${TPUT_BAR_H}"/></svg>`);
      out.push(num(tokensText(b.tokensPerSecondPerGpu), "pl-tok"));
    } else out.push(num("—", "pl-tok pl-muted-p"));
    out.push(num(b.peakBytes !== undefined ? `${gib(b.peakBytes)} peak` : "— peak", "pl-mem"));
    out.push("</span></li>");
  }
  out.push("</ul>");
  if (!known.length) out.push('<p class="pl-note">No throughput estimate in this build: tokens/s are shown as —.</p>');
  out.push("</div>");
  return out.join("");
}

// ---------------------------------------------------------------------------------------------------
// What-if matrix: world sizes × torchtitan versions. A grid of rows at a width that holds every column;
// below that (the stylesheet's media rule), each world size's cells wrap under it, each naming its version.

const MECH_LABEL: Readonly<Record<string, string>> = table({ fully_shard: "FSDP MP", autocast: "autocast", none: "no MP", error: "launch fails" });

/** `capacityBytes`: the GPU's memory; a cell whose peak is over it is marked (issue #34: 102.5 GiB on an 80 GB A100 was green). */
export function cellLines(c: WhatIfCell, capacityBytes?: number): [string, string, string] {
  if (c.mechanism === "error") return ["launch fails", c.layoutName ?? "", ""];
  const over = c.peakBytes !== undefined && capacityBytes !== undefined && c.peakBytes > capacityBytes;
  return [`${MECH_LABEL[c.mechanism] ?? c.mechanism} · ${shortDtype(c.compute)}`, c.tokensPerSecondPerGpu === undefined ? "— tok/s" : tokensText(c.tokensPerSecondPerGpu), c.peakBytes !== undefined ? (over ? `⚠ ${gib(c.peakBytes)}: no fit` : `${gib(c.peakBytes)} peak`) : "— memory"];
}

/** The grid's columns at full width (the page's own style rule: the column count is the view's). */
export function whatIfGridRule(w: WhatIfView): string {
  return `.pl-mrow { grid-template-columns: 5.5em repeat(${w.versions.length}, minmax(0, 1fr)); }`;
}

export function whatIfMatrixHtml(w: WhatIfView, capacityBytes?: number): string {
  const cols = w.versions.length;
  const out = [`<div class="pl-chart pl-matrix" role="group" aria-label="${esc(`What-if matrix: ${w.worldSizes.length} world sizes × ${cols} torchtitan versions`)}">`];
  out.push(`<div class="pl-mrow pl-mhead" aria-hidden="true"><span class="pl-mws pl-note">GPUs</span>${w.versions.map((v) => `<span class="pl-mver"><b>${esc(v.label)}</b></span>`).join("")}</div>`);
  w.worldSizes.forEach((ws, r) => {
    const wsLabel = ws === 1 ? "1 GPU" : `${ws} GPUs`;
    out.push(`<div class="pl-mrow"><span class="pl-mws${ws === w.current.worldSize ? " pl-strong" : ""}">${wsLabel}</span>`);
    w.versions.forEach((v, ci) => {
      const c = w.cells[r * cols + ci]!;
      const [l1, l2, l3] = cellLines(c, capacityBytes);
      const over = c.mechanism !== "error" && c.peakBytes !== undefined && capacityBytes !== undefined && c.peakBytes > capacityBytes;
      const tip = c.mechanism === "error" ? `${ws} GPUs, ${v.label}: the launch fails — ${c.error ?? ""}` : `${ws} GPUs, ${v.label}: ${c.layoutName ?? ""}, ${c.mechanism}, ${c.compute ?? ""} compute, ${tokensText(c.tokensPerSecondPerGpu)}, ${c.peakBytes !== undefined ? gib(c.peakBytes) : "—"} peak per GPU${over ? `: does not fit in the GPU's ${gib(capacityBytes!)}` : ""}`;
      out.push(
        `<div class="pl-cell pl-mech-${c.mechanism}${over ? " pl-over" : ""}${c.current ? " pl-current" : ""}" data-world-size="${ws}" data-version="${esc(v.id)}"${c.current ? ' aria-current="true"' : ""} title="${esc(tip)}">` +
          `<span class="pl-cver">${esc(v.label)}</span>` +
          `<span class="pl-l1"><b>${esc(l1)}</b></span>` +
          `<span class="pl-l2">${esc(l2)}</span>` +
          `<span class="pl-l3">${esc(l3)}</span>` +
          "</div>",
      );
    });
    out.push("</div>");
  });
  out.push("</div>");
  return out.join("");
}
