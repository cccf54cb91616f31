/**
 * transformers TrainingArguments files (TRL, LLaMA-Factory, plain argument files): detection, the versioned
 * defaults, resolution per launcher and HF1–HF8, fixture style. Upstream behaviour each rule rests on:
 * - TRL `bf16` defaults to `not fp16` from v0.19.0: trl/trainer/sft_config.py:252@v0.19.0, base_config.py:105@v1.9.0.
 * - TRL ModelConfig `dtype` defaults to "float32" from v1.0.0: trl/trainer/model_config.py:91@v1.0.0.
 * - DeepSpeed fill_match / mismatch ValueError: transformers integrations/deepspeed.py:137-197, 270-274@v4.57.1.
 * - LLaMA-Factory pure_bf16 + ZeRO-3: src/llamafactory/hparams/parser.py:384-385@v0.9.5; upcast of trainable
 *   parameters: src/llamafactory/model/adapter.py:313-323@v0.9.5; unknown keys: parser.py:103-112@v0.9.5.
 * - accelerate FSDP2 upcast no-op: src/accelerate/utils/fsdp_utils.py:740@v1.13.0, fixed :714@v1.14.0.
 * - bf16 + fp16: transformers training_args.py:1750@4.57.1.
 * - fp16 load + fp16 AMP (HF12): torch/amp/grad_scaler.py:274-275, 358@2.13.0; accelerate utils/modeling.py get_grad_scaler@1.15.0.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { fakeEnv } from "./support/fakeEnv";
import { formatBytes, simulate } from "../server/src/core/engine";
import { engineModelOf } from "../server/src/core/frameworks/transformers/memory";
import { checkDiagnostics, checkFix } from "./support/fixture";
import { projectArgs } from "../server/src/core/frameworks/transformers/argClasses";
import { expand, findLaunchCommand, logicalLines, parseCommand } from "../server/src/core/frameworks/transformers/launchLine";

const uri = "file:///w/recipes/sft.yaml";
const DOC = "/w/recipes/sft.yaml";
/** The TrainingArguments / TRL keys every TRL fixture starts with. */
const TRL = "model_name_or_path: Qwen/Qwen2.5-0.5B\ndataset_name: trl-lib/Capybara\noutput_dir: out\nlearning_rate: 2.0e-5\nper_device_train_batch_size: 2\n";
const LF = "model_name_or_path: Qwen/Qwen3-4B\nstage: sft\ndo_train: true\nfinetuning_type: full\ndataset: identity\ntemplate: qwen3\noutput_dir: saves/x\nper_device_train_batch_size: 1\n";
const PLAIN = "output_dir: out\nper_device_train_batch_size: 4\ngradient_accumulation_steps: 2\nlearning_rate: 1.0e-4\nnum_train_epochs: 1\n";

const pins = (extra: Record<string, string> = {}, req = "") => fakeEnv({ "/w/requirements.txt": req, ...extra }, DOC);
/** A run script that launches the fixture with torchrun on 4 processes: the launcher known to be DDP (the plain branch). */
const TORCHRUN = "torchrun --nproc_per_node 4 train.py recipes/sft.yaml\n";
const ddp = (extra: Record<string, string> = {}, req = "") => pins({ "/w/train.sh": TORCHRUN, ...extra }, req);
const prec = (r: ReturnType<typeof analyzeDocument>) => [r.precision?.paramStorage.dtype, r.precision?.compute.dtype, r.precision?.gradReduce.dtype];

describe("transformers: detection and dialects", () => {
  it("TRL, LLaMA-Factory and plain argument files are claimed, each with its dialect in the hover", () => {
    const trl = analyzeDocument(uri, `${TRL}bf16: true\n`);
    assert.equal(trl.framework, "transformers");
    assert.match(trl.frameworkReason, /TRL keys \(`dataset_name`\)/);
    assert.match(trl.reportMarkdown ?? "", /transformers \(TRL\)/);
    const lf = analyzeDocument(uri, `${LF}bf16: true\n`);
    assert.equal(lf.framework, "transformers");
    assert.match(lf.frameworkReason, /`stage: sft` and `finetuning_type: full`/);
    const plain = analyzeDocument("file:///w/args.json", JSON.stringify({ output_dir: "o", per_device_train_batch_size: 4, learning_rate: 1e-4, bf16: true }));
    assert.equal(plain.framework, "transformers");
    assert.match(plain.frameworkReason, /HfArgumentParser argument file/);
  });

  it("decoys stay silent: a model config.json, generation_config.json, tokenizer_config.json, a dataset card", () => {
    const decoys: [string, string][] = [
      ["config.json", JSON.stringify({ architectures: ["LlamaForCausalLM"], hidden_size: 4096, num_hidden_layers: 32, torch_dtype: "bfloat16", transformers_version: "4.57.1", use_cache: true })],
      ["generation_config.json", JSON.stringify({ do_sample: true, temperature: 0.6, top_p: 0.9, max_new_tokens: 512, bos_token_id: 1 })],
      ["tokenizer_config.json", JSON.stringify({ tokenizer_class: "LlamaTokenizer", model_max_length: 4096, padding_side: "right", added_tokens_decoder: {} })],
      ["README.yaml", "license: apache-2.0\ndataset_info:\n  features:\n    - name: text\n      dtype: string\nconfigs:\n  - config_name: default\n    data_files: train.jsonl\n"],
    ];
    for (const [name, text] of decoys) {
      const r = analyzeDocument(`file:///w/${name}`, text);
      assert.equal(r.framework, null, name);
      assert.deepEqual(r.diagnostics, [], name);
    }
  });

  it("a YAML whose keys are mostly not TrainingArguments/TRL fields is not claimed (another tool's fp8 config with `lora:`); a project's argument file with some extra keys still is", () => {
    const other = "model: llama\nlora:\n  enabled: true\nlora_rank: 16\nfp8_recipe: delayed\namax_history_len: 16\nseq_len: 4096\noutput_dir: out\nlearning_rate: 1.0e-4\nmax_steps: 100\ngradient_accumulation_steps: 4\nwandb_project: x\n";
    assert.equal(analyzeDocument(uri, other).framework, null);
    const mine = `${PLAIN}model_name_or_path: x/y\ndata_path: d.json\n`;
    assert.equal(analyzeDocument(uri, mine).framework, "transformers");
  });

  it("files other frameworks own stay theirs", () => {
    const axolotl = analyzeDocument(uri, "base_model: x/y\ndatasets:\n  - path: a\n    type: alpaca\nsequence_len: 512\noutput_dir: o\nlearning_rate: 1e-4\ngradient_accumulation_steps: 2\n");
    assert.equal(axolotl.framework, "axolotl");
    const ds = analyzeDocument("file:///w/ds.json", JSON.stringify({ zero_optimization: { stage: 2 }, gradient_accumulation_steps: "auto", train_micro_batch_size_per_gpu: "auto", bf16: { enabled: "auto" } }));
    assert.equal(ds.framework, "deepspeed");
  });
});

