/**
 * Fixture tests for the schema and cross-field rules (issue #4): one or more fixtures per code, and a
 * before/after test per fix. Only our codes are checked; the precision rules are covered elsewhere.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { analyzeDocument } from "../server/src/core/analyze";
import type { AnalysisEnv } from "../server/src/core/analysis";
import { TITAN_RULES } from "../server/src/core/frameworks/torchtitan/rules/index";
import { SCHEMA_RULE_CODES } from "../server/src/core/frameworks/torchtitan/schema/rules";
import { analyzeFixture, checkDiagnostics as checkDiagnosticsRaw, checkFix as checkFixRaw, type FixtureOptions } from "./support/fixture";

/** Small fixtures do not have enough tables for detection: name the framework in a directive. */
const HEAD = "# precision-lens: framework=torchtitan\n";
const checkDiagnostics = (text: string, opts: FixtureOptions) => checkDiagnosticsRaw(HEAD + text, opts);
const checkFix = (before: string, code: string, title: string, after: string, opts: FixtureOptions) => checkFixRaw(HEAD + before, code, title, HEAD + after, opts);

const OTHER_CODES = [...new Set(TITAN_RULES.flatMap((r) => r.codes))].filter((c) => !SCHEMA_RULE_CODES.includes(c));
const at = (v: string, more: FixtureOptions = {}): FixtureOptions => ({ settings: { torchtitanVersion: v, worldSize: 8, ...(more.settings ?? {}) }, ignore: [...OTHER_CODES, "invalid-directive"] });
const V022 = at("v0.2.2");

