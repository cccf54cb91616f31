/**
 * The same layouts simulated in every torchtitan era (the era seam decides the mechanism; the engine
 * derives the dtypes). The seed case — TP-only, tp=8 on 8 GPUs — is fp32 in v0.2.2 and autocast with
 * the unmerged PR #2213.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ParallelLayout } from "../server/src/core/analysis";
import { simulate, simulationToJson } from "../server/src/core/engine";
import { eraById } from "../server/src/core/frameworks/torchtitan/eras";
import { parseVersion } from "../server/src/core/frameworks/torchtitan/versions";
import { layout } from "./engine-support";

const F = "float32";
const H = "bfloat16";

function run(version: string, l: ParallelLayout, world: number) {
  const v = parseVersion(version);
  if (!v) throw new Error(`bad version ${version}`);
  const d = v.era.decide(l, world, {});
  const s = simulate({ mechanism: d.mechanism, layout: l, ddp: d.ddp, mechanismReason: d.reason, paramDtype: H, reduceDtype: F, trainingDtype: F, model: { name: "llama3", flavor: "70B" }, localBatchSize: 1, seqLen: 8192 });
  return { d, s, j: s && simulationToJson(s) };
}

describe("seed case: TP-only, tp = 8 on 8 GPUs", () => {
  const tp8 = layout({ tp: 8 });
  it("v0.2.2: mixed precision disabled, every op fp32, TP collectives fp32", () => {
    const { d, s, j } = run("v0.2.2", tp8, 8);
    assert.equal(d.mechanism, "none");
    assert.equal(s!.mixedPrecisionApplied, false);
    for (const dtype of Object.values(j!.forward)) assert.equal(dtype, F);
    assert.deepEqual(j!.collectives, { tp_embedding_reduce_scatter: F, tp_norm_all_gather: F, tp_final_norm_all_gather: F, tp_projection_reduce_scatter: F, tp_loss_all_reduce: F });
    assert.deepEqual(j!.grad, { computed: F, stored: F });
  });
  it("v0.1.0: same as v0.2.2", () => {
    assert.deepEqual(run("v0.1.0", tp8, 8).j, run("v0.2.2", tp8, 8).j);
  });
  it("v0.2.2 + #2213: autocast — bf16 linears, fp32 residual stream and norms, bf16 projection reduce-scatter", () => {
    const { d, s, j } = run("v0.2.2+pr2213", tp8, 8);
    assert.equal(d.mechanism, "autocast");
    assert.equal(s!.mixedPrecisionApplied, true);
    assert.deepEqual(j!.forward, {
      tok_embeddings: F, attention_norm: F, wq: H, wk: H, wv: H, rope: H, attention: H, wo: H, attention_residual: F,
      ffn_norm: F, w1: H, w3: H, silu: H, ffn_mul: H, w2: H, ffn_residual: F, norm: F, output: H, loss: F,
    });
    assert.deepEqual(j!.collectives, { tp_embedding_reduce_scatter: F, tp_norm_all_gather: F, tp_final_norm_all_gather: F, tp_projection_reduce_scatter: H, tp_loss_all_reduce: F });
    assert.deepEqual(j!.grad, { computed: H, stored: F });
    assert.ok(j!.memory.perGpuBytes.peak! > run("v0.2.2", tp8, 8).j!.memory.perGpuBytes.persistent!);
  });
  it("the same preset on 16 GPUs resolves to FSDP+TP: bf16 everywhere but the loss, on every TOML era", () => {
    for (const v of ["v0.1.0", "v0.2.2", "v0.2.2+pr2213"]) {
      const { d, j } = run(v, layout({ tp: 8, dp_shard: 2 }), 16);
      assert.equal(d.mechanism, "fully_shard", v);
      assert.equal(j!.forward.attention_residual, H, v);
      assert.equal(j!.collectives.fsdp_reduce_scatter, F, v);
    }
  });
});

type Sig = "none" | "autocast" | "fully_shard" | "error";

/** Expected mechanism per era for the same layouts (torchtitan.md §1.2–§1.5, §6.1 of pytorch-dtypes.md). */
const LAYOUTS: [string, ParallelLayout, number][] = [
  ["single GPU", layout(), 1],
  ["DDP 8", layout({ dp_replicate: 8 }), 8],
  ["FSDP 8", layout({ dp_shard: 8 }), 8],
  ["TP 8", layout({ tp: 8 }), 8],
  ["HSDP 2×4", layout({ dp_replicate: 2, dp_shard: 4 }), 8],
  ["PP 8", layout({ pp: 8 }), 8],
  ["CP 8", layout({ cp: 8 }), 8],
  ["FSDP 2 + TP 4", layout({ dp_shard: 2, tp: 4 }), 8],
  ["DDP 2 + TP 4", layout({ dp_replicate: 2, tp: 4 }), 8],
];

