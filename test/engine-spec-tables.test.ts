/**
 * The spec's tables, row by row, against the engine's general rules:
 * pytorch-dtypes.md §6.2 (forward per op), §6.3 (gradients / optimizer), §4.2 (TP collectives).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OP_NAMES, simulationToJson } from "../server/src/core/engine";
import { collective, fwd, layout, MODES, modeInput, sim, type Mode } from "./engine-support";

const F = "float32";
const H = "bfloat16";
const E4 = "float8_e4m3fn";

/** §6.2, columns (a) (b) (c) (d). Rows 0 (token ids) and 4 (head views) are checked separately / not ops. */
const TABLE_6_2: Record<string, [string, string, string, string]> = {
  tok_embeddings: [F, F, H, H], // row 1
  attention_norm: [F, F, H, H], // row 2
  wq: [F, H, H, H], // row 3
  wk: [F, H, H, H],
  wv: [F, H, H, H],
  rope: [F, H, H, H], // row 5
  attention: [F, H, H, H], // row 6 (SDPA)
  wo: [F, H, H, H], // row 7
  attention_residual: [F, F, H, H], // row 8
  ffn_norm: [F, F, H, H], // row 9
  w1: [F, H, H, H], // row 10
  w3: [F, H, H, H],
  silu: [F, H, H, H], // row 11
  ffn_mul: [F, H, H, H], // row 12
  w2: [F, H, H, H], // row 13
  ffn_residual: [F, F, H, H], // row 14
  norm: [F, F, H, H], // row 15
  output: [F, H, H, H], // row 16
  loss: [F, F, F, F], // rows 17–18
};

describe("pytorch-dtypes §6.2 per-op forward dtypes", () => {
  it("covers every contract op name", () => {
    assert.deepEqual(Object.keys(TABLE_6_2).sort(), [...OP_NAMES].sort());
  });
  MODES.forEach((mode, col) => {
    it(`mode (${mode}): every op`, () => {
      const s = sim(modeInput(mode));
      const json = simulationToJson(s);
      for (const [op, row] of Object.entries(TABLE_6_2)) {
        assert.equal(json.forward[op], row[col], `${op} in mode (${mode})`);
      }
      assert.equal(s.errors.length, 0, s.errors.join("; "));
    });
  });
  it("row 0: token ids stay int64 into the embedding in every mode", () => {
    for (const m of MODES) assert.deepEqual(sim(modeInput(m)).forward.find((o) => o.op === "tok_embeddings")!.inputs, ["int64"]);
  });
  it("row 3/7/10/13 (d): block linears run float8 e4m3 GEMMs with bf16 output; the filtered output stays a bf16 linear", () => {
    const s = sim(modeInput("d"));
    for (const op of ["wq", "wk", "wv", "wo", "w1", "w3", "w2"]) {
      const r = s.forward.find((o) => o.op === op)!;
      assert.equal(r.float8, true, op);
      assert.equal(r.computeDtype, E4, op);
      assert.equal(r.dtype, H, op);
    }
    const out = s.forward.find((o) => o.op === "output")!;
    assert.equal(out.float8, undefined);
    assert.equal(out.dtype, H);
  });
  it("row 16 (d): if output is converted anyway it still outputs bf16", () => {
    const s = sim(modeInput("d", { float8: { recipe: "rowwise", filterFqns: [] } }));
    const out = s.forward.find((o) => o.op === "output")!;
    assert.equal(out.float8, true);
    assert.equal(out.dtype, H);
  });
  it("row 1 (d): the embedding is never float8", () => {
    assert.notEqual(sim(modeInput("d")).forward.find((o) => o.op === "tok_embeddings")!.float8, true);
  });
  it("row 5: RoPE computes in float32/complex64 inside and returns the input dtype", () => {
    for (const m of MODES) {
      const r = sim(modeInput(m)).forward.find((o) => o.op === "rope")!;
      assert.ok(r.steps.some((st) => st.dtype === "complex64"), `complex64 inside in (${m})`);
      assert.equal(r.steps[0]!.dtype, F);
    }
  });
  it("buffers: freqs_cis is complex64 even under training.dtype = bfloat16", () => {
    const r = sim(modeInput("c", { trainingDtype: "bfloat16" })).forward.find((o) => o.op === "rope")!;
    assert.ok(r.steps.some((st) => st.aten === "mul" && st.dtype === "complex64"));
  });
  it("row 6: fp32 SDPA is attributed to the Math backend (named assumption)", () => {
    const s = sim(modeInput("a"));
    assert.match(s.forward.find((o) => o.op === "attention")!.rule, /Math backend/);
    assert.ok(s.assumptions.some((a) => a.name === "fp32_sdpa_backend" && a.value === "math"));
  });
  const flavors: [string, string, string[]][] = [
    ["debugmodel_flex_attn", "row 6' flex attention", [F, H, H, H]],
    ["8B_flex", "row 6' flex attention (8B)", [F, H, H, H]],
    ["debugmodel_varlen_attn", "row 6'' varlen", [F, H, H, H]],
    ["8B_varlen", "row 6'' varlen (8B)", [F, H, H, H]],
  ];
  for (const [flavor, label, expected] of flavors) {
    it(`${label}: ${expected.join(" / ")}`, () => {
      MODES.forEach((m, i) => assert.equal(fwd(sim(modeInput(m, { model: { name: "llama3", flavor } })), "attention"), expected[i], `(${m})`));
    });
  }
  it("row 6'' (a): varlen computes in bf16 and casts the output back to fp32", () => {
    const r = sim(modeInput("a", { model: { name: "llama3", flavor: "8B_varlen" } })).forward.find((o) => o.op === "attention")!;
    assert.deepEqual(r.steps.map((s) => s.dtype), [H, H, F]);
  });
  it("row 6' (b): flex attention falls through autocast by default; the `cast` assumption gives the same bf16", () => {
    const d = sim(modeInput("b", { model: { name: "llama3", flavor: "8B_flex" } }));
    assert.match(d.forward.find((o) => o.op === "attention")!.rule, /higher-order/);
    const c = sim(modeInput("b", { model: { name: "llama3", flavor: "8B_flex" }, assumptions: { flex_attention_autocast: "cast" } }));
    assert.equal(fwd(c, "attention"), H);
  });
  it("row 2 (b): rms_norm stays fp32 under every rms_norm_autocast assumption", () => {
    for (const v of ["fallthrough", "fp32", "promote"]) {
      const s = sim(modeInput("b", { assumptions: { rms_norm_autocast: v } }));
      assert.equal(fwd(s, "attention_norm"), F, v);
      assert.ok(s.assumptions.some((a) => a.name === "rms_norm_autocast" && a.value === v && a.overridden === (v !== "fallthrough")));
    }
  });
});