describe("unknown-key / unknown-section", () => {
  it("errors from v0.2.0 on, with torchtitan's message and a did-you-mean", () => {
    checkDiagnostics(
      `[training]
local_batch_size = 8
seq_lenn = 2048
#^^^^^^^ error[unknown-key]: Invalid field names in Training data: {'seq_lenn'}
`,
      V022,
    );
  });
  it("warns (silently ignored) in v0.1.0", () => {
    checkDiagnostics(
      `[training]
local_batch_size = 8
seq_lenn = 2048
#^^^^^^^ warning[unknown-key]: silently ignores
`,
      at("v0.1.0"),
    );
  });
  it("reports an unknown table once, at its header", () => {
    checkDiagnostics(
      `[training]
steps = 1

[paralelism]
#^^^^^^^^^^^ error[unknown-section]: Did you mean [parallelism]?
tensor_parallel_degree = 2
data_parallel_shard_degree = 4
`,
      V022,
    );
  });
  it("flags an empty unknown table", () => {
    checkDiagnostics(
      `[training]
steps = 1

[float9]
#^^^^^^^ error[unknown-section]: empty
`,
      V022,
    );
  });
  it("suggests the table a misplaced key belongs to", () => {
    const r = checkDiagnostics(
      `[training]
log_freq = 2
#^^^^^^^ error[unknown-key]: Did you mean [metrics]
`,
      V022,
    );
    assert.ok(r.diagnostics.find((d) => d.code === "unknown-key")!.data!.fixes![0]!.title.includes("[metrics]"));
  });
  it("knows the sections of a named extension module, and not without it", () => {
    checkDiagnostics(
      `[job]
custom_config_module = "torchtitan.models.flux.job_config"
[training]
img_size = 256
[encoder]
t5_encoder = "google/t5-v1_1-xxl"
`,
      V022,
    );
    checkDiagnostics(
      `[job]
description = "x"
[training]
steps = 1
[hf_transformers]
#^^^^^^^^^^^^^^^^ warning[extension-section-without-module]: transformers_modeling_backend
model = "Qwen/Qwen3-4B-Instruct-2507"
`,
      V022,
    );
  });
  it("a table is an extension's only when its keys are the extension's: a fork's [data] with dataset keys is not the VLM module's (issue #17)", () => {
    const codes = (body: string) => analyzeDocument("file:///w/a.toml", `${HEAD}[job]\ndescription = "x"\n[training]\nsteps = 1\n[data]\n${body}`, { torchtitanVersion: "v0.2.2", worldSize: 8 }).diagnostics.map((d) => d.code);
    assert.ok(codes("max_images_per_batch = 4\n").includes("extension-section-without-module"));
    const fork = codes('dataset = "allenai/c4"\ntokenizer = "tiktoken"\n');
    assert.ok(!fork.includes("extension-section-without-module"), fork.join(","));
    assert.ok(fork.includes("unknown-section") || fork.includes("fork-config"), fork.join(","));
  });
  it("says the condition, and a run script that passes the module at launch settles it (issue #17 §1)", () => {
    const text = `${HEAD}[job]\ndescription = "x"\n[training]\nsteps = 1\n[hf_transformers]\nmodel = "Qwen/Qwen3-4B-Instruct-2507"\n`;
    const script = (flag: string) => `#!/bin/bash\nNGPU=8 CONFIG_FILE=./configs/qwen.toml ./run_train.sh ${flag}\n`;
    const envWith = (files: Record<string, string>): AnalysisEnv => ({
      readFile: (p) => files[p],
      listDir: (d) => Object.keys(files).filter((p) => p.startsWith(d + "/") && !p.slice(d.length + 1).includes("/")).map((p) => p.slice(d.length + 1)),
      documentPath: "/ws/configs/qwen.toml",
      workspaceRoots: ["/ws"],
    });
    const codes = (env: AnalysisEnv) => analyzeDocument("file:///ws/configs/qwen.toml", text, { torchtitanVersion: "v0.2.2", worldSize: 8 }, env).diagnostics.filter((d) => d.code === "extension-section-without-module");
    const bare = codes(envWith({}));
    assert.equal(bare.length, 1);
    assert.equal(bare[0]!.severity, "warning");
    assert.match(bare[0]!.message, /^\[hf_transformers\] needs (the Transformers modeling backend|an extension) (extension )?module: (unless|without) job\.custom_config_module (is passed )?at launch, (upstream torchtitan )?v0\.2\.2 rejects it at launch$/);
    assert.equal(codes(envWith({ "/ws/train.sh": script("--job.custom_config_module=torchtitan.experiments.transformers_modeling_backend.job_config") })).length, 0);
    assert.equal(codes(envWith({ "/ws/train.sh": script("--job.custom-config-module torchtitan.experiments.transformers_modeling_backend.job_config") })).length, 0);
    // A script that names the config but passes no module flag, or passes it for another config, settles nothing.
    assert.equal(codes(envWith({ "/ws/train.sh": script("--training.steps 10") })).length, 1);
    assert.equal(codes(envWith({ "/ws/train.sh": "./run_train.sh --job.config_file other.toml --job.custom_config_module=m\n" })).length, 1);
  });
  it("does not flag extra sections with an unknown custom module: one fork-config note lists them (issue #17 §3)", () => {
    const r = analyzeFixture(
      HEAD +
        `[job]
custom_config_module = "my_team.config"
[training]
steps = 1
my_knob = 3
[my_section]
x = 1
`,
      V022,
    );
    assert.deepEqual(r.diagnostics.filter((d) => d.code.startsWith("unknown-")).map((d) => d.code), []);
    const fork = r.diagnostics.filter((d) => d.code === "fork-config");
    assert.equal(fork.length, 1);
    assert.equal(fork[0]!.severity, "information");
    assert.match(fork[0]!.detail ?? "", /training\.my_knob, \[my_section\]\. .*The custom config module my_team\.config it names was not found/);
  });
  it("fix: did-you-mean renames the key", () => {
    checkFix(`[training]\nseq_lenn = 2048\n`, "unknown-key", "Rename to seq_len", `[training]\nseq_len = 2048\n`, V022);
  });
  it("fix: renames a misspelt table header", () => {
    checkFix(`[training]\nsteps = 1\n[paralelism]\ntensor_parallel_degree = 2\n`, "unknown-section", "Rename [paralelism] to [parallelism]", `[training]\nsteps = 1\n[parallelism]\ntensor_parallel_degree = 2\n`, V022);
  });
  it("fix: adds the extension module", () => {
    checkFix(
      `[job]\ndescription = "x"\n[training]\nsteps = 1\n[hf_transformers]\nmodel = "m"\n`,
      "extension-section-without-module",
      "Add job.custom_config_module",
      `[job]\ndescription = "x"\ncustom_config_module = "torchtitan.experiments.transformers_modeling_backend.job_config"\n[training]\nsteps = 1\n[hf_transformers]\nmodel = "m"\n`,
      V022,
    );
  });
});

