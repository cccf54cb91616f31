/**
 * The report's charts as SVG strings, generated from the view-model (view.ts). Deterministic: the same
 * view gives the same bytes (coordinates rounded to 0.1 px), so tests compare exact elements without a
 * browser. Colours are never written as values: every shape carries a class (`pl-dt-bfloat16`,
 * `pl-mech-none`, `pl-seg-2`, …) that the page's stylesheet maps to theme colours, and no element has a
 * `style` attribute, so the charts work under a content security policy without 'unsafe-inline'.
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

/** `role`: "img" for a picture; "group" where the chart holds controls (the what-if cells become buttons). */
function svgOpen(width: number, height: number, label: string, cls: string, role: "img" | "group" = "img"): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" class="pl-chart ${cls}" width="${px(width)}" height="${px(height)}" viewBox="0 0 ${px(width)} ${px(height)}" role="${role}" aria-label="${esc(label)}" font-family="sans-serif" font-size="12">`;
}

function textEl(x: number, y: number, s: string, cls = "pl-text", anchor?: "start" | "middle" | "end"): string {
  return `<text class="${cls}" x="${px(x)}" y="${px(y)}"${anchor && anchor !== "start" ? ` text-anchor="${anchor}"` : ""}>${esc(s)}</text>`;
}

// ---------------------------------------------------------------------------------------------------
// Memory per GPU: one stacked bar of the memory terms, against the GPU's capacity when known.

/**
 * A segment's colour class: the allocator's reserve has its own (a hatched grey), the engine's terms take
 * the six chart colours in turn, so no two neighbours and never the reserve and the parameters share one.
 */
function segClass(s: { kind: string }, i: number): string {
  return s.kind === "reserve" ? "pl-seg-reserve" : `pl-seg-${i % 6}`;
}

export const MEMORY_PLOT_WIDTH = 400;
const MEM_X0 = 8;
const MEM_BAR_Y = 30;
const MEM_BAR_H = 30;

export function memoryBarSvg(m: MemoryView): string {
  const width = MEM_X0 + MEMORY_PLOT_WIDTH + 110;
  const legendY = MEM_BAR_Y + MEM_BAR_H + 34;
  const height = legendY + m.segments.length * 18 + 8;
  const cap = m.capacity?.bytes;
  const scaleMax = Math.max(m.peakBytes, cap ?? 0) || 1;
  const w = (b: number): number => (b / scaleMax) * MEMORY_PLOT_WIDTH;
  const out = [svgOpen(width, height, `Memory per GPU: ${gib(m.peakBytes)} estimated peak${cap ? ` of ${gib(cap)}` : ""}`, "pl-memory")];
  out.push(`<title>Memory per GPU (estimate)</title>`);
  // The track: the GPU's capacity (or the peak itself when the GPU is unknown).
  out.push(`<rect class="pl-track" x="${px(MEM_X0)}" y="${px(MEM_BAR_Y)}" width="${px(w(cap ?? m.peakBytes))}" height="${MEM_BAR_H}"/>`);
  let x = MEM_X0;
  m.segments.forEach((s, i) => {
    const sw = w(s.bytes);
    out.push(
      `<rect class="pl-seg ${segClass(s, i)} pl-kind-${s.kind}" data-term="${esc(s.name)}" x="${px(x)}" y="${px(MEM_BAR_Y)}" width="${px(sw)}" height="${MEM_BAR_H}"><title>${esc(`${s.name}: ${gib(s.bytes)} (${s.kind}) — ${s.detail}`)}</title></rect>`,
    );
    x += sw;
  });
  const over = cap !== undefined && m.peakBytes > cap;
  // The peak label goes right of the bar, or right of the capacity line when that is further right.
  const labelX = Math.max(x, cap !== undefined ? MEM_X0 + w(cap) : 0) + 6;
  out.push(textEl(labelX, MEM_BAR_Y + 19, `${gib(m.peakBytes)} peak`, over ? "pl-text pl-strong pl-over" : "pl-text pl-strong"));
  if (cap !== undefined) {
    const cx = MEM_X0 + w(cap);
    out.push(`<line class="pl-capacity" x1="${px(cx)}" y1="${px(MEM_BAR_Y - 8)}" x2="${px(cx)}" y2="${px(MEM_BAR_Y + MEM_BAR_H + 8)}"/>`);
    out.push(textEl(cx, MEM_BAR_Y - 12, `${m.capacity!.label}: ${gib(cap)}`, "pl-text pl-muted", cx > MEM_X0 + MEMORY_PLOT_WIDTH / 2 ? "end" : "start"));
  } else {
    out.push(textEl(MEM_X0, MEM_BAR_Y - 12, "GPU memory not known (no GPU type): bar drawn to the estimated peak", "pl-text pl-muted"));
  }
  out.push(textEl(MEM_X0, MEM_BAR_Y + MEM_BAR_H + 18, `persistent ${gib(m.persistentBytes)} · allocated ${gib(m.allocatedBytes)} · reserved ${gib(m.peakBytes)} (estimate)`, "pl-text pl-muted"));
  m.segments.forEach((s, i) => {
    const y = legendY + i * 18;
    out.push(`<rect class="pl-seg ${segClass(s, i)}" x="${px(MEM_X0)}" y="${px(y - 10)}" width="12" height="12"/>`);
    out.push(textEl(MEM_X0 + 18, y, `${s.name} — ${gib(s.bytes)} (${s.kind})`));
  });
  out.push("</svg>");
  return out.join("");
}

