/**
 * Model architectures the simulator knows, as dimensions only; parameter counts are computed from them.
 *
 * Source: torchtitan's published llama3 flavors (`torchtitan/models/llama3/__init__.py`, `llama3_configs`
 * / `llama3_args`, TOML era v0.1.0 … v0.2.2, same dims on HEAD): debugmodel dim 256, 6 layers, 16 heads,
 * vocab 2048 (2000 in early 2025 copies); 8B dim 4096, 32 layers, 32 heads, 8 kv heads,
 * ffn_dim_multiplier 1.3, multiple_of 1024; 70B dim 8192, 80 layers, 64 heads, 8 kv heads, 1.3, 4096;
 * 405B dim 16384, 126 layers, 128 heads, 8 kv heads, 1.2, 4096. Vocabulary 128256 (Llama 3 tokenizer,
 * the model-args default). The *_flex_attn / *_varlen_attn flavors differ only in the attention backend.
 * FFN hidden size follows torchtitan's FeedForward: 4·dim → ⌊2/3⌋ → ×ffn_dim_multiplier → round up to
 * multiple_of. No biases; untied embedding and output.
 */

import { table } from "../model/table";

export type AttentionBackend = "sdpa" | "flex" | "varlen";

export interface LlamaDims {
  dim: number;
  nLayers: number;
  nHeads: number;
  nKvHeads: number;
  vocabSize: number;
  multipleOf: number;
  ffnDimMultiplier?: number;
  attention: AttentionBackend;
}

export interface ModelArch {
  name: string;
  flavor: string;
  dims: LlamaDims;
  headDim: number;
  ffnHidden: number;
  params: ParamGroup[];
}

/** How a parameter is split by torchtitan's classic TP plan (§4.2): sharded over tp, or replicated. */
export type TpPlacement = "sharded" | "replicated";

export interface ParamGroup {
  /** FQN pattern, `layers.*.` for per-block parameters. */
  fqn: string;
  /** Op (from ops.ts) that consumes the parameter. */
  op: string;
  shape: [number, number] | [number];
  /** Number of such tensors in the model (n_layers for per-block ones). */
  count: number;
  perBlock: boolean;
  isLinear: boolean;
  tp: TpPlacement;
  /** FSDP unit: "tok_embeddings" | "block" | "norm_output". */
  fsdpUnit: "tok_embeddings" | "block" | "norm_output";
}

export function ffnHiddenDim(dim: number, multipleOf: number, ffnDimMultiplier?: number): number {
  let hidden = 4 * dim;
  hidden = Math.floor((2 * hidden) / 3);
  if (ffnDimMultiplier !== undefined) hidden = Math.floor(ffnDimMultiplier * hidden);
  return multipleOf * Math.ceil(hidden / multipleOf);
}

const LLAMA3_VOCAB = 128256;
const base = {
  debugmodel: { dim: 256, nLayers: 6, nHeads: 16, nKvHeads: 16, vocabSize: 2048, multipleOf: 256 },
  "8B": { dim: 4096, nLayers: 32, nHeads: 32, nKvHeads: 8, vocabSize: LLAMA3_VOCAB, multipleOf: 1024, ffnDimMultiplier: 1.3 },
  "70B": { dim: 8192, nLayers: 80, nHeads: 64, nKvHeads: 8, vocabSize: LLAMA3_VOCAB, multipleOf: 4096, ffnDimMultiplier: 1.3 },
  "405B": { dim: 16384, nLayers: 126, nHeads: 128, nKvHeads: 8, vocabSize: LLAMA3_VOCAB, multipleOf: 4096, ffnDimMultiplier: 1.2 },
} as const;

export const LLAMA3_FLAVORS: Readonly<Record<string, LlamaDims>> = table({
  debugmodel: { ...base.debugmodel, attention: "sdpa" },
  debugmodel_flex_attn: { ...base.debugmodel, attention: "flex" },
  debugmodel_varlen_attn: { ...base.debugmodel, attention: "varlen" },
  "8B": { ...base["8B"], attention: "sdpa" },
  "8B_flex": { ...base["8B"], attention: "flex" },
  "8B_varlen": { ...base["8B"], attention: "varlen" },
  "70B": { ...base["70B"], attention: "sdpa" },
  "405B": { ...base["405B"], attention: "sdpa" },
});

