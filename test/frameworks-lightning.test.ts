/** Lightning: detection (LightningCLI, Hydra, LitGPT), resolution and PL1–PL12 (spec other-frameworks.md §3). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { checkDiagnostics, checkFix } from "./support/fixture";

const uri = "file:///x/trainer.yaml";

describe("Lightning diagnostics", () => {
  it("PL2 legacy precision 16 (a second YAML document is not the config)", () => {
    // framework=lightning layout=DDP (auto) mech=autocast P=float32 C=float16 R=float32 ws=2
    checkDiagnostics(
      `trainer:
  accelerator: gpu
  devices: 2
  precision: 16
             #^ warning[lightning/legacy-precision-alias]: \`precision: 16\` is a legacy
model:
  class_path: my.Model
---
trainer:
  precision: bf16-amp
`,
      { uri },
    );
  });

  it("PL1 invalid precision", () => {
    // framework=lightning layout=DDP (auto) mech=error P=undefined C=undefined R=undefined ws=2
    checkDiagnostics(
      `trainer:
  accelerator: gpu
  devices: 2
  precision: bf16-amp
             #^^^^^^^ error[lightning/unknown-precision]: \`precision: bf16-amp\` is not a
`,
      { uri },
    );
  });

  it("PL3 64-true under FSDP, PL6 norm clipping under FSDP", () => {
    // framework=lightning layout=FSDP mech=error P=float64 C=float64 R=float64 ws=8
    checkDiagnostics(
      `trainer:
  accelerator: gpu
  devices: 8
  strategy: fsdp
  precision: 64-true
             #^^^^^^ error[lightning/fsdp-unsupported-precision]: \`precision: 64-true\` is not supported
  gradient_clip_val: 1.0
  #^^^^^^^^^^^^^^^^^^^^^ error[lightning/fsdp-norm-clipping]: \`gradient_clip_val: 1\` with the FSDP
`,
      { uri },
    );
  });

  it("PL4 transformer-engine and value clipping under DeepSpeed (LightningCLI `fit:` subcommand)", () => {
    // framework=lightning layout=DeepSpeed ZeRO-3 mech=error P=float32 C=float32 R=float32 ws=4
    checkDiagnostics(
      `fit:
  trainer:
    devices: 4
    strategy: deepspeed_stage_3
    precision: transformer-engine
               #^^^^^^^^^^^^^^^^^ error[lightning/deepspeed-unsupported-precision]: \`precision: transformer-engine\` is not supported
    gradient_clip_val: 0.5
    gradient_clip_algorithm: value
                             #^^^^ error[lightning/deepspeed-unsupported-precision]: \`gradient_clip_algorithm: value\` is not supported
`,
      { uri },
    );
  });

  it("PL5 16-mixed under ModelParallelStrategy, PL12 dp \u00d7 tp \u2260 devices \u00d7 nodes", () => {
    // framework=lightning layout=ModelParallel (FSDP2+TP) mech=error P=float32 C=float16 R=float32 ws=8
    checkDiagnostics(
      `trainer:
  devices: 4
  num_nodes: 2
  precision: 16-mixed
             #^^^^^^^ error[lightning/model-parallel-unsupported-precision]: \`precision: 16-mixed\` is not supported
  strategy:
    class_path: lightning.pytorch.strategies.ModelParallelStrategy
    init_args:
      data_parallel_size: 2
      #^^^^^^^^^^^^^^^^^ error[lightning/model-parallel-sizes]: data_parallel_size × tensor_parallel_size = 2
      tensor_parallel_size: 2
`,
      { uri },
    );
  });

  it("PL7 16-true, PL10 precision and a Precision plugin (Hydra _target_ trainer)", () => {
    // framework=lightning layout=single device mech=error P=float16 C=float16 R=float16 ws=1
    checkDiagnostics(
      `_target_: lightning.pytorch.trainer.Trainer
accelerator: gpu
devices: 1
precision: 16-true
#^^^^^^^^ error[lightning/precision-and-plugin]: Both \`precision\` and a Precision
           #^^^^^^ warning[lightning/fp16-true-without-loss-scaling]: \`precision: 16-true\` casts the model to fp16 with no loss scaling
plugins:
  - class_path: lightning.pytorch.plugins.precision.MixedPrecision
`,
      { uri },
    );
  });

  it("PL11 16-mixed on CPU (Hydra trainer config group file)", () => {
    // framework=lightning layout=single device mech=autocast P=float32 C=float16 R=float32 ws=1
    checkDiagnostics(
      `defaults:
  - default
accelerator: cpu
devices: 1
precision: 16-mixed
           #^^^^^^^ information[lightning/fp16-mixed-on-cpu]: \`16-mixed\` on \`accelerator: cpu\`: Lightning
`,
      { uri },
    );
  });

  it("PL9 FSDP + bf16-mixed reduces in bf16; value clipping is fine", () => {
    // framework=lightning layout=FSDP mech=fully_shard P=float32 C=bfloat16 R=bfloat16 ws=8
    checkDiagnostics(
      `trainer:
  accelerator: gpu
  devices: 8
  precision: bf16-mixed
             #^^^^^^^^^ information[lightning/low-precision-reduction]: FSDP with bf16-mixed: fp32 master
  strategy:
    class_path: lightning.pytorch.strategies.FSDPStrategy
  gradient_clip_val: 1.0
  gradient_clip_algorithm: value
`,
      { uri },
    );
  });

  it("PL8 bf16-true is pure bf16 (LitGPT style)", () => {
    // framework=lightning layout=DDP (auto) mech=none P=bfloat16 C=bfloat16 R=bfloat16 ws=4
    checkDiagnostics(
      `checkpoint_dir: checkpoints/x
out_dir: out/x
precision: bf16-true
           #^^^^^^^^ information[lightning/pure-bf16]: \`precision: bf16-true\` is pure bf16:
devices: 4
train:
  epochs: 1
`,
      { uri },
    );
  });
});

describe("Lightning quick fixes", () => {
  const opts = { uri };
  it("PL1: nearest canonical value", () => checkFix("trainer:\n  devices: 1\n  precision: bf16-amp\n", "lightning/unknown-precision", "bf16-mixed", "trainer:\n  devices: 1\n  precision: bf16-mixed\n", opts));
  it("PL2: legacy alias → canonical", () => checkFix("trainer:\n  devices: 1\n  precision: bf16\n", "lightning/legacy-precision-alias", "bf16-mixed", "trainer:\n  devices: 1\n  precision: bf16-mixed\n", opts));
  it("PL3: → bf16-mixed", () =>
    checkFix("trainer:\n  strategy: fsdp\n  precision: 64-true\n", "lightning/fsdp-unsupported-precision", "bf16-mixed", "trainer:\n  strategy: fsdp\n  precision: bf16-mixed\n", { uri, ignore: ["lightning/low-precision-reduction"] }));
  it("PL4: value clipping → norm", () =>
    checkFix("trainer:\n  strategy: deepspeed\n  gradient_clip_algorithm: value\n", "lightning/deepspeed-unsupported-precision", "norm", "trainer:\n  strategy: deepspeed\n  gradient_clip_algorithm: norm\n", opts));
  it("PL6: add value clipping", () =>
    checkFix("trainer:\n  strategy: fsdp\n  gradient_clip_val: 1.0\n", "lightning/fsdp-norm-clipping", "value", "trainer:\n  strategy: fsdp\n  gradient_clip_val: 1.0\n  gradient_clip_algorithm: value\n", opts));
  it("PL7: 16-true → bf16-mixed", () => checkFix("trainer:\n  devices: 1\n  precision: 16-true\n", "lightning/fp16-true-without-loss-scaling", "bf16-mixed", "trainer:\n  devices: 1\n  precision: bf16-mixed\n", opts));
  it("PL11: → bf16-mixed", () =>
    checkFix("trainer:\n  accelerator: cpu\n  precision: 16-mixed\n", "lightning/fp16-mixed-on-cpu", "bf16-mixed", "trainer:\n  accelerator: cpu\n  precision: bf16-mixed\n", opts));
});

describe("Lightning resolution", () => {
  it("DDP + bf16-mixed: autocast, fp32 params and reduction, world size from devices × num_nodes", () => {
    const r = analyzeDocument(uri, "trainer:\n  accelerator: gpu\n  devices: 4\n  num_nodes: 2\n  strategy: ddp\n  precision: bf16-mixed\n");
    assert.equal(r.framework, "lightning");
    assert.match(r.frameworkReason, /LightningCLI/);
    assert.equal(r.worldSize?.value, 8);
    assert.equal(r.mechanism, "autocast");
    assert.deepEqual([r.precision?.paramStorage.dtype, r.precision?.compute.dtype, r.precision?.gradReduce.dtype], ["float32", "bfloat16", "float32"]);
    assert.ok(r.hovers.some((h) => /autocast/.test(h.markdown)));
  });
  it("FSDP + bf16-mixed: fully_shard with bf16 reduction", () => {
    const r = analyzeDocument(uri, "trainer:\n  devices: 8\n  strategy: fsdp\n  precision: bf16-mixed\n");
    assert.equal(r.mechanism, "fully_shard");
    assert.equal(r.precision?.gradReduce.dtype, "bfloat16");
    assert.deepEqual(r.parallel, { dp_replicate: 1, dp_shard: 8, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1 });
  });
  it("an error makes the mechanism `error`", () => {
    const r = analyzeDocument(uri, "trainer:\n  devices: 8\n  strategy: fsdp\n  precision: 64-true\n");
    assert.equal(r.mechanism, "error");
  });
  it("a Hydra trainer config without precision runs 32-true and has no diagnostics", () => {
    const r = analyzeDocument(uri, "_target_: lightning.pytorch.trainer.Trainer\naccelerator: gpu\ndevices: 1\n");
    assert.equal(r.framework, "lightning");
    assert.equal(r.precision?.compute.dtype, "float32");
    assert.deepEqual(r.diagnostics, []);
  });
});

describe("Lightning semantics from the 2026-12 source review (issue #17 §5)", () => {
  const u = "file:///x/trainer.yaml";
  it("16-mixed on accelerator: cpu runs bf16-mixed: the headline says what PL11 says", () => {
    // lightning/fabric/connector.py _check_and_init_precision: fp16 AMP is not supported on CPU, bf16-mixed is used instead.
    const r = analyzeDocument(u, "trainer:\n  accelerator: cpu\n  devices: 1\n  precision: 16-mixed\nmodel:\n  lr: 1\n");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.ok(r.diagnostics.some((d) => d.code === "lightning/fp16-mixed-on-cpu" && /switches to bf16-mixed/.test(d.message)));
    // On a GPU, 16-mixed stays fp16.
    assert.equal(analyzeDocument(u, "trainer:\n  accelerator: gpu\n  devices: 1\n  precision: 16-mixed\nmodel:\n  lr: 1\n").precision?.compute.dtype, "float16");
  });
  it("strategy: ddp is DDP", () => {
    const r = analyzeDocument(u, "trainer:\n  accelerator: gpu\n  devices: 4\n  strategy: ddp\n  precision: bf16-mixed\nmodel:\n  lr: 1\n");
    assert.match(r.layoutName ?? "", /^DDP/);
    assert.equal(r.parallel?.dp_replicate, 4);
    assert.equal(r.precision?.gradReduce?.dtype, "float32");
  });
  it("an explicit FSDPStrategy mixed_precision in the YAML is read (it replaces the policy from `precision`)", () => {
    // lightning/pytorch/strategies/fsdp.py mixed_precision_config: the strategy's own MixedPrecision wins.
    const text = "trainer:\n  accelerator: gpu\n  devices: 4\n  precision: bf16-mixed\n  strategy:\n    class_path: lightning.pytorch.strategies.FSDPStrategy\n    init_args:\n      mixed_precision:\n        class_path: torch.distributed.fsdp.MixedPrecision\n        init_args:\n          param_dtype: torch.bfloat16\n          reduce_dtype: torch.float32\nmodel:\n  lr: 1\n";
    const r = analyzeDocument(u, text);
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.equal(r.precision?.gradReduce?.dtype, "float32");
    assert.ok(!r.diagnostics.some((d) => d.code === "lightning/low-precision-reduction"), "the bf16-reduction note does not apply");
    // Without it, Lightning's policy reduces in bf16.
    const plain = analyzeDocument(u, "trainer:\n  accelerator: gpu\n  devices: 4\n  precision: bf16-mixed\n  strategy: fsdp\nmodel:\n  lr: 1\n");
    assert.equal(plain.precision?.gradReduce?.dtype, "bfloat16");
  });
});