describe("moved-key / removed-key / deprecated-key", () => {
  it("reports moved keys with their new place (error in v0.2.x, warning in v0.1.0)", () => {
    checkDiagnostics(
      `[training]
steps = 1
compile = true
#^^^^^^ error[moved-key]: renamed to compile.enable
[checkpoint]
enable_checkpoint = true
#^^^^^^^^^^^^^^^^ error[moved-key]: checkpoint.enable
`,
      V022,
    );
    checkDiagnostics(
      `[training]
steps = 1
[checkpoint]
model_weights_only = true
#^^^^^^^^^^^^^^^^^ warning[moved-key]: last_save_model_weights_only
`,
      at("v0.1.0"),
    );
  });
  it("fix: moves a key to a new table, creating it", () => {
    checkFix(`[training]\nsteps = 1\ncompile = true\n`, "moved-key", "Move to compile.enable", `[training]\nsteps = 1\n\n[compile]\nenable = true\n`, V022);
  });
  it("fix: renames in place", () => {
    checkFix(`[checkpoint]\nenable_checkpoint = true # on\ninterval = 5\n`, "moved-key", "Rename to enable", `[checkpoint]\nenable = true # on\ninterval = 5\n`, V022);
  });
  it("fix: inverts the value where the meaning flipped", () => {
    checkFix(
      `[training]\nsteps = 1\nenable_loss_parallel = true\n[parallelism]\ntensor_parallel_degree = 1\n`,
      "moved-key",
      "value inverted",
      `[training]\nsteps = 1\n[parallelism]\ntensor_parallel_degree = 1\ndisable_loss_parallel = false\n`,
      V022,
    );
  });
  it("fix: moves a whole old table by renaming its header", () => {
    checkFix(
      `[training]\nsteps = 1\n\n[float8]\nenable_fsdp_float8_all_gather = true  # fast\nfilter_fqns = ["output"]\n`,
      "moved-key",
      "Move [float8] to [quantize.linear.float8]",
      `[training]\nsteps = 1\n\n[quantize.linear.float8]\nenable_fsdp_float8_all_gather = true  # fast\nfilter_fqns = ["output"]\n`,
      V022,
    );
  });
  it("fix: an old key whose new key is already set is removed", () => {
    checkFix(`[checkpoint]\nenable = true\nenable_checkpoint = true\n`, "moved-key", "Remove checkpoint.enable_checkpoint", `[checkpoint]\nenable = true\n`, V022);
  });
  it("moves through the intermediate quantize layout as of v0.2.0", () => {
    checkDiagnostics(
      `[training]
steps = 1
[mx]
filter_fqns = ["output"]
#^^^^^^^^^^ error[moved-key]: quantize.linear.mx.filter_fqns
`,
      at("v0.2.0"),
    );
  });
  it("removed keys: error with the advice, and a fix that deletes the line", () => {
    checkDiagnostics(
      `[job]
use_for_integration_test = true
#^^^^^^^^^^^^^^^^^^^^^^^ error[removed-key]: removed
[training]
steps = 1
`,
      V022,
    );
    checkFix(`[job]\nuse_for_integration_test = true\n[training]\nsteps = 1\n`, "removed-key", "Remove", `[job]\n[training]\nsteps = 1\n`, V022);
  });
  it("deprecated keys: tokenizer_path becomes hf_assets_path (a folder)", () => {
    checkDiagnostics(
      `[model]
tokenizer_path = "./assets/tokenizer/tokenizer.model"
#^^^^^^^^^^^^^ warning[deprecated-key]: hf_assets_path
[training]
steps = 1
`,
      V022,
    );
    checkFix(`[model]\ntokenizer_path = "./assets/tokenizer/tokenizer.model"\n[training]\nsteps = 1\n`, "deprecated-key", "hf_assets_path", `[model]\nhf_assets_path = "./assets/tokenizer"\n[training]\nsteps = 1\n`, V022);
  });
});