/** Model names whose blocks are the llama3 block (simple_fsdp / autoparallel / ft wrap the same model). */
const LLAMA3_NAMES = new Set(["llama3", "llama3_ft", "simple_fsdp.llama3", "compiler_toolkit.llama3", "autoparallel.llama3"]);

export function isLlama3Name(name: string | undefined): boolean {
  return name === undefined || LLAMA3_NAMES.has(name);
}

/** The architecture for `[model] name`/`flavor`, or undefined when unknown (memory then has no absolute bytes). */
const ARCH_CACHE = new Map<string, ModelArch>();

/** Shared, read-only results: callers must not mutate the returned architecture. */
export function modelArch(name: string | undefined, flavor: string | undefined): ModelArch | undefined {
  if (!isLlama3Name(name)) return undefined;
  const f = flavor ?? "debugmodel";
  const dims = Object.prototype.hasOwnProperty.call(LLAMA3_FLAVORS, f) ? LLAMA3_FLAVORS[f] : undefined;
  if (!dims) return undefined;
  const key = `${name ?? "llama3"}\u0000${f}`;
  let arch = ARCH_CACHE.get(key);
  if (!arch) {
    arch = buildArch(name ?? "llama3", f, dims);
    ARCH_CACHE.set(key, arch);
  }
  return arch;
}

export function buildArch(name: string, flavor: string, dims: LlamaDims): ModelArch {
  const headDim = dims.dim / dims.nHeads;
  const kv = dims.nKvHeads * headDim;
  const F = ffnHiddenDim(dims.dim, dims.multipleOf, dims.ffnDimMultiplier);
  const D = dims.dim;
  const L = dims.nLayers;
  const g = (fqn: string, op: string, shape: [number, number] | [number], perBlock: boolean, tp: TpPlacement, fsdpUnit: ParamGroup["fsdpUnit"]): ParamGroup => ({
    fqn,
    op,
    shape,
    count: perBlock ? L : 1,
    perBlock,
    isLinear: shape.length === 2 && op !== "tok_embeddings",
    tp,
    fsdpUnit,
  });
  const params: ParamGroup[] = [
    g("tok_embeddings.weight", "tok_embeddings", [dims.vocabSize, D], false, "sharded", "tok_embeddings"),
    g("layers.*.attention_norm.weight", "attention_norm", [D], true, "replicated", "block"),
    g("layers.*.attention.wq.weight", "wq", [D, D], true, "sharded", "block"),
    g("layers.*.attention.wk.weight", "wk", [kv, D], true, "sharded", "block"),
    g("layers.*.attention.wv.weight", "wv", [kv, D], true, "sharded", "block"),
    g("layers.*.attention.wo.weight", "wo", [D, D], true, "sharded", "block"),
    g("layers.*.ffn_norm.weight", "ffn_norm", [D], true, "replicated", "block"),
    g("layers.*.feed_forward.w1.weight", "w1", [F, D], true, "sharded", "block"),
    g("layers.*.feed_forward.w3.weight", "w3", [F, D], true, "sharded", "block"),
    g("layers.*.feed_forward.w2.weight", "w2", [D, F], true, "sharded", "block"),
    g("norm.weight", "norm", [D], false, "replicated", "norm_output"),
    g("output.weight", "output", [dims.vocabSize, D], false, "sharded", "norm_output"),
  ];
  return { name, flavor, dims, headDim, ffnHidden: F, params };
}

export function numel(p: ParamGroup): number {
  return p.shape.reduce((a, b) => a * b, 1);
}

export interface ParamCounts {
  total: number;
  embedding: number;
  output: number;
  perBlock: number;
  norms: number;
  /** All nn.Linear weights (block linears + output). */
  linear: number;
}

export function paramCounts(arch: ModelArch): ParamCounts {
  let total = 0;
  let perBlock = 0;
  let norms = 0;
  let linear = 0;
  let embedding = 0;
  let output = 0;
  for (const p of arch.params) {
    const n = numel(p);
    total += n * p.count;
    if (p.perBlock) perBlock += n;
    if (p.shape.length === 1) norms += n * p.count;
    if (p.isLinear) linear += n * p.count;
    if (p.op === "tok_embeddings") embedding += n;
    if (p.op === "output") output += n;
  }
  return { total, embedding, output, perBlock, norms, linear };
}