describe("transformers: versions and resolution", () => {
  it("TRL ≥ 0.19.0 defaults bf16 to true; TRL 0.18.0 to false (the TrainingArguments default)", () => {
    const text = `${TRL}dtype: float32\n`;
    const new_ = analyzeDocument(uri, text, {}, ddp({}, "trl==0.19.0\n"));
    assert.deepEqual(prec(new_), ["float32", "bfloat16", "float32"]);
    assert.match(new_.precision!.compute.knob, /TRL's default `bf16: true`.*requirements\.txt: trl 0\.19\.0/);
    const old = analyzeDocument(uri, text, {}, ddp({}, "trl==0.18.0\n"));
    assert.deepEqual(prec(old), ["float32", "float32", "float32"]);
    assert.equal(old.mechanism, "none");
  });

  it("TRL ≥ 1.0.0 loads in fp32 when no dtype is set; the row says so", () => {
    const r = analyzeDocument(uri, `${TRL}bf16: true\n`, {}, pins({}, "trl==1.2.0\n"));
    assert.equal(r.precision!.paramStorage.dtype, "float32");
    assert.match(r.precision!.paramStorage.knob, /ModelConfig default `dtype: float32`/);
  });

  it("LLaMA-Factory full fine-tune with bf16: trainable parameters upcast to fp32, bf16 autocast; pure_bf16 keeps bf16", () => {
    const r = analyzeDocument(uri, `${LF}bf16: true\n`, {}, ddp());
    assert.deepEqual(prec(r), ["float32", "bfloat16", "float32"]);
    assert.match(r.precision!.paramStorage.knob, /LLaMA-Factory upcasts the trainable parameters to fp32/);
    const p = analyzeDocument(uri, `${LF}pure_bf16: true\n`, {}, ddp());
    assert.deepEqual(prec(p), ["bfloat16", "bfloat16", "bfloat16"]);
    // pure_bf16 alone leaves TrainingArguments.bf16 off: no autocast (get_train_args, parser.py:512-513@v0.9.5; the
    // oracle's lf.amp claim); with `bf16: true` as well, accelerate autocasts
    assert.equal(p.mechanism, "none");
    assert.equal(analyzeDocument(uri, `${LF}pure_bf16: true\nbf16: true\n`).mechanism, "autocast");
  });

  it("DeepSpeed from `deepspeed:`: the linked JSON's stage, \"auto\" filled from `bf16` here", () => {
    const ds = JSON.stringify({ zero_optimization: { stage: 3 }, bf16: { enabled: "auto" }, fp16: { enabled: "auto" }, gradient_accumulation_steps: "auto" });
    const r = analyzeDocument(uri, `${TRL}dtype: bfloat16\nbf16: true\ndeepspeed: ds_z3.json\n`, {}, pins({ "/w/recipes/ds_z3.json": ds }));
    assert.equal(r.layoutName, "DeepSpeed ZeRO-3");
    assert.deepEqual(prec(r), ["float32", "bfloat16", "bfloat16"]);
    assert.deepEqual(r.diagnostics.filter((d) => d.severity !== "hint"), []);
  });

  it("DeepSpeed JSON without a bf16 block under `bf16: true`: accelerate inserts bf16.enabled (set_mixed_precision), bf16 with fp32 master weights", () => {
    const ds = JSON.stringify({ zero_optimization: { stage: 3 }, gradient_accumulation_steps: "auto", train_micro_batch_size_per_gpu: "auto" });
    const r = analyzeDocument(uri, `${PLAIN}bf16: true\ndeepspeed: ds_z3.json\n`, {}, pins({ "/w/recipes/ds_z3.json": ds }));
    assert.deepEqual(prec(r), ["float32", "bfloat16", "bfloat16"]);
    assert.match(r.reportMarkdown ?? "", /accelerate inserts `bf16.enabled: true`/);
    assert.match(r.reportMarkdown ?? "", /Mechanism: \*\*bf16 model cast \(no autocast\), fp32 master weights/);
    // Without bf16/fp16 nothing is inserted: fp32.
    const fp32 = analyzeDocument(uri, `${PLAIN}deepspeed: ds_z3.json\n`, {}, pins({ "/w/recipes/ds_z3.json": ds }));
    assert.deepEqual(prec(fp32), ["float32", "float32", "float32"]);
  });

  it("DeepSpeed `\"enabled\": \"true\"` (a string) is bf16 to DeepSpeed (pydantic) and a fill_match mismatch to the Trainer (HF3)", () => {
    const ds = JSON.stringify({ zero_optimization: { stage: 2 }, bf16: { enabled: "true" } });
    const r = analyzeDocument(uri, `${PLAIN}bf16: true\ndeepspeed: ds.json\n`, {}, pins({ "/w/recipes/ds.json": ds }));
    assert.deepEqual(prec(r), ["float32", "bfloat16", "bfloat16"]);
    const hf3 = r.diagnostics.filter((d) => d.code === "transformers/deepspeed-value-mismatch");
    assert.equal(hf3.length, 1);
    assert.equal(hf3[0]!.severity, "error");
    assert.match(hf3[0]!.message, /sets `bf16.enabled: "true"` but `bf16: true` here/);
    const standalone = analyzeDocument("file:///w/recipes/ds.json", ds);
    assert.equal(standalone.precision?.compute.dtype, "bfloat16");
    // deepspeed/string-boolean on the JSON itself, with the fix writing the boolean.
    const ds10 = standalone.diagnostics.filter((d) => d.code === "deepspeed/string-boolean");
    assert.deepEqual(ds10.map((d) => d.severity), ["information"]);
    assert.match(ds10[0]!.message, /`bf16.enabled` is the string "true": DeepSpeed reads true/);
    checkFix(ds, "deepspeed/string-boolean", "Write true", JSON.stringify({ zero_optimization: { stage: 2 }, bf16: { enabled: true } }), { uri: "file:///w/recipes/ds.json" });
  });

  it("FSDP through `fsdp`/`fsdp_config`: the version from `fsdp_config.version`, reduction in bf16", () => {
    const r = analyzeDocument(uri, `${TRL}bf16: true\nfsdp: full_shard auto_wrap\nfsdp_config:\n  version: 2\n`, { worldSize: 8 }, pins());
    assert.equal(r.layoutName, "FSDP2 (accelerate)");
    assert.deepEqual(prec(r), ["float32", "bfloat16", "bfloat16"]);
  });

  it("plain/DDP (torchrun) with a bf16 load: pure bf16; the hover names the launch line", () => {
    const r = analyzeDocument(uri, `${TRL}dtype: bfloat16\nbf16: true\n`, {}, ddp());
    assert.equal(r.layoutName, "DDP");
    assert.deepEqual(prec(r), ["bfloat16", "bfloat16", "bfloat16"]);
    assert.equal(r.precision!.paramStorage.byLauncher, undefined);
    assert.match(r.reportMarkdown ?? "", /Launched with the `torchrun` command line \(train\.sh line 1\): `distributed_type: MULTI_GPU`/);
    assert.doesNotMatch(r.reportMarkdown ?? "", /launcher not found/);
    assert.match(r.reportMarkdown ?? "", /Memory estimate: unknown/);
    assert.ok((r.inlayHints ?? []).some((h) => h.label === " → params bf16 · compute bf16 · reduce bf16"));
  });
});

describe("transformers: the launcher not found, resolved under every candidate launcher (issue #31)", () => {
  const BF16 = `${TRL}dtype: bfloat16\nbf16: true\n`;
  const CANDIDATES = ["single GPU/DDP", "DeepSpeed ZeRO-1", "DeepSpeed ZeRO-2", "DeepSpeed ZeRO-3", "FSDP1", "FSDP2"];

  it("a TRL recipe with `dtype: bfloat16` + `bf16: true` and no launcher: the master weights by launcher, compute and reduction stated, no pure-16-bit", () => {
    const r = analyzeDocument(uri, BF16, {}, pins());
    assert.equal(r.layoutName, "launcher not found (single GPU/DDP, DeepSpeed or FSDP)");
    // Parameter storage differs: bf16 under plain/DDP (autocast over the bf16 load), fp32 master weights under DeepSpeed ZeRO and FSDP's upcast.
    assert.deepEqual(r.precision!.paramStorage, {
      dtype: null,
      knob: "launcher not found: bf16 under single GPU/DDP; fp32 under DeepSpeed ZeRO-1/2/3 and FSDP1/2",
      byLauncher: { "single GPU/DDP": "bfloat16", "DeepSpeed ZeRO-1": "float32", "DeepSpeed ZeRO-2": "float32", "DeepSpeed ZeRO-3": "float32", FSDP1: "float32", FSDP2: "float32" },
    });
    // Compute and reduction are bf16 under every candidate: stated, with that provenance.
    assert.deepEqual([r.precision!.compute.dtype, r.precision!.gradReduce.dtype], ["bfloat16", "bfloat16"]);
    assert.equal(r.precision!.compute.knob, "the same under every candidate launcher; under single GPU/DDP: torch.autocast from `bf16: true`");
    assert.equal(r.precision!.compute.byLauncher, undefined);
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "transformers/pure-16-bit"), []);
    const md = r.reportMarkdown ?? "";
    assert.match(md, /\| parameter storage \| bf16 or fp32 by launcher \| launcher not found: bf16 under single GPU\/DDP; fp32 under DeepSpeed ZeRO-1\/2\/3 and FSDP1\/2 \|/);
    assert.match(md, /\| optimizer state \| bf16 or fp32 by launcher \| launcher not found: bf16 under single GPU\/DDP; fp32 under DeepSpeed ZeRO-1\/2\/3 and FSDP1\/2 \|/);
    assert.match(md, /Mechanism: \*\*depends on the launcher \(not found\): torch\.autocast under single GPU\/DDP; bf16 model cast under DeepSpeed ZeRO-1\/2\/3; FSDP MixedPrecision under FSDP1\/2\*\*/);
    assert.doesNotMatch(md, /pure bf16/);
    assert.match(md, /_Assumption: launcher not found \(no `deepspeed`\/`fsdp` key here and no launch line naming this file\): each row resolved under every candidate launcher \(single GPU\/DDP, DeepSpeed ZeRO-1\/2\/3 and FSDP1\/2\); the rows that differ are shown by launcher\._/);
    assert.match(md, /Memory estimate: unknown: `Qwen\/Qwen2\.5-0\.5B` is not a model the engine knows/);
    assert.ok((r.inlayHints ?? []).some((h) => h.label === " → params bf16 or fp32 by launcher · compute bf16 · reduce bf16"));
  });

  it("the same recipe launched by torchrun: DDP, the pure bf16 warning as before", () => {
    checkDiagnostics(
      `${TRL}dtype: bfloat16
       #^^^^^^^ warning[transformers/pure-16-bit]: [DDP, from the \`torchrun\` command line] Model loaded in bf16 with \`bf16\` AMP: pure bf16, no fp32 master weights
bf16: true
`,
      { uri, env: ddp() },
    );
  });

  it("the same recipe with `accelerate launch --config_file zero3.yaml`: DeepSpeed ZeRO-3, fp32 master weights, every row stated", () => {
    const env = pins({ "/w/train.sh": "accelerate launch --config_file zero3.yaml train.py --config recipes/sft.yaml\n", "/w/zero3.yaml": "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 3\n" });
    const r = analyzeDocument(uri, BF16, {}, env);
    assert.equal(r.layoutName, "DeepSpeed ZeRO-3");
    assert.deepEqual(prec(r), ["float32", "bfloat16", "bfloat16"]);
    assert.equal(r.precision!.paramStorage.knob, "ZeRO-3 master weights");
    assert.equal(r.precision!.paramStorage.byLauncher, undefined);
    assert.deepEqual(r.diagnostics.filter((d) => d.severity !== "hint"), []);
    assert.doesNotMatch(r.reportMarkdown ?? "", /candidate launcher|launcher not found/);
  });

  it("a file naming its own `deepspeed:` JSON: the candidates shrink to it, every row stated", () => {
    const ds = JSON.stringify({ zero_optimization: { stage: 2 }, bf16: { enabled: "auto" } });
    const r = analyzeDocument(uri, `${BF16}deepspeed: ds_z2.json\n`, {}, pins({ "/w/recipes/ds_z2.json": ds }));
    assert.equal(r.layoutName, "DeepSpeed ZeRO-2");
    assert.deepEqual(prec(r), ["float32", "bfloat16", "bfloat16"]);
    assert.equal(r.precision!.paramStorage.knob, "ZeRO-2 master weights");
    assert.deepEqual([r.precision!.paramStorage.byLauncher, r.precision!.gradReduce.byLauncher], [undefined, undefined]);
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "transformers/pure-16-bit"), []);
  });

  it("rows equal under every candidate are stated; `accelerate launch` with no config file is unknown too", () => {
    // fp32 load, no AMP: fp32 under every candidate (DeepSpeed's "auto" filled with this file's `bf16: false`).
    const r = analyzeDocument(uri, `${TRL}dtype: float32\nbf16: false\n`, {}, pins());
    assert.deepEqual(prec(r), ["float32", "float32", "float32"]);
    assert.equal(r.precision!.paramStorage.knob, "the same under every candidate launcher; under single GPU/DDP: `dtype: float32`");
    assert.match(r.reportMarkdown ?? "", /each row resolved under every candidate launcher \(single GPU\/DDP, DeepSpeed ZeRO-1\/2\/3 and FSDP1\/2\): they agree\./);
    // `accelerate launch train.py` with no config file: accelerate's default config on the machine decides.
    const g = analyzeDocument(uri, BF16, {}, pins({ "/w/train.sh": "accelerate launch train.py recipes/sft.yaml\n" }));
    assert.equal(g.layoutName, "launcher unknown (accelerate's default config decides) (single GPU/DDP, DeepSpeed or FSDP)");
    assert.deepEqual(Object.keys(g.precision!.paramStorage.byLauncher ?? {}), CANDIDATES);
    assert.equal(g.precision!.paramStorage.knob, "launcher unknown (accelerate's default config decides): bf16 under single GPU/DDP; fp32 under DeepSpeed ZeRO-1/2/3 and FSDP1/2");
    assert.deepEqual(g.diagnostics.filter((d) => d.code === "transformers/pure-16-bit"), []);
    assert.doesNotMatch(g.reportMarkdown ?? "", /distributed_type: MULTI_GPU/);
  });

  it("LLaMA-Factory LoRA with no launcher: the reduction by launcher (fp32 adapters under DDP, bf16 under DeepSpeed/FSDP); a predict config keeps its table", () => {
    const lora = "model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\ndo_train: true\nfinetuning_type: lora\ndataset: identity\ntemplate: llama3\noutput_dir: saves/x\nper_device_train_batch_size: 1\nbf16: true\n";
    const r = analyzeDocument(uri, lora, {}, pins());
    assert.deepEqual([r.precision!.paramStorage.dtype, r.precision!.compute.dtype, r.precision!.gradReduce.dtype], ["float32", "bfloat16", null]);
    assert.deepEqual(r.precision!.gradReduce.byLauncher, { "single GPU/DDP": "float32", "DeepSpeed ZeRO-1": "bfloat16", "DeepSpeed ZeRO-2": "bfloat16", "DeepSpeed ZeRO-3": "bfloat16", FSDP1: "bfloat16", FSDP2: "bfloat16" });
    assert.equal(r.precision!.gradReduce.knob, "launcher not found: fp32 under single GPU/DDP; bf16 under DeepSpeed ZeRO-1/2/3 and FSDP1/2");
    const predict = analyzeDocument(uri, lora.replace("do_train: true", "do_predict: true"), {}, pins());
    assert.equal(predict.layoutName, "single GPU / DDP");
    assert.equal(predict.precision!.gradReduce.byLauncher, undefined);
    assert.match(predict.reportMarkdown ?? "", /launcher not found \(no `deepspeed`\/`fsdp` key here and no launch line naming this file\): assumed single GPU\/DDP\./);
  });

  it("`check --format json` adds `precision.byLauncher` for the rows that differ (the existing fields keep their shape)", async () => {
    const { fileJson } = await import("../server/src/cli/stream");
    const r = analyzeDocument(uri, BF16, {}, pins());
    const j = fileJson("recipes/sft.yaml", r) as { precision: Record<string, unknown> };
    assert.deepEqual(j.precision, {
      paramStorage: null,
      compute: "bfloat16",
      gradReduce: "bfloat16",
      byLauncher: { paramStorage: { "single GPU/DDP": "bfloat16", "DeepSpeed ZeRO-1": "float32", "DeepSpeed ZeRO-2": "float32", "DeepSpeed ZeRO-3": "float32", FSDP1: "float32", FSDP2: "float32" } },
    });
    const known = fileJson("recipes/sft.yaml", analyzeDocument(uri, BF16, {}, ddp())) as { precision: Record<string, unknown> };
    assert.deepEqual(known.precision, { paramStorage: "bfloat16", compute: "bfloat16", gradReduce: "bfloat16" });
  });
});

