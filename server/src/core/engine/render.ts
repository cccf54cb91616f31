/**
 * Output of a simulation: the exact CLI JSON contract, a full Markdown report, and a compact dtype
 * table for hovers.
 */
import { asDType, formatBytes, shortName, type EDType } from "./dtypes";
import { GPUS } from "./gpus";
import { throughputToJson } from "./throughput";
import type { Simulation, SimulationJson } from "./types";

/** The CLI JSON contract object — exactly these fields, dtypes spelled like torch. */
export function simulationToJson(sim: Simulation): SimulationJson {
  const forward: Record<string, string> = {};
  for (const o of sim.forward) forward[o.op] = o.dtype;
  const collectives: Record<string, string> = {};
  for (const c of sim.collectives) collectives[c.name] = c.dtype;
  return {
    forward,
    collectives,
    grad: { computed: sim.grad.computed, stored: sim.grad.stored },
    optimizerState: sim.optimizerState,
    memory: {
      bytesPerParam: { params: sim.memory.bytesPerParam.params, grads: sim.memory.bytesPerParam.grads, optimizer: sim.memory.bytesPerParam.optimizer },
      perGpuBytes: { persistent: sim.memory.perGpuBytes?.persistent ?? null, peak: sim.memory.perGpuBytes?.peak ?? null, reserved: sim.memory.perGpuBytes?.reserved ?? null },
      cpuBytes: sim.memory.cpuBytes ?? null,
    },
    assumptions: sim.assumptions.map((a) => ({ name: a.name, value: a.value })),
    throughput: sim.throughput ? throughputToJson(sim.throughput) : null,
  };
}

const cell = (s: string): string => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const dt = (d: EDType): string => `\`${d}\``;

function headline(sim: Simulation): string {
  return sim.mixedPrecisionApplied ? `**Mixed precision: yes** — ${sim.mixedPrecisionReason}` : `**Mixed precision: no** — ${sim.mixedPrecisionReason}`;
}

export interface RenderOptions {
  /**
   * False when the simulated model is only a reference graph, not the user's model (another framework's
   * config): the per-op dtypes hold for any decoder transformer, but no memory or throughput figure is shown,
   * since it would be the reference model's.
   */
  figures?: boolean;
  /** The section title (default: the simulated model and the mechanism). */
  title?: string;
}

