/**
 * torchtitan's published benchmark runs, rebuilt as configs of their date (issue #11). Used by
 * test/engine-calibration.test.ts; run this file directly to print the README's "How good are the
 * estimates" table: `node --import tsx test/support/published-runs.ts`.
 *
 * Sources (pytorch/torchtitan, benchmarks/ folder):
 * - llama3_h100_202412_torchtitan.md (torchtitan 9dec370, 2024-12-26; 8 × H100 per host, NVLink, 400 Gb/s
 *   RDMA per GPU; 96 GB HBM2e at 500 W, see BENCH_H100_EFFICIENCY): Tables 1–6.
 * - llama3-8b_h200_202506_trainy-whitefiber.md (torchtitan e7c0cae, 2025-06-13; H200, 400 Gb/s per GPU).
 * Run settings not in the tables come from the train_configs of the same commit (llama3_8b.toml: seq_len
 * 8192, selective AC with selective_ac_option = 'op'; llama3_70b/405b.toml: seq_len 8192, full AC).
 */
import assert from "node:assert/strict";
import { parseDocument } from "../../server/src/core/analyze";
import { NO_ENV } from "../../server/src/core/analysis";
import { ASSUMPTIONS, GPUS, simulate } from "../../server/src/core/engine";
import type { Simulation } from "../../server/src/core/engine/types";
import { buildTitanContext, detectTorchtitan } from "../../server/src/core/frameworks/torchtitan/analyzer";

export const GiB = 1024 ** 3;
/**
 * The 2024-12 hosts' H100s: SXM boards (NVLink 900 GB/s, 8 per host) with 96 GB HBM2e at 500 W, whose
 * "actual peak TFLOPs number is between SXM and NVL" (the table's footnote 2). Estimated as an H100 SXM
 * whose compute realises only the NVL's peak: matmul_efficiency × NVL / SXM BF16 peak, the lower bound
 * the footnote names. A hardware description, the same for every run.
 */
const BENCH_H100_EFFICIENCY = String(Number(ASSUMPTIONS.matmul_efficiency.default) * (GPUS["h100-nvl"].tflops.bf16 / GPUS["h100-sxm"].tflops.bf16));

export interface Run {
  /** Table and row, as published. */
  name: string;
  tps: number;
  memGiB: number;
  worldSize: number;
  gpu?: string;
  toml: string;
}

/** A 2024-12 torchtitan config (keys of commit 9dec370: degrees in [training], CP/PP in [experimental]). */
function dec2024(o: { flavor: string; batch: number; seq: number; dpShard: number; tp?: number; pp?: number; cp?: number; ac: "op" | "full"; compile: boolean; float8: boolean; asyncTp?: boolean; schedule?: string }): string {
  return `# precision-lens: torchtitan-version=main@2024-12-26
[model]
name = "llama3"
flavor = "${o.flavor}"
norm_type = "rmsnorm"

[training]
batch_size = ${o.batch}
seq_len = ${o.seq}
data_parallel_replicate_degree = 1
data_parallel_shard_degree = ${o.dpShard}
tensor_parallel_degree = ${o.tp ?? 1}
compile = ${o.compile}

[experimental]
context_parallel_degree = ${o.cp ?? 1}
pipeline_parallel_degree = ${o.pp ?? 1}
${o.schedule ? `pipeline_parallel_schedule = "${o.schedule}"\n` : ""}${o.asyncTp ? "enable_async_tensor_parallel = true\n" : ""}
[activation_checkpoint]
mode = "${o.ac === "op" ? "selective" : "full"}"
${o.ac === "op" ? 'selective_ac_option = "op"\n' : ""}
[float8]
enable_float8_linear = ${o.float8}
${o.float8 ? "enable_fsdp_float8_all_gather = true\nprecompute_float8_dynamic_scale_for_fsdp = true\n" : ""}`;
}

const T1 = { flavor: "8B", batch: 2, seq: 8192, ac: "op" } as const;
const T2 = { flavor: "8B", batch: 1, ac: "full", compile: true, float8: true } as const;
const T6 = { flavor: "405B", batch: 8, tp: 8, pp: 8, ac: "full", compile: true, float8: true, asyncTp: true, schedule: "1F1B" } as const;

