/**
 * Step time and tokens per second per GPU, predicted from the simulated step — not looked up.
 *
 * compute: matmul FLOPs per token (2 per parameter of every linear, forward; backward twice that) plus
 *   causal attention (2·S·D per layer forward; the float32 Math backend computes the full S×S: 4·S·D),
 *   plus what activation checkpointing recomputes, each at the tensor-core (or FP32) rate of the dtype
 *   the simulation says the op computes in, times the realised efficiency (named assumptions);
 * communication: the simulated collectives in their dtypes over NVLink / PCIe inside a node or the
 *   inter-node network, TP fully exposed, FSDP / DDP / CP hidden behind compute except a stated fraction
 *   and whatever compute cannot cover;
 * pipeline bubble: (pp − 1) / (v·m + pp − 1) of the step for m microbatches and v stages per rank;
 * CPU offload: shard / gradient copies over PCIe and the CPU optimizer step.
 *
 * TPS per GPU is counted as torchtitan logs it: local_batch_size · seq_len tokens per step divided by
 * cp · tp · pp (train.py `ntokens / (time_delta * non_data_parallel_size)`); MFU uses torchtitan's
 * `6 · (params − embedding) + 12 · layers · dim · seq_len` FLOPs per token against the GPU's dense BF16 peak.
 */
import { DTYPE_BYTES, type EDType } from "./dtypes";
import { GPUS, DEFAULT_GPU, type GpuId, type GpuSpec } from "./gpus";
import { paramCounts, numel } from "./models";
import { ppSchedule } from "./memory";
import { reshardAfterForward, stepShape, type SimContext } from "./context";
import type { Collective, MemoryEstimate, OpResult, ThroughputEstimate, ThroughputJson, ThroughputTerm } from "./types";

export type { ThroughputAlternative, ThroughputEstimate, ThroughputJson, ThroughputTerm } from "./types";

const B = (d: EDType): number => DTYPE_BYTES[d];

/** Dense peak TFLOP/s for a compute dtype; fp32 honours the fp32_matmul_precision assumption. */
function peakFor(gpu: GpuSpec, dtype: EDType, ctx: SimContext, notes: Set<string>): number {
  switch (dtype) {
    case "bfloat16":
      return gpu.tflops.bf16;
    case "float16":
      return gpu.tflops.fp16;
    case "float8_e4m3fn":
    case "float8_e5m2":
      if (gpu.tflops.fp8 === undefined) {
        notes.add(`${gpu.label} has no FP8 tensor cores: float8 linears need compute capability 8.9+ (torchao raises); estimated at the BF16 rate.`);
        return gpu.tflops.bf16;
      }
      return gpu.tflops.fp8;
    case "float32":
      return ctx.assumptions.get("fp32_matmul_precision") === "high" ? gpu.tflops.tf32 : gpu.tflops.fp32;
    default:
      return gpu.tflops.fp32;
  }
}

/** Fractions of the forward the AC mode runs again in backward: block linears, attention. */
function recomputeFractions(ctx: SimContext, layers: number): { linear: number; attention: number; how: string } {
  const mode = ctx.input.activationCheckpoint ?? "selective";
  switch (mode) {
    case "none":
      return { linear: 0, attention: 0, how: "no recompute" };
    case "full":
      return { linear: 1, attention: 1, how: "full AC recomputes every block's forward" };
    case "memory_budget": {
      const b = ctx.input.memoryBudget ?? 0.5;
      return { linear: 1 - b, attention: 1 - b, how: `memory_budget AC recomputes ≈${(1 - b).toFixed(2)} of the forward` };
    }
    case "selective": {
      const opt = ctx.input.selectiveAcOption ?? "2";
      // torchtitan's op-level policy saves every other matmul and SDPA: half the block GEMMs run again.
      if (opt === "op") return { linear: 0.5, attention: 0, how: "op-level selective AC recomputes every second block matmul" };
      const n = Math.max(1, parseInt(opt, 10) || 2);
      const f = Math.floor(layers / n) / layers;
      return { linear: f, attention: f, how: n === 1 ? "selective AC recomputes every block" : `selective AC recomputes one block in ${n}` };
    }
  }
}

