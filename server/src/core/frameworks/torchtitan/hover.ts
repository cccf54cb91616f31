/**
 * Precision hovers for torchtitan configs: on the degree keys, the [parallelism] and [training] headers
 * and the precision keys, the resolved layout, the mechanism and the dtypes, as Markdown.
 */
import { mdProse } from "../../model/markdown";
import type { HoverTarget, InlayHintData } from "../../analysis";
import { findEntry } from "../../model/document";
import type { Range } from "../../model/types";
import { GPUS, renderDtypeTableMarkdown, renderSimulationMarkdown } from "../../engine";
import { eraComparison, eraLine } from "./compare";
import type { TitanContext } from "./context";
import { DIM_FIELDS } from "./parallelDims";

const MECHANISM_TEXT = {
  fully_shard: "FSDP MixedPrecisionPolicy (fully_shard casts parameters at module boundaries)",
  autocast: "torch.autocast around forward and loss (backward runs outside it)",
  none: "none: no mixed precision is applied",
  error: "none: the launch fails before training",
} as const;

export function summaryMarkdown(ctx: TitanContext): string {
  const d = ctx.layout;
  const lines: string[] = [];
  lines.push(`**Precision Lens** · torchtitan ${ctx.version.value.id}`);
  lines.push("");
  lines.push(`**${ctx.layoutName} on ${ctx.worldSize.value} GPU${ctx.worldSize.value === 1 ? "" : "s"}** (world size: ${mdProse(ctx.worldSize.detail ?? "")})`);
  lines.push("");
  const shard = ctx.dims.dpShardInferred ? `${d.dp_shard} (from -1)` : String(d.dp_shard);
  if (ctx.scriptOverrides?.length) lines.push(`Launch flags applied: ${ctx.scriptOverrides.map((o) => `\`--${o.path.join(".")} ${o.raw}\``).join(", ")} (${ctx.scriptOverrides[0]!.file})`, "");
  lines.push(`Layout: dp_replicate ${d.dp_replicate} · dp_shard ${shard} · cp ${d.cp} · tp ${d.tp} · pp ${d.pp}${d.ep > 1 ? ` · ep ${d.ep} · etp ${d.etp}` : ""}`);
  lines.push("");
  lines.push(`Mechanism: **${MECHANISM_TEXT[ctx.decision.mechanism]}** — ${mdProse(ctx.decision.reason)}.`);
  if (ctx.decision.error) lines.push(`\nLaunch error: \`${ctx.decision.error}\``);
  for (const l of ctx.decision.logs) lines.push(`\ntorchtitan logs (${l.level}): "${mdProse(l.text)}"`);
  if (ctx.precision) {
    const p = ctx.precision;
    lines.push("");
    lines.push("| | dtype | from |");
    lines.push("|---|---|---|");
    lines.push(`| parameter storage | \`${p.paramStorage.dtype}\` | ${mdProse(p.paramStorage.knob, { cell: true })} |`);
    for (const x of p.paramStorageParts ?? []) lines.push(`| parameter storage: ${x.modules} | \`${x.dtype}\` | ${mdProse(x.knob, { cell: true })} |`);
    lines.push(`| compute (matmuls) | \`${p.compute.dtype}\` | ${mdProse(p.compute.knob, { cell: true })} |`);
    lines.push(`| gradient reduction | ${p.gradReduce.dtype ? `\`${p.gradReduce.dtype}\`` : "none"} | ${mdProse(p.gradReduce.knob, { cell: true })} |`);
  }
  if (ctx.simulation) {
    lines.push("");
    lines.push("Simulated training step (dtype of each tensor kind):");
    lines.push("");
    lines.push(renderDtypeTableMarkdown(ctx.simulation));
  }
  const eras = eraComparison(ctx);
  if (eras.length) {
    lines.push("");
    lines.push("The same layout in other torchtitan versions:");
    for (const o of eras) lines.push(`- ${eraLine(o)}`);
  }
  lines.push("");
  lines.push(`_Version: ${mdProse(ctx.version.detail ?? "")}._${ctx.version.decidedBy?.length ? ` Decided by: ${ctx.version.decidedBy.map((k) => `\`${k}\``).join(", ")}.` : ""}`);
  return lines.join("\n");
}

export function titanHovers(ctx: TitanContext, markdown: string): HoverTarget[] {
  const ranges: Range[] = [];
  for (const f of DIM_FIELDS) {
    const e = ctx.dims.entries[f];
    if (e) ranges.push(e.keyRange);
  }
  for (const s of ctx.doc.sections) {
    if (s.path.length === 1 && (s.path[0] === "parallelism" || s.path[0] === "training")) ranges.push(s.headerRange);
  }
  for (const k of [ctx.knobs.param, ctx.knobs.reduce, ctx.knobs.trainingDtype]) {
    if (k.entry) ranges.push(k.entry.keyRange);
  }
  const offload = findEntry(ctx.doc, "training", "enable_cpu_offload");
  if (offload) ranges.push(offload.keyRange);
  return ranges.map((range) => ({ range, markdown }));
}

/** After `data_parallel_shard_degree = -1`: what it resolves to, on how many GPUs, and why. */
export function titanInlayHints(ctx: TitanContext): InlayHintData[] {
  const e = ctx.dims.entries.dp_shard;
  if (!e || ctx.dims.configured.dp_shard !== -1) return [];
  const w = ctx.worldSize;
  const c = ctx.dims.configured;
  const resolved = Math.floor(w.value / (c.dp_replicate * c.cp * c.tp * c.pp));
  const ok = ctx.dims.resolved !== undefined;
  return [
    {
      position: e.value.range.end,
      label: ` → ${resolved} on ${w.value} GPU${w.value === 1 ? "" : "s"}${ok ? "" : " (invalid)"}`,
      tooltip: `-1 resolves to WORLD_SIZE // (dp_replicate * cp * tp * pp) = ${w.value} // (${c.dp_replicate}*${c.cp}*${c.tp}*${c.pp}) = ${resolved}. World size from ${w.detail}.`,
    },
  ];
}

/** The full report behind the code lens and `precision-lens explain`: the summary, then the simulation. */
export function reportMarkdown(ctx: TitanContext, summary: string): string {
  // The title (the file name) is added by analyze.ts, the same for every framework.
  const parts = [summary];
  if (ctx.simulation?.throughput) parts.push("", `GPU for the throughput and memory estimates: **${GPUS[ctx.gpu.value].label}** (${ctx.gpu.detail}).`);
  if (ctx.simulation) parts.push("", "---", "", renderSimulationMarkdown(ctx.simulation));
  else parts.push("", "---", "", "_No simulation: the launch would fail before training (see the diagnostics)._");
  return parts.join("\n");
}
