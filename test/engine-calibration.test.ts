/**
 * Calibration against published measurements (issue #11): torchtitan's benchmark runs rebuilt as configs
 * of their date and analysed like any other file. The estimate must land within ±25% of each published
 * TPS/GPU and within ±15% of each published memory figure (torchtitan logs max_reserved, in GiB).
 *
 * Nothing here feeds the product: the model predicts from FLOPs, dtypes, data-sheet rates and the named
 * assumptions; these tables only check it.
 *
 * The runs and their sources are in test/support/published-runs.ts (pytorch/torchtitan, benchmarks/ folder):
 * - llama3_h100_202412_torchtitan.md (torchtitan 9dec370, 2024-12-26; 8 × H100 per host, NVLink, 400 Gb/s
 *   RDMA per GPU; 96 GB HBM2e at 500 W, estimated as H100 NVL, see BENCH_H100): Tables 1–6.
 * - llama3-8b_h200_202506_trainy-whitefiber.md (torchtitan e7c0cae, 2025-06-13; H200, 400 Gb/s per GPU).
 * Run settings not in the tables come from the train_configs of the same commit (llama3_8b.toml: seq_len
 * 8192, selective AC with selective_ac_option = 'op'; llama3_70b/405b.toml: seq_len 8192, full AC).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { estimate, GiB, RUNS } from "./support/published-runs";

describe("calibration: torchtitan's published runs, rebuilt as configs", () => {
  for (const run of RUNS) {
    it(`${run.name}: ≈ ${run.tps} TPS/GPU (±25%), ${run.memGiB} GiB (±15%)`, () => {
      const s = estimate(run);
      assert.equal(s.mechanism, "fully_shard");
      assert.equal(s.mixedPrecisionApplied, true);
      const tps = s.throughput!.tokensPerSecondPerGpu;
      assert.ok(Math.abs(tps / run.tps - 1) <= 0.25, `${run.name}: estimated ${tps.toFixed(0)} TPS/GPU vs published ${run.tps} (${((tps / run.tps - 1) * 100).toFixed(0)}%)`);
      const mem = s.memory.perGpuBytes!.reserved / GiB;
      assert.ok(Math.abs(mem / run.memGiB - 1) <= 0.15, `${run.name}: estimated ${mem.toFixed(1)} GiB vs published ${run.memGiB} (${((mem / run.memGiB - 1) * 100).toFixed(0)}%)`);
    });
  }
  it("the rebuilt configs are read as their date wrote them: float8 with output filtered, compile, CP, PP schedule", () => {
    const t1 = estimate(RUNS[2]!);
    assert.ok(t1.float8 && !t1.float8.convertedOps.includes("output") && t1.float8.convertedOps.includes("w1"));
    assert.equal(t1.memory.terms.find((t) => t.name === "loss_logits")!.detail.startsWith("compiled"), false, "2024-12 train.py left the loss uncompiled");
    const h200 = estimate(RUNS[RUNS.length - 1]!);
    assert.match(h200.memory.terms.find((t) => t.name === "loss_logits")!.detail, /^compiled loss/);
    assert.equal(h200.throughput!.gpu.value, "h200");
    const t5 = estimate(RUNS[12]!);
    assert.equal(t5.memory.activations!.tokensPerMicrobatch, 4 * 8192, "32 / 8 legacy microbatches (default = pp)");
  });
  it("orderings the tables show: compile and Float8 speed up, Interleaved 1F1B beats 1F1B in speed and memory, longer context is slower", () => {
    const tps = (i: number) => estimate(RUNS[i]!).throughput!.tokensPerSecondPerGpu;
    assert.ok(tps(0) < tps(1) && tps(1) < tps(2));
    assert.ok(tps(12) < tps(13));
    const mem = (i: number) => estimate(RUNS[i]!).memory.perGpuBytes!.reserved;
    assert.ok(mem(13) < mem(12) - 5 * GiB, "Table 5: Interleaved 1F1B needs ~10 GiB less than 1F1B");
    assert.ok(tps(3) > tps(4) && tps(4) > tps(5) && tps(5) > tps(6));
  });
});