/** Full report: per-op table, backward, collectives, memory breakdown, assumptions. */
export function renderSimulationMarkdown(sim: Simulation, opts: RenderOptions = {}): string {
  const figures = opts.figures ?? true;
  const out: string[] = [];
  out.push(`### ${opts.title ?? `Simulated training step (${sim.model ? `${sim.model.name} ${sim.model.flavor}` : "Llama3 block"}, ${sim.mechanism})`}`, "", headline(sim), "");
  out.push("| op | forward | backward grad | rule |", "|---|---|---|---|");
  for (const o of sim.forward) {
    const g = sim.backward.find((b) => b.op === o.op);
    const fwd = o.computeDtype && o.computeDtype !== o.dtype ? `${dt(o.dtype)} (${o.float8 ? "GEMM in " : "inside: "}${shortName(o.computeDtype)})` : dt(o.dtype);
    out.push(`| ${o.op} | ${fwd} | ${g ? dt(g.gradOutput) : ""} | ${cell(o.rule)} |`);
  }
  out.push("", `Parameter gradients: produced ${dt(sim.grad.computed)}, stored ${dt(sim.grad.stored)}; optimizer state ${dt(sim.optimizerState)}.`, "");
  if (sim.collectives.length) {
    out.push("**Collectives**", "", "| collective | dtype | mesh | when | why |", "|---|---|---|---|---|");
    for (const c of sim.collectives) out.push(`| ${c.name} | ${dt(c.dtype)} | ${c.mesh} | ${cell(c.when)} | ${cell(c.why)} |`);
    out.push("");
  } else out.push("No collectives (single device).", "");
  const m = sim.memory;
  const perParam = m.bytesPerParam.params + m.bytesPerParam.grads + m.bytesPerParam.optimizer;
  if (!figures) {
    const n = m.shardDegree; // bytesPerParam is per GPU, after sharding
    out.push(`Persistent bytes per parameter: ${perParam * n} B before sharding (params ${m.bytesPerParam.params * n}, grads ${m.bytesPerParam.grads * n}, optimizer ${m.bytesPerParam.optimizer * n}). No memory or throughput estimate: the model's sizes are not known.`);
    for (const e of sim.errors) out.push("", `- ⚠ ${e}`);
    return out.join("\n");
  }
  out.push(`**Memory (estimate)** — ${perParam} B/param persistent (params ${m.bytesPerParam.params}, grads ${m.bytesPerParam.grads}, optimizer ${m.bytesPerParam.optimizer}${m.shardDegree > 1 ? `, sharded ${m.shardDegree} ways` : ""})`);
  if (m.perGpuBytes) {
    out.push("", "| term | kind | bytes | detail |", "|---|---|---|---|");
    for (const t of m.terms) out.push(`| ${t.name} | ${t.kind} | ${formatBytes(t.bytes)} | ${cell(t.detail)} |`);
    out.push(`| **persistent** | | **${formatBytes(m.perGpuBytes.persistent)}** | |`, `| **peak** | | **${formatBytes(m.perGpuBytes.peak)}** | |`);
    out.push(`| **reserved** (allocator) | | **${formatBytes(m.perGpuBytes.reserved)}** | peak × allocator_reserved_overhead |`);
    const over = overCapacity(sim);
    if (over) out.push("", `⚠ **Does not fit**: ${formatBytes(m.perGpuBytes.reserved)} per GPU is ${over.text}.`);
    // After the table: a paragraph between its rows would end it (the reserved row would print as text).
    if (m.activations) {
      const by = Object.entries(m.activations.perTokenPerLayer).map(([d, b]) => `${shortName(d as EDType)} ${Math.round(b!)} B`).join(", ");
      out.push("", `Activations per token per block: ${Math.round(m.activations.perTokenPerLayerTotal)} B (${by}).`);
    }
  }
  for (const n of m.notes) out.push("", `_${n}_`);
  if (sim.throughput) out.push("", ...renderThroughputMarkdown(sim));
  if (sim.notes.length || sim.errors.length) {
    out.push("");
    for (const e of sim.errors) out.push(`- ⚠ ${e}`);
    for (const n of sim.notes) out.push(`- ${n}`);
  }
  if (sim.assumptions.length) {
    out.push("", "**Assumptions**", "");
    for (const a of sim.assumptions) out.push(`- \`${a.name}\` = \`${a.value}\`${a.overridden ? " (set)" : " (default)"}${a.relevant ? "" : " — no effect here"}: ${a.doc}`);
  }
  return out.join("\n");
}

/** Throughput section: the estimate, its terms, and the comparison with the alternatives. */
export function renderThroughputMarkdown(sim: Simulation): string[] {
  const t = sim.throughput;
  if (!t) return [];
  const gpu = GPUS[t.gpu.value];
  const out: string[] = [];
  if (t.withheld) return [`**Throughput** on ${gpu.label}: ${t.withheld}.`];
  out.push(`**Throughput (estimate)** on ${gpu.label} (GPU from ${t.gpu.source}) — ≈ ${fmtTps(t.tokensPerSecondPerGpu)} tokens/s per GPU, ${t.stepSeconds.toFixed(2)} s per step, MFU ${(t.mfu * 100).toFixed(0)}%`);
  out.push("", "| term | seconds | detail |", "|---|---|---|");
  for (const x of t.terms) out.push(`| ${x.name} | ${x.seconds.toFixed(3)} | ${cell(x.detail)} |`);
  if (t.alternatives.length > 1) out.push("", t.alternatives.map((a) => `${a.label}: ${a.tokensPerSecondPerGpu === null ? "—" : `≈ ${fmtTps(a.tokensPerSecondPerGpu)} tokens/s/GPU`}`).join("; ") + ".");
  if (t.alternatives.length) {
    out.push("", "| variant | mechanism | compute | tokens/s/GPU | memory/GPU (reserved) |", "|---|---|---|---|---|");
    for (const a of t.alternatives) out.push(`| ${cell(a.label)} | ${a.mechanism} | ${a.compute} | ${a.tokensPerSecondPerGpu === null ? "—" : `≈ ${fmtTps(a.tokensPerSecondPerGpu)}`} | ${a.peakBytes === null ? "—" : formatBytes(a.peakBytes)} |`);
  }
  for (const n of t.notes) out.push("", `_${n}_`);
  out.push("", `_Estimate from FLOPs, the data-sheet rates of the GPU (${gpu.source}) and the named assumptions below (matmul_efficiency, compile_speedup, attention_efficiency, comm_efficiency, …); not a measurement._`);
  return out;
}