describe("transformers diagnostics", () => {
  it("HF1 bf16 AMP over a bf16 load on a DDP launch; silent when the launcher is not found (not true under DeepSpeed/FSDP)", () => {
    checkDiagnostics(
      `${TRL}dtype: bfloat16
       #^^^^^^^ warning[transformers/pure-16-bit]: [DDP, from the \`torchrun\` command line] Model loaded in bf16 with \`bf16\` AMP
bf16: true
`,
      { uri, env: ddp() },
    );
    checkFix(`${TRL}dtype: bfloat16\nbf16: true\n`, "transformers/pure-16-bit", "fp32", `${TRL}dtype: float32\nbf16: true\n`, { uri, env: ddp() });
    checkDiagnostics(`${TRL}dtype: bfloat16\nbf16: true\n`, { uri, env: pins() });
  });

  it("HF1 names a small learning rate: pure bf16 rounds away updates below bf16's resolution (issue #31 §3, the model TT3 shares)", () => {
    const text = "model_name_or_path: Qwen/Qwen2.5-0.5B\ndataset_name: trl-lib/Capybara\noutput_dir: out\nlearning_rate: 1.0e-6\ndtype: bfloat16\nbf16: true\n";
    // A DDP accelerate config named by a directive (a short name leaves room for the clause).
    const env = pins({ "/w/recipes/a.yaml": "distributed_type: MULTI_GPU\nnum_processes: 2\n" });
    const doc = `# precision-lens: accelerate-config=a.yaml\n${text}`;
    const [d] = analyzeDocument(uri, doc, {}, env).diagnostics.filter((x) => x.code === "transformers/pure-16-bit");
    assert.equal(d?.severity, "warning");
    assert.deepEqual([d!.range.start.line, d!.range.start.character], [5, 7]);
    // The long form would take the body past 120 characters: "pure bf16" stands for "no fp32 master weights".
    assert.equal(d!.message, "[DDP, from a.yaml] Model loaded in bf16 with `bf16` AMP: pure bf16; with lr = 0.000001, small updates round away in bf16");
    assert.ok(d!.message.length <= 120);
    assert.match(d!.detail ?? "", /With lr = 0\.000001, many updates are smaller than bf16 can represent relative to the weights/);
    // At 2e-5 the message stays as it was.
    assert.doesNotMatch(analyzeDocument(uri, doc.replace("1.0e-6", "2.0e-5"), {}, env).diagnostics.find((x) => x.code === "transformers/pure-16-bit")!.detail ?? "", /With lr = /);
  });

  it("HF1 on TRL's default bf16 rests on the TRL version too; silent with LoRA, with DeepSpeed, with an fp32 load", () => {
    // TRL pinned, DDP from the run script: every fact known.
    checkDiagnostics(
      `${TRL}dtype: bfloat16
       #^^^^^^^ warning[transformers/pure-16-bit]: [DDP, from the \`torchrun\` command line] Model loaded in bf16
`,
      { uri, env: ddp({}, "trl==0.20.0\n") },
    );
    // No TRL pin: TRL's default `bf16` is the newest read's, an assumption that leads the message.
    const [d] = analyzeDocument(uri, `${TRL}dtype: bfloat16\n`, {}, fakeEnv({ "/w/train.sh": TORCHRUN }, DOC)).diagnostics.filter((x) => x.code === "transformers/pure-16-bit");
    assert.equal(d?.severity, "information");
    assert.equal(d!.message, "Assuming TRL 1.9.0 (inferred): [DDP, from the `torchrun` command line] Model loaded in bf16 with `bf16` AMP: pure bf16, no fp32 master weights");
    assert.match(d!.detail ?? "", /^Assuming TRL 1\.9\.0, inferred: unpinned, newest read: The model is loaded in bf16/);
    assert.equal(d!.data?.facts?.assumed, "version");
    // The launcher not found as well: not true under every candidate launcher, so silent.
    assert.deepEqual(analyzeDocument(uri, `${TRL}dtype: bfloat16\n`, {}, fakeEnv({}, DOC)).diagnostics.filter((x) => x.code === "transformers/pure-16-bit"), []);
    checkDiagnostics(`${TRL}dtype: bfloat16\nbf16: true\nuse_peft: true\n`, { uri, env: ddp() });
    checkDiagnostics(`${TRL}dtype: float32\nbf16: true\n`, { uri, env: ddp() });
  });

  it("HF12 fp16 load with fp16 AMP: the GradScaler refuses fp16 gradients (error with a known DDP launcher, silent when the launcher is not found); HF1 yields", () => {
    // torch/amp/grad_scaler.py:274-275@2.13.0 (unscale_ passes allow_fp16=False); accelerate get_grad_scaler: plain GradScaler outside FSDP.
    checkDiagnostics(
      `${TRL}dtype: float16
       #^^^^^^ error[transformers/fp16-model-fp16-amp]: [DDP, from TRL's multi_gpu accelerate config] fp16 load, \`fp16\` AMP: ValueError "Attempting to unscale FP16 gradients"
fp16: true
accelerate_config: multi_gpu
`,
      { uri, env: pins({}, "trl==1.9.0\n"), ignore: ["transformers/launcher-precision-mismatch"] },
    );
    checkDiagnostics(
      `${TRL}dtype: float16
       #^^^^^^ error[transformers/fp16-model-fp16-amp]: [DDP, from the \`torchrun\` command line] fp16 load, \`fp16\` AMP: ValueError "Attempting to unscale FP16 gradients"
fp16: true
`,
      { uri, env: ddp() },
    );
    checkFix(`${TRL}dtype: float16\nfp16: true\n`, "transformers/fp16-model-fp16-amp", "fp32", `${TRL}dtype: float32\nfp16: true\n`, { uri, env: ddp() });
    // The launcher not found: the GradScaler error is not raised under DeepSpeed or FSDP, so it is no finding about the run.
    checkDiagnostics(`${TRL}dtype: float16\nfp16: true\n`, { uri, env: pins() });
    // Silent: LoRA (PEFT keeps adapters fp32), DeepSpeed, FSDP (ShardedGradScaler allows fp16), an fp32 load, LLaMA-Factory (upcasts trainable parameters).
    for (const tail of ["use_peft: true\n", "deepspeed:\n  zero_optimization:\n    stage: 2\n", "fsdp: full_shard auto_wrap\n"]) {
      const r = analyzeDocument(uri, `${TRL}dtype: float16\nfp16: true\n${tail}`, {}, pins());
      assert.deepEqual(r.diagnostics.filter((x) => x.code === "transformers/fp16-model-fp16-amp" || x.code === "transformers/pure-16-bit").map((x) => x.code), [], tail);
    }
    checkDiagnostics(`${TRL}dtype: float32\nfp16: true\n`, { uri, env: pins() });
    const lf = analyzeDocument(uri, `${LF}infer_dtype: float16\nfp16: true\n`, {}, pins());
    assert.equal(lf.diagnostics.filter((x) => x.code === "transformers/fp16-model-fp16-amp").length, 0);
  });

  it("HF2 FSDP2 at accelerate 1.13.0 with a bf16 load: the upcast is a no-op (warning); otherwise the bf16 reduction (information)", () => {
    checkDiagnostics(
      `${TRL}dtype: bfloat16
       #^^^^^^^ warning[transformers/low-precision-reduction]: accelerate 1.13.0: the FSDP2 fp32 upcast is a no-op
bf16: true
fsdp: full_shard auto_wrap
fsdp_config:
  version: 2
`,
      { uri, env: pins({}, "accelerate==1.13.0\n") },
    );
    checkDiagnostics(
      `${TRL}dtype: bfloat16
bf16: true
fsdp: full_shard auto_wrap
      #^^^^^^^^^^^^^^^^^^^ information[transformers/low-precision-reduction]: FSDP2 through accelerate reduces gradients in bf16
fsdp_config:
  version: 2
`,
      { uri, env: pins({}, "accelerate==1.14.0\n") },
    );
  });

  it("HF3 explicit DeepSpeed values that differ from TrainingArguments: errors, related to the DeepSpeed file", () => {
    const ds = `{\n  "zero_optimization": {"stage": 2},\n  "bf16": {"enabled": true},\n  "gradient_accumulation_steps": 4,\n  "train_micro_batch_size_per_gpu": "auto"\n}\n`;
    const env = pins({ "/w/recipes/ds.json": ds });
    const r = checkDiagnostics(
      `${PLAIN}deepspeed: ds.json
           #^^^^^^ error[transformers/deepspeed-value-mismatch]: ds.json sets \`bf16.enabled: true\` but \`bf16\` (TrainingArguments default \`bf16: false\`) here
`.replace("gradient_accumulation_steps: 2\n", "gradient_accumulation_steps: 2\n                           # ^ error[transformers/deepspeed-value-mismatch]: ds.json sets `gradient_accumulation_steps: 4` but `gradient_accumulation_steps: 2` here\n"),
      { uri, env },
    );
    const ga = r.diagnostics.find((d) => d.message.includes("gradient_accumulation_steps: 4"))!;
    assert.deepEqual(ga.related?.map((x) => [x.location.uri, x.location.range.start.line]), [["file:///w/recipes/ds.json", 3]]);
  });

  it("HF3 against a default: certain for `fp16`, gated to a warning for TRL's version-dependent `bf16` when TRL is not pinned; an inline mapping gets the \"auto\" fix", () => {
    const ds = `{"zero_optimization": {"stage": 2}, "fp16": {"enabled": true}}`;
    checkDiagnostics(
      `${TRL}dtype: float32
bf16: false
deepspeed: ds.json
           #^^^^^^ error[transformers/deepspeed-value-mismatch]: sets \`fp16.enabled: true\` but \`fp16\` (default false) here
`,
      { uri, env: fakeEnv({ "/w/recipes/ds.json": ds }, DOC) },
    );
    // No TRL pin: the newest TRL is assumed, whose `bf16` defaults to true; the file says false.
    checkDiagnostics(
      `${TRL}dtype: float32
deepspeed: ds.json
           #^^^^^^ warning[transformers/deepspeed-value-mismatch]: Assuming TRL 1.9.0 (inferred): ds.json sets \`bf16.enabled: false\`
`,
      { uri, env: fakeEnv({ "/w/recipes/ds.json": `{"zero_optimization": {"stage": 2}, "bf16": {"enabled": false}}` }, DOC) },
    );
    const inline = `${PLAIN}deepspeed:\n  zero_optimization:\n    stage: 2\n  gradient_clipping: 0.5\n`;
    checkFix(inline, "transformers/deepspeed-value-mismatch", '"auto"', inline.replace("gradient_clipping: 0.5", 'gradient_clipping: "auto"'), { uri, env: pins() });
  });

  it("llamafactory-rejected-args: quantization without LoRA/OFT, RM/PPO with load_best_model_at_end; LoRA and SFT are silent", () => {
    // get_train_args raises both (hparams/parser.py:188-190, 329-330@v0.9.5; oracle/cases/hf/lf0.9.5/)
    checkDiagnostics(
      `${LF}quantization_bit: 4
#^^^^^^^^^^^^^^^^^^ error[transformers/llamafactory-rejected-args]: \`quantization_bit\` with \`finetuning_type: full\`: LLaMA-Factory raises ValueError (LoRA/OFT only)
`,
      { uri, env: pins() },
    );
    const rm = LF.replace("stage: sft", "stage: rm");
    checkDiagnostics(
      `${rm}load_best_model_at_end: true
#^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[transformers/llamafactory-rejected-args]: \`load_best_model_at_end\` with \`stage: rm\`: LLaMA-Factory raises ValueError
`,
      { uri, env: pins() },
    );
    const lora = LF.replace("finetuning_type: full", "finetuning_type: lora");
    for (const ok of [`${lora}quantization_bit: 4\n`, `${LF}load_best_model_at_end: true\n`, `${rm}load_best_model_at_end: false\n`]) {
      assert.deepEqual(analyzeDocument(uri, ok, {}, pins()).diagnostics.filter((d) => d.code === "transformers/llamafactory-rejected-args"), [], ok);
    }
  });

  it("HF4 LLaMA-Factory pure_bf16 with a ZeRO-3 file: error with the fix; ZeRO-2 is silent", () => {
    const z3 = `{"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"}}`;
    checkDiagnostics(
      `${LF}pure_bf16: true
#^^^^^^^^^^^^^^ error[transformers/pure-bf16-zero3]: \`pure_bf16\` with DeepSpeed ZeRO-3 (ds_z3.json): LLaMA-Factory raises ValueError
deepspeed: ds_z3.json
`,
      { uri, env: pins({ "/w/recipes/ds_z3.json": z3 }) },
    );
    checkFix(`${LF}pure_bf16: true\ndeepspeed: ds_z3.json\n`, "transformers/pure-bf16-zero3", "Remove", `${LF}deepspeed: ds_z3.json\n`, { uri, env: pins({ "/w/recipes/ds_z3.json": z3 }) });
    checkDiagnostics(`${LF}pure_bf16: true\ndeepspeed: ds_z2.json\n`, { uri, env: pins({ "/w/recipes/ds_z2.json": `{"zero_optimization": {"stage": 2}}` }) });
  });

  it("HF5 FlashAttention with an fp32 load and no AMP: an error when the launcher is known, a warning naming it when assumed; silent under bf16 AMP", () => {
    // FSDP chosen here (`fsdp`): every fact is known, the error stands.
    checkDiagnostics(
      `${TRL}dtype: float32
bf16: false
fsdp: full_shard auto_wrap
attn_implementation: flash_attention_2
                     #^^^^^^^^^^^^^^^^ error[transformers/flash-attention-fp32]: \`flash_attention_2\` with fp32 compute
`,
      { uri, env: pins() },
    );
    // No launcher named: an accelerate config could turn bf16 on, so the gate makes it a warning led by the assumption.
    checkDiagnostics(
      `${TRL}dtype: float32
bf16: false
attn_implementation: flash_attention_2
                     #^^^^^^^^^^^^^^^^ warning[transformers/flash-attention-fp32]: Assuming the single-GPU/DDP launcher (the default): \`flash_attention_2\` with fp32 compute
`,
      { uri, env: pins() },
    );
    checkDiagnostics(`${TRL}dtype: float32\nbf16: true\nattn_implementation: flash_attention_2\n`, { uri, env: pins() });
  });

  it("HF6 unknown keys: LLaMA-Factory rejects any; TRL only near misses; a pinned transformers lacks removed keys", () => {
    checkDiagnostics(
      `${LF}bf16: true
lora_rnk: 8
#^^^^^^^ warning[transformers/unknown-key]: Unknown key \`lora_rnk\` (did you mean \`lora_rank\`?): LLaMA-Factory rejects it
my_flag: 1
#^^^^^^ warning[transformers/unknown-key]: Unknown key \`my_flag\`: LLaMA-Factory rejects it unless ALLOW_EXTRA_ARGS
`,
      { uri, env: pins() },
    );
    checkDiagnostics(
      `${TRL}bf16: true
dtype: float32
lerning_rate: 1.0e-5
#^^^^^^^^^^^ warning[transformers/unknown-key]: Unknown key \`lerning_rate\`: did you mean \`learning_rate\`?
dataset_mixer: {a: 1.0}
`,
      { uri, env: pins() },
    );
    checkFix(`${TRL}bf16: true\ndtype: float32\nlerning_rate: 1.0e-5\n`, "transformers/unknown-key", "Rename", `${TRL}bf16: true\ndtype: float32\nlearning_rate: 1.0e-5\n`, { uri, env: pins() });
    checkDiagnostics(
      `${PLAIN}overwrite_output_dir: true
#^^^^^^^^^^^^^^^^^^^ warning[transformers/unknown-key]: \`overwrite_output_dir\` is not a TrainingArguments key at transformers 5.24.0
`,
      { uri, env: pins({}, "transformers==5.24.0\n") },
    );
    checkDiagnostics(`${PLAIN}overwrite_output_dir: true\n`, { uri, env: pins({}, "transformers==4.57.1\n") });
  });

  it("HF6 on a TRL file names what TrlParser does at the TRL version: dropped before 0.19.0, ValueError from it, both when unpinned (held-back open-r1 forks' `dataset_configs`)", () => {
    const text = `${TRL}bf16: true\ndtype: float32\ndataset_configs:\n- default\n`;
    const at = (req: string) => analyzeDocument(uri, text, {}, pins({}, req)).diagnostics.filter((d) => d.code === "transformers/unknown-key");
    const unpinned = at("");
    assert.deepEqual(unpinned.map((d) => [d.severity, d.range.start.line, d.range.start.character, d.range.end.character]), [["warning", 7, 0, 15]]);
    assert.equal(unpinned[0]!.message, "Unknown key `dataset_configs`: did you mean `dataset_config`? (ignored before TRL 0.19.0, ValueError from it)");
    // A list under the string field `dataset_config` would not parse as the user meant: no rename offered.
    assert.deepEqual(unpinned[0]!.data?.fixes ?? [], []);
    assert.match(at("trl==0.16.0\n")[0]!.message, /did you mean `dataset_config`\? \(silently ignored at TRL 0\.16\.0\)$/);
    assert.match(at("trl==0.19.0\n")[0]!.message, /did you mean `dataset_config`\? \(ValueError at TRL 0\.19\.0\)$/);
    assert.match(at("trl==0.19.0\n")[0]!.detail ?? "", /raises ValueError "Unknown arguments from config file" at TRL 0\.19\.0/);
  });

  it("HF6 reads every transformers release: eval_strategy at 4.43.1 is known (4.41.0 added it), evaluation_strategy at 5.0.0 is not", () => {
    // trainingArgs.json: eval_strategy from 4.41.0; evaluation_strategy up to 4.50.3.
    checkDiagnostics(`${PLAIN}eval_strategy: steps\neval_steps: 10\n`, { uri, env: pins({}, "transformers==4.43.1\n") });
    checkDiagnostics(
      `${PLAIN}eval_strategy: steps
#^^^^^^^^^^^^ warning[transformers/unknown-key]: \`eval_strategy\` is not a TrainingArguments key at transformers 4.40.2
`,
      { uri, env: pins({}, "transformers==4.40.2\n") },
    );
    checkDiagnostics(
      `${PLAIN}evaluation_strategy: steps
#^^^^^^^^^^^^^^^^^^ warning[transformers/unknown-key]: \`evaluation_strategy\` is not a TrainingArguments key at transformers 5.0.0
`,
      { uri, env: pins({}, "transformers==5.0.0\n") },
    );
    const r = analyzeDocument(uri, `${PLAIN}evaluation_strategy: steps\n`, {}, pins({}, "transformers==5.0.0\n"));
    assert.match(r.diagnostics[0]!.detail ?? "", /declares `evaluation_strategy` at 4\.36\.0–4\.50\.3/);
  });

  it("HF9 an FSDP1-only strategy under the FSDP2 default (transformers 5.10.1 on): error with a pin, nothing at 5.9.0 or with version 1", () => {
    const text = `${PLAIN}bf16: true\nfsdp: hybrid_shard auto_wrap\n`;
    checkDiagnostics(
      `${PLAIN}bf16: true
fsdp: hybrid_shard auto_wrap
#     ^^^^^^^^^^^^^^^^^^^^^^ error[transformers/fsdp1-strategy-with-fsdp2]: \`fsdp: hybrid_shard\` with FSDP2 (the default from transformers 5.10.1)
`,
      { uri, env: pins({}, "transformers==5.10.1\n"), ignore: ["transformers/low-precision-reduction"] },
    );
    checkDiagnostics(text, { uri, env: pins({}, "transformers==5.9.0\n"), ignore: ["transformers/low-precision-reduction"] });
    checkDiagnostics(`${text}fsdp_config:\n  version: 1\n`, { uri, env: pins({}, "transformers==5.24.0\n"), ignore: ["transformers/low-precision-reduction"] });
    const unpinned = analyzeDocument(uri, text, {}, pins()).diagnostics.filter((d) => d.code === "transformers/fsdp1-strategy-with-fsdp2");
    assert.deepEqual(unpinned.map((d) => d.severity), ["warning"]);
    assert.equal(analyzeDocument(uri, text, {}, pins({}, "transformers==5.10.1\n")).layoutName, "FSDP2 (accelerate)");
  });

  it("TRL `accelerate_config: zero3` is the TRL CLI's launcher key: known (no HF6), DeepSpeed ZeRO-3 with fp32 master weights, named in the hover", () => {
    // trl/cli/accelerate_config.py@v1.9.0: `--accelerate_config NAME` → `--config_file trl/accelerate_configs/NAME.yaml`.
    const r = checkDiagnostics(`${TRL}bf16: true\naccelerate_config: zero3\n`, { uri, env: pins({}, "trl==1.9.0\ntransformers==4.57.1\n") });
    assert.equal(r.layoutName, "DeepSpeed ZeRO-3");
    assert.deepEqual(prec(r), ["float32", "bfloat16", "bfloat16"]);
    assert.equal(r.worldSize?.value, 8);
    assert.match(r.reportMarkdown ?? "", /Mechanism: \*\*bf16 model cast \(no autocast\), fp32 master weights\*\*/);
    assert.doesNotMatch(r.reportMarkdown ?? "", /Mechanism: \*\*none/);
    const fsdp = analyzeDocument(uri, `${TRL}bf16: true\naccelerate_config: fsdp2\n`, {}, pins({}, "trl==1.9.0\n"));
    assert.equal(fsdp.layoutName, "FSDP2 (accelerate)");
    // A name TRL does not ship and no such file: unknown, the launcher stays assumed.
    const none = analyzeDocument(uri, `${TRL}bf16: true\naccelerate_config: zero9\n`, {}, pins({}, "trl==1.9.0\n"));
    assert.notEqual(none.layoutName, "DeepSpeed ZeRO-3");
  });

  it("HF6 knows the project's own argument dataclasses: HfArgumentParser((ModelArguments, TrainingArguments)) in a workspace script", () => {
    const py = "from dataclasses import dataclass, field\n\n@dataclass\nclass ModelArguments:\n    lora_rank: int = 8\n    model_name_or_path: str = None\n";
    const script = "from transformers import HfArgumentParser, TrainingArguments\nfrom args import ModelArguments\nparser = HfArgumentParser((ModelArguments, TrainingArguments))\n";
    const text = `${PLAIN}lora_rank: 16\n`;
    checkDiagnostics(text, { uri, env: pins({ "/w/args.py": py, "/w/train.py": script }) });
    // Without the script, `lora_rank` is a near miss of `local_rank`.
    const r = analyzeDocument(uri, text, {}, pins());
    assert.match(r.diagnostics.find((d) => d.code === "transformers/unknown-key")?.message ?? "", /did you mean `local_rank`/);
  });

  it("HF11 TRL's model dtype: `torch_dtype` rejected at a pinned TRL 1.x (load falls back to ModelConfig's fp32); model_init_kwargs ignored by the TRL CLI", () => {
    // trl/trainer/model_config.py:89@v1.9.0 (`dtype`), `torch_dtype` up to v0.25.0; trl/scripts/sft.py:74-79@v1.9.0.
    const r = analyzeDocument(uri, `${TRL}bf16: true\ntorch_dtype: bfloat16\n`, {}, pins({}, "trl==1.9.0\n"));
    const hf11 = r.diagnostics.filter((d) => d.code === "transformers/trl-model-dtype");
    assert.deepEqual(hf11.map((d) => [d.severity, d.range.start.line]), [["error", 6]]);
    assert.match(hf11[0]!.message, /`torch_dtype` is not a TRL 1\.9\.0 argument/);
    assert.equal(r.precision?.paramStorage.dtype, "float32");
    checkDiagnostics(`${TRL}bf16: true\ntorch_dtype: bfloat16\n`, { uri, env: pins({}, "trl==0.25.0\n"), ignore: ["transformers/pure-16-bit"] });
    const cli = analyzeDocument(uri, `${TRL}bf16: true\naccelerate_config: zero3\nmodel_init_kwargs:\n  dtype: bfloat16\n`, {}, pins({}, "trl==1.9.0\n"));
    const w = cli.diagnostics.filter((d) => d.code === "transformers/trl-model-dtype");
    assert.deepEqual(w.map((d) => d.severity), ["warning"]);
    assert.match(w[0]!.message, /`model_init_kwargs.dtype` is ignored by the TRL CLI: the model loads in float32/);
  });

  it("QLoRA under TRL ≥ 1.0.0: the quantized model's trainable adapters are cast to bf16 (sft_trainer.py:1127-1130@v1.9.0); fp32 at 0.25.0", () => {
    const text = `${TRL}bf16: true\nuse_peft: true\nload_in_4bit: true\n`;
    assert.equal(analyzeDocument(uri, text, {}, ddp({}, "trl==1.9.0\n")).precision?.paramStorage.dtype, "bfloat16");
    assert.equal(analyzeDocument(uri, text, {}, ddp({}, "trl==0.25.0\n")).precision?.paramStorage.dtype, "float32");
  });

  it("HF8 bf16 and fp16 both true: error, with the fix removing fp16", () => {
    checkDiagnostics(
      `${PLAIN}bf16: true
fp16: true
#^^^^^^^^^ error[transformers/bf16-and-fp16]: \`bf16\` and \`fp16\` are both true
`,
      { uri, env: pins() },
    );
    checkFix(`${PLAIN}bf16: true\nfp16: true\n`, "transformers/bf16-and-fp16", "Remove", `${PLAIN}bf16: true\n`, { uri, env: pins() });
  });
});