describe("wrong-type / invalid-value", () => {
  it("flags wrong types at the value and skips the precision knobs and degrees", () => {
    checkDiagnostics(
      `[training]
steps = "100"
#       ^^^^^ error[wrong-type]: expects an integer
mixed_precision_param = 16
[parallelism]
tensor_parallel_degree = "2"
[metrics]
enable_tensorboard = 1
#                    ^ warning[wrong-type]: write true
`,
      V022,
    );
  });
  it("training.fp8_linear was a string (\"\" / \"dynamic\") before it became a flag on 2024-07-08: either is the file's own (issue #17)", () => {
    for (const v of ['""', '"dynamic"', "true"]) {
      checkDiagnostics(`[training]\nsteps = 1\nfp8_linear = ${v}\n`, at("main@2024-07-15"));
      checkDiagnostics(`[training]\nsteps = 1\nfp8_linear = ${v}\n`, at("main@2024-06-01"));
    }
  });
  it("a comma string for a string_list key was split into a list by the argparse ConfigManager (check_string_list_argument, 2025-02-15 … 2025-04-17): no wrong-type there (held-back nlpfollower llama3_405b.toml)", () => {
    checkDiagnostics(`[training]\nsteps = 1\n[model]\nconverters = "float8"\n`, at("main@2025-02-26"));
    checkDiagnostics(`[training]\nsteps = 1\n[checkpoint]\nexclude_from_loading = "optimizer,lr_scheduler"\n`, at("main@2025-02-10"));
    // Before #823 converters was not split; from the typed JobConfig (#767) a string is a string again.
    checkDiagnostics(`[training]\nsteps = 1\n[model]\nconverters = "float8"\n#            ^^^^^^^^ error[wrong-type]: expects a list of strings\n`, at("main@2025-04-20"));
    checkDiagnostics(`[training]\nsteps = 1\n[experimental]\npipeline_parallel_split_points = "layers.4"\n`, at("main@2024-11-15"));
    checkDiagnostics(`[training]\nsteps = 1\n[experimental]\npipeline_parallel_split_points = "layers.4"\n#                                ^^^^^^^^^^ error[wrong-type]: expects a list of strings\n`, at("main@2024-10-01"));
  });
  it("flags values outside the allowed set", () => {
    checkDiagnostics(
      `[training]
steps = 1
[activation_checkpoint]
mode = "selectve"
#      ^^^^^^^^^^ error[invalid-value]: Invalid AC mode
selective_ac_option = "every2"
#                     ^^^^^^^^ error[invalid-value]: Invalid selective AC option
[optimizer]
implementation = "Fused"
#                ^^^^^^^ warning[invalid-value]: tyro
[compile]
components = ["model", "los"]
#                      ^^^^^ warning[invalid-value]: Did you mean "loss"
`,
      V022,
    );
  });
  it("memory_budget does not exist before 2025-10-09", () => {
    checkDiagnostics(
      `[training]
steps = 1
[activation_checkpoint]
mode = "memory_budget"
#      ^^^^^^^^^^^^^^^ error[invalid-value]: only exists from 2025-10-09
`,
      at("v0.1.0"),
    );
  });
  it("fixes: unquote a number, correct the case of a choice", () => {
    checkFix(`[training]\nsteps = "100"\n`, "wrong-type", "without quotes", `[training]\nsteps = 100\n`, V022);
    checkFix(`[training]\nsteps = 1\n[optimizer]\nimplementation = "Fused"\n`, "invalid-value", 'Change to "fused"', `[training]\nsteps = 1\n[optimizer]\nimplementation = "fused"\n`, V022);
  });
});