/**
 * When the reserved estimate does not fit the GPU the throughput model runs on: the words every view that
 * shows the estimate adds (code lens, hover, text and visual report). Undefined when it fits or no GPU is known.
 */
export function overCapacity(sim: Simulation): { text: string; capacityBytes: number } | undefined {
  const bytes = sim.memory.perGpuBytes;
  const gpu = sim.throughput ? GPUS[sim.throughput.gpu.value] : undefined;
  if (!bytes || !gpu) return undefined;
  const peak = Math.max(bytes.reserved, bytes.peak);
  if (peak <= gpu.memoryBytes) return undefined;
  return { text: `over the ${formatBytes(gpu.memoryBytes)} of an ${gpu.label} (estimate)`, capacityBytes: gpu.memoryBytes };
}

/** The code lens's memory figure (" · ≈X peak per GPU (estimate)", with a warning when over the GPU); "" without one. */
export function lensMemory(sim: Simulation | undefined): string {
  const peak = sim?.memory.perGpuBytes?.reserved;
  if (!sim || !peak) return "";
  const over = overCapacity(sim);
  return ` · ≈${formatBytes(peak)} peak per GPU (estimate)${over ? ` ⚠ over the GPU's ${formatBytes(over.capacityBytes)}` : ""}`;
}

export function fmtTps(n: number): string {
  if (n >= 100) return String(Math.round(n / 10) * 10).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return n >= 10 ? String(Math.round(n)) : n.toFixed(1);
}

/** Compact table for hovers: params stored/compute, activations, grads, reduction, optimizer. */
export function renderDtypeTableMarkdown(sim: Simulation): string {
  const lin = sim.params.find((p) => p.op === "wq")!;
  const resid = sim.forward.find((o) => o.op === "ffn_residual")!.dtype;
  const mm = sim.forward.find((o) => o.op === "wq")!;
  const reduce = sim.collectives.find((c) => c.name === "fsdp_reduce_scatter" || c.name === "ddp_all_reduce" || c.name === "hsdp_all_reduce");
  const rows: [string, string][] = [
    ["parameters (stored)", shortName(lin.storage)],
    ["parameters (compute)", mm.float8 ? `${shortName(lin.compute)} → ${shortName(mm.computeDtype!)} GEMM` : shortName(lin.compute)],
    ["activations (matmul out / residual)", `${shortName(mm.dtype)} / ${shortName(resid)}`],
    ["loss", shortName(sim.forward.find((o) => o.op === "loss")!.dtype)],
    ["gradients (produced → stored)", `${shortName(sim.grad.computed)} → ${shortName(sim.grad.stored)}`],
    ["gradient reduction", reduce ? `${shortName(reduce.dtype)} (${reduce.name})` : "none"],
    ["optimizer state", shortName(sim.optimizerState)],
  ];
  const lines = ["| | dtype |", "|---|---|", ...rows.map(([k, v]) => `| ${k} | ${v} |`)];
  if (sim.memory.perGpuBytes) {
    const over = overCapacity(sim);
    lines.push("", `≈ ${formatBytes(sim.memory.perGpuBytes.reserved)} peak per GPU (estimate, reserved; ${formatBytes(sim.memory.perGpuBytes.peak)} allocated, ${formatBytes(sim.memory.perGpuBytes.persistent)} persistent)${sim.memory.cpuBytes ? `; ${formatBytes(sim.memory.cpuBytes)} offloaded to the CPU` : ""}${over ? `: ⚠ ${over.text}` : ""}`);
  }
  if (sim.throughput?.withheld) lines.push("", `Throughput: ${sim.throughput.withheld}.`);
  else if (sim.throughput) lines.push("", `≈ ${fmtTps(sim.throughput.tokensPerSecondPerGpu)} tokens/s per GPU on ${GPUS[sim.throughput.gpu.value].label} (estimate; MFU ${(sim.throughput.mfu * 100).toFixed(0)}%)`);
  return lines.join("\n");
}

export { formatBytes, asDType };
