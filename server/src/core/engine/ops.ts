/**
 * One training step of torchtitan's Llama3 model as an op graph, pure data (pytorch-dtypes.md §6.1/§6.2,
 * classic layout: separate wq/wk/wv, ComplexRoPE via `freqs_cis`, custom or nn.RMSNorm, `.float()` loss).
 *
 * Each op lowers to a short chain of aten steps; the simulator applies the *general* rules (autocast
 * table, promotion, the op's native dtype rule, FSDP casts) to every step. Nothing here states a dtype
 * outcome: only which aten ops run and how their native rule reads the inputs.
 */
import type { EDType } from "./dtypes";

export const OP_NAMES = [
  "tok_embeddings",
  "attention_norm",
  "wq",
  "wk",
  "wv",
  "rope",
  "attention",
  "wo",
  "attention_residual",
  "ffn_norm",
  "w1",
  "w3",
  "silu",
  "ffn_mul",
  "w2",
  "ffn_residual",
  "norm",
  "output",
  "loss",
] as const;

export type OpName = (typeof OP_NAMES)[number];

export type OpKind = "embedding" | "norm" | "linear" | "rope" | "attention" | "elementwise" | "loss";

/**
 * The native (non-autocast) dtype rule of one aten step:
 *  - promote: ordinary type promotion over the inputs;
 *  - same: all floating inputs must share a dtype (matmul/SDPA); output = that dtype;
 *  - weight: output = dtype of the weight (embedding lookup);
 *  - norm: rms_norm; equal input/weight → that dtype, else the `rms_norm_mismatch` assumption;
 *  - explicit: the step passes `dtype=` / `.to(dtype)` explicitly (never autocast);
 *  - to_complex / to_real: view_as_complex / view_as_real;
 *  - type_as_input: `.type_as(x)` of the op's first input.
 */
export type NativeRule = "promote" | "same" | "weight" | "norm" | "explicit" | "to_complex" | "to_real" | "type_as_input";

export interface AtenStep {
  aten: string;
  rule: NativeRule;
  /** For `explicit`: the dtype given. "attention_lowp" = the 16-bit dtype varlen attention hard-codes (bf16). */
  dtype?: EDType;
  /** Extra operand not produced by the graph: a buffer (RoPE's complex64 freqs_cis). */
  buffer?: EDType;
  /** A higher-order op: falls through autocast unless the `flex_attention_autocast` assumption says otherwise. */
  higherOrder?: boolean;
  /** Uses the op's parameter as an operand (appended after the activation inputs). */
  usesParam?: boolean;
}

/** An activation input: another op's output, the token ids, or the transformer block's input `x`. */
export type InputRef = OpName | "tokens" | "block_input";

export interface OpDef {
  name: OpName;
  kind: OpKind;
  /** "block" ops repeat in every transformer block. */
  scope: "model" | "block";
  /** FSDP unit that owns the op's parameter (and whose pre-forward casts inputs), or none (loss). */
  fsdpUnit?: "tok_embeddings" | "block" | "norm_output";
  /** First op executed inside its FSDP unit: the unit's pre-forward hook casts these inputs. */
  unitEntry?: boolean;
  inputs: InputRef[];
  /** The op uses a weight: the models.ts parameter group whose `op` is this op's name. */
  param?: boolean;
  steps: AtenStep[];
  /** Short description of the PyTorch code. */
  code: string;
}

const linear = (name: OpName, input: InputRef, code: string): OpDef => ({
  name,
  kind: "linear",
  scope: name === "output" ? "model" : "block",
  fsdpUnit: name === "output" ? "norm_output" : "block",
  inputs: [input],
  param: true,
  steps: [{ aten: "linear", rule: "same", usesParam: true }],
  code,
});

const rmsNorm = (name: OpName, input: InputRef, scope: OpDef["scope"], unit: OpDef["fsdpUnit"], entry: boolean): OpDef => ({
  name,
  kind: "norm",
  scope,
  fsdpUnit: unit,
  unitEntry: entry,
  inputs: [input],
  param: true,
  steps: [{ aten: "rms_norm", rule: "norm", usesParam: true }],
  code: `${name}(x) — nn.RMSNorm → aten rms_norm`,
});

/** Attention lowering by backend (models.ts flavor → backend). */
export function attentionSteps(backend: "sdpa" | "flex" | "varlen"): AtenStep[] {
  switch (backend) {
    case "sdpa":
      return [{ aten: "scaled_dot_product_attention", rule: "same" }];
    case "flex":
      return [{ aten: "flex_attention", rule: "same", higherOrder: true }];
    case "varlen":
      // HEAD varlen path: q/k/v explicitly `.to(torch.bfloat16)`, kernel, output cast back to the input dtype.
      return [
        { aten: "_to_copy", rule: "explicit", dtype: "bfloat16" },
        { aten: "varlen_attn", rule: "same" },
        { aten: "type_as", rule: "type_as_input" },
      ];
  }
}