describe("converters", () => {
  it('the stale "float8" of v0.2.2\'s llama3_405b.toml is an error with the new name as fix', () => {
    checkDiagnostics(
      `[model]
converters = ["float8"]
#             ^^^^^^^^ error[unknown-converter]: "quantize.linear.float8"
[training]
steps = 1
`,
      V022,
    );
    checkFix(`[model]\nconverters = ["float8"]\n[training]\nsteps = 1\n`, "unknown-converter", "quantize.linear.float8", `[model]\nconverters = ["quantize.linear.float8"]\n[training]\nsteps = 1\n`, V022);
  });
  it('"float8" is right in v0.1.0, and the new names are not', () => {
    checkDiagnostics(`[model]\nconverters = ["float8"]\n[training]\nsteps = 1\n`, at("v0.1.0"));
    checkDiagnostics(
      `[model]
converters = ["quantize.linear.mx"]
#             ^^^^^^^^^^^^^^^^^^^^ error[unknown-converter]: "mx"
[training]
steps = 1
`,
      at("v0.1.0"),
    );
  });
  it("float8 and mx cannot be mixed", () => {
    checkDiagnostics(
      `[model]
converters = ["quantize.linear.float8", "quantize.linear.mx"]
#                                       ^^^^^^^^^^^^^^^^^^^^ error[mixed-quantization]: Cannot combine
[training]
steps = 1
`,
      // MXFP8 needs a B200 (quantize-gpu-unsupported): name one, so only the mixing is at issue.
      at("v0.2.2", { settings: { gpu: "b200" } }),
    );
  });
  it("float8 grouped MM with PP or CP; MX with TP and compile", () => {
    checkDiagnostics(
      `[model]
converters = ["quantize.grouped_mm.float8"]
#             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[float8-grouped-mm-pp-cp]: pipeline_parallel_degree = 2
#             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^ information[quantize-without-compile]
[training]
steps = 1
[parallelism]
pipeline_parallel_degree = 2
`,
      V022,
    );
    checkDiagnostics(
      `[model]
converters = ["quantize.linear.mx"]
#             ^^^^^^^^^^^^^^^^^^^^ error[mx-tp-compile]: TP not yet supported with torch.compile for mxfp8
[training]
steps = 1
[parallelism]
tensor_parallel_degree = 2
[compile]
enable = true
`,
      at("v0.2.2", { settings: { gpu: "b200" } }),
    );
  });
  it("float8 recipe with the FSDP all-gather, all-gather without FSDP, emulate with compile", () => {
    checkDiagnostics(
      `[model]
converters = ["quantize.linear.float8"]
[training]
steps = 1
[compile]
enable = true
[quantize.linear.float8]
recipe_name = "rowwise"
enable_fsdp_float8_all_gather = true
#                               ^^^^ error[float8-recipe-with-all-gather]: not supported together
emulate = true
#         ^^^^ warning[float8-emulate-compile]: SM89
`,
      V022,
    );
    checkDiagnostics(
      `[model]
converters = ["quantize.linear.float8"]
[training]
steps = 1
[parallelism]
tensor_parallel_degree = 8
[quantize.linear.float8]
enable_fsdp_float8_all_gather = true
#                               ^^^^ information[float8-all-gather-no-effect]: dp_shard = 1
precompute_float8_dynamic_scale_for_fsdp = true
#                                          ^^^^ information[float8-all-gather-no-effect]: precompute
`,
      V022,
    );
  });
});

describe("compile dependencies", () => {
  it("async TP and memory_budget need compile", () => {
    checkDiagnostics(
      `[training]
steps = 1
[parallelism]
tensor_parallel_degree = 2
enable_async_tensor_parallel = true
#                              ^^^^ error[async-tp-without-compile]: Async TP requires
[activation_checkpoint]
mode = "memory_budget"
#      ^^^^^^^^^^^^^^^ error[memory-budget-without-compile]: Memory budget mode requires
`,
      V022,
    );
  });
  it("compile of the loss only does not count", () => {
    checkDiagnostics(
      `[training]
steps = 1
[parallelism]
tensor_parallel_degree = 2
enable_async_tensor_parallel = true
#                              ^^^^ error[async-tp-without-compile]
[compile]
enable = true
components = ["loss"]
`,
      V022,
    );
  });
  it("fix: turns compile on for the model", () => {
    checkFix(
      `[training]\nsteps = 1\n[parallelism]\ntensor_parallel_degree = 2\nenable_async_tensor_parallel = true\n[compile]\ncomponents = ["loss"]\n`,
      "async-tp-without-compile",
      "Turn on compile",
      `[training]\nsteps = 1\n[parallelism]\ntensor_parallel_degree = 2\nenable_async_tensor_parallel = true\n[compile]\ncomponents = ["model", "loss"]\nenable = true\n`,
      V022,
    );
  });
  it("v0.1.0 reads training.compile", () => {
    checkDiagnostics(`[training]\nsteps = 1\ncompile = true\n[parallelism]\ntensor_parallel_degree = 2\nenable_async_tensor_parallel = true\n`, at("v0.1.0"));
  });
});

