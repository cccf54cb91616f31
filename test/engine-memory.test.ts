/**
 * pytorch-dtypes.md §7 (memory per parameter, transient copies, activations) and the model sizes the
 * memory estimate is built on.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ffnHiddenDim, formatBytes, modelArch, paramCounts, simulationToJson } from "../server/src/core/engine";
import { layout, modeInput, sim } from "./engine-support";
import type { Simulation } from "../server/src/core/engine/types";

const term = (s: Simulation, name: string) => s.memory.terms.find((t) => t.name === name)?.bytes;
const bpp = (s: Simulation) => s.memory.bytesPerParam;
const sum = (s: Simulation) => bpp(s).params + bpp(s).grads + bpp(s).optimizer;

describe("model sizes (torchtitan llama3 flavors)", () => {
  it("FFN hidden sizes", () => {
    assert.equal(ffnHiddenDim(256, 256), 768);
    assert.equal(ffnHiddenDim(4096, 1024, 1.3), 14336);
    assert.equal(ffnHiddenDim(8192, 4096, 1.3), 28672);
    assert.equal(ffnHiddenDim(16384, 4096, 1.2), 53248);
  });
  it("parameter counts match the published Llama 3 sizes", () => {
    assert.equal(paramCounts(modelArch("llama3", "8B")!).total, 8_030_261_248);
    assert.equal(paramCounts(modelArch("llama3", "70B")!).total, 70_553_706_496);
    assert.equal(paramCounts(modelArch("llama3", "405B")!).total, 405_853_388_800);
    assert.equal(paramCounts(modelArch("llama3", "debugmodel")!).total, 6_163_712);
  });
  it("unknown model: bytes per parameter only", () => {
    const s = sim(modeInput("c", { model: { name: "qwen3", flavor: "8B" } }));
    assert.equal(s.memory.perGpuBytes, undefined);
    assert.deepEqual(simulationToJson(s).memory.perGpuBytes, { persistent: null, peak: null, reserved: null });
    assert.equal(sum(s), 2);
  });
});

describe("§7 bytes per parameter (persistent)", () => {
  const P = paramCounts(modelArch("llama3", "8B")!);
  it("FP32 single GPU: 4 + 4 + 8 = 16, no transient copies", () => {
    const s = sim(modeInput("a"));
    assert.deepEqual(bpp(s), { params: 4, grads: 4, optimizer: 8 });
    assert.equal(s.memory.perGpuBytes!.persistent, 16 * P.total);
    assert.equal(term(s, "autocast_weight_casts"), undefined);
    assert.equal(term(s, "fsdp_unsharded_params"), undefined);
  });
  it("FP32 + DDP: 16 + 4 B/param bucket buffers (gradient_as_bucket_view=False)", () => {
    const s = sim(modeInput("a", { ddp: true, layout: layout({ dp_replicate: 8 }) }));
    assert.equal(sum(s), 16);
    assert.equal(term(s, "ddp_buckets"), 4 * P.total);
    const view = sim(modeInput("a", { ddp: true, layout: layout({ dp_replicate: 8 }), assumptions: { ddp_gradient_as_bucket_view: "true" } }));
    assert.equal(term(view, "ddp_buckets"), undefined);
  });
  it("AMP bf16 single GPU: 16 + 2 B × P_linear of cached weight casts", () => {
    const s = sim(modeInput("b"));
    assert.equal(sum(s), 16);
    assert.equal(term(s, "autocast_weight_casts"), 2 * P.linear);
  });
  it("AMP bf16 + DDP: 16 + buckets + 2 × P_linear", () => {
    const s = sim(modeInput("b", { ddp: true, layout: layout({ dp_replicate: 8 }) }));
    assert.equal(sum(s), 16);
    assert.equal(term(s, "ddp_buckets"), 4 * P.total);
    assert.equal(term(s, "autocast_weight_casts"), 2 * P.linear);
  });
  for (const N of [2, 8, 64]) {
    it(`FSDP2-MP, N = ${N}: 16 / N, no separate master copy`, () => {
      const s = sim(modeInput("c", { layout: layout({ dp_shard: N }) }));
      assert.deepEqual(bpp(s), { params: 4 / N, grads: 4 / N, optimizer: 8 / N });
      assert.equal(s.memory.perGpuBytes!.persistent, (16 / N) * P.total);
    });
  }
  it("HSDP: N is the shard-group size", () => {
    const s = sim(modeInput("c", { layout: layout({ dp_replicate: 4, dp_shard: 2 }) }));
    assert.equal(sum(s), 8);
  });
  it("FSDP2-MP transients: 2 unsharded bf16 units + the [norm, output] unit; per-unit backward buffers", () => {
    const N = 8;
    const s = sim(modeInput("c", { layout: layout({ dp_shard: N }) }));
    const arch = modelArch("llama3", "8B")!;
    const block = paramCounts(arch).perBlock;
    const normOut = arch.dims.dim + arch.dims.vocabSize * arch.dims.dim;
    const emb = arch.dims.vocabSize * arch.dims.dim;
    // The larger of two blocks, or the embedding unit plus the prefetched first block.
    assert.equal(term(s, "fsdp_unsharded_params"), 2 * Math.max(2 * block, emb + block) + 2 * normOut);
    assert.equal(term(s, "fsdp_backward_unit_buffers"), block * (2 + 4 + 4 / N + 2 / N));
  });
  it("reshard policy always: the [norm, output] unit is resharded too", () => {
    const s = sim(modeInput("c", { reshardAfterForward: "always" }));
    const arch = modelArch("llama3", "8B")!;
    const block = paramCounts(arch).perBlock;
    assert.equal(term(s, "fsdp_unsharded_params"), 2 * Math.max(2 * block, arch.dims.vocabSize * arch.dims.dim + block));
  });
  it("FSDP2-MP + PP: 16/N + 4 B × stage params (fp32 accumulation) + 2 B × stage params (unsharded bf16, held)", () => {
    const s = sim(modeInput("c", { layout: layout({ dp_shard: 4, pp: 2 }) }));
    const stage = s.memory.paramsPerGpu!;
    assert.equal(sum(s), 4);
    assert.equal(term(s, "pp_grad_accumulation"), 4 * stage);
    assert.equal(term(s, "fsdp_unsharded_params"), 2 * stage);
    const arch = modelArch("llama3", "8B")!;
    // Heaviest stage: 16 blocks + output + final norm (the output is the embedding's size plus the norm weight).
    assert.equal(stage, 16 * paramCounts(arch).perBlock + arch.dims.vocabSize * arch.dims.dim + arch.dims.dim);
  });
  it("FSDP2-MP + float8 rowwise: 16/N plus a transient fp8 copy per GEMM", () => {
    const s = sim(modeInput("d"));
    assert.equal(sum(s), 2);
    const arch = modelArch("llama3", "8B")!;
    assert.equal(term(s, "float8_gemm_copies"), arch.ffnHidden * arch.dims.dim);
  });
  it("FSDP2-MP + float8 tensorwise fp8 all-gather: unsharded Float8Linear weights 1 B/param instead of 2", () => {
    const m = { reshardAfterForward: "never" as const };
    const on = sim(modeInput("c", { ...m, float8: { recipe: "tensorwise", fsdpFloat8AllGather: true, filterFqns: ["output"] } }));
    const off = sim(modeInput("c", { ...m, float8: { recipe: "tensorwise", fsdpFloat8AllGather: false, filterFqns: ["output"] } }));
    assert.equal(on.collectives.find((c) => c.name === "fsdp_all_gather")!.dtype, "float8_e4m3fn");
    const arch = modelArch("llama3", "8B")!;
    const blockLinear = paramCounts(arch).perBlock - 2 * arch.dims.dim;
    // Every block kept unsharded: the converted linears drop from 2 B to 1 B per param; output is filtered.
    assert.equal(term(off, "fsdp_unsharded_params")! - term(on, "fsdp_unsharded_params")!, 32 * blockLinear);
  });
  it("fp8 all-gather needs dp_shard > 1 (CP alone does not count)", () => {
    const s = sim(modeInput("c", { layout: layout({ cp: 8 }), float8: { recipe: "tensorwise", fsdpFloat8AllGather: true } }));
    assert.equal(s.collectives.find((c) => c.name === "fsdp_all_gather")!.dtype, "bfloat16");
    assert.ok(s.notes.some((n) => /CP alone/.test(n)));
  });
  it("full bf16 (training.dtype = bfloat16): 8 / N (2 + 2 + 4)", () => {
    const s = sim(modeInput("c", { trainingDtype: "bfloat16" }));
    assert.deepEqual(bpp(s), { params: 2 / 8, grads: 2 / 8, optimizer: 4 / 8 });
  });
  it("TP divides sharded parameters, not the replicated norm weights", () => {
    const s = sim(modeInput("a", { layout: layout({ tp: 8 }) }));
    const arch = modelArch("llama3", "8B")!;
    const P8 = paramCounts(arch);
    assert.equal(s.memory.paramsPerGpu, (P8.total - P8.norms) / 8 + P8.norms);
  });
});

describe("§7 activations", () => {
  const arch = modelArch("llama3", "8B")!;
  const D = arch.dims.dim;
  const KV = arch.dims.nKvHeads * arch.headDim;
  const Fh = arch.ffnHidden;
  const H = arch.dims.nHeads;
  it("FSDP2-MP: everything 2 B/elem except the fp32 rstd and attention logsumexp", () => {
    const a = sim(modeInput("c", { activationCheckpoint: "none" })).memory.activations!;
    // attention_norm in, norm out (shared by wq/wk/wv), q, k, v, attention out, ffn_norm in, its out (shared by w1/w3), w1, silu, w3, ffn_mul
    assert.equal(a.perTokenPerLayer.bfloat16, 2 * (D + D + D + KV + KV + D + D + D + 4 * Fh));
    assert.equal(a.perTokenPerLayer.float32, 4 * (2 + H));
  });
  it("AMP bf16: residual stream and norm inputs fp32; one bf16 input copy per linear (3 for wq/wk/wv, 2 for w1/w3)", () => {
    const a = sim(modeInput("b", { activationCheckpoint: "none" })).memory.activations!;
    assert.equal(a.perTokenPerLayer.float32, 4 * (D + D + 2 + H));
    assert.equal(a.perTokenPerLayer.bfloat16, 2 * (3 * D + D + KV + KV + D + 2 * D + 4 * Fh));
  });
  it("FP32: everything 4 B/elem (Math SDPA saves the S×S probabilities)", () => {
    const seq = 2048;
    const a = sim(modeInput("a", { activationCheckpoint: "none", seqLen: seq })).memory.activations!;
    assert.equal(a.perTokenPerLayer.bfloat16, undefined);
    assert.equal(a.perTokenPerLayer.float32, 4 * (D + D + D + KV + KV + D + D + D + 4 * Fh + 2 + H * seq));
    const eff = sim(modeInput("a", { activationCheckpoint: "none", seqLen: seq, assumptions: { fp32_sdpa_backend: "efficient" } })).memory.activations!;
    assert.equal(eff.perTokenPerLayer.float32, 4 * (D + D + D + KV + KV + D + D + D + 4 * Fh + 2 + H));
  });
  it("composite RMSNorm also saves an fp32 upcast of its input and the bf16 normalized tensor", () => {
    const f = sim(modeInput("c", { activationCheckpoint: "none" })).memory.activations!;
    const c = sim(modeInput("c", { activationCheckpoint: "none", assumptions: { rms_norm_kernel: "composite" } })).memory.activations!;
    assert.equal(c.perTokenPerLayer.float32! - f.perTokenPerLayer.float32!, 4 * 2 * D);
    assert.equal(c.perTokenPerLayer.bfloat16! - f.perTokenPerLayer.bfloat16!, 2 * 2 * D);
  });
  it("bytes = per token per layer × layers × local_batch_size × seq_len (no AC)", () => {
    const s = sim(modeInput("c", { activationCheckpoint: "none", localBatchSize: 2, seqLen: 4096 }));
    const a = s.memory.activations!;
    assert.equal(a.tokensPerMicrobatch, 2 * 4096);
    assert.equal(a.bytes, a.perTokenPerLayerTotal * 32 * 2 * 4096);
  });
  it("AC modes: full < selective < none", () => {
    const b = (ac: "none" | "full" | "selective") => sim(modeInput("c", { activationCheckpoint: ac })).memory.activations!.bytes;
    assert.ok(b("full") < b("selective"));
    assert.ok(b("selective") < b("none"));
    const full = sim(modeInput("c", { activationCheckpoint: "full" })).memory.activations!;
    assert.equal(full.bytes, (32 * D * 2 + full.perTokenPerLayerTotal) * 8192);
  });
  it("loss (eager): the backward peak of saved fp32 log-softmax + incoming grad + log_softmax_backward output (3 × 4 B) beats the forward's bf16 logits + fp32 copy + log-softmax (10 B)", () => {
    const V = arch.dims.vocabSize;
    const T = 8192;
    assert.equal(term(sim(modeInput("c")), "loss_logits"), T * V * Math.max(2 + 4 + 4, 3 * 4));
    assert.equal(term(sim(modeInput("a")), "loss_logits"), T * V * Math.max(4 + 4, 3 * 4));
  });
  it("compiled loss: only the bf16 logits (and an fp32 log-sum-exp per token) stay alive", () => {
    const V = arch.dims.vocabSize;
    const T = 8192;
    assert.equal(term(sim(modeInput("c", { compile: { model: true, loss: true } })), "loss_logits"), T * (V * 2 + 4));
    assert.equal(term(sim(modeInput("c", { compile: { model: true, loss: false } })), "loss_logits"), T * V * 12);
  });
  it("compiled model: the fused SwiGLU does not save the silu output", () => {
    const eager = sim(modeInput("c", { activationCheckpoint: "none" })).memory.activations!;
    const compiled = sim(modeInput("c", { activationCheckpoint: "none", compile: { model: true, loss: false } })).memory.activations!;
    assert.equal(eager.perTokenPerLayer.bfloat16! - compiled.perTokenPerLayer.bfloat16!, 2 * Fh);
  });
  it("TP: sequence/head-sharded tensors divide by tp, all-gathered linear inputs do not", () => {
    const a = sim(modeInput("c", { activationCheckpoint: "none", layout: layout({ tp: 8, dp_shard: 2 }) })).memory.activations!;
    assert.equal(a.perTokenPerLayer.bfloat16, (2 * (D + KV + KV + D + D + D + 4 * Fh)) / 8 + 2 * (D + D));
  });
  it("CP divides the tokens; PP keeps min(microbatches, pp) in flight for 1F1B and all for GPipe", () => {
    assert.equal(sim(modeInput("c", { layout: layout({ cp: 2, dp_shard: 4 }) })).memory.activations!.tokensPerMicrobatch, 4096);
    const pp = (sched: string) => sim(modeInput("c", { layout: layout({ dp_shard: 2, pp: 4 }), localBatchSize: 8, ppMicrobatchSize: 1, ppSchedule: sched })).memory.activations!;
    assert.equal(pp("1F1B").microbatchesInFlight, 4);
    assert.equal(pp("GPipe").microbatchesInFlight, 8);
    assert.equal(pp("1F1B").layers, 8);
  });
});

describe("per-GPU estimate and formatting", () => {
  it("peak ≥ persistent, and the JSON carries both", () => {
    const j = simulationToJson(sim(modeInput("c")));
    assert.ok(j.memory.perGpuBytes.peak! > j.memory.perGpuBytes.persistent!);
  });
  it("formatBytes", () => {
    assert.equal(formatBytes(512), "512 B");
    assert.equal(formatBytes(1536), "1.50 KiB");
    assert.equal(formatBytes(16 * 1024 ** 3), "16.00 GiB");
  });
});
