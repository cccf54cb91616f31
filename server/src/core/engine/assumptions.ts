/**
 * Named assumptions: every behaviour the spec marks [uncertain] or version dependent, and every
 * estimate the memory model makes, is a knob with a documented default. The simulation lists each one
 * with the value used and whether the caller overrode it.
 */
import { compareNames } from "../model/collate";

export interface AssumptionDef {
  name: AssumptionName;
  /** Allowed values; the first is not necessarily the default. Empty = free-form number. */
  values: readonly string[];
  default: string;
  /** What the knob means, and the spec section behind it. */
  doc: string;
}

export const ASSUMPTIONS = {
  rms_norm_autocast: {
    values: ["fallthrough", "fp32", "promote"],
    default: "fallthrough",
    doc: "How CUDA autocast treats aten rms_norm: not registered before PyTorch 2.12 (fallthrough), on the fp32 list from 2.12 (PR #174824), or `promote` if PR #191126 lands. The TOML-era torchtitan (≤ v0.2.2, Feb 2026) ran on PyTorch < 2.12.",
  },
  rms_norm_mismatch: {
    values: ["input", "promote"],
    default: "input",
    doc: "rms_norm output when input and weight dtypes differ (outside autocast): the input dtype (fused-RMSNorm era, PR #153666/#159317) or promote(input, weight) (PyTorch ~2.4–2.6 composite)..2 notes.",
  },
  rms_norm_kernel: {
    values: ["fused", "composite"],
    default: "fused",
    doc: "RMSNorm implementation for activation memory: fused kernel (saves the input and an fp32 rstd) or the older composite (also saves an fp32 upcast of its input and the normalized tensor).",
  },
  flex_attention_autocast: {
    values: ["fallthrough", "cast"],
    default: "fallthrough",
    doc: "flex_attention is a higher-order op: falls through autocast by default; newer PyTorch registers an impl that casts q/k/v to the autocast dtype..2 (irrelevant for Llama: inputs are already 16-bit).",
  },
  fp32_sdpa_backend: {
    values: ["math", "efficient"],
    default: "math",
    doc: "SDPA backend for float32 inputs: torchtitan's backend list is cuDNN → Flash → Math, and cuDNN/Flash need 16-bit inputs, so fp32 attention runs the Math backend, which saves the S×S attention probabilities.",
  },
  fsdp_unsharded_grad_dtype: {
    values: ["param", "reduce"],
    default: "param",
    doc: "dtype of FSDP2 unsharded gradients: param_dtype (releases read) or reduce_dtype (open PRs #194434/#197203).",
  },
  ddp_comm_hook: {
    values: ["none", "bf16_compress", "fp16_compress"],
    default: "none",
    doc: "DDP communication hook. torchtitan registers none, so buckets are all-reduced in the gradient dtype.",
  },
  ddp_gradient_as_bucket_view: {
    values: ["false", "true"],
    default: "false",
    doc: "DDP keeps .grad and bucket storage separately (+4 B/param) unless gradient_as_bucket_view=True; torchtitan's replicate() does not set it.",
  },
  autocast_cache: {
    values: ["enabled", "disabled"],
    default: "enabled",
    doc: "torch.autocast cache_enabled (default True): fp32 parameter casts are cached for the region, activations never.",
  },
  fsdp_prefetch_units: {
    values: [],
    default: "2",
    doc: "Unsharded FSDP units alive at once when parameters are resharded after forward (current + prefetched).",
  },
  selective_ac_saved_fraction: {
    values: [],
    default: "0.5",
    doc: "Op-level selective AC (`selective_ac_option = \"op\"`): fraction of a block's activations kept (torchtitan saves matmul/attention outputs, recomputes every second matmul and pointwise ops). An estimate.",
  },
  pp_inflight_microbatches: {
    values: ["schedule", "all"],
    default: "schedule",
    doc: "Activations in flight under PP: min(microbatches, pp) for 1F1B-style schedules, all microbatches for GPipe (`schedule`), or always all.",
  },
  float8_filter_auto: {
    values: ["ignore"],
    default: "ignore",
    doc: "`auto_filter_small_kn` in filter_fqns is a size heuristic not modelled: it filters nothing extra.",
  },
  allocator_reserved_overhead: {
    values: [],
    default: "1.05",
    doc: "Reserved / allocated ratio of PyTorch's caching allocator at the peak (block rounding and fragmentation): the reserved estimate is the allocated peak times this. torchtitan logs max_reserved; its 2024-12 H100 benchmarks (benchmarks/llama3_h100_202412_torchtitan.md) read within a few percent of allocated on 8-GPU FSDP runs.",
  },
  matmul_efficiency: {
    values: [],
    default: "0.44",
    doc: "Fraction of the GPU's dense peak an eager-mode transformer step realises on its matmuls (kernel efficiency, launch gaps and the non-GEMM ops folded in). torchtitan reports 33% MFU for eager Llama 3.1 8B FSDP counted against the H100 SXM peak on 500 W H100s whose real peak lies between the NVL and SXM figures (benchmarks/llama3_h100_202412_torchtitan.md, footnote 2), i.e. about 39–44% of their own peak; Megatron-LM and MosaicML report 40–50% for dense LLMs on H100.",
  },
  compile_speedup: {
    values: [],
    default: "1.15",
    doc: "Step-time speedup of torch.compile on the model (fused pointwise ops): torchtitan's published MFU rises from 33% to 39% with compile on Llama 3.1 8B (benchmarks/llama3_h100_202412_torchtitan.md).",
  },
  attention_efficiency: {
    values: [],
    default: "0.6",
    doc: "Attention kernels (flash/cuDNN SDPA, causal) run at this fraction of the GEMM efficiency: FlashAttention-2/3 papers report 35–75% of peak forward and less backward, against ~70% for large GEMMs.",
  },
  float8_gemm_efficiency: {
    values: [],
    default: "0.65",
    doc: "Fraction of the FP8 tensor-core rate float8 linears realise relative to what bf16 GEMMs realise of theirs (dynamic scaling casts and amax reductions cost memory bandwidth): torchao reports 1.2–1.5× end-to-end over bf16 for tensorwise, not 2×. Rowwise scaling realises 0.8 of this (torchtitan's 2025-06 async-TP benchmarks: rowwise ≈ bf16 speed, torchtitan issue #1207).",
  },
  fp32_matmul_precision: {
    values: ["highest", "high"],
    default: "highest",
    doc: "torch.backends.cuda.matmul.allow_tf32 / set_float32_matmul_precision: PyTorch's default `highest` runs float32 matmuls on the FP32 (non-tensor-core) units; torchtitan does not change it (no allow_tf32 / set_float32_matmul_precision in its source). `high` uses TF32 tensor cores.",
  },
  comm_efficiency: {
    values: [],
    default: "0.7",
    doc: "Fraction of the link bandwidth NCCL collectives achieve (bus bandwidth in nccl-tests on NVLink 4 / 400G InfiniBand is 70–85% of the line rate).",
  },
  internode_gbps_per_gpu: {
    values: [],
    default: "400",
    doc: "Inter-node network per GPU in Gb/s (one 400G NDR InfiniBand / RoCE rail per GPU, as on DGX H100 and in torchtitan's benchmark hosts). Collectives whose group spans more GPUs than one node use it.",
  },
  overlap_exposed_fraction: {
    values: [],
    default: "0.1",
    doc: "Part of the FSDP / DDP / CP communication that stays exposed even when compute could hide it (the first all-gather, the last reduce-scatter, stream synchronisation). TP collectives are counted fully exposed (async TP: async_tp_exposed_fraction).",
  },
  async_tp_exposed_fraction: {
    values: [],
    default: "0.5",
    doc: "Part of the TP collective time async TP (with compile) still costs: its decomposed all-gather/reduce-scatter matmuls run less efficiently than the fused ones. torchtitan measured async-TP speedups of only 1.04–1.16 on H100 (benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md).",
  },
  cp_attention_overhead: {
    values: [],
    default: "0.1",
    doc: "Extra attention time per additional context-parallel rank (ring attention runs cp smaller kernels per layer and merges their outputs with the log-sum-exp rescaling).",
  },
  cpu_offload_gbps: {
    values: [],
    default: "25",
    doc: "Host↔device copy bandwidth per GPU for CPU offload, GB/s (PCIe Gen5 x16 is 64 GB/s per direction; pageable copies and shared root complexes reach less), and the CPU Adam step's memory traffic rate per GPU's shard.",
  },
} as const satisfies Record<string, Omit<AssumptionDef, "name">>;