describe("pytorch-dtypes §6.3 backward, gradients, optimizer", () => {
  it("activation grads: (a) fp32; (b) mirror forward; (c)/(d) bf16 with an fp32 loss-side grad", () => {
    for (const m of MODES) {
      const s = sim(modeInput(m));
      for (const g of s.backward) {
        if (g.op === "loss") {
          assert.equal(g.gradOutput, F);
          continue;
        }
        assert.equal(g.gradOutput, fwd(s, g.op), `${m} ${g.op}`);
      }
    }
    const b = sim(modeInput("b"));
    const by = (op: string) => b.backward.find((g) => g.op === op)!;
    assert.equal(by("attention_residual").gradOutput, F);
    assert.equal(by("wq").gradOutput, H);
    assert.deepEqual(by("wq").gradInputs, [F]); // back through the autocast cast to the fp32 norm output
    const c = sim(modeInput("c"));
    assert.deepEqual(c.backward.find((g) => g.op === "loss")!.gradInputs, [H]);
  });
  it("(d): grad_output is quantised to float8 inside the GEMMs", () => {
    const d = sim(modeInput("d"));
    assert.equal(d.backward.find((g) => g.op === "w1")!.computeDtype, E4);
    const tw = sim(modeInput("d", { float8: { recipe: "tensorwise" } }));
    assert.equal(tw.backward.find((g) => g.op === "w1")!.computeDtype, "float8_e5m2");
  });
  const produced: Record<Mode, { linear: string; norm: string; embedding: string }> = {
    a: { linear: F, norm: F, embedding: F },
    b: { linear: H, norm: F, embedding: F },
    c: { linear: H, norm: H, embedding: H },
    d: { linear: H, norm: H, embedding: H },
  };
  for (const m of MODES) {
    it(`(${m}) param grad as produced, stored .grad, Adam states`, () => {
      const s = sim(modeInput(m));
      const p = (op: string) => s.params.find((x) => x.op === op)!;
      assert.equal(p("wq").gradProduced, produced[m].linear);
      assert.equal(p("attention_norm").gradProduced, produced[m].norm);
      assert.equal(p("tok_embeddings").gradProduced, produced[m].embedding);
      assert.deepEqual(simulationToJson(s).grad, { computed: produced[m].linear, stored: F });
      for (const x of s.params) {
        assert.equal(x.stored, F, x.fqn);
        assert.equal(x.optimizerState, F, x.fqn);
        assert.equal(x.storage, F, x.fqn);
      }
      assert.equal(simulationToJson(s).optimizerState, F);
    });
  }
  it("(b): the bf16 GEMM grad reaches .grad as fp32 (ToCopyBackward)", () => {
    const p = sim(modeInput("b")).params.find((x) => x.op === "w2")!;
    assert.equal(p.gradAccumulated, F);
  });
  it("grad communication: (a)+DDP all-reduce fp32; (b)+DDP fp32, bf16 with a compress hook; (c) RS fp32 + HSDP AR fp32; (d) RS fp32", () => {
    const ddp = { ddp: true, layout: layout({ dp_replicate: 8 }) };
    assert.deepEqual(simulationToJson(sim(modeInput("a", ddp))).collectives, { ddp_all_reduce: F });
    assert.deepEqual(simulationToJson(sim(modeInput("b", ddp))).collectives, { ddp_all_reduce: F });
    const hooked = sim(modeInput("b", { ...ddp, assumptions: { ddp_comm_hook: "bf16_compress" } }));
    assert.equal(collective(hooked, "ddp_all_reduce"), H);
    assert.equal(hooked.grad.stored, F);
    const hsdp = sim(modeInput("c", { layout: layout({ dp_replicate: 2, dp_shard: 4 }) }));
    assert.deepEqual(simulationToJson(hsdp).collectives, { fsdp_all_gather: H, fsdp_reduce_scatter: F, hsdp_all_reduce: F });
    assert.equal(collective(sim(modeInput("d")), "fsdp_reduce_scatter"), F);
  });
  it("full bf16 (training.dtype = bfloat16) under (c): params/grads/states bf16, RS in fp32 then cast to bf16", () => {
    const s = sim(modeInput("c", { trainingDtype: "bfloat16" }));
    assert.equal(collective(s, "fsdp_reduce_scatter"), F);
    assert.equal(collective(s, "fsdp_all_gather"), H);
    assert.deepEqual(simulationToJson(s).grad, { computed: H, stored: H });
    assert.equal(s.optimizerState, H);
    for (const p of s.params) assert.equal(p.storage, H);
    assert.equal(s.mixedPrecisionApplied, false);
    assert.match(s.mixedPrecisionReason, /training\.dtype = bfloat16/);
  });
});

