/**
 * torch.autocast op policy: ONE table per device (pytorch-dtypes.md §1.2 CUDA, §1.3 CPU), and the
 * algorithm of §1.6 that applies it. Lists are per device, not per dtype: bf16 and fp16 share them.
 *
 * Version-dependent entries are not in the table; they come from named assumptions (`rms_norm` from
 * PyTorch 2.12, see assumptions.ts) and are merged in by `policyFor`.
 */
import type { EDType } from "./dtypes";
import { isFloating } from "./dtypes";
import { promoteTypes } from "./promote";
import { table } from "../model/table";

export type AutocastPolicy = "lower_precision_fp" | "fp32" | "fp32_set_opt_dtype" | "fp32_append_dtype" | "promote" | "banned";
export type AutocastDevice = "cuda" | "cpu";

type PolicyTable = Record<Exclude<AutocastPolicy, never>, readonly string[]>;

/**
 * CUDA (also XPU) registrations, aten op names (overloads collapsed): the `AT_FORALL_*` lists of PyTorch
 * v2.13.0's `aten/src/ATen/autocast_mode.h` (the header the torch==2.13.0 wheel ships, lines 820-960),
 * pytorch-dtypes.md §1.2. `rms_norm` (on that fp32 list since 2.12) is version dependent and comes from the
 * `rms_norm_autocast` assumption instead (see `policyFor`).
 */
