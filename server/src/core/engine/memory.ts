/**
 * Memory estimate per GPU (pytorch-dtypes.md §7). Every term is derived from the simulated dtypes and
 * the model's dimensions: bytes per parameter from the storage / gradient / optimizer dtypes, transient
 * copies from what the mechanism materialises (autocast weight casts, FSDP unsharded parameters and
 * reduce-scatter buffers, PP accumulation), activations from the tensors each op saves for backward.
 *
 * It is an estimate: allocator fragmentation, NCCL buffers, CUDA context and temporary kernel workspaces
 * are not modelled, and transient terms are summed as if alive together (an upper bound).
 */
import { DTYPE_BYTES, formatBytes, type EDType } from "./dtypes";
import { numel, paramCounts, type ModelArch, type ParamGroup } from "./models";
import type { OpName } from "./ops";
import { autocastWeightCasts, reshardAfterForward, stepShape, type SimContext } from "./context";
import type { MemoryEstimate, MemoryTerm, OpResult, ParamResult } from "./types";

const B = (d: EDType): number => DTYPE_BYTES[d];

export function estimateMemory(ctx: SimContext, forward: OpResult[], params: ParamResult[]): MemoryEstimate {
  const N = ctx.fsdp ? ctx.fsdpDegree : 1;
  const wq = params.find((p) => p.op === "wq")!;
  const bytesPerParam = { params: B(wq.storage) / N, grads: B(wq.stored) / N, optimizer: (2 * B(wq.optimizerState)) / N };
  const est: MemoryEstimate = { bytesPerParam, shardDegree: N, terms: [], notes: [] };
  if (ctx.fsdp && N > 1) est.notes.push(`Parameters, gradients and optimizer states are sharded ${N} ways by FSDP (fsdp mesh = dp_shard × cp).`);
  const arch = ctx.arch;
  if (!arch) {
    est.notes.push("Model architecture unknown: bytes per parameter only.");
    return est;
  }
  const L = ctx.input.layout;
  const tp = Math.max(1, L.tp);
  const pp = Math.max(1, L.pp);
  const counts = paramCounts(arch);
  est.paramCount = counts.total;
  const stage = stageParams(arch, tp, pp);
  est.paramsPerGpu = stage.total;
  const terms: MemoryTerm[] = [];
  const t = (name: string, bytes: number, kind: MemoryTerm["kind"], detail: string): void => {
    if (bytes > 0) terms.push({ name, bytes, kind, detail });
  };

  // Persistent state. With FSDP's CPUOffloadPolicy the sharded parameters, their gradients and the
  // optimizer states live in (pinned) CPU memory; only the unsharded copies come to the GPU.
  const offload = !!ctx.input.cpuOffload && !!ctx.fsdp;
  const persistentBytes = stage.total * (bytesPerParam.params + bytesPerParam.grads + bytesPerParam.optimizer);
  if (offload) {
    est.cpuBytes = persistentBytes;
    est.bytesPerParam = { params: 0, grads: 0, optimizer: 0 };
    est.notes.push(`CPU offload (training.enable_cpu_offload): parameters, gradients and optimizer states live on the CPU (${formatBytes(persistentBytes)} of this rank's shard in CPU memory); the GPU holds only the unsharded copies, buffers and activations, and every step copies shards and gradients over PCIe.`);
  } else {
    t("parameters", stage.total * bytesPerParam.params, "persistent", `${fmtN(stage.total)} params on this GPU × ${B(wq.storage)} B (${wq.storage})${N > 1 ? ` / ${N}` : ""}`);
    t("gradients", stage.total * bytesPerParam.grads, "persistent", `.grad in ${wq.stored}${N > 1 ? `, sharded / ${N}` : ""}`);
    t("optimizer_states", stage.total * bytesPerParam.optimizer, "persistent", `AdamW exp_avg + exp_avg_sq in ${wq.optimizerState}${N > 1 ? `, sharded / ${N}` : ""}`);
  }
  if (ctx.input.ddp && !ctx.fsdp && ctx.assumptions.get("ddp_gradient_as_bucket_view") === "false") {
    t("ddp_buckets", stage.total * B(wq.gradAccumulated), "persistent", `DDP gradient buckets kept beside .grad (${B(wq.gradAccumulated)} B/param; gradient_as_bucket_view=False)`);
  }

  // Transient copies.
  if (ctx.autocast?.active) {
    const casts = autocastWeightCasts(ctx, forward);
    const castBytes = sumParams(arch, tp, pp, (p) => casts.castParams.includes(p.op as OpName)) * B(ctx.autocast.dtype);
    const recast = (ctx.input.activationCheckpoint ?? "selective") !== "none" ? "; activation-checkpoint recompute casts them again in backward" : "";
    t("autocast_weight_casts", castBytes, "transient", `${ctx.autocast.dtype} copies of every linear weight (${casts.casts} casts per block set; cached per region, all alive at the end of forward, re-created every microbatch${recast})`);
  }
  if (ctx.fsdp) {
    const lc = ctx.fsdp.lifecycle;
    const materialised = !!ctx.fsdp.policy.paramDtype || N > 1;
    const f8AG = ctx.float8?.fsdpAllGather ? ctx.float8 : undefined;
    const unshardedBytes = (p: ParamGroup): number => (f8AG && f8AG.converted.has(p.op as OpName) ? B(f8AG.recipe.weight) : B(lc.unsharded));
    const blockBytes = stage.groups.filter((g) => g.p.fsdpUnit === "block").reduce((a, g) => a + g.perTensor * unshardedBytes(g.p), 0);
    const normOutBytes = stage.groups.filter((g) => g.p.fsdpUnit === "norm_output").reduce((a, g) => a + g.local * unshardedBytes(g.p), 0);
    const embBytes = stage.groups.filter((g) => g.p.fsdpUnit === "tok_embeddings").reduce((a, g) => a + g.local * unshardedBytes(g.p), 0);
    if (materialised) {
      if (reshardAfterForward(ctx)) {
        const units = ctx.assumptions.num("fsdp_prefetch_units");
        const always = ctx.input.reshardAfterForward === "always";
        const bytes = Math.max(units * blockBytes, embBytes + (units - 1) * blockBytes) + (always ? 0 : normOutBytes);
        t("fsdp_unsharded_params", bytes, "transient", `${units} unsharded units (current + prefetched; the embedding unit counts as one) in ${lc.unsharded}${f8AG ? " (float8 weights 1 B)" : ""}${always ? "" : " + the [norm, output] unit, which stays unsharded"}`);
      } else {
        const bytes = stage.layers * blockBytes + normOutBytes + embBytes;
        t("fsdp_unsharded_params", bytes, "transient", `all of this ${pp > 1 ? "stage's" : "model's"} parameters kept unsharded in ${lc.unsharded} (reshard_after_forward = False${pp > 1 ? ", the PP default" : ""})`);
      }
      const blockParams = stage.groups.filter((g) => g.p.fsdpUnit === "block").reduce((a, g) => a + g.perTensor, 0);
      const rsIn = lc.reduce !== lc.unshardedGrad || N > 1 ? B(lc.reduce) : 0;
      const perUnit = blockParams * (B(lc.unshardedGrad) + rsIn + (N > 1 ? B(lc.reduce) / N : 0) + (N > 1 ? B(lc.allGatherInput) / N : 0));
      t("fsdp_backward_unit_buffers", perUnit, "transient", `one block in backward: ${lc.unshardedGrad} unsharded grads + ${lc.reduce} reduce-scatter input${N > 1 ? ` + output / ${N} + all-gather input / ${N}` : ""}`);
    }
    if (pp > 1) {
      // Activations peak when rank 0 starts its first backward. With one stage per rank that backward
      // creates the whole stage's accumulated gradients; with v stages per rank (Interleaved1F1B …) it is
      // the last stage chunk's only, 1/v of the rank's parameters (the others start later, with fewer
      // activations alive).
      const v = ppSchedule(ctx).virtualStages;
      t("pp_grad_accumulation", (stage.total * B(lc.accumulation)) / v, "transient", `unsharded gradients accumulated across microbatches in ${lc.accumulation} until the single end-of-step reduce-scatter${v > 1 ? `; ${v} stage chunks per rank: one chunk's (1/${v}) are alive at the activation peak` : ""}`);
    }
  }
  if (ctx.float8) {
    const conv = stage.groups.filter((g) => g.p.isLinear && ctx.float8!.converted.has(g.p.op as OpName));
    const largest = conv.reduce((a, g) => Math.max(a, g.perTensor), 0);
    t("float8_gemm_copies", largest * B(ctx.float8.recipe.weight), "transient", `float8 copy of the largest converted weight (plus scales) per GEMM`);
  }

  // Activations.
  const act = activations(ctx, forward, arch, stage.layers);
  est.activations = act.summary;
  t("activations", act.summary.bytes, "activation", `${act.summary.layers} blocks × ${fmtN(act.summary.tokensPerMicrobatch)} tokens × ${act.summary.microbatchesInFlight} microbatch(es) in flight, ${act.summary.checkpointing}`);
  t("block_backward_workspace", act.workspaceBytes, "transient", `gradients of one block's saved tensors while its backward runs (≈ one block's activations, ${fmtN(act.summary.tokensPerMicrobatch)} tokens)`);
  t("loss_logits", act.lossBytes, "transient", act.lossDetail);

  const persistent = terms.filter((x) => x.kind === "persistent").reduce((a, x) => a + x.bytes, 0);
  const peak = terms.reduce((a, x) => a + x.bytes, 0);
  const overhead = ctx.assumptions.num("allocator_reserved_overhead");
  est.perGpuBytes = { persistent, peak, reserved: peak * overhead };
  est.terms = terms;
  est.notes.push(`Estimate: peak (allocated) sums saved activations and every transient copy as if alive together; reserved = peak × ${overhead} (allocator_reserved_overhead). NCCL buffers and the CUDA context are not included.`);
  return est;
}

interface StageGroup {
  p: ParamGroup;
  /** Elements of one tensor on this GPU (after TP). */
  perTensor: number;
  /** Elements of the group on this GPU (after TP and the PP stage split). */
  local: number;
}

/** Parameters on the heaviest PP stage of one TP rank (before FSDP sharding). */
function stageParams(arch: ModelArch, tp: number, pp: number): { total: number; layers: number; groups: StageGroup[] } {
  const layers = Math.ceil(arch.dims.nLayers / pp);
  const per = (p: ParamGroup) => (p.tp === "sharded" ? numel(p) / tp : numel(p));
  const first = arch.params.filter((p) => p.fsdpUnit === "tok_embeddings").reduce((a, p) => a + per(p), 0);
  const last = arch.params.filter((p) => p.fsdpUnit === "norm_output").reduce((a, p) => a + per(p), 0);
  const ends: ("tok_embeddings" | "norm_output")[] = pp === 1 ? ["tok_embeddings", "norm_output"] : [first >= last ? "tok_embeddings" : "norm_output"];
  const groups: StageGroup[] = [];
  for (const p of arch.params) {
    if (p.perBlock) groups.push({ p, perTensor: per(p), local: per(p) * layers });
    else if (ends.includes(p.fsdpUnit as "tok_embeddings" | "norm_output")) groups.push({ p, perTensor: per(p), local: per(p) });
  }
  return { total: groups.reduce((a, g) => a + g.local, 0), layers, groups };
}

function sumParams(arch: ModelArch, tp: number, pp: number, pred: (p: ParamGroup) => boolean): number {
  return stageParams(arch, tp, pp).groups.filter((g) => pred(g.p)).reduce((a, g) => a + g.local, 0);
}

interface Saved {
  key: string;
  elems: number;
  dtype: EDType;
  /** Divided by TP (sequence- or head-sharded) or full on every TP rank (all-gathered linear inputs). */
  tpSplit: boolean;
}

/** Features per token of each op's output (TP-global). */
function width(op: OpName, arch: ModelArch): number {
  const D = arch.dims.dim;
  const kv = arch.dims.nKvHeads * arch.headDim;
  switch (op) {
    case "wk":
    case "wv":
      return kv;
    case "w1":
    case "w3":
    case "silu":
    case "ffn_mul":
      return arch.ffnHidden;
    case "output":
      return arch.dims.vocabSize;
    default:
      return D;
  }
}

/** Tensors one block saves for backward, per token, deduplicated by identity. */
export function savedPerBlock(ctx: SimContext, forward: OpResult[], arch: ModelArch): Saved[] {
  const saved = new Map<string, Saved>();
  const add = (s: Saved) => saved.set(s.key, s);
  const get = (n: OpName) => forward.find((r) => r.op === n)!;
  const composite = ctx.assumptions.get("rms_norm_kernel") === "composite";
  const { seq } = stepShape(ctx);
  for (const r of forward) {
    const op = ctx.graph.find((o) => o.name === r.op)!;
    if (op.scope !== "block") continue;
    const inRef = op.inputs[0]!;
    const inWidth = inRef === "block_input" ? arch.dims.dim : width(inRef as OpName, arch);
    switch (r.kind) {
      case "norm":
        add({ key: `${inRef}`, elems: inWidth, dtype: r.inputs[0]!, tpSplit: true });
        add({ key: `${r.op}:rstd`, elems: 1, dtype: "float32", tpSplit: true });
        if (composite && r.inputs[0] !== "float32") {
          // `(x.float() * rstd).type_as(x) * weight`: the fp32 upcast and the normalized tensor are saved too.
          add({ key: `${r.op}:fp32_upcast`, elems: inWidth, dtype: "float32", tpSplit: true });
          add({ key: `${r.op}:normalized`, elems: inWidth, dtype: r.inputs[0]!, tpSplit: true });
        }
        break;
      case "linear": {
        // The saved input is the (TP all-gathered) norm output, or this call's own autocast copy.
        const gathered = get(inRef as OpName).kind === "norm";
        const dtype = r.float8 ? (r.autocastCast ?? r.inputs[0]!) : (r.autocastCast ?? r.inputs[0]!);
        const key = r.autocastCast ? `${r.op}:autocast_copy` : `${inRef}${gathered ? ":gathered" : ""}`;
        add({ key, elems: inWidth, dtype, tpSplit: !gathered });
        break;
      }
      case "attention": {
        const q = get("rope").dtype;
        const backend = arch.dims.attention;
        const kv = arch.dims.nKvHeads * arch.headDim;
        const kernel: EDType = backend === "varlen" ? "bfloat16" : r.dtype;
        add({ key: "q", elems: arch.dims.dim, dtype: backend === "varlen" ? kernel : q, tpSplit: true });
        add({ key: "k", elems: kv, dtype: backend === "varlen" ? kernel : q, tpSplit: true });
        add({ key: "v", elems: kv, dtype: backend === "varlen" ? kernel : get("wv").dtype, tpSplit: true });
        add({ key: "attention", elems: arch.dims.dim, dtype: r.dtype, tpSplit: true });
        const math = backend === "sdpa" && r.dtype === "float32" && ctx.assumptions.get("fp32_sdpa_backend") === "math";
        if (math) add({ key: "attention:probs", elems: arch.dims.nHeads * seq, dtype: "float32", tpSplit: true });
        else add({ key: "attention:logsumexp", elems: arch.dims.nHeads, dtype: "float32", tpSplit: true });
        break;
      }
      case "elementwise":
        if (r.op === "silu") add({ key: "w1", elems: arch.ffnHidden, dtype: r.inputs[0]!, tpSplit: true });
        if (r.op === "ffn_mul") {
          // torch.compile fuses silu(w1(x)) * w3(x): the silu output is recomputed in the fused backward.
          if (!ctx.input.compile?.model) add({ key: "silu", elems: arch.ffnHidden, dtype: r.inputs[0]!, tpSplit: true });
          add({ key: "w3", elems: arch.ffnHidden, dtype: r.inputs[1]!, tpSplit: true });
        }
        break;
      default:
        break;
    }
  }
  return [...saved.values()];
}

function activations(ctx: SimContext, forward: OpResult[], arch: ModelArch, layers: number) {
  const { tp, cp, pp, seq, local } = stepShape(ctx);
  const sched = ppSchedule(ctx);
  const mbSize = pp > 1 ? sched.microbatchSize : local;
  const tokens = (mbSize * seq) / cp;
  let inFlight = 1;
  if (pp > 1) {
    // In flight on the busiest rank (rank 0), in stage chunks of layers / (pp · v) blocks, converted to
    // whole-stage microbatches so that `layers` below stays the rank's block count.
    const mode = ctx.assumptions.get("pp_inflight_microbatches");
    inFlight = (mode === "all" ? sched.microbatches * sched.virtualStages : sched.inFlightChunks) / sched.virtualStages;
  }
  const saved = savedPerBlock(ctx, forward, arch);
  const perToken: Partial<Record<EDType, number>> = {};
  let perTokenTotal = 0;
  for (const s of saved) {
    const b = (s.elems * B(s.dtype)) / (s.tpSplit ? tp : 1);
    perToken[s.dtype] = (perToken[s.dtype] ?? 0) + b;
    perTokenTotal += b;
  }
  const blockInput = (arch.dims.dim * B(forward.find((r) => r.op === "ffn_residual")!.dtype)) / tp;
  const mode = ctx.input.activationCheckpoint ?? "selective";
  let perMicrobatchPerToken: number;
  let how: string;
  switch (mode) {
    case "none":
      perMicrobatchPerToken = layers * perTokenTotal;
      how = "no activation checkpointing";
      break;
    case "full":
      perMicrobatchPerToken = layers * blockInput + perTokenTotal;
      how = "full AC: each block keeps its input, one block recomputed at a time";
      break;
    case "memory_budget": {
      const budget = ctx.input.memoryBudget ?? 0.5;
      perMicrobatchPerToken = layers * perTokenTotal * budget;
      how = `memory_budget AC at ${budget} of the saved activations`;
      break;
    }
    case "selective": {
      const opt = ctx.input.selectiveAcOption ?? "2";
      if (opt === "op") {
        const frac = ctx.assumptions.num("selective_ac_saved_fraction");
        perMicrobatchPerToken = layers * perTokenTotal * frac;
        how = `op-level selective AC (≈${frac} of the block activations kept)`;
      } else {
        const n = Math.max(1, parseInt(opt, 10) || 2);
        const ac = Math.floor(layers / n);
        perMicrobatchPerToken = (layers - ac) * perTokenTotal + ac * blockInput + (ac > 0 ? perTokenTotal : 0);
        how = `selective AC every ${n} blocks (${ac} of ${layers} checkpointed)`;
      }
      break;
    }
  }
  // The recomputed block (full / selective AC) exists once, for the microbatch in backward.
  const recomputeOnce = mode === "none" || mode === "memory_budget" || (mode === "selective" && (ctx.input.selectiveAcOption ?? "2") === "op") ? 0 : perTokenTotal;
  const bytes = (perMicrobatchPerToken - recomputeOnce) * tokens * inFlight + recomputeOnce * tokens;
  const workspaceBytes = perTokenTotal * tokens;
  // Loss (on the last PP stage): logits in the output dtype, the `.float()` copy when it is a real cast,
  // the saved log-softmax. Counted on the heaviest stage too, as an upper bound.
  const lossOp = forward.find((r) => r.op === "loss")!;
  const logits = forward.find((r) => r.op === "output")!.dtype;
  const V = arch.dims.vocabSize / ((ctx.input.lossParallel ?? true) && tp > 1 ? tp : 1);
  const copy = lossOp.steps[0]!.dtype !== logits ? B(lossOp.steps[0]!.dtype) : 0;
  const lsmDtype = lossOp.steps[1]!.dtype;
  const lsm = B(lsmDtype);
  let lossBytes: number;
  let lossDetail: string;
  if (ctx.input.compile?.loss) {
    // Compiled loss: the upcast, log-softmax and its gradient are fused; only the logits (and a float32
    // log-sum-exp per token) stay alive.
    lossBytes = tokens * (V * B(logits) + 4);
    lossDetail = `compiled loss: logits ${logits} (${B(logits)} B) × ${fmtN(tokens)} tokens × ${fmtN(V)} vocab; the .float() upcast and log-softmax are fused`;
  } else {
    // Forward: logits + .float() copy + log-softmax output; backward (the larger): saved log-softmax,
    // the incoming gradient and log_softmax_backward's result, all in the log-softmax dtype.
    const fwd = B(logits) + copy + lsm;
    const bwd = 3 * lsm;
    lossBytes = tokens * V * Math.max(fwd, bwd);
    lossDetail =
      bwd >= fwd
        ? `loss backward: saved log-softmax + its incoming gradient + log_softmax_backward's output, ${lsmDtype} (3 × ${lsm} B) × ${fmtN(tokens)} tokens × ${fmtN(V)} vocab (forward: logits ${logits}${copy ? ` + .float() copy` : ""} + log-softmax)`
        : `logits ${logits} (${B(logits)} B)${copy ? ` + .float() copy (${copy} B)` : ""} + saved log-softmax ${lsmDtype} (${lsm} B) × ${fmtN(tokens)} tokens × ${fmtN(V)} vocab`;
  }
  return {
    summary: { perTokenPerLayer: perToken, perTokenPerLayerTotal: perTokenTotal, tokensPerMicrobatch: tokens, microbatchesInFlight: inFlight, layers, checkpointing: how, bytes },
    lossBytes,
    lossDetail,
    workspaceBytes,
  };
}

/** Pipeline schedules with more than one stage per rank (torchtitan's generate_split_points gives them 2). */
const MULTI_STAGE = /interleaved|looped|zerobubble|zbv|dualpipe/i;

export interface PpSchedule {
  name: string;
  microbatches: number;
  microbatchSize: number;
  /** Stages per rank (v). */
  virtualStages: number;
  /** Stage-chunk microbatches whose activations rank 0 holds at its peak. */
  inFlightChunks: number;
}

/**
 * The schedule as torch.distributed.pipelining runs it: microbatches from `pipeline_parallel_microbatch_size`
 * (or the legacy count), stages per rank, and rank 0's activations in flight: GPipe and LoopedBFS keep
 * every microbatch, 1F1B keeps pp, Interleaved1F1B keeps its warm-up of (v − 1)·pp + 2·(pp − 1) chunks
 * plus the one in flight (torch schedules.py `_get_1f1b_rank_ops` / `get_rank_warmup_ops`).
 */
export function ppSchedule(ctx: SimContext): PpSchedule {
  const { pp, local } = stepShape(ctx);
  const name = ctx.input.ppSchedule ?? "1F1B";
  const m = ctx.input.ppMicrobatches && ctx.input.ppMicrobatches > 0 ? ctx.input.ppMicrobatches : Math.max(1, Math.floor(local / Math.max(1, ctx.input.ppMicrobatchSize ?? 1)));
  const microbatchSize = Math.max(1, Math.floor(local / m));
  const v = MULTI_STAGE.test(name) ? 2 : 1;
  let chunks: number;
  if (/gpipe|loopedbfs/i.test(name)) chunks = m * v;
  else if (v === 1) chunks = Math.min(m, pp);
  else chunks = Math.min((v - 1) * pp + 2 * (pp - 1) + 1, m * v);
  return { name, microbatches: m, microbatchSize, virtualStages: v, inFlightChunks: chunks };
}

function fmtN(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(Math.round(n));
}

export { formatBytes };