// ---------------------------------------------------------------------------------------------------
// dtype strip: one cell per forward op (forward output dtype), and the gradient dtype under it.

export const STRIP_CELL_W = 46;
const STRIP_X0 = 70;
const STRIP_LABEL_H = 108; // room for the longest op name (attention_residual) rotated at 45°
const STRIP_ROW_H = 26;

export function dtypeStripSvg(ops: readonly DtypeStripOp[]): string {
  const hasGrad = ops.some((o) => o.grad);
  const rows: { name: string; pick: (o: DtypeStripOp) => string | undefined }[] = [{ name: "forward", pick: (o) => o.forward }];
  if (hasGrad) rows.push({ name: "grad", pick: (o) => o.grad });
  const dtypes = [...new Set(ops.flatMap((o) => [o.forward, o.grad, o.compute].filter((d): d is string => !!d)).map((d) => (/^float8/.test(d) ? "float8" : d)))];
  const legendY = STRIP_LABEL_H + rows.length * STRIP_ROW_H + 22;
  const width = STRIP_X0 + ops.length * STRIP_CELL_W + 8;
  const height = legendY + 10;
  const out = [svgOpen(width, height, `dtype of each forward op (${ops.length} ops)`, "pl-strip")];
  out.push(`<title>dtype of each op of one transformer step</title>`);
  ops.forEach((o, i) => {
    const cx = STRIP_X0 + i * STRIP_CELL_W + STRIP_CELL_W / 2;
    out.push(`<text class="pl-text pl-oplabel" x="${px(cx)}" y="${px(STRIP_LABEL_H - 6)}" transform="rotate(-45 ${px(cx)} ${px(STRIP_LABEL_H - 6)})">${esc(o.op)}</text>`);
  });
  rows.forEach((r, ri) => {
    const y = STRIP_LABEL_H + ri * STRIP_ROW_H;
    out.push(textEl(4, y + 17, r.name, "pl-text pl-muted"));
    ops.forEach((o, i) => {
      const d = r.pick(o);
      const x = STRIP_X0 + i * STRIP_CELL_W;
      const computeNote = r.name === "forward" && o.compute ? `, computes in ${o.compute}` : "";
      const tip = d ? `${o.op} ${r.name}: ${d}${computeNote} — ${r.name === "forward" ? o.rule : "gradient w.r.t. the output"}` : `${o.op}: no ${r.name} dtype`;
      out.push(
        `<g class="pl-dtcell" data-op="${esc(o.op)}" data-row="${r.name}"><rect class="pl-dt ${d ? dtClass(d) : "pl-dt-none"}" x="${px(x + 1)}" y="${px(y)}" width="${px(STRIP_CELL_W - 2)}" height="${STRIP_ROW_H - 2}"/>` +
          `${textEl(x + STRIP_CELL_W / 2, y + 16, `${shortDtype(d)}${computeNote ? "*" : ""}`, "pl-text pl-small", "middle")}<title>${esc(tip)}</title></g>`,
      );
    });
  });
  let lx = STRIP_X0;
  for (const d of dtypes) {
    out.push(`<rect class="pl-dt ${dtClass(d)}" x="${px(lx)}" y="${px(legendY - 10)}" width="12" height="12"/>`);
    const label = d === "float8" ? "float8" : d;
    out.push(textEl(lx + 16, legendY, label));
    lx += 28 + label.length * 7;
  }
  if (ops.some((o) => o.compute)) out.push(textEl(lx, legendY, "* computes in another dtype (see tooltip)", "pl-text pl-muted"));
  out.push("</svg>");
  return out.join("");
}

