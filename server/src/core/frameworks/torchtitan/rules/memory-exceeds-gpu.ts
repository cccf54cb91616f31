/**
 * memory-exceeds-gpu: The estimated peak memory per GPU exceeds the GPU's capacity.
 *
 * The estimated reserved peak per GPU is at least 15% above the GPU's memory.
 * Information when 15–50% over: it is an estimate (named assumptions, allocator overhead), so below a clear margin
 * nothing is said, and the message names the terms that dominate so the user can judge.
 * Silent when the world size is only the run_train.sh default (source "default"): the per-GPU figure of a
 * `-1` layout then rests on a guess (a 70B preset is meant for many nodes), and a guess is no finding.
 * Silent too when the file sets the model's shape itself (`vocab_size`, `dim`, `n_layers`, ... in any table):
 * upstream torchtitan's TOML has no such key, so a fork reads them, and the estimate, built from upstream's
 * flavor table, would contradict the file (issue #17 §2: a fork's `training.vocab_size = 256` against
 * llama3's 128,256-token vocabulary).
 */
import { diag, fitMessage } from "../../../diagnostics/build";
import { GPUS } from "../../../engine/gpus";
import { formatBytes } from "../../../engine/dtypes";
import { findEntry, findSection, type ConfigDocument, type ConfigEntry } from "../../../model/document";
import type { TitanRule } from "../context";
import { worldSizePhrase } from "../locate";
import { table } from "../../../model/table";

const GPU_SOURCE: Readonly<Record<string, string>> = table({
  setting: "the precisionLens.gpu setting",
  directive: "the gpu= directive",
  default: "the default; set precisionLens.gpu",
  comment: "a comment in the file",
  "file-name": "the file name",
  folder: "the folder the file is in",
});

/** Over by at least this fraction of the GPU's capacity before anything is said. */
export const MEMORY_MARGIN = 0.15;

/**
 * At this multiple of the GPU's memory or more the estimate is a warning, not information (issue #34: 200 GiB
 * per GPU on 80 GB cards read as information): no modelling error of the named assumptions closes a gap of 50%.
 */
export const MEMORY_WARNING_FACTOR = 1.5;

/** Leaf names that set a model's shape; no upstream torchtitan TOML key has one (schema/data.ts). */
const SHAPE_KEYS: ReadonlySet<string> = new Set(["vocab_size", "dim", "n_layers", "n_heads", "n_kv_heads", "hidden_size", "num_layers", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "intermediate_size", "ffn_dim", "ffn_hidden_size", "multiple_of", "ffn_dim_multiplier"]);

/** The first entry of the file that sets the model's shape, if any. */
export function shapeOverride(doc: ConfigDocument): ConfigEntry | undefined {
  return doc.entries.find((e) => e.path.length > 0 && SHAPE_KEYS.has(e.path[e.path.length - 1]!));
}

export const memoryExceedsGpu: TitanRule = {
  codes: ["memory-exceeds-gpu"],
  restsOn: ["worldSize", "gpu"],
  run(ctx) {
    const mem = ctx.simulation?.memory;
    // The default GPU while the file's name names another (GB300, no figures): the capacity would contradict the file.
    if (!mem?.perGpuBytes || ctx.worldSize.source === "default" || ctx.gpu.source === "default-contradicted" || shapeOverride(ctx.doc)) return [];
    const gpu = GPUS[ctx.gpu.value];
    const reserved = mem.perGpuBytes.reserved;
    if (reserved < gpu.memoryBytes * (1 + MEMORY_MARGIN)) return [];
    const anchor =
      findEntry(ctx.doc, "training", "local_batch_size") ??
      findEntry(ctx.doc, "training", "batch_size") ??
      findEntry(ctx.doc, "training", "seq_len");
    const range = anchor?.range ?? findSection(ctx.doc, "training")?.headerRange ?? ctx.doc.sections[0]?.headerRange;
    if (!range) return [];
    const top = [...mem.terms].sort((a, b) => b.bytes - a.bytes).slice(0, 3).map((t) => `${t.name} ${formatBytes(t.bytes)}`);
    const over = Math.round((reserved / gpu.memoryBytes - 1) * 100);
    const offload = mem.cpuBytes ? " (parameters, gradients and optimizer states are offloaded to the CPU and not counted)" : "";
    const warning = reserved >= gpu.memoryBytes * MEMORY_WARNING_FACTOR;
    // The assumptions the figure rests on, named (the GPU, the world size, the allocator's overhead).
    const overhead = ctx.simulation?.assumptions.find((a) => a.name === "allocator_reserved_overhead")?.value ?? "1.05";
    const assumptions = ` It rests on these assumptions: the GPU is an ${gpu.label} (${GPU_SOURCE[ctx.gpu.source] ?? ctx.gpu.source}); the world size is ${ctx.worldSize.value} (from ${ctx.worldSize.detail}); reserved = allocated × allocator_reserved_overhead ${overhead}; the model's sizes are upstream's ${ctx.simulation?.model ? `${ctx.simulation.model.name} ${ctx.simulation.model.flavor}` : "flavor"} table.`;
    return [
      diag(
        "memory-exceeds-gpu",
        warning ? "warning" : "information",
        range,
        fitMessage(`Estimated peak memory ≈ ${formatBytes(reserved)} per GPU is ${over}% above the ${gpu.label}'s ${formatBytes(gpu.memoryBytes)}: ${warning ? "it will not fit" : "it may run out of memory"}`),
        undefined,
        {
          detail: `Estimated peak memory ≈ ${formatBytes(reserved)} per GPU (reserved; ${formatBytes(mem.perGpuBytes.peak)} allocated) for this ${ctx.layoutName} run on ${worldSizePhrase(ctx)} is ${over}% above the ${gpu.label}'s ${formatBytes(gpu.memoryBytes)} (GPU from ${GPU_SOURCE[ctx.gpu.source] ?? ctx.gpu.source}). This is an estimate; the largest terms: ${top.join(", ")}${offload}. Lower local_batch_size or seq_len, checkpoint more activations, or shard over more GPUs.${assumptions}`,
        },
      ),
    ];
  },
};
