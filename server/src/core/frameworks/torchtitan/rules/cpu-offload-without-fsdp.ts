/**
 * cpu-offload-without-fsdp: CPU offload works only through FSDP; this layout has none.
 *
 * Training.enable_cpu_offload is implemented only through FSDP's
 * CPUOffloadPolicy; without FSDP the model is materialised on the CPU and nothing moves it back
 * (spec torchtitan.md §2.4, inferred from code paths, not executed).
 * On one GPU the failure is certain (spec §3.3, 2026-12 review): the model is built on the CPU
 * (v0.2.2 torchtitan/train.py:184-186, the same at v0.1.0 … v0.2.1) and each batch is moved to CUDA
 * (train.py:579-582), so the first embedding raises a device-mismatch RuntimeError at the first step: an error
 * when the world size is known to be 1 (the central gate, core/provenance.ts, downgrades it otherwise).
 */
import { diag } from "../../../diagnostics/build";
import { decidedBy } from "../related";
import { boolValue, findEntry } from "../../../model/document";
import type { TitanRule } from "../context";

export const cpuOffloadWithoutFsdp: TitanRule = {
  codes: ["cpu-offload-without-fsdp"],
  restsOn: ["worldSize"],
  run(ctx) {
    const e = findEntry(ctx.doc, "training", "enable_cpu_offload");
    if (!e || boolValue(e) !== true) return [];
    const m = ctx.decision.mechanism;
    if (m === "fully_shard" || m === "error") return [];
    const oneGpu = ctx.worldSize.value === 1 && ctx.layoutName === "single GPU";
    if (oneGpu) {
      return [
        diag("cpu-offload-without-fsdp", "error", e.range, "CPU offload on one GPU without FSDP: the weights stay on the CPU and the first step fails (device mismatch)", undefined, {
          detail: `training.enable_cpu_offload = true without FSDP on one GPU (${ctx.worldSize.detail}): torchtitan builds the model on the CPU and nothing moves it, while every batch goes to the GPU, so the first embedding raises a device-mismatch RuntimeError at the first step. Turn offload off (one GPU has nothing to shard), or enable FSDP on more GPUs.`,
          related: decidedBy(ctx, { shard: true, worldSize: true }),
        }),
      ];
    }
    return [
      diag(
        "cpu-offload-without-fsdp",
        "warning",
        e.range,
        `CPU offload needs FSDP, but this ${ctx.layoutName} layout has none: the weights stay on the CPU`,
        undefined,
        {
          detail: `training.enable_cpu_offload = true needs FSDP (it is applied through FSDP's CPUOffloadPolicy), but this ${ctx.layoutName} layout has no FSDP: the weights are built on the CPU and nothing moves them to the GPU, so the run is likely to fail or crawl. Enable FSDP (data_parallel_shard_degree > 1) or turn offload off.`,
          related: decidedBy(ctx, { shard: true, worldSize: true }),
        },
      ),
    ];
  },
};