const GRAPHS = new Map<string, readonly OpDef[]>();

/** The Llama3 op graph (one block shown once; `scope: "block"` ops run n_layers times). Shared, read-only. */
export function llama3Graph(attention: "sdpa" | "flex" | "varlen" = "sdpa"): readonly OpDef[] {
  let g = GRAPHS.get(attention);
  if (!g) {
    g = buildLlama3Graph(attention);
    GRAPHS.set(attention, g);
  }
  return g;
}

function buildLlama3Graph(attention: "sdpa" | "flex" | "varlen"): OpDef[] {
  return [
    {
      name: "tok_embeddings",
      kind: "embedding",
      scope: "model",
      fsdpUnit: "tok_embeddings",
      unitEntry: true,
      inputs: ["tokens"],
      param: true,
      steps: [{ aten: "embedding", rule: "weight", usesParam: true }],
      code: "h = tok_embeddings(tokens) — F.embedding, output takes the weight's dtype",
    },
    rmsNorm("attention_norm", "block_input", "block", "block", true),
    linear("wq", "attention_norm", "xq = wq(attention_norm(x))"),
    linear("wk", "attention_norm", "xk = wk(attention_norm(x))"),
    linear("wv", "attention_norm", "xv = wv(attention_norm(x))"),
    {
      name: "rope",
      kind: "rope",
      scope: "block",
      fsdpUnit: "block",
      inputs: ["wq"],
      steps: [
        { aten: "_to_copy", rule: "explicit", dtype: "float32" },
        { aten: "view_as_complex", rule: "to_complex" },
        { aten: "mul", rule: "promote", buffer: "complex64" },
        { aten: "view_as_real", rule: "to_real" },
        { aten: "type_as", rule: "type_as_input" },
      ],
      code: "apply_rotary_emb: x.float() → view_as_complex → * freqs_cis (complex64) → view_as_real → type_as(x)",
    },
    {
      name: "attention",
      kind: "attention",
      scope: "block",
      fsdpUnit: "block",
      inputs: ["rope", "rope", "wv"],
      steps: attentionSteps(attention),
      code: attention === "sdpa" ? "F.scaled_dot_product_attention(q, k, v, is_causal=True)" : attention === "flex" ? "flex_attention(q, k, v, block_mask)" : "varlen attention (q/k/v .to(bf16), output .type_as(q))",
    },
    linear("wo", "attention", "attn = wo(attention(...))"),
    {
      name: "attention_residual",
      kind: "elementwise",
      scope: "block",
      fsdpUnit: "block",
      inputs: ["block_input", "wo"],
      steps: [{ aten: "add", rule: "promote" }],
      code: "h = x + attn",
    },
    rmsNorm("ffn_norm", "attention_residual", "block", "block", false),
    linear("w1", "ffn_norm", "w1(ffn_norm(h))"),
    linear("w3", "ffn_norm", "w3(ffn_norm(h))"),
    { name: "silu", kind: "elementwise", scope: "block", fsdpUnit: "block", inputs: ["w1"], steps: [{ aten: "silu", rule: "promote" }], code: "F.silu(w1(x))" },
    { name: "ffn_mul", kind: "elementwise", scope: "block", fsdpUnit: "block", inputs: ["silu", "w3"], steps: [{ aten: "mul", rule: "promote" }], code: "silu(w1 x) * w3(x)" },
    linear("w2", "ffn_mul", "w2(silu(w1 x) * w3 x)"),
    {
      name: "ffn_residual",
      kind: "elementwise",
      scope: "block",
      fsdpUnit: "block",
      inputs: ["attention_residual", "w2"],
      steps: [{ aten: "add", rule: "promote" }],
      code: "out = h + ffn",
    },
    rmsNorm("norm", "ffn_residual", "model", "norm_output", true),
    linear("output", "norm", "logits = output(norm(h))"),
    {
      name: "loss",
      kind: "loss",
      scope: "model",
      inputs: ["output"],
      steps: [
        { aten: "_to_copy", rule: "explicit", dtype: "float32" },
        { aten: "log_softmax", rule: "promote" },
        { aten: "nll_loss", rule: "promote" },
      ],
      code: "cross_entropy(pred.float(), labels, reduction=sum) / global_valid_tokens",
    },
  ];
}