describe("transformers: DS9 from the DeepSpeed JSON side (the reverse link)", () => {
  // A TRL config in recipes/sft/ naming ../ds/z2.json: the JSON's folder's parent's subfolder (common/deepspeedLinks.ts referrersOf).
  const yamlPath = "/w/recipes/sft/config.yaml";
  const jsonPath = "/w/recipes/ds/z2.json";
  const yaml = (prec: string) => `${TRL}dtype: float32\n${prec}deepspeed: ../ds/z2.json\n`;
  const json = (bf16: string) => `{\n  "zero_optimization": {"stage": 2},\n  "bf16": {"enabled": ${bf16}}\n}\n`;
  const env = (y: string, j: string, doc: string) => fakeEnv({ [yamlPath]: y, [jsonPath]: j, "/w/requirements.txt": "trl==1.9.0\n" }, doc);

  it("`bf16.enabled: false` in the JSON against `bf16: true` in the YAML: DS9 on the JSON, related to the YAML's `bf16`; HF3 on the YAML", () => {
    const j = json("false");
    const y = yaml("bf16: true\n");
    const r = analyzeDocument(`file://${jsonPath}`, j, {}, env(y, j, jsonPath));
    const ds9 = r.diagnostics.filter((d) => d.code === "deepspeed/precision-mismatch");
    assert.equal(ds9.length, 1);
    assert.equal(ds9[0]!.severity, "warning");
    assert.deepEqual(ds9[0]!.range.start, { line: 2, character: 11 });
    assert.equal(ds9[0]!.message, "`bf16.enabled: false` here, but ../sft/config.yaml sets `bf16: true`: the Trainer raises ValueError");
    assert.match(ds9[0]!.detail ?? "", /\(transformers\), which uses this file.*mismatch TrainingArguments values/);
    // relatedInformation: the YAML's `bf16` key (line 6 of the YAML: 5 TRL lines, then torch_dtype).
    assert.deepEqual(ds9[0]!.related?.map((x) => [x.location.uri, x.location.range.start.line, x.message]), [[`file://${yamlPath}`, 6, "../sft/config.yaml sets `bf16: true`"]]);
    // The JSON's "used by" names the YAML; the YAML side's HF3 points back at the JSON.
    assert.match(r.reportMarkdown ?? "", /Used by: \.\.\/sft\/config\.yaml \(transformers\)/);
    const ry = analyzeDocument(`file://${yamlPath}`, y, {}, env(y, j, yamlPath));
    const hf3 = ry.diagnostics.find((d) => d.code === "transformers/deepspeed-value-mismatch");
    assert.equal(hf3?.severity, "error");
    assert.deepEqual(hf3?.related?.map((x) => [x.location.uri, x.location.range.start.line]), [[`file://${jsonPath}`, 2]]);
  });

  it("the JSON side stays silent on \"auto\", on agreement, and on TRL's version-dependent default `bf16`; fill of \"auto\" comes from the YAML", () => {
    for (const [y, j] of [[yaml("bf16: true\n"), json('"auto"')], [yaml("bf16: true\n"), json("true")], [yaml(""), json("false")]] as const) {
      const r = analyzeDocument(`file://${jsonPath}`, j, {}, env(y, j, jsonPath));
      assert.deepEqual(r.diagnostics.filter((d) => d.code === "deepspeed/precision-mismatch"), [], `${y}\n${j}`);
    }
    // A plain TrainingArguments file without `bf16`: the default false means fp32, so an enabled bf16 block conflicts.
    const plain = `${PLAIN}deepspeed: ../ds/z2.json\n`;
    const r = analyzeDocument(`file://${jsonPath}`, json("true"), {}, env(plain, json("true"), jsonPath));
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "deepspeed/precision-mismatch").map((d) => d.message), ["`bf16.enabled: true` here, but ../sft/config.yaml sets no `bf16` (default false): the Trainer raises ValueError"]);
    const auto = analyzeDocument(`file://${jsonPath}`, json('"auto"'), {}, env(yaml("bf16: true\n"), json('"auto"'), jsonPath));
    assert.equal(auto.precision?.compute.dtype, "bfloat16");
  });
});

