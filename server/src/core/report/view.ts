/**
 * The view-model of the visual precision report: plain data, built once from an AnalysisResult, that the
 * SVG charts (svg.ts) and the HTML page (html.ts) render. No rendering here and nothing editor-specific.
 *
 * Throughput is optional everywhere: the charts print "—" where a figure is absent. The throughput model
 * (`simulation.throughput`, issue #11) plugs in through `throughputOf()` below, and the GPU's memory
 * capacity through `ReportOptions.gpuMemory`; nothing else in the report needs to change when they arrive.
 */
import type { AnalysisEnv, AnalysisResult, AnalysisSettings, Mechanism } from "../analysis";
import type { Simulation } from "../engine/types";
import { headline } from "../features/index";
import { throughputOf, type ThroughputData } from "./throughput";
import { buildWhatIf, type WhatIfView } from "./whatIf";
import { GPUS, parseGpu } from "../engine/gpus";
import { REPORT_DIAGNOSTICS_SEPARATOR } from "../features/explain";

/** The GPU table's capacity (one source of truth, engine/gpus.ts); callers may pass another lookup. */
function engineGpuMemory(gpu: string): { bytes: number; label: string } | undefined {
  const id = parseGpu(gpu);
  return id ? { bytes: GPUS[id].memoryBytes, label: GPUS[id].label } : undefined;
}

export type { WhatIfView, WhatIfCell, WhatIfVersion } from "./whatIf";
export { throughputOf, type ThroughputData, type ThroughputAlternative } from "./throughput";

/** One memory term of the stacked bar (the engine's MemoryTerm, as shown). */
export interface MemorySegment {
  name: string;
  kind: "persistent" | "activation" | "transient" | "reserve";
  bytes: number;
  detail: string;
}

export interface MemoryView {
  /** Stacked left to right; they add up to `peakBytes` (the last, `allocator_reserve`, is reserved − allocated). */
  segments: MemorySegment[];
  /** Reserved peak: what nvidia-smi and torchtitan's max_reserved show (allocated × the allocator overhead). */
  peakBytes: number;
  /** Allocated peak (the engine's terms, all live together). */
  allocatedBytes: number;
  persistentBytes: number;
  /** The GPU's memory, when a GPU type is known; the bar is drawn against it. */
  capacity?: { bytes: number; label: string; source: string };
}

export interface DtypeStripOp {
  op: string;
  kind: string;
  /** Forward output dtype (torch spelling). */
  forward: string;
  /** dtype the math runs in when it differs from the output (float8 GEMMs, fp32-internal RoPE). */
  compute?: string;
  /** dtype of the gradient w.r.t. the op's output. */
  grad?: string;
  rule: string;
}

export interface ThroughputBar {
  label: string;
  mechanism?: string;
  compute?: string;
  tokensPerSecondPerGpu?: number;
  peakBytes?: number;
  /** True for the configuration as written. */
  current: boolean;
}

export interface ThroughputView {
  gpu?: { value: string; source: string };
  /** Why no tokens/s figure is shown (a model below the calibrated size); the section says this instead. */
  withheld?: string;
  stepSeconds?: number;
  mfu?: number;
  /** The configuration as written first, then the alternatives. */
  bars: ThroughputBar[];
}

export interface ReportView {
  /** File name shown as the title. */
  title: string;
  uri: string;
  framework: string | null;
  frameworkReason: string;
  /** One line, e.g. "TP-only on 8 GPUs: no mixed precision (float32 compute)". */
  headline?: string;
  version?: { value: string; source: string; detail: string };
  worldSize?: { value: number; source: string; detail: string };
  layoutName?: string;
  mechanism?: Mechanism;
  precision?: { paramStorage: string; compute: string; gradReduce: string };
  /** The dtype of each part of training (parameter storage, compute, gradients, reduction, optimizer state) and what set it, as the text report's table has it (inline Markdown). */
  dtypeTable?: { part: string; dtype: string; from: string }[];
  model?: string;
  memory?: MemoryView;
  dtypeStrip?: DtypeStripOp[];
  throughput: ThroughputView;
  /** torchtitan only: world sizes × versions. */
  whatIf?: WhatIfView;
  diagnostics: { code: string; severity: string; message: string; line: number }[];
  assumptions: { name: string; value: string; doc: string }[];
  /** The full Markdown report (per-op rules, collectives, notes), shown verbatim below the charts. */
  reportMarkdown?: string;
}

