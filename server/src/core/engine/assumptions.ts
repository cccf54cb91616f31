/**
 * Named assumptions: every behaviour the spec marks [uncertain] or version dependent, and every
 * estimate the memory model makes, is a knob with a documented default. The simulation lists each one
 * with the value used and whether the caller overrode it.
 */

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
    doc: "How CUDA autocast treats aten rms_norm: not registered before PyTorch 2.12 (fallthrough), on the fp32 list from 2.12 (PR #174824), or `promote` if PR #191126 lands (pytorch-dtypes.md §1.2, §10). The TOML-era torchtitan (≤ v0.2.2, Feb 2026) ran on PyTorch < 2.12.",
  },
  rms_norm_mismatch: {
    values: ["input", "promote"],
    default: "input",
    doc: "rms_norm output when input and weight dtypes differ (outside autocast): the input dtype (fused-RMSNorm era, PR #153666/#159317) or promote(input, weight) (PyTorch ~2.4–2.6 composite). §6.2 notes.",
  },
  rms_norm_kernel: {
    values: ["fused", "composite"],
    default: "fused",
    doc: "RMSNorm implementation for activation memory: fused kernel (saves the input and an fp32 rstd) or the older composite (also saves an fp32 upcast of its input and the normalized tensor). §7.",
  },
  flex_attention_autocast: {
    values: ["fallthrough", "cast"],
    default: "fallthrough",
    doc: "flex_attention is a higher-order op: falls through autocast by default; newer PyTorch registers an impl that casts q/k/v to the autocast dtype. §1.2 (irrelevant for Llama: inputs are already 16-bit).",
  },
  fp32_sdpa_backend: {
    values: ["math", "efficient"],
    default: "math",
    doc: "SDPA backend for float32 inputs: torchtitan's backend list is cuDNN → Flash → Math, and cuDNN/Flash need 16-bit inputs, so fp32 attention runs the Math backend, which saves the S×S attention probabilities. §6.2 row 6.",
  },
  fsdp_unsharded_grad_dtype: {
    values: ["param", "reduce"],
    default: "param",
    doc: "dtype of FSDP2 unsharded gradients: param_dtype (releases read) or reduce_dtype (open PRs #194434/#197203). §2.8.",
  },
  ddp_comm_hook: {
    values: ["none", "bf16_compress", "fp16_compress"],
    default: "none",
    doc: "DDP communication hook. torchtitan registers none, so buckets are all-reduced in the gradient dtype. §3.1.",
  },
  ddp_gradient_as_bucket_view: {
    values: ["false", "true"],
    default: "false",
    doc: "DDP keeps .grad and bucket storage separately (+4 B/param) unless gradient_as_bucket_view=True; torchtitan's replicate() does not set it. §3.1, §7.",
  },
  autocast_cache: {
    values: ["enabled", "disabled"],
    default: "enabled",
    doc: "torch.autocast cache_enabled (default True): fp32 parameter casts are cached for the region, activations never. §1.4.",
  },
  fsdp_prefetch_units: {
    values: [],
    default: "2",
    doc: "Unsharded FSDP units alive at once when parameters are resharded after forward (current + prefetched). §7.",
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
    return [...this.used.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}