describe("transformers: the engine's memory estimate where the model is known", () => {
  const LLAMA = "model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\ndo_train: true\nfinetuning_type: full\ndataset: identity\ntemplate: llama3\noutput_dir: saves/x\nper_device_train_batch_size: 1\nbf16: true\n";
  const memLine = (r: ReturnType<typeof analyzeDocument>) => (r.reportMarkdown ?? "").split("\n").find((l) => l.includes("Memory estimate")) ?? "";
  const layout = (o: Partial<Record<"dp_replicate" | "dp_shard", number>>) => ({ dp_replicate: 1, dp_shard: 1, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1, ...o });

  it("model names map to the engine's Llama-3 flavors by their last component, case-insensitive; other families and sizes do not", () => {
    assert.equal(engineModelOf("meta-llama/Meta-Llama-3-8B-Instruct"), "8B");
    assert.equal(engineModelOf("unsloth/Llama-3.3-70B-Instruct"), "70B");
    assert.equal(engineModelOf("meta-llama/llama-3.1-405b"), "405B");
    for (const n of ["meta-llama/Llama-3.2-1B", "Qwen/Qwen2.5-7B", "mistralai/Mistral-7B-v0.1", "meta-llama/Meta-Llama-3-8B-Instruct-FP8", undefined]) assert.equal(engineModelOf(n), undefined, String(n));
  });

  it("LLaMA-Factory full fine-tune of Llama-3 8B under DDP on 8 GPUs: the engine's reserved peak, with the batch and cutoff_len of the file", () => {
    const r = analyzeDocument(uri, `${LLAMA}cutoff_len: 2048\n`, { worldSize: 8 }, ddp());
    // LLaMA-Factory upcasts the trainable parameters to fp32; bf16 autocast; DDP reduces in the gradient (fp32) dtype.
    const sim = simulate({ mechanism: "autocast", layout: layout({ dp_replicate: 8 }), ddp: true, paramDtype: "bfloat16", reduceDtype: "float32", trainingDtype: "float32", model: { name: "llama3", flavor: "8B" }, localBatchSize: 1, seqLen: 2048, activationCheckpoint: "none", gradientDivideFactorOne: false })!;
    const line = memLine(r);
    assert.ok(line.startsWith("Memory estimate (the engine's Llama-3 8B from `model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct`): "), line);
    assert.ok(line.includes(`≈ ${formatBytes(sim.memory.perGpuBytes!.reserved)} per GPU reserved (${formatBytes(sim.memory.perGpuBytes!.peak)} allocated) at batch 1 × 2048 tokens, gradient checkpointing off`), line);
    assert.ok(line.includes(`optimizer states ${formatBytes(sim.memory.terms.find((t) => t.name === "optimizer_states")!.bytes)}`), line);
    // gradient_checkpointing lowers the activations (full recompute).
    const ac = memLine(analyzeDocument(uri, `${LLAMA}cutoff_len: 2048\ngradient_checkpointing: true\n`, { worldSize: 8 }, ddp()));
    assert.ok(ac.includes("gradient checkpointing on"), ac);
    assert.notEqual(ac.match(/activations [\d.]+ \w+/)?.[0], line.match(/activations [\d.]+ \w+/)?.[0]);
  });

  it("FSDP from the file on a known world size shards the state; no sequence length gives the persistent state only", () => {
    const r = analyzeDocument(uri, `${PLAIN}model_name_or_path: meta-llama/Llama-3.1-8B\ntorch_dtype: float32\nbf16: true\nfsdp: full_shard auto_wrap\nfsdp_config:\n  version: 2\n`, { worldSize: 4 }, pins());
    const sim = simulate({ mechanism: "fully_shard", layout: layout({ dp_shard: 4 }), ddp: false, paramDtype: "bfloat16", reduceDtype: "bfloat16", trainingDtype: "float32", model: { name: "llama3", flavor: "8B" }, localBatchSize: 4, activationCheckpoint: "none", gradientDivideFactorOne: false })!;
    const line = memLine(r);
    assert.ok(line.includes(`≈ ${formatBytes(sim.memory.perGpuBytes!.persistent)} per GPU of parameters, gradients and optimizer states`), line);
    assert.match(line, /activations not included: no sequence length in this file\.$/);
  });

  it("says unknown, with no figure, for another model, LoRA, DeepSpeed, FSDP on an unknown world size, an optimizer other than AdamW", () => {
    const cases: [string, Parameters<typeof analyzeDocument>[2], RegExp][] = [
      [`${TRL}dtype: bfloat16\nbf16: true\n`, {}, /^Memory estimate: unknown: `Qwen\/Qwen2\.5-0\.5B` is not a model the engine knows/],
      [LLAMA.replace("finetuning_type: full", "finetuning_type: lora"), { worldSize: 8 }, /^Memory estimate: unknown: lora adapters: only part of the model trains/],
      [`${LLAMA}deepspeed: ds_z3.json\n`, { worldSize: 8 }, /^Memory estimate: unknown: DeepSpeed ZeRO partitions are not modelled/],
      [`${PLAIN}model_name_or_path: meta-llama/Llama-3.1-8B\ntorch_dtype: float32\nbf16: true\nfsdp: full_shard\n`, {}, /^Memory estimate: unknown: FSDP on an unknown world size/],
      [`${LLAMA}use_galore: true\n`, { worldSize: 8 }, /^Memory estimate: unknown: `use_galore` replaces the optimizer/],
      [`${PLAIN}model_name_or_path: meta-llama/Llama-3.1-8B\ntorch_dtype: float32\nbf16: true\noptim: adamw_bnb_8bit\n`, {}, /^Memory estimate: unknown: `optim: adamw_bnb_8bit` is not modelled/],
    ];
    for (const [text, settings, re] of cases) {
      const line = memLine(analyzeDocument(uri, text, settings, pins({ "/w/recipes/ds_z3.json": '{"zero_optimization": {"stage": 3}}' })));
      assert.match(line, re);
      assert.doesNotMatch(line, /[\d.]+ (GiB|MiB)/);
    }
  });
});

/** The three-file case: a TRL config, the accelerate config a run script launches it with, and that config's DeepSpeed JSON with "auto". */
const THREE = {
  script: "/w/scripts/train.sh",
  accel: "/w/recipes/accelerate_configs/zero3.yaml",
  ds: "/w/recipes/ds/zero3.json",
  config: "/w/recipes/sft/config.yaml",
};
const SCRIPT = "#!/bin/bash\nACCELERATE_LOG_LEVEL=info accelerate launch \\\n  --config_file recipes/accelerate_configs/zero3.yaml \\\n  scripts/sft.py --config recipes/sft/config.yaml\n";
const ACCEL_DS = "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: recipes/ds/zero3.json\n  zero3_init_flag: true\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 8\n";
const DS_AUTO = `{\n  "zero_optimization": {"stage": 3},\n  "bf16": {"enabled": "auto"},\n  "gradient_accumulation_steps": "auto",\n  "train_micro_batch_size_per_gpu": "auto"\n}\n`;
const threeEnv = (over: Partial<Record<keyof typeof THREE, string>> = {}) =>
  fakeEnv({ [THREE.script]: over.script ?? SCRIPT, [THREE.accel]: over.accel ?? ACCEL_DS, [THREE.ds]: over.ds ?? DS_AUTO }, THREE.config);
const cfgUri = `file://${THREE.config}`;

