/**
 * The throughput comparison of a torchtitan config: the GPU type (setting or default, with its source),
 * and, beside the configured run, the same layout with mixed precision switched on or off and the nearest
 * layout that gets FSDP mixed precision (the no-mixed-precision quick fix's layout). Every variant is a
 * fresh simulation of the same config; nothing here is a stored answer.
 */
import type { AnalysisSettings, ParallelLayout, Sourced } from "../../analysis";
import { diag, fitMessage } from "../../diagnostics/build";
import { directiveValue, type Directive } from "../../diagnostics/directives";
import { DEFAULT_GPU, GPU_IDS, parseGpu, type GpuId } from "../../engine/gpus";
import type { Diagnostic } from "../../model/types";
import { simulate } from "../../engine/simulate";
import { shownTokensPerSecond, type ThroughputAlternative } from "../../engine/throughput";
import type { Simulation, SimulationInput } from "../../engine/types";
import { lowerToEnableFsdp } from "./rules/no-mixed-precision";

/** The GPU type: a `# precision-lens: gpu=…` directive, then the setting (or --gpu), then a comment stating it, the file name, a folder right above it, then H100 SXM. */
export function resolveGpu(settings: AnalysisSettings, directives: readonly Directive[] = [], extra: Diagnostic[] = [], stated?: { gpu?: string; line: number }, named?: string, folder?: { gpu: string; folder: string }): Sourced<GpuId> {
  // Precedence as for the world size (workspace/precedence.ts): --gpu > directive > setting > default.
  const raw = settings.gpu?.trim();
  const id = raw && raw !== "auto" ? parseGpu(raw) : undefined;
  if (id && settings.origin === "cli") return { value: id, source: "setting", kind: "cli", detail: `--gpu ${raw} on the command line` };
  const d = directiveValue(directives, "gpu");
  if (d) {
    const id = parseGpu(d.value);
    if (id) return { value: id, source: "directive", kind: "directive", detail: `set by \`# precision-lens: gpu=${d.value}\` on line ${d.line + 1}` };
    extra.push(diag("invalid-directive", "warning", d.range, fitMessage(`Unknown GPU type "${d.value}" in the precision-lens directive: it is ignored`), undefined, { detail: `Unknown GPU type "${d.value}" in the precision-lens directive; use ${GPU_IDS.join(", ")}. It is ignored.` }));
  }
  if (id) return { value: id, source: "setting", kind: "setting", detail: `set by the precisionLens.gpu setting to ${raw}` };
  // The GPU type a preset's comment names ("a preset for 64 A100 GPUs"): evidence, not a fact (core/provenance.ts).
  const fromComment = stated?.gpu ? parseGpu(stated.gpu) : undefined;
  if (fromComment) return { value: fromComment, source: "comment", kind: "comment", detail: `${stated!.gpu} in the comment on line ${stated!.line + 1}` };
  // `named`: the GPU family the file's name names (fileName.ts, `llama3_70b-8xb200-8k.toml`): an inference. One we have no figures for
  // (GB300) still tells that the default is not this file's GPU: `default-contradicted` (issue #17 §2).
  if (named) {
    const id = parseGpu(named);
    if (id) return { value: id, source: "file-name", kind: "inferred", detail: `${named.toUpperCase()} in the file name` };
    return { value: DEFAULT_GPU, source: "default-contradicted", kind: "default", detail: `the default, while the file name names ${named.toUpperCase()} (no figures for it); set precisionLens.gpu or --gpu` };
  }
  // A folder right above the config that names a GPU family (`logs/h200/`): weaker than the file's name (fileName.ts).
  const inFolder = folder ? parseGpu(folder.gpu) : undefined;
  if (inFolder) return { value: inFolder, source: "folder", kind: "inferred", detail: `${folder!.gpu.toUpperCase()} in the folder name \`${folder!.folder}/\`` };
  return { value: DEFAULT_GPU, source: "default", kind: "default", detail: "the default; set precisionLens.gpu or --gpu for another GPU type" };
}