// ---------------------------------------------------------------------------------------------------
// Throughput comparison: tokens/s per GPU as bars (the configuration as written, then alternatives).

/** Shortens a label to `n` characters with an ellipsis (the full text stays in the element's <title>). */
export function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

export const TPUT_PLOT_WIDTH = 240;
const TPUT_ROW_H = 52;
/** Average advance of a 12 px sans-serif character, to size the chart to its longest label (never cut). */
const CHAR_W = 7;

export function throughputBarsSvg(t: ThroughputView): string {
  const subOf = (b: ThroughputView["bars"][number]): string => [b.mechanism, shortDtype(b.compute) !== "—" ? `${shortDtype(b.compute)} compute` : undefined].filter(Boolean).join(", ");
  const longest = Math.max(0, ...t.bars.map((b) => b.label.length + (subOf(b) ? subOf(b).length + 3 : 0)));
  const width = Math.max(4 + TPUT_PLOT_WIDTH + 170, 8 + longest * CHAR_W);
  const known = t.bars.map((b) => b.tokensPerSecondPerGpu).filter((v): v is number => v !== undefined);
  const max = Math.max(...known, 0) || 1;
  const top = 22;
  const height = top + t.bars.length * TPUT_ROW_H + (known.length ? 4 : 26);
  const out = [svgOpen(width, height, `Throughput comparison: ${t.bars.length} configurations`, "pl-throughput")];
  out.push(`<title>Estimated tokens per second per GPU</title>`);
  out.push(textEl(4, 14, "tokens/s per GPU", "pl-text pl-muted"));
  out.push(textEl(width - 8, 14, "peak memory", "pl-text pl-muted", "end"));
  t.bars.forEach((b, i) => {
    const y = top + i * TPUT_ROW_H;
    const cls = b.current ? "pl-bar pl-current" : "pl-bar";
    const sub = subOf(b);
    out.push(`<g class="${cls}" data-label="${esc(b.label)}"><title>${esc(`${b.label}${sub ? ` (${sub})` : ""}: ${tokensText(b.tokensPerSecondPerGpu)} per GPU, ${b.peakBytes !== undefined ? gib(b.peakBytes) : "—"} peak`)}</title>`);
    // The label whole on its own line (the chart is as wide as the longest one), the mechanism after it.
    out.push(
      `<text class="${b.current ? "pl-text pl-strong" : "pl-text"}" x="4" y="${px(y + 14)}">${esc(b.label)}${sub ? `<tspan class="pl-muted"> · ${esc(sub)}</tspan>` : ""}</text>`,
    );
    if (b.tokensPerSecondPerGpu !== undefined) {
      const bw = Math.max(1, (b.tokensPerSecondPerGpu / max) * TPUT_PLOT_WIDTH);
      out.push(`<rect class="pl-tput${b.current ? " pl-tput-current" : ""}" x="4" y="${px(y + 22)}" width="${px(bw)}" height="18"/>`);
      out.push(textEl(4 + bw + 6, y + 35, tokensText(b.tokensPerSecondPerGpu)));
    } else {
      out.push(textEl(4, y + 35, "—", "pl-text pl-muted"));
    }
    out.push(textEl(width - 8, y + 35, b.peakBytes !== undefined ? gib(b.peakBytes) : "—", "pl-text", "end"));
    out.push("</g>");
  });
  if (!known.length) out.push(textEl(4, top + t.bars.length * TPUT_ROW_H + 16, "No throughput estimate in this build: tokens/s are shown as —.", "pl-text pl-muted"));
  out.push("</svg>");
  return out.join("");
}

// ---------------------------------------------------------------------------------------------------
// What-if matrix: world sizes × torchtitan versions.

