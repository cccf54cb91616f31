/**
 * The fidelity errors of issue #9 §3 (source review), each pinned to the upstream source line that
 * decides it. torchtitan lines are at its release tags (git show vX:path); PyTorch's autocast lines at
 * v1.13.1 (the shape is unchanged in the 2.x copy read at pytorch@00021b139).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { simulate, simulationToJson } from "../server/src/core/engine";
import { autocastEnabled } from "../server/src/core/engine/autocast";
import { EP_TP_MESH_OPTIONAL_DATE, eraById, MESH_UNFLATTEN_DATE, modelDecideOptions, TP_MESH_ERROR, WARN_TP_PP } from "../server/src/core/frameworks/torchtitan/eras";
import { pureBf16Risk, pureLowPrecisionState } from "../server/src/core/frameworks/common/pureLowPrecision";
import { isKnown } from "../server/src/core/provenance";
import { analyzeFixture, applyFix, checkDiagnostics } from "./support/fixture";
import { collective, layout, modeInput, sim } from "./engine-support";

const F = "float32";
const H = "bfloat16";
const MESH_FSDP = "Mesh '['fsdp']' is not available. Ensure the corresponding parallelism dimension is all enabled.";
const MOE = { fsdpOnEp: true, epNeedsFsdpMesh: true } as const;

function moeConfig(model: string, parallelism: string, extra = ""): string {
  return `# precision-lens: world-size=8
[job]
description = "fixture"

[model]
name = "${model}"
flavor = "debugmodel"

[training]
local_batch_size = 2
${extra}
[parallelism]
${parallelism}`;
}

const TP8_EP8 = "data_parallel_shard_degree = -1\ntensor_parallel_degree = 8\nexpert_parallel_degree = 8\n";

describe("MoE + expert parallelism with dp_shard * cp = 1 (eras.ts moeEpWithoutFsdp)", () => {
  // torchtitan v0.2.1 torchtitan/models/llama4/infra/parallelize.py:171-176 (v0.2.2 :181-186):
  //   `if parallel_dims.fsdp_enabled or parallel_dims.ep_enabled:` … `parallel_dims.get_mesh(["fsdp"])`;
  // v0.2.1 torchtitan/distributed/parallel_dims.py:61-66 `_mesh_exist` is `degree > 1` for "fsdp", and
  // :252-276 `get_mesh` raises ValueError "Mesh '{dims}' is not available. Ensure the corresponding
  // parallelism dimension is {enabled_str}." (:273; "all enabled" for a list).
  const era = eraById("maybe-enable-amp");
  const tp8ep8 = layout({ tp: 8, ep: 8 });

  it("v0.2.1 on (from 2025-12-17, 183a0d2e7): the launch fails with torchtitan's ValueError", () => {
    const d = era.decide(tp8ep8, 8, { ...MOE, date: "2025-12-26" });
    assert.equal(MESH_UNFLATTEN_DATE, "2025-12-17");
    assert.equal(d.mechanism, "error");
    assert.equal(d.errorCode, "ep-without-fsdp-mesh");
    assert.equal(d.error, MESH_FSDP);
  });

  it("v0.2.0: FSDP mixed precision on a size-1 mesh, while maybe_enable_amp logs the TP warning", () => {
    // v0.2.0 llama4/infra/parallelize.py:131-137 wraps on world_mesh["dp_shard_cp"], which exists at size 1
    // because parallel_dims.py:101-103 keeps dp_shard_mod_ep "even if it's 1"; utils.py:221-228
    // (maybe_enable_amp) checks only fsdp_enabled, so it warns about TP.
    const d = era.decide(tp8ep8, 8, { ...MOE, date: "2025-10-17" });
    assert.equal(d.mechanism, "fully_shard");
    assert.deepEqual(d.logs.map((l) => l.level + ":" + l.text), [`warning:${WARN_TP_PP}`, "info:Mixed precision training is disabled"]);
  });

  it("with dp_replicate > 1 the MoE FSDP branch comes before DDP: mesh ['dp_replicate', 'fsdp'] is missing, not the DDP error", () => {
    // v0.2.2 llama4/infra/parallelize.py:181-186 asks for ["dp_replicate", "fsdp"] when dp_replicate > 1;
    // the DDP branch (`elif parallel_dims.dp_replicate_enabled`) is never reached.
    const hsdp = layout({ dp_replicate: 2, tp: 4, ep: 4 });
    const d = era.decide(hsdp, 8, { ...MOE, date: "2026-02-20" });
    assert.equal(d.errorCode, "ep-without-fsdp-mesh");
    assert.equal(d.error, "Mesh '['dp_replicate', 'fsdp']' is not available. Ensure the corresponding parallelism dimension is all enabled.");
    assert.equal(era.decide(hsdp, 8, { ...MOE, date: "2025-10-17" }).mechanism, "fully_shard");
  });

  it("with FSDP on (dp_shard > 1) nothing fails", () => {
    const d = era.decide(layout({ dp_shard: 2, tp: 4, ep: 8 }), 8, { ...MOE, date: "2026-02-20" });
    assert.equal(d.mechanism, "fully_shard");
  });

  for (const [model, version, cite] of [
    ["llama4", "v0.2.1", "v0.2.1 llama4/infra/parallelize.py:171-176"],
    ["llama4", "v0.2.2", "v0.2.2 llama4/infra/parallelize.py:181-186"],
    ["deepseek_v3", "v0.2.1", "v0.2.1 deepseek_v3/infra/parallelize.py:148-153"],
    ["deepseek_v3", "v0.2.2", "v0.2.2 deepseek_v3/infra/parallelize.py:162-167"],
    ["gpt_oss", "v0.2.1", "v0.2.1 experiments/gpt_oss/infra/parallelize.py:123-128"],
    ["gpt_oss", "v0.2.2", "v0.2.2 models/gpt_oss/infra/parallelize.py:125-130"],
    ["llama4", "v0.2.2+pr2213", "PR #2213 changes only maybe_enable_amp; parallelize is v0.2.2's"],
  ] as const) {
    it(`${model} at ${version}: error ep-without-fsdp-mesh on expert_parallel_degree (${cite})`, () => {
      const r = checkDiagnostics(
        moeConfig(model, `data_parallel_shard_degree = -1\ntensor_parallel_degree = 8\nexpert_parallel_degree = 8\n#^^^^^^^^^^^^^^^^^^^^^^^^^ error[ep-without-fsdp-mesh]: with ValueError "${MESH_FSDP}"\n`),
        { settings: { torchtitanVersion: version } },
      );
      assert.equal(r.mechanism, "error");
      assert.equal(r.simulation, undefined);
    });
  }

  it("llama4 and deepseek_v3 at v0.2.0: no error, FSDP bf16 compute (v0.2.0 deepseek_v3/infra/parallelize.py:124-130)", () => {
    for (const model of ["llama4", "deepseek_v3"]) {
      const r = checkDiagnostics(moeConfig(model, TP8_EP8), { settings: { torchtitanVersion: "v0.2.0" } });
      assert.equal(r.mechanism, "fully_shard", model);
      assert.equal(r.precision?.compute.dtype, H, model);
      assert.match(r.reportMarkdown ?? "", new RegExp(`torchtitan logs \\(warning\\): "${WARN_TP_PP.replace(/[.()/]/g, "\\$&")}"`), model);
    }
  });

  it("qwen3 MoE checks only fsdp_enabled (v0.2.2 qwen3/infra/parallelize.py:142): no launch error, TP-only without mixed precision", () => {
    const r = analyzeFixture(moeConfig("qwen3", TP8_EP8).replace('flavor = "debugmodel"', 'flavor = "debugmodel_moe"'), { settings: { torchtitanVersion: "v0.2.2" } });
    assert.deepEqual(r.diagnostics.map((d) => d.code), ["no-mixed-precision"]);
    assert.equal(r.mechanism, "none");
  });

  it("the era comparison splits maybe_enable_amp where the outcome changes and quotes the error", () => {
    // EP enters ParallelDims on 2025-07-08 (01f4e5022; before it the key is ignored, so this is TP-only);
    // the size-1 mesh runs until 183a0d2e7 (2025-12-17) and fails after it.
    const r = analyzeFixture(moeConfig("llama4", TP8_EP8), { settings: { torchtitanVersion: "v0.2.2" } });
    const lines = (r.reportMarkdown ?? "").split("\n").filter((l) => l.startsWith("- ") && /maybe_enable_amp|PR #2213/.test(l));
    assert.deepEqual(lines, [
      "- v0.1.0 … main 2025-07-07 (maybe_enable_amp): no mixed precision, fp32 compute",
      "- main 2025-07-08 … v0.2.0 (maybe_enable_amp): fully_shard, bf16 compute",
      `- **v0.2.1 … v0.2.2 (maybe_enable_amp): launch fails (${MESH_FSDP})** (targeted)`,
      `- v0.2.2 with PR #2213 (unmerged what-if): launch fails (${MESH_FSDP})`,
    ]);
    const v020 = analyzeFixture(moeConfig("llama4", TP8_EP8), { settings: { torchtitanVersion: "v0.2.0" } });
    assert.ok((v020.reportMarkdown ?? "").includes("- **main 2025-07-08 … v0.2.0 (maybe_enable_amp): fully_shard, bf16 compute** (targeted)"));
    // A llama3 layout that fares the same in both periods keeps one line for the era.
    const dense = analyzeFixture(moeConfig("llama3", "data_parallel_shard_degree = -1\n").replace('flavor = "debugmodel"', 'flavor = "8B"'));
    assert.ok((dense.reportMarkdown ?? "").includes("- **v0.1.0 … v0.2.2 (maybe_enable_amp): fully_shard, bf16 compute** (targeted)"));
  });

  it("the fix lowers tensor_parallel_degree so FSDP shards (EP stays valid), and the error is gone", () => {
    const text = moeConfig("llama4", TP8_EP8);
    const { after } = applyFix(text, "ep-without-fsdp-mesh", "Lower tensor_parallel_degree to 4", { settings: { torchtitanVersion: "v0.2.2" } });
    assert.equal(after, text.replace("tensor_parallel_degree = 8", "tensor_parallel_degree = 4"));
    const r = analyzeFixture(after, { settings: { torchtitanVersion: "v0.2.2" } });
    assert.equal(r.mechanism, "fully_shard");
    // FSDP+TP now: the launch error is gone; only the PyTorch all-reduce note (information) remains.
    assert.deepEqual(r.diagnostics.map((d) => d.code), ["fsdp-tp-grad-allreduce-dtype"]);
    // An explicit dp_shard = 1 is raised with it.
    const explicit = moeConfig("llama4", "data_parallel_shard_degree = 1\ntensor_parallel_degree = 8\nexpert_parallel_degree = 2\nexpert_tensor_parallel_degree = 1\n");
    const fixed = applyFix(explicit, "ep-without-fsdp-mesh", "Lower", { settings: { torchtitanVersion: "v0.2.2" } }).after;
    assert.equal(fixed, explicit.replace("data_parallel_shard_degree = 1", "data_parallel_shard_degree = 2").replace("tensor_parallel_degree = 8", "tensor_parallel_degree = 4"));
    assert.deepEqual(analyzeFixture(fixed, { settings: { torchtitanVersion: "v0.2.2" } }).diagnostics.map((d) => d.code), ["fsdp-tp-grad-allreduce-dtype"]);
  });
});

describe("llama4 / qwen3 with EP > 1 and TP = 1 between 2025-12-17 and 2025-12-29 (eras.ts epAsksTpMesh)", () => {
  // v0.2.1 torchtitan/models/qwen3/infra/parallelize.py:102-105 and llama4/infra/parallelize.py:133-138: the MoE
  // branch (`if parallel_dims.tp_enabled or parallel_dims.ep_enabled:`) calls `parallel_dims.get_mesh("tp")`;
  // distributed/parallel_dims.py:252-276 raises for a size-1 dimension ("enabled (size > 1)" for one name).
  // 62f5806ed (#2185, 2025-12-29) switched both to get_optional_mesh("tp"); v0.2.0 passed None at TP = 1.
  const era = eraById("maybe-enable-amp");
  const ep4 = layout({ dp_shard: 8, ep: 4 });
  const EP4 = "data_parallel_shard_degree = -1\ntensor_parallel_degree = 1\nexpert_parallel_degree = 4\n";

  it("decides the launch error at v0.2.1's date for qwen3 and llama4 only, and nowhere else", () => {
    assert.equal(TP_MESH_ERROR, "Mesh 'tp' is not available. Ensure the corresponding parallelism dimension is enabled (size > 1).");
    assert.equal(EP_TP_MESH_OPTIONAL_DATE, "2025-12-29");
    for (const model of ["qwen3", "llama4"]) {
      const d = era.decide(ep4, 8, modelDecideOptions(model, "2025-12-26"));
      assert.equal(d.errorCode, "ep-needs-tp-mesh", model);
      assert.equal(d.error, TP_MESH_ERROR, model);
      assert.equal(era.decide(ep4, 8, modelDecideOptions(model, MESH_UNFLATTEN_DATE)).errorCode, "ep-needs-tp-mesh", model);
      for (const date of ["2025-12-16", EP_TP_MESH_OPTIONAL_DATE, "2026-02-20"]) assert.equal(era.decide(ep4, 8, modelDecideOptions(model, date)).mechanism, "fully_shard", `${model} ${date}`);
      // TP > 1 has the mesh; EP = 1 never enters the branch.
      assert.equal(era.decide(layout({ dp_shard: 4, tp: 2, ep: 4 }), 8, modelDecideOptions(model, "2025-12-26")).errorCode, undefined, model);
      assert.equal(era.decide(layout({ dp_shard: 8 }), 8, modelDecideOptions(model, "2025-12-26")).errorCode, undefined, model);
    }
    // deepseek_v3 took get_optional_mesh("tp") already (v0.2.1 deepseek_v3/infra/parallelize.py:117-123).
    assert.equal(era.decide(ep4, 8, modelDecideOptions("deepseek_v3", "2025-12-26")).mechanism, "fully_shard");
  });

  it("at v0.2.1: error ep-needs-tp-mesh on expert_parallel_degree, quoting torchtitan's ValueError; none at v0.2.0 or v0.2.2", () => {
    for (const model of ["qwen3", "llama4"]) {
      const r = checkDiagnostics(
        moeConfig(model, `data_parallel_shard_degree = -1\ntensor_parallel_degree = 1\nexpert_parallel_degree = 4\n#^^^^^^^^^^^^^^^^^^^^^^^^^ error[ep-needs-tp-mesh]: with ValueError "${TP_MESH_ERROR}"\n`),
        { settings: { torchtitanVersion: "v0.2.1" } },
      );
      assert.equal(r.mechanism, "error", model);
      const d = r.diagnostics.find((x) => x.code === "ep-needs-tp-mesh")!;
      assert.equal(d.message, `${model} with EP 4 and TP 1: v0.2.1 parallelize asks for the tp mesh, launch fails`);
      for (const v of ["v0.2.0", "v0.2.2"]) {
        const ok = analyzeFixture(moeConfig(model, EP4), { settings: { torchtitanVersion: v } });
        assert.deepEqual(ok.diagnostics.filter((x) => x.severity === "error").map((x) => x.code), [], `${model} ${v}`);
        assert.equal(ok.mechanism, "fully_shard", `${model} ${v}`);
      }
    }
  });

  it("an assumed world size (an upstream preset's comment) does not weaken it: EP 4 with TP 1 fails at every world size", () => {
    const text = moeConfig("qwen3", EP4).replace("# precision-lens: world-size=8\n", "# NOTE: this toml config is a preset for 8 H200 GPUs (with 141GiB memory).\n");
    const r = analyzeFixture(text, { settings: { torchtitanVersion: "v0.2.1" } });
    const d = r.diagnostics.find((x) => x.code === "ep-needs-tp-mesh")!;
    assert.ok(r.worldSize && !isKnown(r.worldSize.kind) && r.worldSize.value === 8, JSON.stringify(r.worldSize));
    assert.equal(d.severity, "error");
    assert.ok(!d.message.startsWith("Assuming"), d.message);
  });

  it("the era comparison gives v0.2.1 its own line and the fix date", () => {
    const r = analyzeFixture(moeConfig("qwen3", EP4), { settings: { torchtitanVersion: "v0.2.2" } });
    const lines = (r.reportMarkdown ?? "").split("\n").filter((l) => l.startsWith("- ") && /maybe_enable_amp/.test(l));
    assert.deepEqual(lines, [
      "- v0.1.0 … v0.2.0 (maybe_enable_amp): fully_shard, bf16 compute",
      `- v0.2.1 … main 2025-12-28 (maybe_enable_amp): launch fails (${TP_MESH_ERROR})`,
      "- **main 2025-12-29 … v0.2.2 (maybe_enable_amp): fully_shard, bf16 compute** (targeted)",
    ]);
  });
});

describe("CUDA autocast to float32 stays on (engine/autocast.ts autocastEnabled)", () => {
  it("only the non-CUDA branches disable autocast for an unsupported dtype", () => {
    // PyTorch v1.13.1 torch/amp/autocast_mode.py:209-215: CPU warns "In CPU autocast, but the target dtype
    // is not supported. Disabling autocast." and sets enabled = False; :223-225: the CUDA branch only raises
    // when bf16 is unsupported by the device.
    assert.deepEqual(autocastEnabled("cuda", F), { enabled: true });
    assert.deepEqual(autocastEnabled("cpu", F), { enabled: false, warning: "In CPU autocast, but the target dtype is not supported. Disabling autocast." });
    assert.deepEqual(autocastEnabled("cpu", H), { enabled: true });
  });

  it("bf16 storage + autocast(fp32), one GPU: linears, attention, residuals and logits run in fp32", () => {
    const s = sim(modeInput("b", { trainingDtype: H, paramDtype: F }));
    const j = simulationToJson(s);
    assert.equal(s.autocast?.active, true);
    assert.equal(s.mixedPrecisionApplied, false);
    assert.match(s.mixedPrecisionReason, /stays on: linears, attention and the logits run in float32, up-cast from the bfloat16 weights/);
    assert.deepEqual(j.forward, {
      tok_embeddings: H, attention_norm: F, wq: F, wk: F, wv: F, rope: F, attention: F, wo: F, attention_residual: F,
      ffn_norm: F, w1: F, w3: F, silu: F, ffn_mul: F, w2: F, ffn_residual: F, norm: F, output: F, loss: F,
    });
    // The casts are autograd-visible: the fp32 gradient is cast back to the bf16 parameter's dtype.
    assert.deepEqual(j.grad, { computed: F, stored: H });
    assert.equal(j.optimizerState, H);
    assert.equal(s.forward.find((o) => o.op === "wq")!.weightCast, F);
  });

  it("fp32 storage + autocast(fp32): on, but nothing to cast", () => {
    const s = sim(modeInput("b", { paramDtype: F }));
    for (const dtype of Object.values(simulationToJson(s).forward)) assert.equal(dtype, F);
    assert.equal(s.forward.find((o) => o.op === "wq")!.weightCast, undefined);
  });

  it("pure DDP with training.dtype = bfloat16 and mixed_precision_param = float32: fp32 compute, bf16 all-reduce", () => {
    const r = analyzeFixture(`# precision-lens: world-size=8
[job]
description = "fixture"

[model]
name = "llama3"
flavor = "8B"

[training]
local_batch_size = 2
dtype = "bfloat16"
mixed_precision_param = "float32"

[parallelism]
data_parallel_replicate_degree = 8
data_parallel_shard_degree = 1
`);
    assert.equal(r.mechanism, "autocast");
    assert.equal(r.precision?.compute.dtype, F);
    assert.match(r.precision!.compute.knob, /stays on and up-casts the bfloat16 weights/);
    assert.equal(r.simulation?.forward.find((o) => o.op === "attention")!.dtype, F);
    assert.equal(collective(r.simulation!, "ddp_all_reduce"), H);
    // memory-exceeds-gpu (an estimate, its own tests in engine-throughput) is not this test's subject.
    assert.deepEqual(r.diagnostics.filter((d) => d.code !== "memory-exceeds-gpu").map((d) => `${d.severity}:${d.code}`).sort(), ["information:fp32-param-dtype", "warning:bf16-storage-fp32-compute"]);
    assert.match(r.diagnostics.find((d) => d.code === "bf16-storage-fp32-compute")!.detail ?? "", /CUDA autocast to fp32 stays on and up-casts/);
  });

  it("a CPU autocast to fp32 is still disabled (the warning belongs there)", () => {
    const s = simulate(modeInput("b", { paramDtype: F, trainingDtype: H, device: "cpu" }))!;
    assert.equal(s.autocast?.active, false);
    assert.match(s.mixedPrecisionReason, /In CPU autocast, but the target dtype is not supported/);
    assert.equal(simulationToJson(s).forward.wq, H);
  });
});

describe("training.dtype = bfloat16: pure-bf16 advice (core/pureLowPrecision.ts, shared with torchtune/Lightning)", () => {
  const BASE = `[job]
description = "fixture"

[model]
name = "llama3"
flavor = "8B"
`;
  it("FSDP: information, says there is no fp32 master copy and what the default gives instead; fix to float32", () => {
    // torchtitan v0.2.2 builds the model under set_default_dtype(TORCH_DTYPE_MAP[training.dtype]) (#1646).
    const text = `${BASE}\n[training]\ndtype = "bfloat16"\n`;
    const r = checkDiagnostics(`${BASE}
[training]
dtype = "bfloat16"
#       ^^^^^^^^^^ information[pure-bf16]: is pure bf16: ${pureLowPrecisionState("bf16")}; gradients are reduced in fp32. For fp32 master weights, leave training.dtype at "float32" (the default): FSDP's MixedPrecisionPolicy still computes in bf16
`);
    assert.equal(r.precision?.paramStorage.dtype, H);
    const { after } = applyFix(text, "pure-bf16", "Keep fp32 master weights");
    assert.equal(after, text.replace('"bfloat16"', '"float32"'));
  });

  it("a small learning rate makes it a warning with the same reason torchtune gives", () => {
    const why = pureBf16Risk({ lr: 3e-6 }).why;
    assert.ok(why.length > 0);
    const r = checkDiagnostics(`${BASE}
[training]
dtype = "bfloat16"
#       ^^^^^^^^^^ warning[pure-bf16]: round away

[optimizer]
lr = 3e-6
`);
    assert.ok((r.diagnostics.find((d) => d.code === "pure-bf16")!.detail ?? "").includes(why.trim()));
    const tt = analyzeFixture("model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\ndtype: bf16\nepochs: 1\noptimizer:\n  _component_: torch.optim.AdamW\n  lr: 3e-6\n", { uri: "file:///fixture/full_finetune_single_device.yaml" });
    const tt3 = tt.diagnostics.find((d) => d.code === "torchtune/pure-bf16");
    assert.equal(tt3?.severity, "warning");
    assert.ok((tt3!.detail ?? "").includes(why.trim()), tt3!.detail);
    assert.ok(tt3!.message.includes(pureBf16Risk({ lr: 3e-6 }).short), tt3!.message);
  });

  it("TP-only: says fp32 storage would train fully in fp32 here (no mixed precision in this layout)", () => {
    checkDiagnostics(`${BASE}
[training]
dtype = "bfloat16"
#       ^^^^^^^^^^ information[pure-bf16]: but this TP-only layout applies no mixed precision in torchtitan v0.2.2, so it would then train fully in fp32

[parallelism]
tensor_parallel_degree = 8
`);
  });

  it("with mixed_precision_param = float32 it stays quiet (bf16-storage-fp32-compute owns that case)", () => {
    const r = analyzeFixture(`${BASE}\n[training]\ndtype = "bfloat16"\nmixed_precision_param = "float32"\n`);
    assert.equal(r.diagnostics.some((d) => d.code === "pure-bf16"), false);
  });
});