/** "TP 4 + FSDP 2", "FSDP 8", "1 GPU". */
export function degreesLabel(d: ParallelLayout): string {
  const parts: string[] = [];
  if (d.dp_replicate > 1) parts.push(`${d.dp_shard > 1 ? "HSDP replicate" : "DDP"} ${d.dp_replicate}`);
  if (d.tp > 1) parts.push(`TP ${d.tp}`);
  if (d.pp > 1) parts.push(`PP ${d.pp}`);
  if (d.cp > 1) parts.push(`CP ${d.cp}`);
  if (d.dp_shard > 1) parts.push(`FSDP ${d.dp_shard}`);
  return parts.length ? parts.join(" + ") : "1 GPU";
}

function variant(label: string, input: SimulationInput): ThroughputAlternative {
  const s = simulate(input);
  return {
    label,
    mechanism: input.mechanism,
    compute: s?.computeDtype ?? "?",
    tokensPerSecondPerGpu: shownTokensPerSecond(s?.throughput),
    peakBytes: s?.memory.perGpuBytes?.reserved ?? null,
  };
}

/** One variant of the configured run: its label and the simulation input that reproduces it. */
export interface VariantInput {
  label: string;
  input: SimulationInput;
}

/**
 * The configured run's variants beside it: mixed precision toggled on the same layout, then the nearest FSDP
 * layout with bf16 mixed precision when the configured one has no FSDP. One source for the throughput
 * alternatives and the probe's variants (cli/probeCommand.ts).
 */
export function variantInputs(input: SimulationInput, sim: Simulation, worldSize: number): VariantInput[] {
  const L = input.layout;
  const name = degreesLabel(L);
  const out: VariantInput[] = [];
  const fp32Storage = input.trainingDtype === "float32";
  if (sim.mixedPrecisionApplied) {
    if (input.mechanism === "fully_shard") out.push({ label: `${name}, mixed precision off (mixed_precision_param = "float32")`, input: { ...input, paramDtype: "float32" } });
    else if (input.mechanism === "autocast") out.push({ label: `${name}, mixed precision off (no autocast)`, input: { ...input, mechanism: "none" } });
  } else if (fp32Storage) {
    // PR #2213 turns autocast on for TP layouts without FSDP; PP layouts never enter it (torchtitan.md §1.4).
    const pr2213 = L.tp > 1 && L.pp <= 1 ? " (as PR #2213 would apply)" : "";
    if (input.mechanism === "none") out.push({ label: `${name} with autocast bf16${pr2213}`, input: { ...input, mechanism: "autocast", paramDtype: "bfloat16" } });
    else if (input.mechanism === "fully_shard" || input.mechanism === "autocast") out.push({ label: `${name} with bf16 mixed precision`, input: { ...input, paramDtype: "bfloat16" } });
  }
  if (input.mechanism !== "fully_shard") {
    const near = nearestFsdpLayout(L, worldSize);
    if (near) out.push({ label: `${degreesLabel(near)} in bf16 (FSDP mixed precision)`, input: { ...input, mechanism: "fully_shard", ddp: false, layout: near, paramDtype: "bfloat16", reduceDtype: fp32Storage ? "float32" : input.reduceDtype } });
  }
  return out;
}

/** The configured run first, then its variants (`variantInputs`), each simulated. */
export function throughputAlternatives(input: SimulationInput, sim: Simulation, worldSize: number): ThroughputAlternative[] {
  const name = degreesLabel(input.layout);
  return [
    {
      label: `${name} as configured (${sim.mixedPrecisionApplied ? "mixed precision" : sim.computeDtype})`,
      mechanism: input.mechanism,
      compute: sim.computeDtype,
      tokensPerSecondPerGpu: shownTokensPerSecond(sim.throughput),
      peakBytes: sim.memory.perGpuBytes?.reserved ?? null,
    },
    ...variantInputs(input, sim, worldSize).map((v) => variant(v.label, v.input)),
  ];
}

/** The quick fix's layout (lower TP, else PP, so dp_shard > 1), or DDP's replicas turned into FSDP shards. */
export function nearestFsdpLayout(L: ParallelLayout, worldSize: number): ParallelLayout | undefined {
  for (const field of ["tp", "pp"] as const) {
    if (L[field] <= 1) continue;
    const lowered = lowerToEnableFsdp(L, field, worldSize);
    if (lowered) return { ...L, [field]: lowered.degree, dp_shard: lowered.dpShard };
  }
  if (L.dp_replicate > 1 && L.dp_shard <= 1 && L.tp <= 1 && L.pp <= 1) return { ...L, dp_shard: L.dp_replicate, dp_replicate: 1 };
  return undefined;
}