describe("transformers: the accelerate launcher from a run script or a directive", () => {
  it("TRL YAML + accelerate YAML + DeepSpeed JSON with \"auto\": ZeRO-3 on 8 GPUs, fp32 master weights, bf16 compute and reduction", () => {
    const r = analyzeDocument(cfgUri, `${TRL}dtype: bfloat16\nbf16: true\ngradient_accumulation_steps: 4\n`, {}, threeEnv());
    assert.equal(r.layoutName, "DeepSpeed ZeRO-3");
    assert.equal(r.worldSize?.value, 8);
    assert.match(r.worldSize!.detail, /num_processes: 8.*train\.sh line 2/);
    assert.deepEqual(prec(r), ["float32", "bfloat16", "bfloat16"]);
    assert.match(r.reportMarkdown ?? "", /Launched with the accelerate config recipes\/accelerate_configs\/zero3\.yaml \(.*train\.sh line 2\): `distributed_type: DEEPSPEED`/);
    assert.match(r.reportMarkdown ?? "", /Precision from the DeepSpeed file recipes\/ds\/zero3\.json/);
    // Each row names what set it: the "auto" compute dtype comes from `bf16: true` here (the Trainer fills it).
    assert.match(r.hovers[0]?.markdown ?? "", /\| compute \(matmuls\) \| `bfloat16` \| module cast by `"auto"` filled with bf16 from `bf16: true` in this file \|/);
    assert.match(r.hovers[0]?.markdown ?? "", /\| parameter storage \| `float32` \| ZeRO-3 master weights \|/);
    assert.deepEqual(r.diagnostics.filter((d) => d.severity !== "hint"), []);
  });

  it("HF3 through the launcher: an explicit DeepSpeed value against this file, related to the JSON", () => {
    const r = checkDiagnostics(
      `${TRL}dtype: bfloat16
bf16: true
gradient_accumulation_steps: 4
                           # ^ error[transformers/deepspeed-value-mismatch]: recipes/ds/zero3.json sets \`gradient_accumulation_steps: 2\` but \`gradient_accumulation_steps: 4\` here
`,
      { uri: cfgUri, env: threeEnv({ ds: DS_AUTO.replace('"gradient_accumulation_steps": "auto"', '"gradient_accumulation_steps": 2') }) },
    );
    assert.deepEqual(r.diagnostics[0]!.related?.map((x) => [x.location.uri, x.location.range.start.line]), [[`file://${THREE.ds}`, 3]]);
  });

  it("HF7 the launcher's mixed_precision: bf16 under DeepSpeed with `bf16: false` here: the Trainer raises (error, related to the launcher)", () => {
    const r = checkDiagnostics(
      `${TRL}dtype: float32
bf16: false
      #^^^^ error[transformers/launcher-precision-mismatch]: recipes/accelerate_configs/zero3.yaml sets \`mixed_precision: bf16\` (DeepSpeed), but \`bf16\` is false here
`,
      { uri: cfgUri, env: threeEnv() },
    );
    assert.deepEqual(r.diagnostics[0]!.related?.map((x) => [x.location.uri, x.location.range.start.line]), [[`file://${THREE.accel}`, 5]]);
  });

  it("HF7 without DeepSpeed: `fp16: true` here silently replaces the launcher's bf16 (warning); HF1 is a warning once the launcher is known to be DDP", () => {
    const ddp = "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 4\n";
    checkDiagnostics(
      `${TRL}dtype: float32
bf16: false
fp16: true
      #^^^ warning[transformers/launcher-precision-mismatch]: sets \`mixed_precision: bf16\`, but \`fp16\` here wins: the run is fp16 AMP
`,
      { uri: cfgUri, env: threeEnv({ accel: ddp }) },
    );
    checkDiagnostics(
      `${TRL}dtype: bfloat16
       #^^^^^^^ warning[transformers/pure-16-bit]: [DDP, from recipes/accelerate_configs/zero3.yaml] Model loaded in bf16
bf16: true
`,
      { uri: cfgUri, env: threeEnv({ accel: ddp }) },
    );
  });

  it("a `# precision-lens: accelerate-config=` directive names the launcher; a script that does not name this file is not read as its launcher", () => {
    const env = fakeEnv({ "/w/recipes/accelerate_configs/zero3.yaml": ACCEL_DS, [THREE.ds]: DS_AUTO }, THREE.config);
    const r = analyzeDocument(cfgUri, `# precision-lens: accelerate-config=../accelerate_configs/zero3.yaml\n${TRL}dtype: bfloat16\nbf16: true\n`, {}, env);
    assert.equal(r.layoutName, "DeepSpeed ZeRO-3");
    assert.match(r.reportMarkdown ?? "", /`# precision-lens: accelerate-config=\.\.\/accelerate_configs\/zero3\.yaml` \(line 1\)/);
    const other = analyzeDocument(cfgUri, `${TRL}dtype: bfloat16\nbf16: true\n`, {}, threeEnv({ script: SCRIPT.replace("recipes/sft/config.yaml", "recipes/dpo/config.yaml") }));
    assert.equal(other.layoutName, "launcher not found (single GPU/DDP, DeepSpeed or FSDP)");
  });
});

describe("transformers: the three-file case through the CLI", () => {
  it("`check --format json` on the TRL config resolves the run script's accelerate config and its DeepSpeed JSON", async () => {
    // The CLI's file access (host/nodeEnv.ts) over a real folder, exit code 1 on the HF3 error.
    const { mkdtempSync, mkdirSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { runCliCaptured } = await import("./support/cli");
    const root = mkdtempSync(join(tmpdir(), "pl-i23-"));
    for (const d of ["scripts", "recipes/accelerate_configs", "recipes/ds", "recipes/sft"]) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, "scripts/train.sh"), SCRIPT);
    writeFileSync(join(root, "recipes/accelerate_configs/zero3.yaml"), ACCEL_DS);
    writeFileSync(join(root, "recipes/ds/zero3.json"), DS_AUTO.replace('"gradient_accumulation_steps": "auto"', '"gradient_accumulation_steps": 2'));
    writeFileSync(join(root, "recipes/sft/config.yaml"), `${TRL}dtype: bfloat16\nbf16: true\ngradient_accumulation_steps: 4\n`);
    const r = runCliCaptured(["check", "--format", "json", join(root, "recipes/sft/config.yaml")], root);
    const f = JSON.parse(r.out).files[0];
    assert.equal(f.framework, "transformers");
    // ZeRO-3 shards over the launcher's 8 processes.
    assert.deepEqual([f.worldSize.value, f.worldSize.source, f.parallel.dp_shard], [8, "launcher", 8]);
    assert.deepEqual([f.precision.paramStorage, f.precision.compute, f.precision.gradReduce], ["float32", "bfloat16", "bfloat16"]);
    const hf3 = f.diagnostics.filter((d: { code: string }) => d.code === "transformers/deepspeed-value-mismatch");
    assert.equal(hf3.length, 1);
    assert.equal(hf3[0].severity, "error");
    assert.match(hf3[0].message, /recipes\/ds\/zero3\.json sets `gradient_accumulation_steps: 2`/);
    assert.equal(r.code, 1);
  });
});

describe("transformers: the launch chain, link by link (issue #31)", () => {
  it("launch line: continuations joined, comments dropped, `${VAR:-x}`/`$VAR` expanded, each command of a line read", () => {
    const text = "#!/bin/bash\nNPROC=${NPROC:-4}\nexport ACC=configs/zero3.yaml\nCFG=recipes/sft.yaml # the recipe\ncd /x && accelerate launch --config_file $ACC \\\n  --num_processes ${NPROC} --mixed_precision bf16 \\\n  train.py --config ${CFG}\n";
    const cmd = findLaunchCommand(text, "sft", (t) => t === "recipes/sft.yaml");
    assert.deepEqual(cmd, { kind: "accelerate", line: 4, configFile: "configs/zero3.yaml", mixedPrecision: "bf16", numProcesses: 4, script: "train.py" });
    assert.equal(expand("${A:-x} ${B} $C ${D:=y}", new Map([["B", "b"]])), "x b $C y");
    assert.deepEqual(logicalLines("a \\\n b # c\n$ torchrun x\n"), [{ line: 0, text: "a   b" }, { line: 2, text: "torchrun x" }]);
  });

  it("launch line: a heredoc body is data, not commands (held-back: a script opening with `<<skip python … skip` before its ZeRO-1 accelerate launch)", () => {
    const text = "#!/bin/bash\n<<ref_logp\npython scripts/pre.py \\\n  --config recipes/sft.yaml\nref_logp\n\nfor a in sum mean; do\n  accelerate launch --config_file configs/zero1.yaml \\\n    scripts/run.py --config recipes/sft.yaml\ndone\n";
    assert.deepEqual(findLaunchCommand(text, "sft", (t) => t === "recipes/sft.yaml"), { kind: "accelerate", line: 7, configFile: "configs/zero1.yaml", script: "scripts/run.py" });
    // The command that opens a heredoc is still read; a `<<` with no delimiter line later hides nothing.
    assert.deepEqual(logicalLines("cat > a.txt <<'EOF'\ntorchrun x\nEOF\ntorchrun y\n"), [{ line: 0, text: "cat > a.txt" }, { line: 3, text: "torchrun y" }]);
    assert.deepEqual(logicalLines("echo a <<b\ntorchrun x\n"), [{ line: 0, text: "echo a <<b" }, { line: 1, text: "torchrun x" }]);
  });

  it("launchers: torchrun, python -m torch.distributed.run, deepspeed --deepspeed, trl --accelerate_config, llamafactory-cli with FORCE_TORCHRUN, python", () => {
    const env = new Map<string, string>([["FORCE_TORCHRUN", "1"], ["NPROC_PER_NODE", "8"]]);
    const w = (s: string) => s.split(" ");
    assert.deepEqual(parseCommand(w("torchrun --nproc_per_node=4 --nnodes 2 train.py a.yaml"), new Map()), { kind: "torchrun", numProcesses: 8, script: "train.py" });
    assert.deepEqual(parseCommand(w("python -m torch.distributed.run --nproc-per-node 2 train.py a.json"), new Map()), { kind: "torchrun", numProcesses: 2, script: "train.py" });
    assert.deepEqual(parseCommand(w("deepspeed --num_gpus 8 train.py --deepspeed ds_z3.json a.json"), new Map()), { kind: "deepspeed", numProcesses: 8, deepspeedFile: "ds_z3.json", script: "train.py" });
    assert.deepEqual(parseCommand(w("trl sft --config a.yaml --accelerate_config zero3"), new Map()), { kind: "trl", configFile: "zero3" });
    assert.deepEqual(parseCommand(w("llamafactory-cli train a.yaml"), env), { kind: "llamafactory-cli", forceTorchrun: true, numProcesses: 8 });
    assert.deepEqual(parseCommand(w("python3 train.py a.json"), new Map()), { kind: "python", numProcesses: 1, script: "train.py" });
    assert.equal(parseCommand(w("echo a.yaml"), new Map()), undefined);
  });

  const ACC_DS = "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 3\n  gradient_accumulation_steps: 32\n";
  const CFG = "/w/recipes/sft.yaml";

  it("a run script in any folder (bash_scrips/), with variables: the accelerate config's deepspeed_config gas 32 vs 8 here is HF3's ValueError", () => {
    const env = fakeEnv({ [CFG]: "", "/w/bash_scrips/go.sh": "ACC=configs/ds.yaml\nRECIPE=${RECIPE:-recipes/sft.yaml}\naccelerate launch --config_file $ACC train.py --config $RECIPE\n", "/w/configs/ds.yaml": ACC_DS, "/w/requirements.txt": "trl==1.9.0\ntransformers==4.57.1\n" }, CFG, ["/w"]);
    const r = analyzeDocument(`file://${CFG}`, `${TRL}bf16: true\ngradient_accumulation_steps: 8\n`, {}, env);
    assert.equal(r.layoutName, "DeepSpeed ZeRO-3");
    assert.equal(r.worldSize?.value, 8);
    const hf3 = r.diagnostics.filter((d) => d.code === "transformers/deepspeed-value-mismatch");
    assert.equal(hf3.length, 1);
    assert.equal(hf3[0]!.severity, "error");
    assert.match(hf3[0]!.message, /sets `gradient_accumulation_steps: 32` but `gradient_accumulation_steps: 8`/);
    assert.deepEqual(hf3[0]!.related?.map((x) => [x.location.uri, x.location.range.start.line]), [["file:///w/configs/ds.yaml", 6]]);
  });

  it("the accelerate config's deepspeed_config with gradient_clipping is carried over, not a crash (held-back: internal-error)", () => {
    const acc = `${ACC_DS}  gradient_clipping: 1.0\n`;
    const env = fakeEnv({ [CFG]: "", "/w/go.sh": "accelerate launch --config_file configs/ds.yaml train.py --config recipes/sft.yaml\n", "/w/configs/ds.yaml": acc }, CFG, ["/w"]);
    const r = analyzeDocument(`file://${CFG}`, `${TRL}bf16: true\ngradient_accumulation_steps: 32\nmax_grad_norm: 1.0\n`, {}, env);
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "internal-error"), []);
    assert.equal(r.layoutName, "DeepSpeed ZeRO-3");
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "transformers/deepspeed-value-mismatch"), []);
  });

  it("command-line flags win over the config: --mixed_precision and --num_processes; an absolute path from another machine matches by its tail", () => {
    const acc = "distributed_type: MULTI_GPU\nmixed_precision: 'no'\nnum_processes: 2\n";
    const env = fakeEnv({ [CFG]: "", "/w/README.md": "Train:\n\n```bash\naccelerate launch --config_file /home/me/proj/configs/ddp.yaml --mixed_precision bf16 --num_processes 4 train.py /home/me/proj/recipes/sft.yaml\n```\n", "/w/configs/ddp.yaml": acc }, CFG, ["/w"]);
    const r = analyzeDocument(`file://${CFG}`, `${PLAIN}torch_dtype: float32\n`, {}, env);
    assert.equal(r.layoutName, "DDP");
    assert.equal(r.worldSize?.value, 4);
    assert.match(r.worldSize!.detail, /`--num_processes` on README\.md line 4/);
    assert.deepEqual(prec(r), ["float32", "bfloat16", "float32"]);
    assert.match(r.reportMarkdown ?? "", /`--mixed_precision bf16` on the command line overrides the config's `mixed_precision: no`/);
  });

  it("torchrun from a script: DDP known, world size from --nproc_per_node; HF1 rests on a known launcher (warning)", () => {
    const env = fakeEnv({ [CFG]: "", "/w/scripts/run": "torchrun --nproc_per_node 4 train.py recipes/sft.yaml\n" }, CFG, ["/w"]);
    const r = analyzeDocument(`file://${CFG}`, `${PLAIN}torch_dtype: bfloat16\nbf16: true\n`, {}, env);
    assert.equal(r.worldSize?.value, 4);
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "transformers/pure-16-bit").map((d) => d.severity), ["warning"]);
    assert.doesNotMatch(r.reportMarkdown ?? "", /launcher not found/);
  });

  it("deepspeed launcher with `--deepspeed ds.json`: DeepSpeed from the command line, bf16 block inserted", () => {
    const env = fakeEnv({ [CFG]: "", "/w/train.sh": "deepspeed --num_gpus 8 train.py --deepspeed ds/z2.json recipes/sft.yaml\n", "/w/ds/z2.json": JSON.stringify({ zero_optimization: { stage: 2 } }) }, CFG, ["/w"]);
    const r = analyzeDocument(`file://${CFG}`, `${PLAIN}bf16: true\n`, {}, env);
    assert.equal(r.layoutName, "DeepSpeed ZeRO-2");
    assert.deepEqual(prec(r), ["float32", "bfloat16", "bfloat16"]);
  });

  it("HF10 a named-but-broken link: a missing accelerate config, a DeepSpeed JSON as the accelerate config; the header says the launcher is not found", () => {
    const env = fakeEnv({ [CFG]: "", "/w/train.sh": "accelerate launch --config_file configs/gone.yaml train.py recipes/sft.yaml\n" }, CFG, ["/w"]);
    const r = analyzeDocument(`file://${CFG}`, `${PLAIN}bf16: true\n`, {}, env);
    const hf10 = r.diagnostics.filter((x) => x.code === "transformers/launch-config-missing");
    assert.deepEqual(hf10.map((x) => [x.severity, x.range.start.line]), [["warning", 0]]);
    assert.match(hf10[0]!.message, /^train\.sh line 1 launches this file with `configs\/gone\.yaml`, which is not in the workspace/);
    assert.match(r.reportMarkdown ?? "", /launcher not found: train\.sh line 1 names `configs\/gone\.yaml`, which is not in the workspace; each row resolved under every candidate launcher \(single GPU\/DDP, DeepSpeed ZeRO-1\/2\/3 and FSDP1\/2\)/);
    const env2 = fakeEnv({ [CFG]: "", "/w/train.sh": "accelerate launch --config_file ds.json train.py recipes/sft.yaml\n", "/w/ds.json": JSON.stringify({ zero_optimization: { stage: 3 }, train_micro_batch_size_per_gpu: "auto" }) }, CFG, ["/w"]);
    const d = analyzeDocument(`file://${CFG}`, `${PLAIN}bf16: true\n`, {}, env2).diagnostics.filter((x) => x.code === "transformers/launch-config-missing");
    assert.match(d[0]!.message, /passes the DeepSpeed JSON `ds\.json` as the accelerate config/);
  });
});