export type AssumptionName = keyof typeof ASSUMPTIONS;

export interface AssumptionUse {
  name: AssumptionName;
  value: string;
  default: string;
  /** True when the caller set it explicitly. */
  overridden: boolean;
  doc: string;
  /** False when the value was read but made no difference to this simulation (shown, but marked). */
  relevant: boolean;
}

/** Resolves assumption values; unknown values fall back to the default (and are reported as such). */
export class Assumptions {
  private readonly used = new Map<AssumptionName, AssumptionUse>();

  constructor(private readonly overrides: Partial<Record<AssumptionName, string>> = {}) {}

  get(name: AssumptionName, relevant = true): string {
    const def = ASSUMPTIONS[name];
    const raw = this.overrides[name];
    const values = def.values as readonly string[];
    const valid = raw !== undefined && (values.length === 0 ? Number.isFinite(Number(raw)) : values.includes(raw));
    const value = valid ? raw! : def.default;
    const prev = this.used.get(name);
    this.used.set(name, { name, value, default: def.default, overridden: valid && raw !== def.default, doc: def.doc, relevant: relevant || (prev?.relevant ?? false) });
    return value;
  }

  num(name: AssumptionName, relevant = true): number {
    return Number(this.get(name, relevant));
  }

  list(): AssumptionUse[] {
    const rank = assumptionRank();
    return [...this.used.values()].sort((a, b) => rank.get(a.name)! - rank.get(b.name)!);
  }
}

/**
 * Each assumption's place in `localeCompare` order of the names, computed once: `list()` runs for every
 * simulation (a CLI run of the corpus's 54 TOMLs sorts hundreds of times), and a locale comparison per
 * pair was ~9% of that run's profile (issue #36). Same order as before, the names being a fixed table;
 * `compareNames` gives `localeCompare`'s order without loading ICU (model/collate.ts).
 */
let rankCache: Map<string, number> | undefined;
function assumptionRank(): Map<string, number> {
  rankCache ??= new Map(Object.keys(ASSUMPTIONS).sort(compareNames).map((n, i) => [n, i]));
  return rankCache;
}
