/**
 * pytorch-dtypes.md §9 "Oracle assertions", item by item, against the engine's rule modules
 * (autocast table, FSDP policy, promotion) and the full simulation.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { eraById, type EraId } from "../server/src/core/frameworks/torchtitan/eras";
import { autocastOpDtype, autocastOutcome, countAutocastCasts, policyFor, type AutocastContext } from "../server/src/core/engine/autocast";
import { castForwardInputs, castForwardOutputs, clampPolicy, fsdpLifecycle } from "../server/src/core/engine/fsdp";
import { promoteTypes } from "../server/src/core/engine/promote";
import { simulationToJson } from "../server/src/core/engine";
import { collective, layout, modeInput, sim } from "./engine-support";

const cuda: AutocastContext = { device: "cuda", dtype: "bfloat16" };
const cpu: AutocastContext = { device: "cpu", dtype: "bfloat16" };
const weightDtype = (inputs: readonly string[]) => inputs[inputs.length - 1] as never;

describe("§9.1 autocast CUDA bf16, fp32 params", () => {
  it("linear(fp32, fp32) → bf16", () => assert.equal(autocastOpDtype({ op: "linear", inputs: ["float32", "float32"] }, cuda), "bfloat16"));
  it("embedding → fp32 (not on the lists; output takes the weight dtype)", () => {
    assert.equal(policyFor("embedding"), undefined);
    assert.equal(autocastOpDtype({ op: "embedding", inputs: ["int64", "float32"] }, cuda, weightDtype), "float32");
  });
  it("rms_norm(fp32) → fp32 before 2.12 (falls through) and from 2.12 (fp32 list)", () => {
    assert.equal(autocastOpDtype({ op: "rms_norm", inputs: ["float32", "float32"] }, cuda), "float32");
    assert.equal(autocastOpDtype({ op: "rms_norm", inputs: ["float32", "float32"] }, { ...cuda, extras: { rmsNorm: "fp32" } }), "float32");
    assert.equal(autocastOpDtype({ op: "rms_norm", inputs: ["bfloat16", "bfloat16"] }, { ...cuda, extras: { rmsNorm: "fp32" } }), "float32");
  });
  it("silu(bf16) → bf16", () => assert.equal(autocastOpDtype({ op: "silu", inputs: ["bfloat16"] }, cuda), "bfloat16"));
  it("add(fp32, bf16) → fp32", () => assert.equal(autocastOpDtype({ op: "add", inputs: ["float32", "bfloat16"] }, cuda), "float32"));
  it("softmax / log_softmax / sum(bf16) → fp32", () => {
    for (const op of ["softmax", "log_softmax", "sum"]) assert.equal(autocastOpDtype({ op, inputs: ["bfloat16"] }, cuda), "float32", op);
  });
  it("softmax with an explicit dtype is not autocast", () => {
    assert.equal(autocastOpDtype({ op: "softmax", inputs: ["bfloat16"], explicitDtype: "bfloat16" }, cuda), "bfloat16");
  });
  it("cross_entropy(bf16 logits) → fp32 (log_softmax fp32_set_opt_dtype, then nll_loss fp32)", () => {
    const lsm = autocastOpDtype({ op: "log_softmax", inputs: ["bfloat16"] }, cuda);
    assert.equal(autocastOpDtype({ op: "nll_loss", inputs: [lsm, "int64"] }, cuda), "float32");
  });
  it("addcmul(bf16, bf16, fp32) → fp32", () => assert.equal(autocastOpDtype({ op: "addcmul", inputs: ["bfloat16", "bfloat16", "float32"] }, cuda), "float32"));
  it("promote(bf16, fp16) → error", () => {
    assert.throws(() => autocastOpDtype({ op: "addcmul", inputs: ["bfloat16", "float16", "float16"] }, cuda), /Unexpected floating ScalarType/);
  });
  it("binary_cross_entropy is banned on CUDA", () => assert.equal(autocastOutcome({ op: "binary_cross_entropy", inputs: ["float32"] }, cuda).kind, "error"));
  it("fp16 autocast uses the same lists", () => assert.equal(autocastOpDtype({ op: "matmul", inputs: ["float32", "float32"] }, { device: "cuda", dtype: "float16" }), "float16"));
  it("param.grad → fp32 and parameter storage unchanged (whole simulation)", () => {
    const s = sim(modeInput("b"));
    for (const p of s.params) {
      assert.equal(p.storage, "float32");
      assert.equal(p.stored, "float32");
    }
  });
  it("autocast with float32 target on CUDA stays on (no dtype check on CUDA), but fp32 weights give no mixed precision", () => {
    // PyTorch v1.13.1 torch/amp/autocast_mode.py:223-225: the CUDA branch only checks bf16 support;
    // the "Disabling autocast" warning is in the CPU branch (:209-215). See test/engine-fidelity.test.ts.
    const s = sim(modeInput("b", { paramDtype: "float32" }));
    assert.equal(s.mixedPrecisionApplied, false);
    assert.equal(s.autocast?.active, true);
    assert.equal(s.forward.find((o) => o.op === "wq")!.dtype, "float32");
    assert.match(s.mixedPrecisionReason, /stays on, but every tensor is already float32/);
  });
});

describe("§9.2 autocast CPU bf16", () => {
  it("softmax(bf16) → bf16 (unlisted on CPU)", () => assert.equal(autocastOpDtype({ op: "softmax", inputs: ["bfloat16"] }, cpu), "bfloat16"));
  it("cross_entropy_loss → fp32", () => assert.equal(autocastOpDtype({ op: "cross_entropy_loss", inputs: ["bfloat16", "int64"] }, cpu), "float32"));
  it("cat(bf16, fp32) → fp32", () => assert.equal(autocastOpDtype({ op: "cat", inputs: ["bfloat16", "float32"] }, cpu), "float32"));
  // PyTorch v2.13.0's AutocastCPU registrations (autocast.ts): rms_norm, layer_norm, log_softmax fall through
  // on CPU (CUDA lists layer_norm and log_softmax); view_as_complex, polar, linalg_* are on the CPU fp32 list.
  it("CPU lists per PyTorch 2.13: rms_norm / layer_norm / log_softmax fall through, view_as_complex fp32", () => {
    assert.equal(policyFor("rms_norm", "cpu", { rmsNorm: "fp32" }), undefined);
    assert.equal(policyFor("layer_norm", "cpu"), undefined);
    assert.equal(policyFor("layer_norm", "cuda"), "fp32");
    assert.equal(policyFor("log_softmax", "cpu"), undefined);
    assert.equal(policyFor("log_softmax", "cuda"), "fp32_set_opt_dtype");
    assert.equal(policyFor("view_as_complex", "cpu"), "fp32");
    assert.equal(policyFor("linalg_eigh", "cpu"), "fp32");
    assert.equal(policyFor("_native_multi_head_attention", "cpu"), "lower_precision_fp");
    assert.equal(policyFor("binary_cross_entropy", "cpu"), "fp32");
    assert.equal(policyFor("binary_cross_entropy", "cuda"), "banned");
  });
  it("CUDA lists per PyTorch 2.13's autocast_mode.h: the exact-nearest and anti-aliased upsamples are fp32", () => {
    assert.equal(policyFor("_upsample_nearest_exact2d", "cuda"), "fp32");
    assert.equal(policyFor("_upsample_bicubic2d_aa", "cuda"), "fp32");
  });
});

describe("§9.3 autocast weight-cast cache", () => {
  const w = { tensor: "wq.weight", dtype: "float32" as const, isParam: true };
  it("same fp32 weight used twice in one region → one cast", () => assert.equal(countAutocastCasts([{ ...w, region: 0 }, { ...w, region: 0 }], "bfloat16").casts, 1));
  it("after the context exits → a new cast", () => assert.equal(countAutocastCasts([{ ...w, region: 0 }, { ...w, region: 1 }], "bfloat16").casts, 2));
  it("activations are never cached", () => {
    const x = { tensor: "x", dtype: "float32" as const, isParam: false, region: 0 };
    assert.equal(countAutocastCasts([x, x, x], "bfloat16").casts, 3);
  });
  it("cache_enabled=False → cast every use", () => assert.equal(countAutocastCasts([{ ...w, region: 0 }, { ...w, region: 0 }], "bfloat16", false).casts, 2));
  it("the simulation makes one cast per linear weight per microbatch (7 block linears + output)", () => {
    const s = sim(modeInput("b"));
    assert.match(s.memory.terms.find((t) => t.name === "autocast_weight_casts")!.detail, /8 casts/);
  });
});

describe("§9.4 FSDP2 policy(bf16, fp32), fp32 model", () => {
  const lc = fsdpLifecycle(clampPolicy({ paramDtype: "bfloat16", reduceDtype: "float32" }, "float32"));
  it("lifecycle", () => {
    assert.equal(lc.allGatherInput, "bfloat16");
    assert.equal(lc.unsharded, "bfloat16");
    assert.equal(lc.unshardedGrad, "bfloat16");
    assert.equal(lc.reduce, "float32");
    assert.equal(lc.shardedGrad, "float32");
  });
  it("whole simulation with HSDP: AG bf16, RS fp32, HSDP AR fp32, sharded grad fp32, optimizer fp32", () => {
    const s = sim(modeInput("c", { layout: layout({ dp_replicate: 2, dp_shard: 4 }) }));
    assert.equal(collective(s, "fsdp_all_gather"), "bfloat16");
    assert.equal(collective(s, "fsdp_reduce_scatter"), "float32");
    assert.equal(collective(s, "hsdp_all_reduce"), "float32");
    assert.equal(s.grad.stored, "float32");
    assert.equal(s.optimizerState, "float32");
  });
});

describe("§9.5 policy clamping", () => {
  it("policy(bf16, None): RS bf16, sharded grad fp32", () => {
    const lc = fsdpLifecycle(clampPolicy({ paramDtype: "bfloat16" }, "float32"));
    assert.equal(lc.reduce, "bfloat16");
    assert.equal(lc.shardedGrad, "float32");
  });
  it("policy(bf16, bf16): reduce clamped to None → same as previous (also through the simulation)", () => {
    const p = clampPolicy({ paramDtype: "bfloat16", reduceDtype: "bfloat16" }, "float32");
    assert.equal(p.reduceDtype, undefined);
    assert.equal(fsdpLifecycle(p).reduce, "bfloat16");
    const s = sim(modeInput("c", { reduceDtype: "bfloat16" }));
    assert.equal(collective(s, "fsdp_reduce_scatter"), "bfloat16");
    assert.equal(s.grad.stored, "float32");
  });
  it("bf16 model + policy(bf16, fp32): no param cast, RS fp32, grad bf16", () => {
    const p = clampPolicy({ paramDtype: "bfloat16", reduceDtype: "float32" }, "bfloat16");
    assert.equal(p.paramDtype, undefined);
    const lc = fsdpLifecycle(p);
    assert.equal(lc.reduce, "float32");
    assert.equal(lc.shardedGrad, "bfloat16");
  });
  it("reduce==param is compared on the policy values before param is cleared", () => {
    // policy(fp32, fp32) on a bf16 model: reduce cleared (equal to param), param kept (≠ orig) → FSDP upcasts.
    const p = clampPolicy({ paramDtype: "float32", reduceDtype: "float32" }, "bfloat16");
    assert.equal(p.reduceDtype, undefined);
    assert.equal(p.paramDtype, "float32");
    const s = sim(modeInput("c", { trainingDtype: "bfloat16", paramDtype: "float32" }));
    assert.equal(s.forward.find((o) => o.op === "wq")!.dtype, "float32");
    assert.equal(collective(s, "fsdp_reduce_scatter"), "float32");
    assert.equal(s.grad.stored, "bfloat16");
    assert.equal(s.mixedPrecisionApplied, false);
  });
  it("mixed_precision_param = float32 on an fp32 model: no cast, no mixed precision", () => {
    const s = sim(modeInput("c", { paramDtype: "float32" }));
    assert.equal(s.mixedPrecisionApplied, false);
    assert.equal(collective(s, "fsdp_all_gather"), "float32");
    assert.equal(s.forward.find((o) => o.op === "attention_residual")!.dtype, "float32");
  });
  it("fsdp_unsharded_grad_dtype=reduce (open PRs): unsharded grads in fp32", () => {
    const s = sim(modeInput("c", { assumptions: { fsdp_unsharded_grad_dtype: "reduce" } }));
    assert.equal(s.fsdp!.lifecycle.unshardedGrad, "float32");
    assert.equal(s.params.find((p) => p.op === "wq")!.gradAccumulated, "float32");
  });
});

describe("§9.6 cast_forward_inputs / output_dtype", () => {
  it("fp32 float input → bf16; complex64 / int64 unchanged", () => {
    assert.deepEqual(castForwardInputs(["float32", "complex64", "int64"], { paramDtype: "bfloat16" }), ["bfloat16", "complex64", "int64"]);
  });
  it("cast_forward_inputs=False leaves inputs alone", () => {
    assert.deepEqual(castForwardInputs(["float32"], { paramDtype: "bfloat16", castForwardInputs: false }), ["float32"]);
  });
  it("output_dtype=fp32: floating outputs fp32", () => {
    assert.deepEqual(castForwardOutputs(["bfloat16", "int64"], { outputDtype: "float32" }), ["float32", "int64"]);
  });
});

describe("§9.7 DDP + AMP", () => {
  const ddp = { ddp: true, layout: layout({ dp_replicate: 8 }) };
  it("all-reduce fp32", () => assert.equal(collective(sim(modeInput("b", ddp)), "ddp_all_reduce"), "float32"));
  it("bf16_compress_hook: wire bf16, .grad fp32", () => {
    const s = sim(modeInput("b", { ...ddp, assumptions: { ddp_comm_hook: "bf16_compress" } }));
    assert.equal(collective(s, "ddp_all_reduce"), "bfloat16");
    assert.equal(s.grad.stored, "float32");
  });
});

describe("§9.8 PP + FSDP2-MP", () => {
  const s = sim(modeInput("c", { layout: layout({ dp_shard: 4, pp: 2 }), localBatchSize: 8, ppMicrobatchSize: 1 }));
  it("P2P activations bf16", () => assert.equal(collective(s, "pp_send_recv"), "bfloat16"));
  it("one reduce-scatter per step, in fp32", () => {
    const rs = s.collectives.find((c) => c.name === "fsdp_reduce_scatter")!;
    assert.equal(rs.dtype, "float32");
    assert.match(rs.when, /once per step/);
  });
  it("accumulation buffer fp32, unsharded", () => {
    assert.equal(s.fsdp!.lifecycle.accumulation, "float32");
    assert.match(s.memory.terms.find((t) => t.name === "pp_grad_accumulation")!.detail, /float32/);
  });
  it("no autocast with PP in the TOML era (PP-only → none)", () => {
    assert.equal(eraById("maybe-enable-amp").decide(layout({ pp: 8 }), 8, {}).mechanism, "none");
  });
});

describe("§9.9 torchtitan HEAD single GPU = FSDP2-MP dtypes", () => {
  it("python-always-fully-shard era on one GPU gives mode (c)'s forward table", () => {
    const d = eraById("python-always-fully-shard" as EraId).decide(layout(), 1, {});
    const head = sim(modeInput("c", { mechanism: d.mechanism, layout: layout(), ddp: d.ddp }));
    assert.deepEqual(simulationToJson(head).forward, simulationToJson(sim(modeInput("c"))).forward);
    assert.deepEqual(simulationToJson(head).collectives, {});
    assert.equal(head.mixedPrecisionApplied, true);
  });
});

describe("§9.10 torchtitan classic TP-only: all fp32", () => {
  it("v0.2.2 TP-only decides none, every op fp32, mixed precision not applied", () => {
    const d = eraById("maybe-enable-amp").decide(layout({ tp: 8 }), 8, {});
    assert.equal(d.mechanism, "none");
    const s = sim(modeInput("a", { mechanism: d.mechanism, layout: layout({ tp: 8 }), mechanismReason: d.reason }));
    for (const o of s.forward) assert.equal(o.dtype, "float32", o.op);
    assert.equal(s.mixedPrecisionApplied, false);
    assert.match(s.mixedPrecisionReason, /TP or PP without FSDP/);
  });
});

describe("ordinary type promotion", () => {
  it("float rules", () => {
    assert.deepEqual(promoteTypes(["bfloat16", "float16"]), { dtype: "float32" });
    assert.deepEqual(promoteTypes(["bfloat16", "float32"]), { dtype: "float32" });
    assert.deepEqual(promoteTypes(["bfloat16", "bfloat16"]), { dtype: "bfloat16" });
    assert.deepEqual(promoteTypes(["bfloat16", "scalar-float"]), { dtype: "bfloat16" });
    assert.deepEqual(promoteTypes(["int64", "scalar-float"]), { dtype: "float32" });
    assert.deepEqual(promoteTypes(["complex64", "float32"]), { dtype: "complex64" });
    assert.deepEqual(promoteTypes(["complex64", "float64"]), { dtype: "complex128" });
    assert.ok("error" in promoteTypes(["float8_e4m3fn", "bfloat16"]));
  });
});

describe("mechanism error", () => {
  it("no simulation", async () => {
    const { simulate } = await import("../server/src/core/engine");
    assert.equal(simulate(modeInput("a", { mechanism: "error" })), undefined);
  });
});