describe("HF6 and the workspace's own argument classes (held-back: vendored LLaMA-Factory forks, a parser over a variable)", () => {
  const cfg = "/w/examples/train_full/a.yaml";
  it("a vendored LLaMA-Factory's hparams declare the key (class header over several lines): no finding", () => {
    const hp = "from dataclasses import dataclass, field\n\n@dataclass\nclass FinetuningArguments(\n    FreezeArguments,\n    LoraArguments,\n):\n    train_mm_proj_only: bool = field(\n        default=False,\n    )\n";
    const text = `${LF}train_mm_proj_only: true\n`;
    const without = analyzeDocument(`file://${cfg}`, text, {}, fakeEnv({ [cfg]: text }, cfg, ["/w"]));
    assert.deepEqual(without.diagnostics.filter((d) => d.code === "transformers/unknown-key").map((d) => d.severity), ["warning"]);
    const r = analyzeDocument(`file://${cfg}`, text, {}, fakeEnv({ [cfg]: text, "/w/src/llamafactory/hparams/finetuning_args.py": hp }, cfg, ["/w"]));
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "transformers/unknown-key"), []);
  });
  it("the parser script's workspace imports are followed (`from alignment import ScriptArguments` → src/alignment/__init__.py → .configs); a commented-out parser call is no call (held-back alignment-handbook forks)", () => {
    const text = `${TRL}dataset_configs:\n- default\n`;
    const script = "from alignment import DPOConfig, ScriptArguments\nfrom trl import ModelConfig, TrlParser\nparser = TrlParser((ScriptArguments, DPOConfig, ModelConfig))\n";
    const pkg = { "/w/src/alignment/__init__.py": "from .configs import DPOConfig, ScriptArguments\nfrom .data import get_dataset\n", "/w/src/alignment/configs.py": "import trl\nfrom dataclasses import dataclass, field\n\n@dataclass\nclass ScriptArguments(trl.ScriptArguments):\n    dataset_configs: list = field(default=None)\n" };
    const hf6 = (files: Record<string, string>) => analyzeDocument(`file://${cfg}`, text, {}, fakeEnv({ [cfg]: text, ...files }, cfg, ["/w"])).diagnostics.filter((d) => d.code === "transformers/unknown-key");
    assert.deepEqual(hf6({ "/w/scripts/run_dpo.py": script }).map((d) => d.severity), ["warning"]);
    assert.deepEqual(hf6({ "/w/scripts/run_dpo.py": script, ...pkg }), []);
    // A module next to the script (`from simpo_config import SimPOConfig`, scripts/ on sys.path) is followed too.
    const local = "from simpo_config import SimPOConfig\nfrom trl import TrlParser\nparser = TrlParser((SimPOConfig,))\n";
    assert.deepEqual(hf6({ "/w/scripts/run.py": local, "/w/scripts/simpo_config.py": "from dataclasses import dataclass\n\n@dataclass\nclass SimPOConfig:\n    dataset_configs: list = None\n" }), []);
    // `# parser = HfArgumentParser((DataArguments, …))` is not a call: no parser class to hedge on, the near miss stays a warning.
    const commented = hf6({ "/w/src/my_app.py": "from transformers import HfArgumentParser\n    # parser = HfArgumentParser((DataArguments, TrainingConfig))\n" });
    assert.deepEqual(commented.map((d) => [d.severity, d.message.startsWith("Unknown key `dataset_configs`: did you mean")]), [["warning", true]]);
    // A subclass handed a tuple of classes is a parser call (alignment-handbook's H4ArgumentParser over its own
    // DataArguments, a package not in the workspace): DataArguments declares `dataset_configs` at v0.3.0
    // (alignmentHandbook.ts), so no finding; a class from a package that is not alignment is only information naming it.
    const h4 = hf6({ "/w/src/dpo.py": "from alignment import H4ArgumentParser, DataArguments\nparser = H4ArgumentParser((DataArguments, ModelConfig, DPOConfig))\n", "/w/src/cli.py": "import argparse\np = argparse.ArgumentParser(description='x')\n" });
    assert.deepEqual(h4, []);
    const other = hf6({ "/w/src/dpo.py": "from handbook import H4ArgumentParser, DataArguments\nparser = H4ArgumentParser((DataArguments, ModelConfig, DPOConfig))\n" });
    assert.deepEqual(other.map((d) => d.severity), ["information"]);
    assert.match(other[0]!.message, /^Unknown key `dataset_configs` unless the project's parser class `DataArguments` declares it/);
  });
  it("alignment-handbook installed (not in the workspace): its classes' fields by the pinned release, every version's when unpinned (issue #31)", () => {
    const script = "from alignment import (\n    H4ArgumentParser,\n    DataArguments,\n    ModelArguments,\n)\nfrom trl import DPOConfig\nparser = H4ArgumentParser((DataArguments, ModelArguments, DPOConfig))\n";
    const at = (req?: string) => projectArgs(fakeEnv({ [cfg]: "", "/w/scripts/dpo.py": script, ...(req ? { "/w/requirements.txt": req } : {}) }, cfg, ["/w"]))!;
    const unpinned = at();
    assert.deepEqual(unpinned.alignment, { classes: ["DataArguments", "ModelArguments"] });
    assert.equal(unpinned.unresolved, undefined);
    for (const k of ["dataset_mixer", "dataset_splits", "auto_insert_empty_system_msg", "max_train_samples", "use_flash_attention_2", "bnb_4bit_quant_storage"]) assert.ok(unpinned.fields.has(k), k);
    // v0.2.0 (src/alignment/configs.py:186@v0.2.0) has max_train_samples, not the v0.3.0 additions.
    const v020 = at("alignment-handbook @ git+https://github.com/huggingface/alignment-handbook.git@v0.2.0\n");
    assert.deepEqual(v020.alignment, { classes: ["DataArguments", "ModelArguments"], release: "0.2.0" });
    assert.deepEqual(["max_train_samples", "auto_insert_empty_system_msg", "dataset_configs", "use_flash_attention_2", "attn_implementation"].map((k) => v020.fields.has(k)), [true, false, false, true, false]);
    // A commit pin names no release: every version's fields.
    assert.equal(at("alignment-handbook @ git+https://github.com/huggingface/alignment-handbook.git@606d2e9\n").fields.has("auto_insert_empty_system_msg"), true);
    // The held-back case (MAOJIASONG/project-template): the DataArguments keys of an alignment-handbook recipe give no finding.
    const text = `${TRL}dataset_mixer:\n  HuggingFaceH4/ultrafeedback_binarized: 1.0\ndataset_splits:\n- train_prefs\npreprocessing_num_workers: 12\ntruncation_side: left\n`;
    const r = analyzeDocument(`file://${cfg}`, text, {}, fakeEnv({ [cfg]: text, "/w/scripts/dpo.py": script }, cfg, ["/w"]));
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "transformers/unknown-key"), []);
  });
  it("TrlParser over a class the workspace does not hold: an unknown key is information naming it", () => {
    const text = `${TRL}sp_alpha: 0.5\n`;
    const script = "from trl import TrlParser, ModelConfig, ScriptArguments\nparser = TrlParser((ScriptArguments, config_cls, ModelConfig))\n";
    const r = analyzeDocument(`file://${cfg}`, text, {}, fakeEnv({ [cfg]: text, "/w/run_dpo.py": script }, cfg, ["/w"]));
    const d = r.diagnostics.filter((x) => x.code === "transformers/unknown-key");
    assert.deepEqual(d.map((x) => x.severity), ["information"]);
    assert.match(d[0]!.message, /^Unknown key `sp_alpha` unless the project's parser class `config_cls` declares it/);
  });
});