describe("batch shapes", () => {
  it("seq_len divisible by tp x 2 x cp", () => {
    checkDiagnostics(
      `[training]
seq_len = 2050
#         ^^^^ error[seq-len-divisibility]: 2 * CP degree (1) = 4
[parallelism]
tensor_parallel_degree = 2
`,
      V022,
    );
    checkFix(`[training]\nseq_len = 2050\n[parallelism]\ntensor_parallel_degree = 2\n`, "seq-len-divisibility", "2052", `[training]\nseq_len = 2052\n[parallelism]\ntensor_parallel_degree = 2\n`, V022);
  });
  it("global batch a multiple of local x dp", () => {
    checkDiagnostics(
      `[training]
local_batch_size = 4
global_batch_size = 40
#                   ^^ error[global-batch-size]: 4 × 8 = 32
`,
      V022,
    );
    checkDiagnostics(`[training]\nlocal_batch_size = 4\nglobal_batch_size = 64\n`, V022);
  });
  it("PP microbatch divides the local batch", () => {
    checkDiagnostics(
      `[training]
local_batch_size = 6
[parallelism]
pipeline_parallel_degree = 2
pipeline_parallel_microbatch_size = 4
#                                   ^ error[pp-microbatch]: divisible by microbatch_size 4
`,
      V022,
    );
  });
});

describe("checkpoint and validation", () => {
  it("keep_latest_k = 1, seed checkpoint, validation.steps", () => {
    checkDiagnostics(
      `# precision-lens: world-size=4
[training]
steps = 1
[checkpoint]
keep_latest_k = 1
#               ^ error[keep-latest-k]: 0 to keep every checkpoint
create_seed_checkpoint = true
#                        ^^^^ error[seed-checkpoint]: Must enable checkpointing
#                        ^^^^ error[seed-checkpoint]: single device
[validation]
steps = 0
#       ^ error[validation-steps]: positive or -1
`,
      V022,
    );
    checkFix(`[training]\nsteps = 1\n[checkpoint]\nkeep_latest_k = 1\n`, "keep-latest-k", "Change to 2", `[training]\nsteps = 1\n[checkpoint]\nkeep_latest_k = 2\n`, V022);
    checkFix(`[training]\nsteps = 1\n[validation]\nsteps = 0\n`, "validation-steps", "-1", `[training]\nsteps = 1\n[validation]\nsteps = -1\n`, V022);
  });
});

describe("training.dtype against mixed precision", () => {
  it("bf16 storage with fp32 compute is a warning", () => {
    checkDiagnostics(
      `[training]
dtype = "bfloat16"
mixed_precision_param = "float32"
#                       ^^^^^^^^^ warning[bf16-storage-fp32-compute]: up-casts
`,
      V022,
    );
    checkFix(`[training]\ndtype = "bfloat16"\nmixed_precision_param = "float32"\n`, "bf16-storage-fp32-compute", "bfloat16", `[training]\ndtype = "bfloat16"\nmixed_precision_param = "bfloat16"\n`, V022);
  });
});

describe("the rules never throw on odd input", () => {
  it("inline tables, arrays of tables, dotted roots", () => {
    const r = analyzeFixture(HEAD + `training = { steps = 1, seq_len = 7 }\n[[weird]]\nx = 1\n[[weird]]\nx = 2\n[parallelism]\ntensor_parallel_degree = 2\n`, V022);
    assert.ok(!r.diagnostics.some((d) => d.code === "internal-error"), JSON.stringify(r.diagnostics));
    // [[weird]] is a table upstream never had: the one fork-config note lists it (issue #17 §3).
    assert.ok(r.diagnostics.some((d) => d.code === "fork-config" && d.message.includes("[weird]")));
    assert.ok(r.diagnostics.some((d) => d.code === "seq-len-divisibility"));
  });
});
