/** Output formats: the exact CLI JSON contract, the Markdown report and the hover table. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ASSUMPTIONS, renderDtypeTableMarkdown, renderSimulationMarkdown, simulationToJson } from "../server/src/core/engine";
import { layout, modeInput, sim } from "./engine-support";

const TORCH_DTYPES = new Set(["float32", "bfloat16", "float16", "float8_e4m3fn", "float8_e5m2"]);

describe("simulationToJson (CLI contract)", () => {
  const j = simulationToJson(sim(modeInput("c", { layout: layout({ dp_replicate: 2, dp_shard: 2, tp: 2, pp: 2 }) })));
  it("has exactly the contract fields", () => {
    assert.deepEqual(Object.keys(j), ["forward", "collectives", "grad", "optimizerState", "memory", "assumptions", "throughput"]);
    assert.deepEqual(Object.keys(j.grad), ["computed", "stored"]);
    assert.deepEqual(Object.keys(j.memory), ["bytesPerParam", "perGpuBytes", "cpuBytes"]);
    assert.equal(j.memory.cpuBytes, null);
    assert.deepEqual(Object.keys(j.memory.bytesPerParam), ["params", "grads", "optimizer"]);
    assert.deepEqual(Object.keys(j.memory.perGpuBytes), ["persistent", "peak", "reserved"]);
    for (const a of j.assumptions) assert.deepEqual(Object.keys(a), ["name", "value"]);
    assert.deepEqual(Object.keys(j.throughput!), ["tokensPerSecondPerGpu", "stepSeconds", "mfu", "gpu", "alternatives"]);
    assert.deepEqual(j.throughput!.gpu, { value: "h100-sxm", source: "default" });
  });
  it("spells dtypes like torch", () => {
    for (const d of [...Object.values(j.forward), ...Object.values(j.collectives), j.grad.computed, j.grad.stored, j.optimizerState]) assert.ok(TORCH_DTYPES.has(d), d);
  });
  it("names every collective of an HSDP + TP + PP layout", () => {
    assert.deepEqual(Object.keys(j.collectives).sort(), [
      "fsdp_all_gather", "fsdp_reduce_scatter", "hsdp_all_reduce", "pp_send_recv", "tp_embedding_reduce_scatter", "tp_final_norm_all_gather", "tp_loss_all_reduce", "tp_norm_all_gather", "tp_projection_reduce_scatter",
    ]);
  });
  it("round-trips through JSON.stringify", () => assert.deepEqual(JSON.parse(JSON.stringify(j)), j));
  it("assumptions are named, documented knobs with defaults", () => {
    for (const a of j.assumptions) assert.ok(a.name in ASSUMPTIONS, a.name);
  });
});

describe("Markdown", () => {
  it("full report: per-op table, collectives, memory breakdown marked as an estimate, assumptions", () => {
    const md = renderSimulationMarkdown(sim(modeInput("b", { ddp: true, layout: layout({ dp_replicate: 8 }) })));
    assert.match(md, /\| op \| forward \| backward grad \| rule \|/);
    assert.match(md, /\| wq \| `bfloat16` \|/);
    assert.match(md, /\| ddp_all_reduce \| `float32` \|/);
    assert.match(md, /autocast_weight_casts/);
    assert.match(md, /\*\*Memory \(estimate\)\*\*/);
    assert.match(md, /`rms_norm_autocast` = `fallthrough` \(default\)/);
    assert.match(md, /Mixed precision: yes/);
  });
  it("no mixed precision is said first", () => {
    const md = renderSimulationMarkdown(sim(modeInput("a", { layout: layout({ tp: 8 }), mechanismReason: "TP or PP without FSDP" })));
    assert.match(md, /\*\*Mixed precision: no\*\* — no mixed-precision mechanism applies to this layout \(TP or PP without FSDP\)/);
  });
  it("hover table", () => {
    const md = renderDtypeTableMarkdown(sim(modeInput("d")));
    assert.match(md, /\| parameters \(stored\) \| fp32 \|/);
    assert.match(md, /\| parameters \(compute\) \| bf16 → fp8 e4m3 GEMM \|/);
    assert.match(md, /\| activations \(matmul out \/ residual\) \| bf16 \/ bf16 \|/);
    assert.match(md, /\| gradients \(produced → stored\) \| bf16 → fp32 \|/);
    assert.match(md, /\| gradient reduction \| fp32 \(fsdp_reduce_scatter\) \|/);
    assert.match(md, /\| optimizer state \| fp32 \|/);
    assert.match(md, /peak per GPU \(estimate, reserved; [\d.]+ GiB allocated/);
    assert.match(md, /≈ [\d,]+ tokens\/s per GPU on H100 SXM 80GB \(estimate; MFU \d+%\)/);
  });
  it("full report: a throughput section with its terms, the GPU and its source", () => {
    const md = renderSimulationMarkdown(sim(modeInput("c", { gpu: "mi300x" })));
    assert.match(md, /\*\*Throughput \(estimate\)\*\* on MI300X 192GB \(GPU from input\)/);
    assert.match(md, /\| compute_linears \| [\d.]+ \| matmuls in bfloat16/);
    assert.match(md, /\| \*\*reserved\*\* \(allocator\) \|/);
  });
});