const EXPECTED: Record<string, Sig[]> = {
  "main@2024-10-01": ["none", "none", "fully_shard", "none", "fully_shard", "none", "none", "fully_shard", "error"],
  "main@2025-03-01": ["none", "none", "fully_shard", "none", "fully_shard", "none", "fully_shard", "fully_shard", "error"],
  "v0.1.0": ["autocast", "autocast", "fully_shard", "none", "fully_shard", "none", "fully_shard", "fully_shard", "error"],
  "v0.2.2": ["autocast", "autocast", "fully_shard", "none", "fully_shard", "none", "fully_shard", "fully_shard", "error"],
  "v0.2.2+pr2213": ["autocast", "autocast", "fully_shard", "autocast", "fully_shard", "none", "fully_shard", "fully_shard", "error"],
};

/** What each mechanism looks like in the simulation: wq, residual stream, loss, stored grad, mixed precision. */
const SIGNATURE: Record<Exclude<Sig, "error">, [string, string, string, string, boolean]> = {
  none: [F, F, F, F, false],
  autocast: [H, F, F, F, true],
  fully_shard: [H, H, F, F, true],
};

describe("every TOML era on the same layouts", () => {
  for (const [version, sigs] of Object.entries(EXPECTED)) {
    it(version, () => {
      LAYOUTS.forEach(([name, l, w], i) => {
        const { d, s, j } = run(version, l, w);
        assert.equal(d.mechanism, sigs[i], `${version} ${name}`);
        if (sigs[i] === "error") {
          assert.equal(s, undefined, `${version} ${name}: no simulation for a failed launch`);
          return;
        }
        const [wq, resid, loss, stored, mp] = SIGNATURE[sigs[i] as Exclude<Sig, "error">];
        assert.equal(j!.forward.wq, wq, `${version} ${name} wq`);
        assert.equal(j!.forward.ffn_residual, resid, `${version} ${name} residual`);
        assert.equal(j!.forward.loss, loss, `${version} ${name} loss`);
        assert.equal(j!.grad.stored, stored, `${version} ${name} .grad`);
        assert.equal(s!.mixedPrecisionApplied, mp, `${version} ${name} mixed precision`);
      });
    });
  }
  it("DDP collectives by era: fp32 all-reduce in every TOML era", () => {
    for (const v of ["main@2025-03-01", "v0.1.0", "v0.2.2"]) assert.deepEqual(run(v, layout({ dp_replicate: 8 }), 8).j!.collectives, { ddp_all_reduce: F }, v);
  });
  it("PP-only stays fp32 even with #2213 (the pipeline step never enters autocast); P2P in fp32", () => {
    const { j } = run("v0.2.2+pr2213", layout({ pp: 8 }), 8);
    assert.equal(j!.collectives.pp_send_recv, F);
  });
});

describe("Python-config eras (no TOML, shown for comparison)", () => {
  const runEra = (id: "python-replicate" | "python-always-fully-shard", l: ParallelLayout, w: number) => {
    const d = eraById(id).decide(l, w, {});
    const s = simulate({ mechanism: d.mechanism, layout: l, ddp: d.ddp, paramDtype: H, reduceDtype: F, trainingDtype: F, model: { name: "llama3", flavor: "8B" } });
    return { d, j: s && simulationToJson(s) };
  };
  it("2026-03-09 replicate: pure DDP gets the MixedPrecisionPolicy with an fp32 replica all-reduce", () => {
    const { d, j } = runEra("python-replicate", layout({ dp_replicate: 8 }), 8);
    assert.equal(d.mechanism, "fully_shard");
    assert.equal(j!.forward.ffn_residual, H);
    assert.deepEqual(j!.collectives, { hsdp_all_reduce: F });
  });
  it("2026-04-09 onward: TP-only gets fully_shard on a size-1 mesh — bf16 TP collectives, no FSDP all-gather", () => {
    const { d, j } = runEra("python-always-fully-shard", layout({ tp: 8 }), 8);
    assert.equal(d.mechanism, "fully_shard");
    assert.deepEqual(j!.collectives, { tp_embedding_reduce_scatter: H, tp_norm_all_gather: H, tp_final_norm_all_gather: H, tp_projection_reduce_scatter: H, tp_loss_all_reduce: F });
  });
});
