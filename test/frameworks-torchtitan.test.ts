/** Precision rules and their quick fixes (issue #2), as fixtures with inline expectations. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeFixture, applyFix, checkDiagnostics, checkFix } from "./support/fixture";

const HEAD = `[job]
description = "fixture"

[model]
name = "llama3"
flavor = "8B"
`;

const TP_ONLY = `${HEAD}
[training]
local_batch_size = 2

[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 8
`;

describe("dtype values", () => {
  it("float16 param: warning, fix to bfloat16", () => {
    const text = `${HEAD}\n[training]\nmixed_precision_param = "float16"\n`;
    checkDiagnostics(`${HEAD}
[training]
mixed_precision_param = "float16"
#                       ^^^^^^^^^ warning[float16-without-grad-scaler]: torchtitan has no GradScaler
`);
    checkFix(text, "float16-without-grad-scaler", "bfloat16", text.replace('"float16"', '"bfloat16"'));
    const r = analyzeFixture(text);
    assert.equal(r.precision?.compute.dtype, "float16");
  });

  it("a misspelled dtype is an error (KeyError at launch) with the nearest valid value as the fix", () => {
    const text = `${HEAD}\n[training]\nmixed_precision_param = "bf16"\n`;
    checkDiagnostics(`${HEAD}
[training]
mixed_precision_param = "bf16"
#                       ^^^^^^ error[unknown-dtype]: fails with KeyError at launch
`);
    checkFix(text, "unknown-dtype", '"bfloat16"', text.replace('"bf16"', '"bfloat16"'));
    assert.equal(analyzeFixture(text).precision, undefined);
  });

  it("a non-string dtype is an error too", () => {
    checkDiagnostics(`${HEAD}
[training]
mixed_precision_param = 16
#                       ^^ error[unknown-dtype]: mixed_precision_param = 16 is not a dtype
`);
  });

  it("bfloat16 reduce: warning (not an allowed choice in v0.2.2), FSDP then reduces in bf16", () => {
    const text = `${HEAD}\n[training]\nmixed_precision_reduce = "bfloat16"\n`;
    const r = checkDiagnostics(`${HEAD}
[training]
mixed_precision_reduce = "bfloat16"
#                        ^^^^^^^^^^ warning[reduce-dtype-not-allowed]: is not an allowed choice in torchtitan v0.2.2
`);
    assert.equal(r.precision?.gradReduce.dtype, "bfloat16");
    checkFix(text, "reduce-dtype-not-allowed", '"float32"', text.replace('"bfloat16"', '"float32"'));
  });

  it("training.dtype float16 warns, bf16 training has bf16 storage", () => {
    checkDiagnostics(`${HEAD}
[training]
dtype = "float16"
#       ^^^^^^^^^ warning[float16-without-grad-scaler]
`);
    const r = analyzeFixture(`${HEAD}\n[training]\ndtype = "bfloat16"\n`);
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
    // policy param_dtype == storage dtype → FSDP clamps it to None: no cast, compute in bf16
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.match(r.precision!.compute.knob, /no cast/);
  });
});

describe("settings with no effect, fp32 on purpose, CPU offload", () => {
  it("mixed_precision_reduce and fsdp_reshard_after_forward do nothing without FSDP", () => {
    const r = checkDiagnostics(`${HEAD}
[training]
mixed_precision_param = "float32"
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ information[fp32-param-dtype]: this layout applies no mixed precision anyway
mixed_precision_reduce = "float32"
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ information[no-effect]: it sets the gradient-reduction dtype of FSDP's MixedPrecisionPolicy

[parallelism]
tensor_parallel_degree = 8
fsdp_reshard_after_forward = "always"
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ information[no-effect]: FSDP's resharding policy, and this TP-only layout does not use FSDP
`);
    assert.ok(r.diagnostics.filter((d) => d.code === "no-effect").every((d) => d.unnecessary === true));
  });

  it("fp32 param under FSDP: information, compute fp32", () => {
    const r = checkDiagnostics(`${HEAD}
[training]
mixed_precision_param = "float32"
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ information[fp32-param-dtype]: FSDP's MixedPrecisionPolicy casts to fp32
`);
    assert.equal(r.mechanism, "fully_shard");
    assert.equal(r.precision?.compute.dtype, "float32");
  });

  it("fp32 param under autocast: CUDA autocast stays on (the disabling warning is CPU-only), fp32 weights need no cast", () => {
    // PyTorch v1.13.1 torch/amp/autocast_mode.py:209-215 (CPU disables) vs :223-225 (CUDA only checks bf16 support).
    const r = checkDiagnostics(`# precision-lens: world-size=1
${HEAD}
[training]
mixed_precision_param = "float32"
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ information[fp32-param-dtype]: CUDA autocast stays on with dtype fp32 (PyTorch disables autocast for an unsupported dtype only on CPU and other non-CUDA devices), and every tensor is already fp32
`);
    assert.equal(r.mechanism, "autocast");
    assert.equal(r.precision?.compute.dtype, "float32");
  });

  it("CPU offload without FSDP warns; with FSDP it does not", () => {
    checkDiagnostics(`${HEAD}
[training]
enable_cpu_offload = true
#^^^^^^^^^^^^^^^^^^^^^^^^ warning[cpu-offload-without-fsdp]: needs FSDP

[parallelism]
data_parallel_replicate_degree = 8
data_parallel_shard_degree = 1
`);
    checkDiagnostics(`${HEAD}\n[training]\nenable_cpu_offload = true\n`);
  });
});

describe("quick fixes of the seed warning", () => {
  it("offers three fixes, the TP one preferred", () => {
    const d = analyzeFixture(TP_ONLY).diagnostics.find((x) => x.code === "no-mixed-precision")!;
    assert.deepEqual(
      d.data?.fixes?.map((f) => [f.title, f.isPreferred ?? false]),
      [
        ["Lower tensor_parallel_degree to 4 so FSDP shards over 2 GPUs (bf16 mixed precision)", true],
        ['Train fully in bf16: training.dtype = "bfloat16" (no fp32 master weights)', false],
        ['Keep fp32 on purpose: mixed_precision_param = "float32" (silences this warning)', false],
      ],
    );
  });

  it("lower TP: -1 absorbs the freed ranks", () => {
    checkFix(TP_ONLY, "no-mixed-precision", "Lower tensor_parallel_degree", TP_ONLY.replace("tensor_parallel_degree = 8", "tensor_parallel_degree = 4"));
    const after = analyzeFixture(TP_ONLY.replace("tensor_parallel_degree = 8", "tensor_parallel_degree = 4"));
    assert.deepEqual([after.layoutName, after.mechanism, after.precision?.compute.dtype], ["FSDP+TP", "fully_shard", "bfloat16"]);
  });

  it("lower TP with an explicit dp_shard edits both degrees", () => {
    const before = TP_ONLY.replace("data_parallel_shard_degree = -1", "data_parallel_shard_degree = 1");
    checkFix(before, "no-mixed-precision", "Lower tensor_parallel_degree", before.replace("data_parallel_shard_degree = 1", "data_parallel_shard_degree = 2").replace("tensor_parallel_degree = 8", "tensor_parallel_degree = 4"));
  });

  it("lower PP on a PP-only run", () => {
    const before = `# precision-lens: world-size=4\n${HEAD}\n[parallelism]\npipeline_parallel_degree = 4\n`;
    checkFix(before, "no-mixed-precision", "Lower pipeline_parallel_degree to 2", before.replace("= 4", "= 2"));
  });

  it("full bf16 inserts training.dtype into [training]", () => {
    checkFix(TP_ONLY, "no-mixed-precision", "Train fully in bf16", TP_ONLY.replace("local_batch_size = 2\n", 'local_batch_size = 2\ndtype = "bfloat16"\n'));
  });

  it("fp32 on purpose creates [training] when it is missing", () => {
    const before = `${HEAD}\n[parallelism]\ntensor_parallel_degree = 8\n`;
    assert.equal(analyzeFixture(before).diagnostics[0]?.code, "no-mixed-precision");
    checkFix(before, "no-mixed-precision", "Keep fp32 on purpose", `${before}\n[training]\nmixed_precision_param = "float32"\n`);
  });

  it("the bf16 fix is not offered before training.dtype existed (v0.1.0)", () => {
    const titles = analyzeFixture(TP_ONLY, { settings: { torchtitanVersion: "v0.1.0" } }).diagnostics.find((x) => x.code === "no-mixed-precision")!.data!.fixes!.map((f) => f.title);
    assert.ok(!titles.some((t) => t.includes("training.dtype")), titles.join(" | "));
  });

  it("DDP+TP: shard instead of replicate", () => {
    const before = `${HEAD}\n[parallelism]\ndata_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 1\ntensor_parallel_degree = 4\n`;
    checkFix(before, "ddp-with-other-parallelism", "Shard instead of replicate", before.replace("replicate_degree = 2", "replicate_degree = 1").replace("shard_degree = 1", "shard_degree = 2"));
  });
});

describe("detection and syntax", () => {
  it("pyproject.toml and Cargo.toml get nothing", () => {
    for (const [uri, text] of [
      ["file:///p/pyproject.toml", `[project]\nname = "x"\n[tool.ruff]\nline-length = 100\n[build-system]\nrequires = ["hatchling"]\n`],
      ["file:///p/Cargo.toml", `[package]\nname = "x"\n[dependencies]\nserde = "1"\n[profile.release]\nlto = true\n`],
    ] as const) {
      const r = analyzeFixture(text, { uri });
      assert.equal(r.framework, null);
      assert.deepEqual(r.diagnostics, []);
    }
  });

  it("a broken torchtitan file gets the syntax error at the right place", () => {
    const r = checkDiagnostics(`${HEAD}
[parallelism]
tensor_parallel_degree = = 8
#                        ^ error[toml-syntax]: TOML syntax error: unexpected "=": expected a value
`);
    // The rest of the file is still analysed (issue #14); the broken degree counts as absent.
    assert.equal(r.framework, "torchtitan");
  });

  it("a broken unrelated TOML file gets nothing", () => {
    const r = analyzeFixture(`[project]\nname = = "x"\n`, { uri: "file:///p/pyproject.toml" });
    assert.deepEqual(r.diagnostics, []);
  });

  it("binary and huge inputs are skipped with a reason", () => {
    const bin = analyzeFixture("\u0000\u0001ELF\u0000");
    assert.equal(bin.framework, null);
    assert.match(bin.frameworkReason, /looks binary/);
    const huge = analyzeFixture("[training]\n" + "# x\n".repeat(600_000));
    assert.match(huge.frameworkReason, /over the limit/);
  });

  it("`# precision-lens: off` opts a file out", () => {
    const r = analyzeFixture(`# precision-lens: off\n${TP_ONLY}`);
    assert.equal(r.framework, null);
    assert.deepEqual(r.diagnostics, []);
  });

  it("a bad world-size directive is reported and ignored", () => {
    checkDiagnostics(`# precision-lens: world-size=lots
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[invalid-directive]: must be a positive integer
${HEAD}
[parallelism]
data_parallel_shard_degree = -1
`);
  });
});

describe("huge files", () => {
  it("a file with thousands of unknown tables gets one fork-config note, its detail capped (issue #17 §3)", () => {
    // Named by a directive: by content, a file whose keys are mostly foreign is not torchtitan (detect.ts).
    let text = `# precision-lens: framework=torchtitan\n${HEAD}\n[parallelism]\ndata_parallel_shard_degree = -1\n`;
    for (let i = 0; i < 1500; i++) text += `[extra_${i}]\nkey_${i} = ${i}\n`;
    const r = analyzeFixture(text, { settings: { torchtitanVersion: "v0.2.2" } });
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "unknown-section" || d.code === "unknown-key"), []);
    const fork = r.diagnostics.filter((d) => d.code === "fork-config");
    assert.equal(fork.length, 1);
    assert.match(fork[0]!.message, /^torchtitan fork config: 1500 names upstream never had/);
    assert.match(fork[0]!.detail ?? "", /and 1450 more\./);
    assert.equal(fork[0]!.related?.length, 19);
    assert.equal(r.mechanism, "fully_shard", "the precision analysis still runs");
  });
});

describe("pipeline bubble", () => {
  it("fewer microbatches than 1F1B stages: an error on the microbatch size (Schedule1F1B raises), no bubble note", () => {
    checkDiagnostics(`# precision-lens: world-size=4
${HEAD}
[training]
local_batch_size = 2

[parallelism]
data_parallel_shard_degree = -1
pipeline_parallel_degree = 4
#^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]
pipeline_parallel_schedule = "1F1B"
pipeline_parallel_microbatch_size = 1
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[pp-1f1b-microbatches]: 1F1B needs at least 4 microbatches for 4 stages, this config gives 2: Schedule1F1B raises at launch
`);
  });

  it("fewer microbatches than GPipe stages: information on the microbatch size, no error", () => {
    checkDiagnostics(`# precision-lens: world-size=4
${HEAD}
[training]
local_batch_size = 2

[parallelism]
data_parallel_shard_degree = -1
pipeline_parallel_degree = 4
#^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]
pipeline_parallel_schedule = "GPipe"
pipeline_parallel_microbatch_size = 1
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ information[pp-bubble]: Only 2 microbatches (local_batch_size 2 / pipeline_parallel_microbatch_size 1) for 4 pipeline ranks with GPipe (one stage per rank): 4 are needed
`);
  });


  it("looped schedules need at least two stages per rank; enough microbatches fire nothing", () => {
    const base = `# precision-lens: world-size=16\n${HEAD}\n[training]\nlocal_batch_size = LBS\n\n[parallelism]\ndata_parallel_shard_degree = -1\npipeline_parallel_degree = 2\npipeline_parallel_schedule = "Interleaved1F1B"\n`;
    const bubble = analyzeFixture(base.replace("LBS", "2")).diagnostics.filter((d) => d.code === "pp-bubble");
    assert.equal(bubble.length, 1);
    assert.match(bubble[0]!.detail ?? "", /at least 4 are needed/);
    assert.deepEqual(analyzeFixture(base.replace("LBS", "4")).diagnostics.filter((d) => d.code === "pp-bubble"), []);
  });
});

describe("float8.enable_float8_linear migrates to a converter", () => {
  const before = `${HEAD}
[float8]
enable_float8_linear = true
enable_fsdp_float8_all_gather = false
`;
  it("before the quantize tables (main@2025-03-01): the converter is \"float8\", appended to model", () => {
    const opts = { settings: { torchtitanVersion: "main@2025-03-01" } };
    const { after, diagnostic } = applyFix(before, "removed-key", "model.converters", opts);
    assert.equal(diagnostic.severity, "warning", "ignored silently before 2025-08-28");
    assert.match(diagnostic.message, /float8 training is off/);
    assert.equal(after, before.replace('flavor = "8B"\n', 'flavor = "8B"\nconverters = ["float8"]\n').replace("enable_float8_linear = true\n", ""));
    assert.ok(!analyzeFixture(after, opts).diagnostics.some((d) => d.code === "removed-key"));
  });

  it("in v0.2.2 the name is quantize.linear.float8, appended to an existing list", () => {
    const withList = before.replace('flavor = "8B"\n', 'flavor = "8B"\nconverters = ["quantize.grouped_mm.float8"]\n');
    const { after } = applyFix(withList, "removed-key", "model.converters", { settings: { torchtitanVersion: "v0.2.2" } });
    assert.match(after, /^converters = \["quantize\.grouped_mm\.float8", "quantize\.linear\.float8"\]$/m);
    assert.doesNotMatch(after, /enable_float8_linear/);
  });
});