describe("bf16-unsupported-gpu: bf16 on a GPU without bf16 tensor cores, by the transformers release (issue #31 §3)", () => {
  const text = `${PLAIN}bf16: true\n`;
  const hf13 = (settings: Record<string, unknown>, req: string, t = text) => analyzeDocument(uri, t, settings, pins({}, req)).diagnostics.filter((d) => d.code === "transformers/bf16-unsupported-gpu");
  it("transformers 4.21–4.34 reads the capability and raises: an error on the `bf16` value", () => {
    const d = hf13({ gpu: "V100" }, "transformers==4.30.0\n");
    assert.deepEqual(d.map((x) => [x.severity, x.range.start.line, x.range.start.character, x.range.end.character]), [["error", 5, 6, 10]]);
    assert.equal(d[0]!.message, "bf16 on V100 SXM2 32GB (compute capability 7.0): TrainingArguments raises ValueError \"Your setup doesn't support bf16/gpu\" at transformers 4.30.0");
    assert.equal(hf13({ gpu: "T4" }, "transformers==4.21.0\n")[0]?.severity, "error");
  });
  it("from 4.35.0 torch decides (emulation at torch 2.13.0): a warning; unpinned, both outcomes named", () => {
    const d = hf13({ gpu: "t4" }, "transformers==4.57.1\n");
    assert.deepEqual(d.map((x) => x.severity), ["warning"]);
    assert.equal(d[0]!.message, "bf16 on T4 16GB (compute capability 7.5, no bf16 tensor cores): emulated (slow) or rejected, by the torch version");
    assert.match(d[0]!.detail ?? "", /is_bf16_supported\(\)`, which passes by emulation at torch 2\.13\.0/);
    const u = hf13({ gpu: "rtx-2080-ti" }, "");
    assert.deepEqual(u.map((x) => x.severity), ["warning"]);
    assert.match(u[0]!.message, /ValueError at transformers 4\.21\.0–4\.34, emulated \(slow\) from 4\.35\.0$/);
    assert.equal(hf13({ gpu: "v100" }, "transformers==4.20.0\n")[0]?.severity, "warning");
  });
  it("a directive names the GPU; Ampere and newer, no GPU named (the default is no fact) or bf16 off: silent", () => {
    assert.equal(hf13({}, "transformers==4.30.0\n", `# precision-lens: gpu=tesla-t4\n${text}`)[0]?.severity, "error");
    assert.deepEqual(hf13({}, "transformers==4.30.0\n"), []);
    for (const gpu of ["a10g", "rtx-3090", "rtx-4090", "l4", "a100"]) assert.deepEqual(hf13({ gpu }, "transformers==4.30.0\n"), [], gpu);
    assert.deepEqual(hf13({ gpu: "v100" }, "transformers==4.30.0\n", `${PLAIN}bf16: false\nfp16: true\n`), []);
  });
});

describe("transformers: the versions read, in `check --format json` (the oracle runs the frameworks at them)", () => {
  it("`packageVersions` holds each package's pin from the workspace, or the newest release read marked inferred; absent for torchtitan", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { runCliCaptured } = await import("./support/cli");
    const root = mkdtempSync(join(tmpdir(), "pl-i31-versions-"));
    writeFileSync(join(root, "requirements.txt"), "transformers==4.52.3\ntrl[vllm]==0.18.0\n");
    writeFileSync(join(root, "sft.yaml"), `${TRL}bf16: true\n`);
    writeFileSync(join(root, "titan.toml"), "[parallelism]\ndata_parallel_shard_degree = -1\n[training]\nmixed_precision_param = \"bfloat16\"\n");
    const r = runCliCaptured(["check", "--format", "json", join(root, "sft.yaml"), join(root, "titan.toml")], root);
    const [hf, titan] = JSON.parse(r.out).files;
    assert.equal(hf.framework, "transformers");
    assert.deepEqual(hf.packageVersions.transformers, { value: "4.52.3", kind: "workspace-pin" });
    assert.deepEqual(hf.packageVersions.trl, { value: "0.18.0", kind: "workspace-pin" });
    assert.equal(hf.packageVersions.accelerate.kind, "inferred");
    assert.match(hf.packageVersions.accelerate.value, /^\d+\.\d+\.\d+$/);
    assert.equal(titan.framework, "torchtitan");
    assert.equal("packageVersions" in titan, false);
  });
});

describe("fp16-on-bf16-checkpoint: fp16 AMP where bf16 was meant (issue #31 §3)", () => {
  const body = (model: string, extra = "fp16: true\n", gpu = "a100-80gb") => `# precision-lens: gpu=${gpu}\nmodel_name_or_path: ${model}\noutput_dir: out\nlearning_rate: 1.0e-5\n${extra}`;
  const bf16Cfg = JSON.stringify({ model_type: "qwen2", torch_dtype: "bfloat16" });
  const run = (text: string, files: Record<string, string> = {}) =>
    analyzeDocument(uri, text, {}, fakeEnv({ [DOC]: text, ...files }, DOC, ["/w"])).diagnostics.filter((d) => d.code === "transformers/fp16-on-bf16-checkpoint");
  it("the model's config.json in the workspace says bfloat16, the GPU is Ampere: a warning on the `fp16` value, with a rename to bf16", () => {
    const d = run(body("../models/qwen"), { [`/w/models/qwen/config.json`]: bf16Cfg });
    assert.deepEqual(d.map((x) => [x.severity, x.range.start.line, x.range.start.character, x.range.end.character]), [["warning", 4, 6, 10]]);
    assert.equal(d[0]!.message, "`fp16` AMP on a checkpoint saved in bf16: activations can overflow fp16 (max 65504); A100 SXM 80GB runs bf16");
    assert.match(d[0]!.detail ?? "", /`torch_dtype: bfloat16` in .*models\/qwen\/config\.json/);
    assert.match(JSON.stringify(d[0]!.data), /"newText":"bf16"/);
    // A path from the workspace root finds it too (`models/qwen` run from the repository root); transformers 5's `dtype` counts.
    assert.equal(run(body("models/qwen"), { [`/w/models/qwen/config.json`]: JSON.stringify({ dtype: "bfloat16" }) })[0]?.severity, "warning");
  });
  it("a documented bf16 family (Llama 3) without a config.json here: information, the assumption named", () => {
    const d = run(body("meta-llama/Meta-Llama-3-8B-Instruct"));
    assert.deepEqual(d.map((x) => x.severity), ["information"]);
    assert.equal(d[0]!.message, "`fp16` AMP on Llama 3 (trained in bf16): activations can overflow fp16 (max 65504); A100 SXM 80GB runs bf16");
  });
  it("silent: no GPU named, a pre-Ampere GPU, a checkpoint saved in fp16 or fp32, a family not documented, bf16 set too, fp16 off", () => {
    const files = { [`/w/models/qwen/config.json`]: bf16Cfg, [`/w/models/f16/config.json`]: JSON.stringify({ torch_dtype: "float16" }) };
    assert.deepEqual(run(body("models/qwen").replace(/^# precision-lens: gpu=\S+\n/, ""), files), []);
    assert.deepEqual(run(body("models/qwen", "fp16: true\n", "v100"), files), []);
    assert.deepEqual(run(body("models/qwen", "fp16: true\n", "t4"), files), []);
    assert.deepEqual(run(body("models/f16"), files), []);
    assert.deepEqual(run(body("Qwen/Qwen2.5-7B")), []);
    assert.deepEqual(run(body("models/qwen", "fp16: true\nbf16: true\n"), files), []);
    assert.deepEqual(run(body("models/qwen", "fp16: false\n"), files), []);
    // An H100 is Ampere or newer: it fires.
    assert.equal(run(body("models/qwen", "fp16: true\n", "h100"), files).length, 1);
  });
});

describe("fp16-model-fp16-amp from the training script the launch line runs (issue #31 §3)", () => {
  const text = `${PLAIN}fp16: true\n`;
  const script = (load: string) => `import torch\nfrom transformers import AutoModelForCausalLM, HfArgumentParser, TrainingArguments, Trainer\n(args,) = HfArgumentParser((TrainingArguments,)).parse_yaml_file("recipes/sft.yaml")\n# model = AutoModelForCausalLM.from_pretrained("m", torch_dtype=torch.bfloat16)\nmodel = AutoModelForCausalLM.from_pretrained(\n    "m",\n    ${load},\n)\n${load.includes("peft") ? "" : ""}Trainer(model=model, args=args).train()\n`;
  const run = (files: Record<string, string>) => analyzeDocument(uri, text, {}, fakeEnv({ [DOC]: text, "/w/run.sh": "python train.py recipes/sft.yaml\n", ...files }, DOC, ["/w"]));
  it("`python train.py` whose from_pretrained loads fp16 (a commented-out bf16 call is not read): the GradScaler error on `fp16`, the script named", () => {
    const r = run({ "/w/train.py": script("torch_dtype=torch.float16") });
    const d = r.diagnostics.filter((x) => x.code === "transformers/fp16-model-fp16-amp");
    assert.deepEqual(d.map((x) => [x.severity, x.range.start.line, x.range.start.character, x.range.end.character]), [["error", 5, 6, 10]]);
    assert.equal(d[0]!.message, "[one process, from the `python` command line] fp16 load, `fp16` AMP: ValueError \"Attempting to unscale FP16 gradients\"");
    assert.match(d[0]!.detail ?? "", /the training script train\.py loads the model in float16 \(line 5\)/);
    assert.equal(r.precision?.paramStorage.dtype, "float16");
  });
  it("silent: the script loads bf16 or fp32, two calls disagree, or it builds PEFT adapters", () => {
    const hf12 = (body: string) => run({ "/w/train.py": body }).diagnostics.filter((x) => x.code === "transformers/fp16-model-fp16-amp");
    assert.deepEqual(hf12(script('dtype="bfloat16"')), []);
    assert.deepEqual(hf12(script("torch_dtype=torch.float32")), []);
    assert.deepEqual(hf12(script("torch_dtype=torch.float16") + 'ref = AutoModelForCausalLM.from_pretrained("m", torch_dtype=torch.float32)\n'), []);
    assert.deepEqual(hf12(script("torch_dtype=torch.float16") + "from peft import LoraConfig, get_peft_model\nmodel = get_peft_model(model, LoraConfig())\n"), []);
  });
});

describe("LLaMA-Factory without bf16/fp16: the loader's infer_optim_dtype, not fp32 (held-back LLaMA-Factory examples)", () => {
  const lf = (extra: string) => analyzeDocument(uri, `model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\ndo_train: true\ndataset: identity\ntemplate: llama3\noutput_dir: saves/x\nper_device_train_batch_size: 1\n${extra}`, {}, ddp());
  it("LoRA: trainable adapters upcast to fp32, the matmuls in the frozen base weights' bf16 (assumed bf16-capable GPU and checkpoint)", () => {
    const r = lf("finetuning_type: lora\n");
    assert.deepEqual(prec(r), ["float32", "bfloat16", "float32"]);
    assert.equal(r.mechanism, "none");
    assert.match(r.reportMarkdown ?? "", /infer_optim_dtype/);
  });
  it("full fine-tune: every parameter upcast to fp32; BAdam: no upcast, bf16 throughout", () => {
    assert.deepEqual(prec(lf("finetuning_type: full\n")), ["float32", "float32", "float32"]);
    assert.deepEqual(prec(lf("finetuning_type: full\nuse_badam: true\n")), ["bfloat16", "bfloat16", "bfloat16"]);
  });
});

describe("LLaMA-Factory eval/predict configs (no `do_train: true`): loaded frozen, nothing upcast", () => {
  it("a LoRA eval config keeps the load dtype; with do_train the adapters are upcast", () => {
    const base = "model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nadapter_name_or_path: saves/lora\nstage: sft\nfinetuning_type: lora\ndataset: identity\ntemplate: llama3\noutput_dir: saves/x\nper_device_eval_batch_size: 1\n";
    assert.deepEqual(prec(analyzeDocument(uri, `${base}do_predict: true\n`)), ["bfloat16", "bfloat16", "bfloat16"]);
    assert.deepEqual(prec(analyzeDocument(uri, `${base}do_train: true\n`, {}, ddp())), ["float32", "bfloat16", "float32"]);
  });
});

describe("the accelerate config's deepspeed_config without zero_stage: DeepSpeedPlugin's default stage 2", () => {
  it("an accelerate DeepSpeed config with no zero_stage (its DeepSpeed JSON keys ignored) runs ZeRO-2", () => {
    const text = `${PLAIN}bf16: true\n`;
    const env = fakeEnv({ [DOC]: text, "/w/run.sh": "accelerate launch --config_file zero2.yaml train.py recipes/sft.yaml\n", "/w/zero2.yaml": "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 4\ndeepspeed_config:\n  zero_optimization:\n    stage: 3\n" }, DOC, ["/w"]);
    const r = analyzeDocument(uri, text, {}, env);
    assert.match(r.reportMarkdown ?? "", /ZeRO-2 master weights/);
    assert.doesNotMatch(r.reportMarkdown ?? "", /ZeRO stage auto/);
  });
});