/** Collective bandwidth (B/s) for a group of `size` ranks spaced `stride` apart in torchtitan's mesh order. */
function groupBandwidth(ctx: SimContext, gpu: GpuSpec, size: number, stride: number): { bps: number; where: string } {
  const eff = ctx.assumptions.num("comm_efficiency");
  if (size * stride <= gpu.gpusPerNode) return { bps: gpu.intraNodeGBps * 1e9 * eff, where: `intra-node ${gpu.intraNodeGBps} GB/s` };
  const gbps = ctx.assumptions.num("internode_gbps_per_gpu");
  return { bps: (gbps / 8) * 1e9 * eff, where: `inter-node ${gbps} Gb/s per GPU` };
}

/**
 * The smallest model the throughput estimate is calibrated on: Llama 3.1 8B, the smallest of torchtitan's
 * published runs (docs/estimates.md, "How good are the estimates"; test/engine-calibration.test.ts). Below
 * it no tokens/s, step time or MFU is shown: a model that small is bound by kernel launches, the optimizer
 * step and host overheads, which the FLOPs model does not see (the debug model read 5.7 million tokens/s).
 */
export const CALIBRATED_MIN_PARAMS = 8.0e9;

function belowCalibration(params: number): string {
  const size = params >= 1e9 ? `${(params / 1e9).toFixed(1)}B` : params >= 1e6 ? `${Math.round(params / 1e6)}M` : `${Math.round(params / 1e3)}K`;
  return `not estimated for a ${size}-parameter model: the estimate is calibrated from 8B parameters up, and a model this small is bound by kernel launches and overheads, not by its FLOPs`;
}

/** Tokens/s per GPU of an estimate, or null when it is withheld (a model below the calibrated size). */
export function shownTokensPerSecond(t: ThroughputEstimate | undefined): number | null {
  return t && !t.withheld ? t.tokensPerSecondPerGpu : null;
}