export const MATRIX_CELL_W = 150;
export const MATRIX_CELL_H = 50;
const MATRIX_X0 = 84;
const MATRIX_Y0 = 26;

const MECH_LABEL: Readonly<Record<string, string>> = table({ fully_shard: "FSDP MP", autocast: "autocast", none: "no MP", error: "launch fails" });

/** `capacityBytes`: the GPU's memory; a cell whose peak is over it is marked (issue #34: 102.5 GiB on an 80 GB A100 was green). */
export function cellLines(c: WhatIfCell, capacityBytes?: number): [string, string, string] {
  if (c.mechanism === "error") return ["launch fails", c.layoutName ?? "", ""];
  const over = c.peakBytes !== undefined && capacityBytes !== undefined && c.peakBytes > capacityBytes;
  return [`${MECH_LABEL[c.mechanism] ?? c.mechanism} · ${shortDtype(c.compute)}`, c.tokensPerSecondPerGpu === undefined ? "— tok/s" : tokensText(c.tokensPerSecondPerGpu), c.peakBytes !== undefined ? (over ? `⚠ ${gib(c.peakBytes)}: no fit` : `${gib(c.peakBytes)} peak`) : "— memory"];
}

export function whatIfMatrixSvg(w: WhatIfView, capacityBytes?: number): string {
  const cols = w.versions.length;
  const width = MATRIX_X0 + cols * MATRIX_CELL_W + 4;
  const height = MATRIX_Y0 + w.worldSizes.length * MATRIX_CELL_H + 4;
  const out = [svgOpen(width, height, `What-if matrix: ${w.worldSizes.length} world sizes × ${cols} torchtitan versions`, "pl-matrix", "group")];
  out.push(`<title>The same config at other world sizes and torchtitan versions</title>`);
  out.push(textEl(4, 16, "GPUs", "pl-text pl-muted"));
  w.versions.forEach((v, i) => out.push(textEl(MATRIX_X0 + i * MATRIX_CELL_W + MATRIX_CELL_W / 2, 16, v.label, "pl-text pl-strong", "middle")));
  w.worldSizes.forEach((ws, r) => {
    const y = MATRIX_Y0 + r * MATRIX_CELL_H;
    out.push(textEl(4, y + MATRIX_CELL_H / 2 + 4, ws === 1 ? "1 GPU" : `${ws} GPUs`, ws === w.current.worldSize ? "pl-text pl-strong" : "pl-text"));
    w.versions.forEach((v, ci) => {
      const c = w.cells[r * cols + ci]!;
      const x = MATRIX_X0 + ci * MATRIX_CELL_W;
      const [l1, l2, l3] = cellLines(c, capacityBytes);
      const over = c.mechanism !== "error" && c.peakBytes !== undefined && capacityBytes !== undefined && c.peakBytes > capacityBytes;
      const tip = c.mechanism === "error" ? `${ws} GPUs, ${v.label}: the launch fails — ${c.error ?? ""}` : `${ws} GPUs, ${v.label}: ${c.layoutName ?? ""}, ${c.mechanism}, ${c.compute ?? ""} compute, ${tokensText(c.tokensPerSecondPerGpu)}, ${c.peakBytes !== undefined ? gib(c.peakBytes) : "—"} peak per GPU${over ? `: does not fit in the GPU's ${gib(capacityBytes!)}` : ""}`;
      out.push(
        `<g class="pl-cell pl-mech-${c.mechanism}${over ? " pl-over" : ""}${c.current ? " pl-current" : ""}" data-world-size="${ws}" data-version="${esc(v.id)}"${c.current ? ' aria-current="true"' : ""}>` +
          `<rect class="pl-cellbg" x="${px(x + 2)}" y="${px(y + 2)}" width="${px(MATRIX_CELL_W - 4)}" height="${px(MATRIX_CELL_H - 4)}" rx="3"/>` +
          textEl(x + 10, y + 17, l1, "pl-text pl-strong") +
          textEl(x + 10, y + 31, l2, "pl-text pl-small") +
          textEl(x + 10, y + 44, l3, "pl-text pl-small") +
          `<title>${esc(tip)}</title></g>`,
      );
    });
  });
  out.push("</svg>");
  return out.join("");
}