export interface ReportOptions {
  /**
   * The memory capacity of a GPU type (from the GPU table of the throughput model). Without it the memory
   * bar is drawn without a capacity line.
   */
  gpuMemory?: (gpu: string) => { bytes: number; label: string } | undefined;
  /** Skip the what-if matrix (it re-analyses the config once per cell). */
  noWhatIf?: boolean;
  /**
   * The settings the analysis ran with; the what-if cells reuse them (a GPU type, for instance) and
   * override only the world size and the torchtitan version.
   */
  settings?: AnalysisSettings;
  /** The files beside the config, as the analysis read them: a registry's what-if cells follow its imports through it. */
  env?: AnalysisEnv;
}

function fileName(uri: string): string {
  const path = uri.split(/[?#]/)[0]!;
  const base = path.slice(path.lastIndexOf("/") + 1);
  try {
    return decodeURIComponent(base) || "untitled";
  } catch {
    return base || "untitled";
  }
}

function memoryView(sim: Simulation, capacity: MemoryView["capacity"]): MemoryView | undefined {
  const m = sim.memory;
  if (!m.perGpuBytes) return undefined;
  const segments: MemorySegment[] = m.terms.filter((t) => Number.isFinite(t.bytes) && t.bytes > 0).map((t) => ({ name: t.name, kind: t.kind, bytes: t.bytes, detail: t.detail }));
  const { peak, reserved, persistent } = m.perGpuBytes;
  if (reserved > peak) segments.push({ name: "allocator_reserve", kind: "reserve", bytes: reserved - peak, detail: "cached by PyTorch's allocator beyond the allocated peak (assumption allocator_reserved_overhead)" });
  const out: MemoryView = { segments, peakBytes: Math.max(reserved, peak), allocatedBytes: peak, persistentBytes: persistent };
  if (capacity) out.capacity = capacity;
  return out;
}

function dtypeStrip(sim: Simulation): DtypeStripOp[] {
  return sim.forward.map((o) => {
    const op: DtypeStripOp = { op: o.op, kind: o.kind, forward: o.dtype, rule: o.rule };
    if (o.computeDtype && o.computeDtype !== o.dtype) op.compute = o.computeDtype;
    const g = sim.backward.find((b) => b.op === o.op);
    if (g) op.grad = g.gradOutput;
    return op;
  });
}

function throughputView(result: AnalysisResult, t: ThroughputData | undefined): ThroughputView {
  const view = throughputBars(result, t);
  if (t?.withheld) view.withheld = t.withheld;
  return view;
}

function throughputBars(result: AnalysisResult, t: ThroughputData | undefined): ThroughputView {
  // The model's first alternative is the configured run itself: it is the current bar.
  if (t?.alternatives?.length) {
    const view: ThroughputView = { bars: t.alternatives.map((a, i) => ({ ...a, current: i === 0 })) };
    if (t.gpu) view.gpu = t.gpu;
    if (t.stepSeconds !== undefined) view.stepSeconds = t.stepSeconds;
    if (t.mfu !== undefined) view.mfu = t.mfu;
    return view;
  }
  const current: ThroughputBar = { label: result.layoutName ? `${result.layoutName} as written` : "as written", current: true };
  if (result.mechanism) current.mechanism = result.mechanism;
  if (result.precision?.compute.dtype) current.compute = result.precision.compute.dtype;
  if (t?.tokensPerSecondPerGpu !== undefined) current.tokensPerSecondPerGpu = t.tokensPerSecondPerGpu;
  const bytes = result.simulation?.memory.perGpuBytes;
  if (bytes) current.peakBytes = Math.max(bytes.reserved, bytes.peak);
  const view: ThroughputView = { bars: [current, ...(t?.alternatives ?? []).map((a) => ({ ...a, current: false }))] };
  if (t?.gpu) view.gpu = t.gpu;
  if (t?.stepSeconds !== undefined) view.stepSeconds = t.stepSeconds;
  if (t?.mfu !== undefined) view.mfu = t.mfu;
  return view;
}

/**
 * The text report's own precision table ("| | dtype | from |", written by every framework's summary), as
 * rows: the page shows it first. Its first occurrence only (a registry's report repeats it per function).
 */
export function precisionTableOf(markdown: string | undefined): { part: string; dtype: string; from: string }[] {
  if (!markdown) return [];
  const lines = markdown.split("\n");
  const at = lines.findIndex((l) => /^\|\s*\|\s*dtype\s*\|\s*from\s*\|$/.test(l.trim()));
  if (at < 0) return [];
  const rows: { part: string; dtype: string; from: string }[] = [];
  for (let i = at + 1; i < lines.length && i < at + 20 && /^\|.*\|$/.test(lines[i]!.trim()); i++) {
    const cells = lines[i]!.trim().slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    if (cells.length >= 3) rows.push({ part: cells[0]!, dtype: cells[1]!, from: cells.slice(2).join(" | ") });
  }
  return rows;
}

/** Builds the report's view-model. Never throws on a result the analysis produced. */
export function buildReportView(result: AnalysisResult, options: ReportOptions = {}): ReportView {
  const sim = result.simulation;
  const t = throughputOf(sim);
  const gpuMem = t?.gpu ? (options.gpuMemory ?? engineGpuMemory)(t.gpu.value) : undefined;
  // A registry's report is one config function's (FILE.py::fn, the code lens), or the first of several.
  const fn = result.format === "python" ? result.configFunctions?.[0]?.name : undefined;
  const view: ReportView = {
    title: fn ? `${fileName(result.uri)}::${fn}` : fileName(result.uri),
    uri: result.uri,
    framework: result.framework,
    frameworkReason: result.frameworkReason,
    throughput: throughputView(result, t),
    diagnostics: result.diagnostics.map((d) => ({ code: d.code, severity: d.severity, message: d.message, line: d.range.start.line })),
    assumptions: (sim?.assumptions ?? []).map((a) => ({ name: a.name, value: a.value, doc: a.doc })),
  };
  const h = headline(result);
  if (h) view.headline = h;
  if (result.torchtitanVersion) view.version = { ...result.torchtitanVersion };
  if (result.worldSize) view.worldSize = { ...result.worldSize };
  if (result.layoutName) view.layoutName = result.layoutName;
  if (result.mechanism) view.mechanism = result.mechanism;
  if (result.precision) {
    // null: the file does not decide it (a launcher's "auto"; no gradient reduction on one device).
    const launcher = result.precision.setBy ? "set by the launcher" : "not decided by this file";
    view.precision = { paramStorage: result.precision.paramStorage.dtype ?? launcher, compute: result.precision.compute.dtype ?? launcher, gradReduce: result.precision.gradReduce.dtype ?? "none" };
  }
  if (sim) {
    if (sim.model) view.model = `${sim.model.name} ${sim.model.flavor}`;
    const mem = memoryView(sim, gpuMem && t?.gpu ? { bytes: gpuMem.bytes, label: gpuMem.label, source: t.gpu.source } : undefined);
    if (mem) view.memory = mem;
    view.dtypeStrip = dtypeStrip(sim);
  }
  if (result.framework === "torchtitan" && !options.noWhatIf) {
    const w = buildWhatIf(result, options.settings, options.env);
    if (w) view.whatIf = w;
  }
  const table = precisionTableOf(result.reportMarkdown);
  if (table.length) view.dtypeTable = table;
  // The page lists the diagnostics itself; the text report's own diagnostics section (with links) is left out.
  if (result.reportMarkdown) view.reportMarkdown = result.reportMarkdown.split(REPORT_DIAGNOSTICS_SEPARATOR)[0]!;
  return view;
}