export function estimateStepThroughput(
  ctx: SimContext,
  forward: OpResult[],
  collectives: Collective[],
  memory: MemoryEstimate,
  gpuId: GpuId = DEFAULT_GPU,
): ThroughputEstimate | undefined {
  const arch = ctx.arch;
  if (!arch || memory.paramsPerGpu === undefined) return undefined;
  const gpu = GPUS[gpuId];
  const L = ctx.input.layout;
  const { tp, pp, cp, seq, local } = stepShape(ctx);
  const D = arch.dims.dim;
  const layers = arch.dims.nLayers;
  const notes = new Set<string>();
  const terms: ThroughputTerm[] = [];
  const term = (name: string, seconds: number, detail: string): void => {
    if (seconds > 0) terms.push({ name, seconds, detail });
  };

  // Tokens each GPU pushes through its share of the model per step (TP ranks share tokens, CP splits them).
  const tokens = (local * seq) / cp;
  const share = 1 / (tp * pp);
  const eff = ctx.assumptions.num("matmul_efficiency") * (ctx.input.compile?.model ? ctx.assumptions.num("compile_speedup") : 1);
  const rec = recomputeFractions(ctx, layers);

  // Linears, grouped by the dtype each computes in (float8 GEMMs at the FP8 rate, derated).
  const f8eff = ctx.assumptions.num("float8_gemm_efficiency") * (ctx.float8?.recipe.name === "rowwise" || ctx.float8?.recipe.name === "rowwise_with_gw_hp" ? 0.8 : 1);
  let linearSeconds = 0;
  const linearDtypes = new Set<string>();
  for (const p of arch.params) {
    if (!p.isLinear) continue;
    const r = forward.find((o) => o.op === p.op);
    if (!r) continue;
    const isF8 = !!r.float8 && !!r.computeDtype;
    const dtype: EDType = isF8 ? r.computeDtype! : r.dtype;
    let rate = peakFor(gpu, dtype, ctx, notes) * 1e12 * eff;
    if (isF8 && gpu.tflops.fp8 !== undefined) rate = Math.max(gpu.tflops.bf16 * 1e12 * eff, rate * f8eff);
    linearDtypes.add(isF8 ? `${dtype} (float8)` : dtype);
    const fwd = 2 * numel(p) * p.count;
    const flops = fwd * (3 + (p.perBlock ? rec.linear : 0));
    linearSeconds += (tokens * share * flops) / rate;
  }
  term("compute_linears", linearSeconds, `matmuls in ${[...linearDtypes].join(", ")}: 6 FLOPs per parameter per token${rec.linear ? ` + ${rec.how}` : ""}, at ${(eff * 100).toFixed(0)}% of ${gpu.label}'s peak${ctx.input.compile?.model ? " (torch.compile)" : ""}`);

  // Attention.
  const attn = forward.find((o) => o.kind === "attention");
  if (attn) {
    const math = arch.dims.attention === "sdpa" && attn.dtype === "float32" && ctx.assumptions.get("fp32_sdpa_backend") === "math";
    const perLayerFwd = (math ? 4 : 2) * seq * D; // per token; causal kernels skip the masked half
    const flops = layers * perLayerFwd * (3 + rec.attention);
    const cpFactor = 1 + ctx.assumptions.num("cp_attention_overhead") * (cp - 1);
    const rate = (peakFor(gpu, attn.dtype, ctx, notes) * 1e12 * eff * ctx.assumptions.num("attention_efficiency")) / cpFactor;
    term("compute_attention", (tokens * share * flops) / rate, `${math ? "float32 Math SDPA (full S×S, no causal skip)" : "causal attention"} in ${attn.dtype}, ${seq} tokens of context${cp > 1 ? `, ring attention over cp = ${cp}` : ""}`);
  }
  const compute = terms.reduce((a, t) => a + t.seconds, 0);

  const exposedFrac = ctx.assumptions.num("overlap_exposed_fraction");
  // TP: sequence-parallel all-gathers / reduce-scatters around attention and FFN, exposed.
  let tpSeconds = 0;
  if (tp > 1) {
    const bw = groupBandwidth(ctx, gpu, tp, 1);
    const ag = collectives.find((c) => c.name === "tp_norm_all_gather")?.dtype ?? "bfloat16";
    const rs = collectives.find((c) => c.name === "tp_projection_reduce_scatter")?.dtype ?? "bfloat16";
    const perLayerBytes = 2 * tokens * D * (B(ag) + B(rs)) * ((tp - 1) / tp); // 2 AG + 2 RS per layer, forward
    const passes = 2 + rec.attention; // forward, backward, recompute
    const total = (perLayerBytes * passes * Math.ceil(layers / pp)) / bw.bps;
    // Async TP (micro-pipelined all-gather/reduce-scatter matmuls) needs torch.compile to take effect.
    const asyncTp = !!ctx.input.asyncTp && !!ctx.input.compile?.model;
    const asyncFrac = asyncTp ? ctx.assumptions.num("async_tp_exposed_fraction") : 1;
    tpSeconds = total * asyncFrac;
    term("tp_collectives", tpSeconds, `${ag} all-gathers and ${rs} reduce-scatters of the sequence-parallel activations, forward + backward${rec.attention ? " + recompute" : ""}, ${bw.where} (${asyncTp ? `async TP: ${asyncFrac * 100}% of ${(total * 1000).toFixed(0)} ms still costs` : "not overlapped"})`);
  }

  // Pipeline bubble.
  let bubbleSeconds = 0;
  if (pp > 1) {
    const s = ppSchedule(ctx);
    const bubble = (pp - 1) / (s.virtualStages * s.microbatches + pp - 1);
    bubbleSeconds = ((compute + tpSeconds) * bubble) / (1 - bubble);
    term("pp_bubble", bubbleSeconds, `${s.name}: (pp − 1) / (v·m + pp − 1) = ${(bubble * 100).toFixed(0)}% idle with ${s.microbatches} microbatches, ${s.virtualStages} stage(s) per rank`);
  }

  // Overlappable collectives: FSDP, HSDP / DDP all-reduce, CP ring exchange.
  let overlapComm = 0;
  const commDetail: string[] = [];
  const stageParams = memory.paramsPerGpu;
  const N = memory.shardDegree;
  if (ctx.fsdp && N > 1) {
    const bw = groupBandwidth(ctx, gpu, N, tp);
    const agDtype = collectives.find((c) => c.name === "fsdp_all_gather")?.dtype ?? "bfloat16";
    const rsDtype = collectives.find((c) => c.name === "fsdp_reduce_scatter")?.dtype ?? "float32";
    const ags = reshardAfterForward(ctx) ? 2 : 1;
    const bytes = stageParams * (ags * B(agDtype) + B(rsDtype)) * ((N - 1) / N);
    overlapComm += bytes / bw.bps;
    commDetail.push(`FSDP ${ags}× ${agDtype} all-gather + ${rsDtype} reduce-scatter over ${N} ranks (${bw.where})`);
  }
  const R = Math.max(1, L.dp_replicate);
  if (R > 1) {
    const ar = collectives.find((c) => c.name === "hsdp_all_reduce" || c.name === "ddp_all_reduce");
    if (ar) {
      const bw = groupBandwidth(ctx, gpu, R, tp * cp * Math.max(1, L.dp_shard));
      overlapComm += (2 * (stageParams / N) * B(ar.dtype) * ((R - 1) / R)) / bw.bps;
      commDetail.push(`${ar.dtype} gradient all-reduce over dp_replicate = ${R} (${bw.where})`);
    }
  }
  if (cp > 1) {
    const bw = groupBandwidth(ctx, gpu, cp, tp);
    const kvBytes = tokens * ((arch.dims.nKvHeads * arch.headDim) / tp) * B(attn?.dtype ?? "bfloat16") * 2;
    overlapComm += (kvBytes * (cp - 1) * (3 + rec.attention) * Math.ceil(layers / pp)) / bw.bps;
    commDetail.push(`CP ring exchange of K/V (and their gradients) over cp = ${cp} (${bw.where})`);
  }
  const exposed = overlapComm > 0 ? Math.max(0, overlapComm - compute) + exposedFrac * Math.min(overlapComm, compute) : 0;
  term("exposed_communication", exposed, `${commDetail.join("; ")}: ${(overlapComm * 1000).toFixed(0)} ms per step, overlapped with compute except ${exposedFrac * 100}% and any excess`);

  // CPU offload: shard and gradient copies over PCIe, the optimizer step on the CPU.
  if (ctx.input.cpuOffload && ctx.fsdp) {
    const gbps = ctx.assumptions.num("cpu_offload_gbps") * 1e9;
    const shard = stageParams / N;
    const st = B(ctx.storage);
    const seconds = (shard * 2 * st) / gbps + (shard * (2 * st + 2 * 2 * st)) / gbps;
    term("cpu_offload", seconds, `shards H2D and gradients D2H over PCIe, AdamW on the CPU (${(shard / 1e9).toFixed(2)}B parameters of this rank)`);
  }

  const step = compute + tpSeconds + bubbleSeconds + exposed + (terms.find((t) => t.name === "cpu_offload")?.seconds ?? 0);
  const tps = (local * seq) / (step * cp * tp * pp);
  const counts = paramCounts(arch);
  const modelFlops = 6 * (counts.total - counts.embedding) + 12 * layers * D * seq;
  const mfu = (tps * modelFlops) / (gpu.tflops.bf16 * 1e12);
  const withheld = counts.total < CALIBRATED_MIN_PARAMS ? belowCalibration(counts.total) : undefined;
  return { ...(withheld ? { withheld } : {}), tokensPerSecondPerGpu: tps, stepSeconds: step, mfu, gpu: { value: gpuId, source: ctx.input.gpu ? "input" : "default" }, terms, alternatives: [], notes: [...notes] };
}

export function throughputToJson(t: ThroughputEstimate): ThroughputJson {
  return { ...(t.withheld ? { withheld: t.withheld } : {}), tokensPerSecondPerGpu: t.tokensPerSecondPerGpu, stepSeconds: t.stepSeconds, mfu: t.mfu, gpu: { ...t.gpu }, alternatives: t.alternatives.map((a) => ({ ...a })) };
}