/** §4.2, columns: FP32 | AMP bf16 (params fp32) | FSDP2-MP bf16 | +float8 tensorwise TP | +float8 rowwise. */
const TABLE_4_2: Record<string, [string, string, string, string, string]> = {
  tp_embedding_reduce_scatter: [F, F, H, H, H],
  tp_norm_all_gather: [F, F, H, E4, H],
  tp_final_norm_all_gather: [F, F, H, H, H],
  tp_projection_reduce_scatter: [F, H, H, H, H],
  tp_loss_all_reduce: [F, F, F, F, F],
};

describe("pytorch-dtypes §4.2 TP collective dtypes", () => {
  const tp = (extra: object) => ({ layout: layout({ tp: 8 }), ...extra });
  const fsdpTp = (extra: object) => ({ layout: layout({ tp: 8, dp_shard: 2 }), ...extra });
  const columns = [
    ["FP32", modeInput("a", tp({}))],
    ["AMP bf16", modeInput("b", tp({}))],
    ["FSDP2-MP bf16", modeInput("c", fsdpTp({}))],
    ["+float8 tensorwise TP", modeInput("c", fsdpTp({ float8: { recipe: "tensorwise", float8TensorParallel: true, filterFqns: ["output"] } }))],
    ["+float8 rowwise", modeInput("c", fsdpTp({ float8: { recipe: "rowwise", float8TensorParallel: true, filterFqns: ["output"] } }))],
  ] as const;
  columns.forEach(([label, input], col) => {
    it(`${label}: every TP collective`, () => {
      const s = sim(input);
      for (const [name, row] of Object.entries(TABLE_4_2)) assert.equal(collective(s, name), row[col], `${name} (${label})`);
    });
  });
  it("float8 TP styles need the legacy converter flag and tensorwise: without the flag the norm all-gather is bf16", () => {
    const s = sim(modeInput("c", fsdpTp({ float8: { recipe: "tensorwise", filterFqns: ["output"] } })));
    assert.equal(collective(s, "tp_norm_all_gather"), H);
  });
  it("loss parallel off: no tp_loss_all_reduce", () => {
    assert.equal(collective(sim(modeInput("c", fsdpTp({ lossParallel: false }))), "tp_loss_all_reduce"), undefined);
  });
  it("collectives are present only when the layout has them", () => {
    assert.deepEqual(simulationToJson(sim(modeInput("a"))).collectives, {});
    assert.deepEqual(Object.keys(simulationToJson(sim(modeInput("c"))).collectives).sort(), ["fsdp_all_gather", "fsdp_reduce_scatter"]);
    const pp = sim(modeInput("c", { layout: layout({ dp_shard: 4, pp: 2 }) }));
    assert.deepEqual(Object.keys(simulationToJson(pp).collectives).sort(), ["fsdp_all_gather", "fsdp_reduce_scatter", "pp_send_recv"]);
    const cpOnly = sim(modeInput("c", { layout: layout({ cp: 2 }) }));
    assert.deepEqual(Object.keys(simulationToJson(cpOnly).collectives).sort(), ["fsdp_all_gather", "fsdp_reduce_scatter"]);
  });
});