const CUDA: PolicyTable = {
  lower_precision_fp: [
    "_convolution", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "convolution", "cudnn_convolution", "cudnn_convolution_transpose", "prelu", "addmm", "addmv", "addr", "matmul",
    "einsum", "mm", "mv", "linalg_vecdot", "linear", "addbmm", "baddbmm", "bmm", "chain_matmul", "linalg_multi_dot",
    "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
    "_scaled_dot_product_flash_attention", "scaled_dot_product_attention",
  ],
  fp32: [
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt", "sinh", "tan",
    "pow", "softplus", "layer_norm", "native_layer_norm", "group_norm", "frobenius_norm", "nuclear_norm", "cosine_similarity",
    "poisson_nll_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss", "kl_div", "l1_loss",
    "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss", "multilabel_margin_loss", "soft_margin_loss",
    "triplet_margin_loss", "multi_margin_loss", "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm",
    "logsumexp", "upsample_nearest1d", "_upsample_nearest_exact1d", "upsample_nearest2d", "_upsample_nearest_exact2d",
    "upsample_nearest3d", "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d", "_upsample_bilinear2d_aa",
    "upsample_trilinear3d", "upsample_bicubic2d", "_upsample_bicubic2d_aa",
  ],
  fp32_set_opt_dtype: ["prod", "softmax", "log_softmax", "cumprod", "cumsum", "linalg_vector_norm", "linalg_matrix_norm", "sum"],
  fp32_append_dtype: ["norm"],
  promote: ["addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "grid_sampler", "index_put", "tensordot", "scatter_add"],
  banned: ["binary_cross_entropy"],
};

/**
 * CPU registrations, complete: the `TORCH_LIBRARY_IMPL(aten, AutocastCPU, m)` block of
 * `aten/src/ATen/autocast_mode.cpp` (pytorch@008ec6b1, the `KERNEL_CPU(...)` lines), checked against
 * PyTorch v2.13.0 itself: the set of ops with an AutocastCPU kernel in the torch==2.13.0 wheel
 * (`torch._C._dispatch_dump`, every op registered at autocast_mode.cpp) is exactly this list, overloads
 * collapsed (pytorch-dtypes.md §1.3). CPU registers no fp32_set_opt_dtype / fp32_append_dtype / banned ops:
 * softmax, log_softmax, sum, pow, exp, rsqrt, layer_norm and rms_norm fall through on CPU.
 */
const CPU: PolicyTable = {
  lower_precision_fp: [
    "conv1d", "conv2d", "conv3d", "bmm", "mm", "linalg_vecdot", "baddbmm", "addmm", "_addmm_activation", "addbmm", "linear",
    "_convolution", "matmul", "conv_tbc", "mkldnn_rnn_layer", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "prelu", "scaled_dot_product_attention", "_native_multi_head_attention",
  ],
  fp32: [
    "avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "quantile", "nanquantile", "stft", "cdist",
    "grid_sampler_2d", "_grid_sampler_2d_cpu_fallback", "grid_sampler_3d", "trace", "view_as_complex", "cholesky",
    "cholesky_inverse", "cholesky_solve", "inverse", "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d", "max_unpool2d",
    "max_unpool3d", "adaptive_avg_pool3d", "reflection_pad1d", "reflection_pad2d", "replication_pad1d", "replication_pad2d",
    "replication_pad3d", "mse_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss",
    "poisson_nll_loss", "smooth_l1_loss", "cross_entropy_loss", "l1_loss", "huber_loss", "margin_ranking_loss",
    "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss", "ctc_loss", "kl_div", "multilabel_margin_loss",
    "binary_cross_entropy_with_logits", "fft_fft", "fft_ifft", "fft_fft2", "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft",
    "fft_irfft", "fft_rfft2", "fft_irfft2", "fft_rfftn", "fft_irfftn", "fft_hfft", "fft_ihfft", "linalg_cond",
    "linalg_matrix_rank", "linalg_solve", "linalg_cholesky", "linalg_svdvals", "linalg_eigvals", "linalg_eigvalsh",
    "linalg_inv", "linalg_householder_product", "linalg_tensorinv", "linalg_tensorsolve", "fake_quantize_per_tensor_affine",
    "geqrf", "_lu_with_info", "qr", "svd", "triangular_solve", "fractional_max_pool2d", "fractional_max_pool3d",
    "adaptive_max_pool3d", "multilabel_margin_loss_forward", "linalg_qr", "linalg_cholesky_ex", "linalg_svd", "linalg_eig",
    "linalg_eigh", "linalg_lstsq", "linalg_inv_ex",
  ],
  fp32_set_opt_dtype: [],
  fp32_append_dtype: [],
  promote: ["stack", "cat", "index_copy"],
  banned: [],
};

export const AUTOCAST_TABLES: Readonly<Record<AutocastDevice, PolicyTable>> = table({ cuda: CUDA, cpu: CPU });

/** Extra registrations that depend on the PyTorch version (named assumptions resolve them). */
export interface AutocastExtras {
  /** Policy of `rms_norm` on CUDA, or undefined when it is not registered (falls through). */
  rmsNorm?: AutocastPolicy;
}

const LOOKUP = new Map<string, Map<string, AutocastPolicy>>();
function index(device: AutocastDevice): Map<string, AutocastPolicy> {
  let m = LOOKUP.get(device);
  if (!m) {
    m = new Map();
    for (const [policy, ops] of Object.entries(AUTOCAST_TABLES[device]) as [AutocastPolicy, readonly string[]][]) for (const op of ops) m.set(op, policy);
    LOOKUP.set(device, m);
  }
  return m;
}

/** The policy registered for an aten op on a device, or undefined when the op falls through autocast. */
export function policyFor(op: string, device: AutocastDevice = "cuda", extras: AutocastExtras = {}): AutocastPolicy | undefined {
  if (device === "cuda" && op === "rms_norm") return extras.rmsNorm;
  return index(device).get(op);
}

export interface AutocastCall {
  op: string;
  /** Tensor operand dtypes in call order (first = the op's first argument). */
  inputs: readonly EDType[];
  /** The call passes an explicit `dtype=` (not autocast-eligible, pytorch-dtypes.md §1.1). */
  explicitDtype?: EDType;
  /** In-place or `out=` variant: not autocast-eligible. */
  inplace?: boolean;
}

export interface AutocastContext {
  device: AutocastDevice;
  /** The autocast (lower-precision) dtype. */
  dtype: EDType;
  extras?: AutocastExtras;
}

export type AutocastOutcome =
  | { kind: "policy"; policy: AutocastPolicy; dtype: EDType; castInputsTo?: EDType; reason: string }
  | { kind: "fallthrough"; reason: string }
  | { kind: "error"; reason: string };

/**
 * Whether `torch.autocast(device, dtype=...)` stays enabled for a target dtype. Only the non-CUDA branches
 * of `autocast.__init__` check the dtype and disable themselves with a warning ("In CPU autocast, but the
 * target dtype is not supported. Disabling autocast."): PyTorch v1.13.1 torch/amp/autocast_mode.py:209-215
 * (CPU), while the CUDA branch (:223-225) only raises when the GPU lacks bf16, and the C++ setter takes any
 * dtype. The 2.x file (pytorch@00021b139) has the same shape, with fp16 added to the CPU list. So CUDA
 * autocast to float32 stays ON, with float32 as its "lower-precision" type: lower_precision_fp ops cast
 * their floating inputs to float32 (torchtitan.md §1.4 notes, corrected).
 */
export function autocastEnabled(device: AutocastDevice, dtype: EDType): { enabled: true } | { enabled: false; warning: string } {
  if (device === "cpu" && dtype !== "bfloat16" && dtype !== "float16") {
    return { enabled: false, warning: "In CPU autocast, but the target dtype is not supported. Disabling autocast." };
  }
  return { enabled: true };
}

/** Eligible = floating (fp64 excluded). Integers, bool and complex are never cast (§1.1). */
export function eligible(d: EDType): boolean {
  return isFloating(d) && d !== "float64";
}

/**
 * §1.6: what autocast does with one call. "fallthrough" means the op's own dtype rule applies to the
 * (uncast) inputs; the caller then runs ordinary promotion or the op's native rule.
 */
export function autocastOutcome(call: AutocastCall, ctx: AutocastContext): AutocastOutcome {
  if (call.inplace) return { kind: "fallthrough", reason: "in-place / out= variants are not autocast" };
  if (call.explicitDtype) return { kind: "fallthrough", reason: `explicit dtype=${call.explicitDtype} is not autocast` };
  const policy = policyFor(call.op, ctx.device, ctx.extras);
  if (!policy) return { kind: "fallthrough", reason: `${call.op} is not on the ${ctx.device} autocast lists (falls through)` };
  const elig = call.inputs.filter(eligible);
  if (policy === "banned") return { kind: "error", reason: `${call.op} raises inside a ${ctx.device} autocast region` };
  if (elig.length === 0) return { kind: "fallthrough", reason: "no autocast-eligible input (integer, complex or fp64 only)" };
  switch (policy) {
    case "lower_precision_fp":
      return { kind: "policy", policy, dtype: ctx.dtype, castInputsTo: ctx.dtype, reason: `autocast lower_precision_fp: ${call.op} casts its floating inputs to ${ctx.dtype}` };
    case "fp32":
      return { kind: "policy", policy, dtype: "float32", castInputsTo: "float32", reason: `autocast fp32 list: ${call.op} runs in float32` };
    case "fp32_append_dtype":
      return { kind: "policy", policy, dtype: "float32", reason: `autocast fp32_append_dtype: ${call.op} redispatches with dtype=float32` };
    case "fp32_set_opt_dtype":
      if (eligible(call.inputs[0] ?? "int64")) return { kind: "policy", policy, dtype: "float32", reason: `autocast fp32_set_opt_dtype: ${call.op} gets dtype=float32` };
      return { kind: "fallthrough", reason: `${call.op}: first argument not eligible, dtype left unset` };
    case "promote": {
      if (elig.includes("float32")) return { kind: "policy", policy, dtype: "float32", castInputsTo: "float32", reason: `autocast promote: an input is float32, so ${call.op} runs in float32` };
      const distinct = new Set(elig);
      if (distinct.size > 1) return { kind: "error", reason: `autocast promote: ${[...distinct].join(" and ")} mixed ("Unexpected floating ScalarType")` };
      return { kind: "policy", policy, dtype: elig[0]!, reason: `autocast promote: all inputs ${elig[0]}` };
    }
  }
  return { kind: "fallthrough", reason: "unreachable" };
}

/**
 * Convenience for single-op questions (§9 checklist): the output dtype of one op call under autocast, or
 * ordinary promotion for ops that fall through. Throws for the autocast errors.
 */
export function autocastOpDtype(call: AutocastCall, ctx: AutocastContext, native?: (inputs: readonly EDType[]) => EDType): EDType {
  const o = autocastOutcome(call, ctx);
  if (o.kind === "error") throw new Error(o.reason);
  if (o.kind === "policy") return o.dtype;
  if (call.explicitDtype) return call.explicitDtype;
  if (native) return native(call.inputs);
  const r = promoteTypes(call.inputs);
  if ("error" in r) throw new Error(r.error);
  return r.dtype;
}

/**
 * The weight-cast cache (§1.4). Only casts of fp32, requires_grad, leaf, non-view tensors (parameters)
 * to the lower-precision dtype are cached, per outermost autocast region, when `cache_enabled`.
 * Returns how many casts are performed for a sequence of uses.
 */
export interface CastUse {
  /** Tensor identity (a parameter FQN or an activation id). */
  tensor: string;
  dtype: EDType;
  isParam: boolean;
  /** Index of the outermost autocast region the use happens in (re-entering → a new region). */
  region: number;
}

export function countAutocastCasts(uses: readonly CastUse[], target: EDType, cacheEnabled = true): { casts: number; cached: number } {
  const cache = new Set<string>();
  let casts = 0;
  let cached = 0;
  for (const u of uses) {
    if (!eligible(u.dtype) || u.dtype === target) continue;
    const cacheable = cacheEnabled && u.isParam && u.dtype === "float32";
    const key = `${u.region}\u0000${u.tensor}`;
    if (cacheable && cache.has(key)) {
      cached++;
      continue;
    }
    casts++;
    if (cacheable) cache.add(key);
  }
  return { casts, cached };
}
