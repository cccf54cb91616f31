/**
 * Every parallel layout of issue #2 through the analysis core, with inline expectations
 * (see test/support/fixture.ts). v0.2.2 semantics unless a fixture says otherwise.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeFixture, checkDiagnostics } from "./support/fixture";

const MODEL = `[job]
description = "fixture"

[model]
name = "llama3"
flavor = "8B"

[training]
local_batch_size = 2
seq_len = 8192
`;

describe("torchtitan layouts (v0.2.2)", () => {
  it("single GPU: autocast with bf16 compute, fp32 storage", () => {
    const r = checkDiagnostics(`# precision-lens: world-size=1\n${MODEL}\n[parallelism]\ndata_parallel_shard_degree = -1\n`);
    assert.equal(r.framework, "torchtitan");
    assert.equal(r.layoutName, "single GPU");
    assert.equal(r.mechanism, "autocast");
    assert.deepEqual(r.worldSize && [r.worldSize.value, r.worldSize.source], [1, "directive"]);
    assert.equal(r.precision?.paramStorage.dtype, "float32");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    // One device: no gradient reduction at all (null in JSON, "none" in text), as for the YAML/JSON frameworks.
    assert.equal(r.precision?.gradReduce.dtype, null);
    assert.match(r.precision!.gradReduce.knob, /^one device: no gradient reduction/);
    assert.match(r.hovers.map((h) => h.markdown).join("\n"), /Mechanism: \*\*torch\.autocast around forward and loss/);
  });

  it("DDP: autocast, fp32 all-reduce", () => {
    const r = checkDiagnostics(`${MODEL}\n[parallelism]\ndata_parallel_replicate_degree = 8\ndata_parallel_shard_degree = 1\n`);
    assert.equal(r.layoutName, "DDP");
    assert.equal(r.mechanism, "autocast");
    assert.deepEqual(r.parallel, { dp_replicate: 8, dp_shard: 1, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1 });
    assert.equal(r.worldSize?.source, "degrees");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.equal(r.precision?.gradReduce.dtype, "float32");
    assert.match(r.precision!.gradReduce.knob, /DDP all-reduces/);
  });

  it("FSDP: -1 absorbs the 8 default ranks; MixedPrecisionPolicy bf16/fp32", () => {
    const r = checkDiagnostics(`${MODEL}\n[parallelism]\ndata_parallel_shard_degree = -1\n`);
    assert.equal(r.layoutName, "FSDP");
    assert.equal(r.mechanism, "fully_shard");
    assert.equal(r.parallel?.dp_shard, 8);
    assert.deepEqual([r.worldSize?.value, r.worldSize?.source], [8, "default"]);
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.equal(r.precision?.gradReduce.dtype, "float32");
  });

  it("HSDP: replicate 2 x shard 8 on 16 GPUs", () => {
    const r = checkDiagnostics(`# precision-lens: world-size=16\n${MODEL}\n[parallelism]\ndata_parallel_replicate_degree = 2\ndata_parallel_shard_degree = -1\n`);
    assert.equal(r.layoutName, "HSDP");
    assert.equal(r.mechanism, "fully_shard");
    assert.equal(r.parallel?.dp_shard, 8);
  });

  it("CP-only counts as FSDP (cp is folded into the fsdp mesh)", () => {
    const r = checkDiagnostics(`${MODEL}\n[parallelism]\ndata_parallel_shard_degree = 1\ncontext_parallel_degree = 8\n`);
    assert.equal(r.layoutName, "CP-only");
    assert.equal(r.mechanism, "fully_shard");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
  });

  it("TP-only (the seed case): warning on the TP degree, fp32 everywhere", () => {
    const r = checkDiagnostics(`${MODEL}
[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 8
#^^^^^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]: No mixed precision: TP-only on 8 GPUs trains in fp32 (dp_shard -1 → 1, so no FSDP)
`);
    const d = r.diagnostics[0]!;
    assert.ok(d.message.length <= 120, d.message);
    // The long explanation moves to the detail (hover, report): world size source, -1 resolution, torchtitan's log line.
    assert.ok(d.detail?.includes("(world size from run_train.sh default (NGPU=8)); data_parallel_shard_degree = -1 resolves to 1"), d.detail);
    assert.ok(d.detail?.endsWith('only logs the warning "Mixed precision training with TP or PP is only supported when FSDP/HSDP/CP is enabled."'), d.detail);
    assert.ok(d.detail!.includes("float32"));
    assert.equal(r.mechanism, "none");
    assert.deepEqual([r.precision?.paramStorage.dtype, r.precision?.compute.dtype, r.precision?.gradReduce.dtype], ["float32", "float32", "float32"]);
  });

  it("PP-only: warning on the PP degree", () => {
    checkDiagnostics(`# precision-lens: world-size=4
${MODEL}
[parallelism]
pipeline_parallel_degree = 4
#^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]: PP-only run on 4 GPUs (world size from \`# precision-lens: world-size=4\` on line 1)
`, { ignore: ["pp-bubble", "pp-1f1b-microbatches"] });
  });

  it("TP+PP: warning on the TP degree", () => {
    const r = checkDiagnostics(`${MODEL}
[parallelism]
tensor_parallel_degree = 4
#^^^^^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]: TP+PP run on 8 GPUs
pipeline_parallel_degree = 2
`);
    assert.equal(r.layoutName, "TP+PP");
  });

  it("FSDP+TP on 64 GPUs: the 70B preset layout gets mixed precision", () => {
    // Every FSDP2+TP run gets the PyTorch TP-mesh all-reduce note (issue #30: scoped by behaviour, not format).
    const r = checkDiagnostics(`${MODEL}\n[parallelism]\ndata_parallel_shard_degree = -1\ntensor_parallel_degree = 8\n#^^^^^^^^^^^^^^^^^^^^^^^^^ information[fsdp-tp-grad-allreduce-dtype]: runs in bf16, not reduce_dtype float32\n`, { settings: { worldSize: 64 } });
    assert.equal(r.layoutName, "FSDP+TP");
    assert.equal(r.mechanism, "fully_shard");
    assert.deepEqual([r.worldSize?.value, r.worldSize?.source], [64, "setting"]);
    assert.equal(r.parallel?.dp_shard, 8);
  });

  it("DDP+TP: RuntimeError at the replicate degree (on a known version)", () => {
    const r = checkDiagnostics(`# precision-lens: torchtitan-version=v0.2.2
${MODEL}
[parallelism]
data_parallel_replicate_degree = 2
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[ddp-with-other-parallelism]: RuntimeError "DDP has not supported > 1D parallelism"
data_parallel_shard_degree = 1
tensor_parallel_degree = 4
`);
    assert.equal(r.mechanism, "error");
    assert.equal(r.precision, undefined);
  });

  it("world size: directive beats setting beats degree product beats the default (precedence.test.ts has the CLI)", () => {
    const text = `# precision-lens: world-size=32\n${MODEL}\n[parallelism]\ndata_parallel_shard_degree = 4\ntensor_parallel_degree = 2\n#^^^^^^^^^^^^^^^^^^^^^^^^^ information[fsdp-tp-grad-allreduce-dtype]: pytorch/pytorch#190626\n`;
    const withSetting = checkDiagnostics(text.replace("# precision-lens: world-size=32\n", ""), { settings: { worldSize: 8 } });
    assert.deepEqual([withSetting.worldSize?.value, withSetting.worldSize?.source], [8, "setting"]);
    const noDirective = checkDiagnostics(text.replace("# precision-lens: world-size=32\n", ""));
    assert.deepEqual([noDirective.worldSize?.value, noDirective.worldSize?.source], [8, "degrees"]);
  });
});

describe("parallel dims validation (ParallelDims._validate)", () => {
  it("degree < 1", () => {
    checkDiagnostics(`${MODEL}
[parallelism]
tensor_parallel_degree = 0
#^^^^^^^^^^^^^^^^^^^^^^^^^ error[parallel-dims-degree]: Parallelism degree should be >= 1, except for dp_shard
`);
  });

  it("dp_shard neither -1 nor >= 1", () => {
    checkDiagnostics(`${MODEL}
[parallelism]
data_parallel_shard_degree = -2
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[parallel-dims-dp-shard]: dp_shard must -1 or >=1.
`);
  });

  it("-1 resolving to 0 (more TP than GPUs, on a known world size)", () => {
    checkDiagnostics(`# precision-lens: world-size=8
${MODEL}
[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 16
#^^^^^^^^^^^^^^^^^^^^^^^^^^ error[parallel-dims-resolved]: resolves to 8 // (1*1*16*1) = 0
`);
  });

  // Issue #17: a default never contradicts the file. TP 16 beside a -1 on no stated world size is the
  // smallest consistent world size (16, "≥ 16, from the degrees"), not a launch failure on run_train.sh's 8.
  it("more TP than the default 8 GPUs: the world size is the smallest the degrees allow, no error", () => {
    const r = checkDiagnostics(`${MODEL}
[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 16
#^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]: TP-only on 16 GPUs trains in fp32
`);
    assert.deepEqual([r.worldSize?.value, r.worldSize?.kind, r.worldSize?.detail], [16, "inferred", "the degrees, which need at least 16 GPUs"]);
  });

  it("product != world size quotes torchtitan's message", () => {
    const r = checkDiagnostics(`# precision-lens: world-size=8
${MODEL}
[parallelism]
data_parallel_shard_degree = 2
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[parallel-dims-product]: Invalid parallel dims: dp_replicate(1) * dp_shard(2) * cp(1) * tp(2) * pp(1) != WORLD_SIZE(8)
tensor_parallel_degree = 2
`);
    assert.equal(r.mechanism, "error");
  });

  it("floor division: -1 with 12 GPUs and tp 8 resolves to 1, then the product check fails", () => {
    checkDiagnostics(`# precision-lens: world-size=12
${MODEL}
[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 8
#^^^^^^^^^^^^^^^^^^^^^^^^^ error[parallel-dims-product]: dp_shard(1) * cp(1) * tp(8) * pp(1) != WORLD_SIZE(12)
`);
  });

  it("EP is not in the -1 divisor; ETP must be TP or 1", () => {
    const r = checkDiagnostics(`${MODEL}
[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 4
expert_parallel_degree = 2
expert_tensor_parallel_degree = 2
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[parallel-dims-etp]: Currently we only support ETP=TP or ETP=1
`);
    assert.equal(r.mechanism, "error");
  });

  it("a degree that is not an integer", () => {
    checkDiagnostics(`${MODEL}
[parallelism]
tensor_parallel_degree = "8"
#^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[parallel-dims-type]: must be an integer, got "8"
`);
  });
});

describe("earlier eras on the same layouts", () => {
  const PRE_HSDP = `# precision-lens: torchtitan-version=main@2024-07-01
[job]
description = "pre-HSDP layout"

[model]
name = "llama3"
flavor = "8B"
`;

  it("pre-HSDP FSDP: data_parallel_degree = -1 absorbs the ranks, FSDP mixed precision", () => {
    const r = checkDiagnostics(`${PRE_HSDP}\n[training]\ndata_parallel_degree = -1\n`, { ignore: ["unknown-key", "moved-key", "removed-key", "deprecated-key"] });
    assert.deepEqual([r.layoutName, r.mechanism, r.parallel?.dp_shard], ["FSDP", "fully_shard", 8]);
  });

  it('pre-HSDP data_parallel_type = "ddp": DDP with no mixed precision at all, and no warning logged', () => {
    const r = checkDiagnostics(
      `${PRE_HSDP}
[training]
data_parallel_degree = -1
#^^^^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]: torchtitan logs no warning about it in this version
data_parallel_type = "ddp"
`,
      { ignore: ["unknown-key", "moved-key", "removed-key", "deprecated-key"] },
    );
    assert.deepEqual([r.layoutName, r.mechanism, r.parallel?.dp_replicate, r.parallel?.dp_shard], ["DDP", "none", 8, 1]);
  });

  it("pre-HSDP TP in [training]: fp32 silently", () => {
    const r = checkDiagnostics(
      `${PRE_HSDP}
[training]
data_parallel_degree = -1
tensor_parallel_degree = 8
#^^^^^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]: TP-only run on 8 GPUs
`,
      { ignore: ["unknown-key", "moved-key", "removed-key", "deprecated-key"] },
    );
    assert.equal(r.torchtitanVersion?.value, "main@2024-07-01");
  });

  it("CP alone enables FSDP only from 2024-12-11", () => {
    const text = (date: string) => `# precision-lens: torchtitan-version=main@${date}\n[job]\ndescription = "cp"\n[model]\nname = "llama3"\n[training]\ndata_parallel_shard_degree = 1\n[experimental]\ncontext_parallel_degree = 8\n`;
    const ignore = ["unknown-key", "unknown-section", "moved-key", "removed-key", "deprecated-key"];
    assert.equal(checkDiagnostics(text("2024-12-12"), { ignore }).mechanism, "fully_shard");
    const before = analyzeFixture(text("2024-11-01"), { ignore });
    assert.equal(before.mechanism, "none");
    assert.ok(before.diagnostics.some((d) => d.code === "no-mixed-precision"));
  });
});

describe("degrees under keys the targeted release does not read (found by the oracle, docs/oracle.md)", () => {
  // v0.1.0 config_manager.py:805-818: _dict_to_dataclass keeps only the dataclass's fields, so nested
  // unknown keys are dropped; ParallelDims then sees the defaults (oracle: titan.degrees at 0.1.0).
  it("v0.1.0 ignores [training] tensor_parallel_degree and [parallelism] expert_parallel_degree", () => {
    const legacy = `# precision-lens: torchtitan-version=v0.1.0\n${MODEL}data_parallel_shard_degree = -1\ntensor_parallel_degree = 8\n`;
    const r = analyzeFixture(legacy);
    assert.deepEqual(r.parallel, { dp_replicate: 1, dp_shard: 8, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1 });
    assert.equal(r.mechanism, "fully_shard");
    const ep = `# precision-lens: torchtitan-version=v0.1.0\n${MODEL}\n[parallelism]\ndata_parallel_shard_degree = -1\nexpert_parallel_degree = 8\n`;
    assert.equal(analyzeFixture(ep).parallel?.ep, 1);
    // The release that has the key reads it.
    const epNow = ep.replace("v0.1.0", "v0.2.2");
    assert.equal(analyzeFixture(epNow).parallel?.ep, 8);
  });
});