export const RUNS: Run[] = [
  // Table 1: 1D FSDP, Llama 3.1 8B, 8 GPUs, local batch 2, selective AC.
  { name: "T1 FSDP", tps: 5762, memGiB: 82.4, worldSize: 8, toml: dec2024({ ...T1, dpShard: 8, compile: false, float8: false }) },
  { name: "T1 FSDP + compile", tps: 6667, memGiB: 77.0, worldSize: 8, toml: dec2024({ ...T1, dpShard: 8, compile: true, float8: false }) },
  { name: "T1 FSDP + compile + Float8", tps: 8532, memGiB: 76.8, worldSize: 8, toml: dec2024({ ...T1, dpShard: 8, compile: true, float8: true }) },
  // Table 2: FSDP + CP + compile + Float8, 8B, 8 GPUs, local batch 1, full AC.
  { name: "T2 FSDP 8, CP 1, 32768", tps: 3890, memGiB: 83.9, worldSize: 8, toml: dec2024({ ...T2, seq: 32768, dpShard: 8, cp: 1 }) },
  { name: "T2 FSDP 4, CP 2, 65536", tps: 2540, memGiB: 84.2, worldSize: 8, toml: dec2024({ ...T2, seq: 65536, dpShard: 4, cp: 2 }) },
  { name: "T2 FSDP 2, CP 4, 131072", tps: 1071, memGiB: 84.0, worldSize: 8, toml: dec2024({ ...T2, seq: 131072, dpShard: 2, cp: 4 }) },
  { name: "T2 FSDP 1, CP 8, 262144", tps: 548, memGiB: 84.5, worldSize: 8, toml: dec2024({ ...T2, seq: 262144, dpShard: 1, cp: 8 }) },
  // Table 3: 1D FSDP, 8B, 128 GPUs, local batch 2, selective AC.
  { name: "T3 FSDP", tps: 5605, memGiB: 67.0, worldSize: 128, toml: dec2024({ ...T1, dpShard: 128, compile: false, float8: false }) },
  { name: "T3 FSDP + compile", tps: 6514, memGiB: 62.0, worldSize: 128, toml: dec2024({ ...T1, dpShard: 128, compile: true, float8: false }) },
  { name: "T3 FSDP + compile + Float8", tps: 8380, memGiB: 61.8, worldSize: 128, toml: dec2024({ ...T1, dpShard: 128, compile: true, float8: true }) },
  // Table 4: FSDP 32 + TP 8 + compile + Float8, 70B, 256 GPUs, local batch 16, full AC.
  { name: "T4 2D", tps: 829, memGiB: 71.9, worldSize: 256, toml: dec2024({ flavor: "70B", batch: 16, seq: 8192, dpShard: 32, tp: 8, ac: "full", compile: true, float8: true }) },
  { name: "T4 2D + AsyncTP", tps: 876, memGiB: 67.6, worldSize: 256, toml: dec2024({ flavor: "70B", batch: 16, seq: 8192, dpShard: 32, tp: 8, ac: "full", compile: true, float8: true, asyncTp: true }) },
  // Table 5: FSDP 8 + TP 8 + PP 8 + compile + Float8 + AsyncTP, 405B, 512 GPUs, local batch 32, full AC.
  { name: "T5 1F1B", tps: 100, memGiB: 82.5, worldSize: 512, toml: dec2024({ ...T6, batch: 32, seq: 8192, dpShard: 8 }) },
  { name: "T5 Interleaved 1F1B", tps: 128, memGiB: 72.7, worldSize: 512, toml: dec2024({ ...T6, batch: 32, seq: 8192, dpShard: 8, schedule: "Interleaved1F1B" }) },
  // Table 6: FSDP + TP 8 + PP 8 + CP + compile + Float8 + AsyncTP + 1F1B, 405B, 512 GPUs, local batch 8, full AC.
  { name: "T6 FSDP 8, CP 1, 32768", tps: 76, memGiB: 75.3, worldSize: 512, toml: dec2024({ ...T6, seq: 32768, dpShard: 8, cp: 1 }) },
  { name: "T6 FSDP 4, CP 2, 65536", tps: 47, memGiB: 75.9, worldSize: 512, toml: dec2024({ ...T6, seq: 65536, dpShard: 4, cp: 2 }) },
  { name: "T6 FSDP 2, CP 4, 131072", tps: 31, memGiB: 77.1, worldSize: 512, toml: dec2024({ ...T6, seq: 131072, dpShard: 2, cp: 4 }) },
  { name: "T6 FSDP 1, CP 8, 262144", tps: 16, memGiB: 84.9, worldSize: 512, toml: dec2024({ ...T6, seq: 262144, dpShard: 1, cp: 8 }) },
  // H200 (Trainy, 2025-06): llama3_8b.toml of e7c0cae + --training.local_batch_size=2 --training.compile
  // --model.converters=float8 --float8.enable_fsdp_float8_all_gather …, 4 and 8 nodes of 8.
  ...[
    [32, 10938, 47.96],
    [64, 10753, 46.97],
  ].map(([n, tps, mem]) => ({
    name: `H200 ${n! / 8} nodes`,
    tps: tps!,
    memGiB: mem!,
    worldSize: n!,
    gpu: "h200",
    toml: `# precision-lens: torchtitan-version=main@2025-06-13
[model]
name = "llama3"
flavor = "8B"
converters = ["float8"]

[training]
local_batch_size = 2
seq_len = 8192
compile = true

[parallelism]
data_parallel_replicate_degree = 1
data_parallel_shard_degree = -1
tensor_parallel_degree = 1

[activation_checkpoint]
mode = "selective"
selective_ac_option = "op"

[float8]
enable_fsdp_float8_all_gather = true
precompute_float8_dynamic_scale_for_fsdp = true
filter_fqns = ["output"]
`,
  })),
];

export function estimate(run: Run): Simulation {
  const doc = parseDocument(`file:///bench/${run.name.replace(/\W+/g, "_")}.toml`, run.toml, "toml");
  assert.ok(detectTorchtitan(doc), run.name);
  const { ctx } = buildTitanContext(doc, { worldSize: run.worldSize, gpu: run.gpu ?? "h100-sxm" }, NO_ENV);
  assert.ok(ctx.simulationInput, `${run.name}: no simulation (${ctx.decision.reason})`);
  const input = run.gpu ? ctx.simulationInput : { ...ctx.simulationInput, assumptions: { matmul_efficiency: BENCH_H100_EFFICIENCY } };
  const s = simulate(input);
  assert.ok(s?.throughput);
  return s;
}


if (require.main === module) {
  console.log("| run | published TPS/GPU | estimated | published memory (GiB, max reserved) | estimated |");
  console.log("|---|---:|---:|---:|---:|");
  for (const run of RUNS) {
    const s = estimate(run);
    const tps = s.throughput!.tokensPerSecondPerGpu;
    const mem = s.memory.perGpuBytes!.reserved / GiB;
    const pct = (x: number) => `${x >= 0 ? "+" : ""}${Math.round(x * 100)}%`;
    console.log(`| ${run.name} | ${run.tps} | ${Math.round(tps)} (${pct(tps / run.tps - 1)}) | ${run.memGiB} | ${mem.toFixed(1)} (${pct(mem / run.memGiB - 1)}) |`);
  }
}
