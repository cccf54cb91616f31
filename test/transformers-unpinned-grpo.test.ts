/**
 * Issue #31, the oracle's open misses: keys the newest releases reject when nothing is pinned (unknown-key,
 * trl-model-dtype), booleans where TrainingArguments wants an enum (boolean-enum-value), and TRL's GRPOConfig
 * generation-batch checks (grpo-generation-batch). Upstream behaviour, read at the tags and run in the oracle venv:
 * - TrainingArguments fields per release: trainingArgs.json (`overwrite_output_dir` up to 4.57.6, `warmup_ratio` up to 5.14.1).
 * - TRL ModelConfig `dtype` from v0.25.0, no `torch_dtype` from v1.0.0: trl/trainer/model_config.py:89@v1.9.0.
 * - Enum conversion: transformers training_args.py:1558-1563@5.24.0, utils/generic.py:670-673@5.24.0.
 * - GRPOConfig.__post_init__: trl/trainer/grpo_config.py:1075-1120@v1.9.0, :510-560@v0.18.0.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { fakeEnv } from "./support/fakeEnv";
import { checkDiagnostics, checkFix } from "./support/fixture";

const DOC = "/w/recipes/sft.yaml";
const uri = `file://${DOC}`;
const GRPO_DOC = "/w/recipes/grpo/config.yaml";
const grpoUri = `file://${GRPO_DOC}`;
const pins = (req = "", doc = DOC) => fakeEnv({ "/w/requirements.txt": req }, doc);
/** A torchrun (DDP) launch line naming the recipe: the launcher known, so rows and findings are not by launcher. */
const ddp = (req = "") => fakeEnv({ "/w/requirements.txt": req, "/w/train.sh": "torchrun --nproc_per_node 4 train.py recipes/sft.yaml\n" }, DOC);
const TRL = "model_name_or_path: Qwen/Qwen2.5-0.5B\ndataset_name: trl-lib/Capybara\noutput_dir: out\nlearning_rate: 2.0e-5\nper_device_train_batch_size: 2\n";
const PLAIN = "output_dir: out\nper_device_train_batch_size: 4\ngradient_accumulation_steps: 2\nlearning_rate: 1.0e-4\nnum_train_epochs: 1\n";
const GRPO = "model_name_or_path: Qwen/Qwen2.5-0.5B\ndataset_name: trl-lib/DeepMath\noutput_dir: out\nlearning_rate: 1.0e-6\nbf16: true\n";
const of = (r: ReturnType<typeof analyzeDocument>, code: string) => r.diagnostics.filter((d) => d.code === code);

describe("issue #31: keys the newest releases reject when nothing is pinned", () => {
  it("a TrainingArguments key removed at 5.0.0 / 5.15.0: a warning naming the first release that rejects it; the pin decides otherwise", () => {
    checkDiagnostics(
      `${PLAIN}overwrite_output_dir: true
#^^^^^^^^^^^^^^^^^^^ warning[transformers/unknown-key]: \`overwrite_output_dir\` is rejected from transformers 5.0.0 (not a TrainingArguments key there); nothing pins the version
warmup_ratio: 0.1
#^^^^^^^^^^^ warning[transformers/unknown-key]: \`warmup_ratio\` is rejected from transformers 5.15.0 (not a TrainingArguments key there); nothing pins the version
`,
      { uri, env: pins() },
    );
    const r = analyzeDocument(uri, `${PLAIN}overwrite_output_dir: true\n`, {}, pins());
    assert.match(of(r, "transformers/unknown-key")[0]!.detail ?? "", /declares `overwrite_output_dir` at 4\.36\.0–4\.57\.6.*accepts the key before it/);
    // A pin below the removal: accepted, nothing said.
    checkDiagnostics(`${PLAIN}overwrite_output_dir: true\nwarmup_ratio: 0.1\n`, { uri, env: pins("transformers==4.57.1\n") });
    checkDiagnostics(`${PLAIN}warmup_ratio: 0.1\n`, { uri, env: pins("transformers==5.14.1\n") });
    // A key removed only before the newest release (eval_strategy is missing before 4.41.0): nothing without a pin.
    checkDiagnostics(`${PLAIN}eval_strategy: steps\neval_steps: 10\n`, { uri, env: pins() });
  });

  it("`torch_dtype` in a TRL file without a TRL pin: a warning naming TRL 1.0.0, with the rename to `dtype`; an error at a 1.x pin; nothing at 0.19.0", () => {
    const r = analyzeDocument(uri, `${TRL}bf16: true\ntorch_dtype: bfloat16\n`, {}, pins());
    const w = of(r, "transformers/trl-model-dtype");
    assert.deepEqual(w.map((d) => [d.severity, d.range.start.line, d.range.start.character, d.range.end.character]), [["warning", 6, 0, 11]]);
    assert.equal(w[0]!.message, "`torch_dtype` is rejected from TRL 1.0.0 (ModelConfig calls it `dtype`); nothing pins the version");
    assert.deepEqual(w[0]!.data?.fixes?.map((f) => [f.title, f.isPreferred ?? false]), [["Rename to `dtype` (TRL ≥ 0.25.0)", false]]);
    checkFix(`${TRL}bf16: true\ntorch_dtype: bfloat16\n`, "transformers/trl-model-dtype", "Rename", `${TRL}bf16: true\ndtype: bfloat16\n`, { uri, env: pins() });
    const pinned = of(analyzeDocument(uri, `${TRL}bf16: true\ntorch_dtype: bfloat16\n`, {}, pins("trl==1.9.0\n")), "transformers/trl-model-dtype");
    assert.deepEqual(pinned.map((d) => [d.severity, d.data?.fixes?.map((f) => [f.title, f.isPreferred])]), [["error", [["Rename to `dtype`", true]]]]);
    assert.deepEqual(of(analyzeDocument(uri, `${TRL}bf16: true\ntorch_dtype: bfloat16\n`, {}, pins("trl==0.19.0\n")), "transformers/trl-model-dtype"), []);
  });

  it("a TRL field the newest TRL dropped (`max_prompt_length`, last at v0.25.0): a warning without a pin, the pinned wording at 1.9.0, nothing at 0.25.0", () => {
    const text = `${TRL}bf16: true\ndtype: bfloat16\nmax_prompt_length: 512\n`;
    const at = (req: string) => of(analyzeDocument(uri, text, {}, pins(req)), "transformers/unknown-key");
    assert.deepEqual(at("").map((d) => [d.severity, d.range.start.line, d.message]), [["warning", 7, "`max_prompt_length` is rejected from TRL 1.0.0 (last declared at v0.25.0); nothing pins the version"]]);
    assert.deepEqual(at("trl==1.9.0\n").map((d) => d.message), ["`max_prompt_length` is not a TRL 1.9.0 argument: the parser rejects it"]);
    assert.deepEqual(at("trl==0.25.0\n"), []);
  });
});

describe("issue #31: a boolean where TrainingArguments wants an enum name", () => {
  it("`eval_strategy: no` is False to PyYAML: an error on the value with the exact ValueError, quick fix `\"no\"`; a quoted value is silent", () => {
    checkDiagnostics(
      `${PLAIN}eval_strategy: no
#              ^^ error[transformers/boolean-enum-value]: \`eval_strategy: no\` is the boolean False in YAML 1.1: TrainingArguments raises "False is not a valid IntervalStrategy"
save_strategy: Off
#              ^^^ error[transformers/boolean-enum-value]: \`save_strategy: Off\` is the boolean False in YAML 1.1: TrainingArguments raises "False is not a valid SaveStrategy"
logging_strategy: "no"
optim: yes
#      ^^^ error[transformers/boolean-enum-value]: \`optim: yes\` is the boolean True in YAML 1.1: TrainingArguments raises "True is not a valid OptimizerNames"
`,
      { uri, env: pins() },
    );
    checkFix(`${PLAIN}eval_strategy: no\n`, "transformers/boolean-enum-value", "Quote", `${PLAIN}eval_strategy: "no"\n`, { uri, env: pins() });
    // No "no" among the values: no quick fix, and the generic yaml-1.1-boolean note is not added on top.
    const r = analyzeDocument(uri, `${PLAIN}optim: yes\n`, {}, pins());
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.data?.fixes ?? []]), [["transformers/boolean-enum-value", []]]);
    // TRL and LLaMA-Factory files load the same way (yaml.safe_load, OmegaConf): the same error.
    assert.deepEqual(of(analyzeDocument(uri, `${TRL}bf16: true\ndtype: bfloat16\neval_strategy: no\n`, {}, pins()), "transformers/boolean-enum-value").map((d) => d.severity), ["error"]);
    // A release that does not declare the key: left to unknown-key.
    assert.deepEqual(of(analyzeDocument(uri, `${PLAIN}eval_strategy: no\n`, {}, pins("transformers==4.40.2\n")), "transformers/boolean-enum-value"), []);
  });
});

describe("issue #31: TRL GRPOConfig generation-batch checks", () => {
  const grpo = (text: string, req = "", settings: Record<string, unknown> = {}) => of(analyzeDocument(grpoUri, `${GRPO}${text}`, settings, pins(req, GRPO_DOC)), "transformers/grpo-generation-batch");

  it("the default generation batch (p × processes × steps) against num_generations: an error at a known world size, a warning naming the sizes that pass otherwise", () => {
    const text = "per_device_train_batch_size: 16\ngradient_accumulation_steps: 4\nnum_generations: 14\n";
    const known = grpo(text, "trl==1.9.0\n", { worldSize: 8 });
    assert.deepEqual(known.map((d) => [d.severity, d.range.start.line, d.range.start.character, d.range.end.character]), [["error", 7, 0, 15]]);
    assert.equal(known[0]!.message, "GRPOConfig raises: generation_batch_size (512) must be divisible by num_generations (14)");
    // 16 × 7 × 4 = 448 = 32 × 14: passes.
    assert.deepEqual(grpo(text, "trl==1.9.0\n", { worldSize: 7 }), []);
    const unknown = grpo(text, "trl==1.9.0\n");
    assert.deepEqual(unknown.map((d) => [d.severity, d.message]), [["warning", "GRPOConfig raises unless the world size is a multiple of 7 (`num_generations` 14 must divide 64 × processes)"]]);
    // TRL 0.18.0 words it as the effective train batch size.
    assert.match(grpo(text, "trl==0.18.0\n", { worldSize: 8 })[0]!.message, /the effective train batch size \(512\) must be evenly divisible by the number of generations per prompt \(14\)$/);
    // Before 0.18.0 the checks were in GRPOTrainer (not read): nothing.
    assert.deepEqual(grpo(text, "trl==0.17.0\n", { worldSize: 8 }), []);
    // A divisor of the per-process batch passes at every world size.
    assert.deepEqual(grpo("per_device_train_batch_size: 16\nnum_generations: 8\n", "trl==1.9.0\n"), []);
  });

  it("an explicit generation_batch_size: not a multiple of the per-device batch fails at every world size; of the global batch from 0.20.0 only", () => {
    const off = grpo("per_device_train_batch_size: 8\ngeneration_batch_size: 12\n", "trl==1.9.0\n");
    assert.deepEqual(off.map((d) => [d.severity, d.range.start.line, d.message]), [["error", 6, "GRPOConfig raises: generation_batch_size (12) must be divisible by the global batch size (8 × processes)"]]);
    const global = "per_device_train_batch_size: 8\ngeneration_batch_size: 64\nnum_generations: 16\n";
    assert.deepEqual(grpo(global, "trl==1.9.0\n", { worldSize: 16 }).map((d) => d.message), ["GRPOConfig raises: generation_batch_size (64) must be divisible by the global batch size (128)"]);
    // 0.19.0's check is `g % p * n` (precedence): 64 % 8 = 0 passes there.
    assert.deepEqual(grpo(global, "trl==0.19.0\n", { worldSize: 16 }), []);
    assert.deepEqual(grpo(global, "trl==1.9.0\n", { worldSize: 8 }), []);
    assert.deepEqual(grpo("per_device_train_batch_size: 8\ngeneration_batch_size: 64\nnum_generations: 7\n", "trl==1.9.0\n").map((d) => [d.severity, d.message]), [["error", "GRPOConfig raises: generation_batch_size (64) must be divisible by num_generations (7)"]]);
  });

  it("with evaluation on, the global eval batch must be a multiple of num_generations: from 0.23.0 and at 0.18–0.19, not at 0.21.0", () => {
    const text = "per_device_train_batch_size: 8\nnum_generations: 8\neval_strategy: steps\nper_device_eval_batch_size: 4\n";
    const one = grpo(text, "trl==1.9.0\n", { worldSize: 1 });
    assert.deepEqual(one.map((d) => [d.severity, d.range.start.line, d.message]), [["error", 8, "GRPOConfig raises: the global eval batch (4) must be divisible by 8 generations"]]);
    assert.match(one[0]!.detail ?? "", /raises ValueError: the global eval batch size \(4 \* 1\) must be divisible by the number of generations used for evaluation \(8\)/);
    assert.deepEqual(grpo(text, "trl==1.9.0\n", { worldSize: 2 }), []);
    assert.deepEqual(grpo(text, "trl==1.9.0\n").map((d) => [d.severity, d.message]), [["warning", "GRPOConfig raises unless the world size is a multiple of 2 (eval: 8 generations must divide 4 × processes)"]]);
    assert.match(grpo(text, "trl==0.18.0\n", { worldSize: 1 })[0]!.detail ?? "", /the global eval batch size \(1 x 4\) must be evenly divisible by the number of generations per prompt \(8\)/);
    assert.deepEqual(grpo(text, "trl==0.21.0\n", { worldSize: 1 }), []);
    // No evaluation: nothing.
    assert.deepEqual(grpo(text.replace("eval_strategy: steps", 'eval_strategy: "no"'), "trl==1.9.0\n", { worldSize: 1 }), []);
  });

  it("num_generations below 2 and both generation_batch_size and steps_per_generation: errors on the TRL version alone (a warning when it is assumed)", () => {
    assert.deepEqual(grpo("num_generations: 1\n", "trl==0.18.0\n").map((d) => [d.severity, d.message]), [["error", "`num_generations: 1`: GRPO needs at least 2 generations per prompt (GRPOConfig raises ValueError)"]]);
    assert.deepEqual(grpo("generation_batch_size: 32\nsteps_per_generation: 4\n", "trl==1.9.0\n").map((d) => [d.severity, d.range.start.line]), [["error", 6]]);
    const assumed = grpo("num_generations: 1\n");
    assert.deepEqual(assumed.map((d) => d.severity), ["warning"]);
    assert.match(assumed[0]!.message, /^Assuming TRL 1\.9\.0 \(inferred\): `num_generations: 1`/);
    // Not a GRPO file (an SFT recipe): nothing.
    assert.deepEqual(of(analyzeDocument(uri, `${GRPO}num_generations: 1\n`, {}, pins("trl==1.9.0\n")), "transformers/grpo-generation-batch"), []);
  });
});

describe("issue #31: the parameter (and saved checkpoint) dtype when transformers 5 loads in the checkpoint's dtype", () => {
  // TRL < 1.0 leaves the load dtype to from_pretrained, whose default is "auto" in transformers 5
  // (modeling_utils.py:4033-4041, 4187@5.24.0); save_pretrained keeps model.dtype (modeling_utils.py:3440-3443@5.24.0).
  const text = (model: string) => `model_name_or_path: ${model}\ndataset_name: trl-lib/Capybara\noutput_dir: out\nlearning_rate: 2.0e-5\nbf16: true\n`;
  const req = "trl==0.25.0\ntransformers==5.24.0\n";
  it("not read: null in the contract, never float32; read from the model folder's config.json in the workspace: its dtype", () => {
    const r = analyzeDocument(uri, text("Qwen/Qwen2.5-0.5B"), {}, ddp(req));
    assert.deepEqual([r.precision?.paramStorage.dtype, r.precision?.compute.dtype, r.precision?.gradReduce.dtype], [null, "bfloat16", null]);
    assert.match(r.precision?.paramStorage.knob ?? "", /transformers 5 loads in the checkpoint's dtype/);
    const env = fakeEnv({ "/w/requirements.txt": req, "/w/train.sh": "torchrun --nproc_per_node 4 train.py recipes/sft.yaml\n", "/w/models/qwen/config.json": JSON.stringify({ model_type: "qwen2", torch_dtype: "bfloat16" }) }, DOC);
    const local = analyzeDocument(uri, text("../models/qwen"), {}, env);
    assert.deepEqual([local.precision?.paramStorage.dtype, local.precision?.gradReduce.dtype], ["bfloat16", "bfloat16"]);
    assert.match(local.precision?.paramStorage.knob ?? "", /`torch_dtype: bfloat16` in (?:.*\/)?config\.json$/);
    // TRL 1.x loads with ModelConfig's float32 default: float32 whatever the checkpoint.
    assert.equal(analyzeDocument(uri, text("Qwen/Qwen2.5-0.5B"), {}, ddp("trl==1.9.0\ntransformers==5.24.0\n")).precision?.paramStorage.dtype, "float32");
  });
});

describe("issue #31: LLaMA-Factory `use_badam` as BAdam's source runs it", () => {
  // badam/block_optim.py:515-519, 284, 273@1.4: an fp32 copy of the active block, its gradients cast to fp32, written back.
  const LF = "model_name_or_path: Qwen/Qwen3-4B\nstage: sft\ndo_train: true\nfinetuning_type: full\ndataset: identity\ntemplate: qwen3\noutput_dir: saves/x\nper_device_train_batch_size: 1\nbf16: true\nuse_badam: true\n";
  it("layer mode (the default): bf16 weights with fp32 master weights and optimizer state for the active block; no pure-bf16 finding", () => {
    const r = analyzeDocument(uri, LF, {}, ddp());
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
    assert.deepEqual(of(r, "transformers/pure-16-bit"), []);
    assert.match(r.reportMarkdown ?? "", /BAdam \(layer mode\): weights stored in bf16; each step updates the active block through an fp32 copy/);
    assert.match(r.reportMarkdown ?? "", /\| optimizer state \| `float32` \| BAdam's fp32 copy of the active block/);
  });
  it("ratio mode keeps no fp32 copy: pure bf16 as before", () => {
    const r = analyzeDocument(uri, `${LF}badam_mode: ratio\n`, {}, ddp());
    assert.deepEqual(of(r, "transformers/pure-16-bit").map((d) => d.severity), ["warning"]); // DDP named by the launch line
    assert.match(r.reportMarkdown ?? "", /\| optimizer state \| `bfloat16` \|/);
  });
});

describe("issue #31 (held-back): LLaMA-Factory's own version check bounds the unpinned transformers candidates (llamafactoryBounds.ts)", () => {
  // hiyouga/LLaMA-Factory src/llamafactory/extras/misc.py check_dependencies: v0.9.5 `transformers>=4.55.0,<=5.6.0`,
  // v0.9.1 `<=4.46.1`; v0.8.x a lower bound only. TrainingArguments drops `warmup_ratio` at 5.15.0 and
  // `evaluation_strategy` at 4.51.0 (keys.ts).
  const LF_DOC = "/w/examples/train.yaml";
  const lfUri = `file://${LF_DOC}`;
  const LFY = "model_name_or_path: Qwen/Qwen3-4B\nstage: sft\ndo_train: true\nfinetuning_type: lora\ndataset: identity\ntemplate: qwen3\noutput_dir: saves/x\nwarmup_ratio: 0.1\nevaluation_strategy: steps\n";
  const keys = (files: Record<string, string>) =>
    analyzeDocument(lfUri, LFY, {}, fakeEnv(files, LF_DOC)).diagnostics.filter((d) => d.code === "transformers/unknown-key").map((d) => `${d.severity}@${d.range.start.line}: ${d.message}`);

  it("unpinned, not vendored: the newest LLaMA-Factory read (0.9.5) runs transformers <= 5.6.0, so `warmup_ratio` is taken; `evaluation_strategy` is not", () => {
    assert.deepEqual(keys({}), ["warning@8: `evaluation_strategy` is rejected from transformers 4.51.0 (not a TrainingArguments key there); nothing pins the version"]);
  });

  it("a vendored copy's own check (<=4.46.1) decides: both keys are taken by every release that can run", () => {
    const misc = 'def check_dependencies() -> None:\n    require_version("transformers>=4.41.2,<=4.46.1", "To fix: pip install transformers>=4.41.2,<=4.46.1")\n';
    assert.deepEqual(keys({ "/w/src/llamafactory/extras/misc.py": misc }), []);
    // Its env.py VERSION alone, through the release's bound (0.9.1: <=4.46.1).
    assert.deepEqual(keys({ "/w/src/llamafactory/extras/env.py": 'VERSION = "0.9.1.dev0"\n' }), []);
  });

  it("a release with no upper bound (0.8.4.dev0) leaves every transformers release a candidate: both warnings stay", () => {
    assert.equal(keys({ "/w/src/llamafactory/extras/env.py": 'VERSION = "0.8.4.dev0"\n' }).length, 2);
  });
});

describe("issue #31 (held-back): a requirement range's upper bound stops the unpinned candidates (packagePin.ts packageUpperBound)", () => {
  it("`transformers>=4.56.0,<5.0.0` in pyproject.toml: keys rejected from 5.0.0 / 5.15.0 are taken by every release that can run; `trl<=0.25.0` likewise", () => {
    const text = `${PLAIN}overwrite_output_dir: true\nwarmup_ratio: 0.1\n`;
    const run = (files: Record<string, string>) => analyzeDocument(uri, text, {}, fakeEnv(files, DOC)).diagnostics.filter((d) => d.code === "transformers/unknown-key").map((d) => d.message);
    assert.equal(run({}).length, 2);
    assert.deepEqual(run({ "/w/pyproject.toml": '[project]\ndependencies = [\n    "transformers>=4.56.0,<5.0.0",\n]\n' }), []);
    // `<5.15.0` excludes 5.15.0 itself: only the 5.0.0 removal is a candidate's.
    assert.deepEqual(run({ "/w/requirements.txt": "transformers<5.15.0\n" }), ["`overwrite_output_dir` is rejected from transformers 5.0.0 (not a TrainingArguments key there); nothing pins the version"]);
    // sentence-transformers is another package.
    assert.equal(run({ "/w/requirements.txt": "sentence-transformers<3.0\n" }).length, 2);
    const trl = (req: string) => analyzeDocument(uri, `${TRL}max_prompt_length: 512\n`, {}, fakeEnv({ "/w/requirements.txt": req }, DOC)).diagnostics.filter((d) => d.code === "transformers/unknown-key").length;
    assert.deepEqual([trl(""), trl("trl<=0.25.0\n")], [1, 0]);
  });
});

describe("issue #31 (held-back): a package pinned to a git commit is fixed, not the newest release (context.ts commits)", () => {
  // setup.py `_deps` of open-r1 forks: `"trl @ git+https://github.com/huggingface/trl.git@<commit>"`. A fresh install
  // gets that commit, not TRL 1.x, so what only the newest releases reject is information naming the commit.
  const setup = (ref: string) => `_deps = [\n    "trl @ git+https://github.com/huggingface/trl.git@${ref}",\n]\n`;
  const run = (ref: string) => analyzeDocument(uri, `${TRL}torch_dtype: bfloat16\nmax_prompt_length: 512\n`, {}, fakeEnv({ "/w/setup.py": setup(ref) }, DOC)).diagnostics.filter((d) => d.code.startsWith("transformers/")).map((d) => `${d.severity} ${d.code}: ${d.message}`);
  it("a hex commit (also one that starts with a letter): information; a branch (`@main`) follows the newest: warnings", () => {
    assert.deepEqual(run("c04e84c4545acfaecdf7e0631ad07a86ab0fb2f6"), [
      "information transformers/trl-model-dtype: `torch_dtype` is rejected from TRL 1.0.0 (ModelConfig calls it `dtype`); TRL is pinned to commit c04e84c4545a",
      "information transformers/unknown-key: `max_prompt_length` is rejected from TRL 1.0.0; TRL is pinned to commit c04e84c4545a, release not known",
    ]);
    assert.deepEqual(run("main").map((m) => m.split(" ")[0]), ["warning", "warning"]);
  });
});

describe("issue #31 (held-back): a vendored LLaMA-Factory fork whose parser adds its own classes (argClasses.ts vendoredExtra)", () => {
  // A PEFT fork of LLaMA-Factory: `HfArgumentParser(_TRAIN_ARGS + [peft_args_class])`, the class picked from another
  // package's config classes; upstream's calls hand only `_TRAIN_ARGS` / `_INFER_ARGS` / `_EVAL_ARGS` / `RayArguments`.
  const LF_DOC = "/w/examples/train.yaml";
  const LFY = "model_name_or_path: Qwen/Qwen3-4B\nstage: sft\ndo_train: true\nfinetuning_type: bn\ndataset: identity\ntemplate: qwen3\noutput_dir: saves/x\nreduction_factor: 16\n";
  const parser = (call: string) => `from transformers import HfArgumentParser\n\ndef _parse_train_args(args):\n    parser = HfArgumentParser(${call})\n    return parser\n`;
  const run = (call: string) =>
    analyzeDocument(`file://${LF_DOC}`, LFY, {}, fakeEnv({ "/w/src/llamafactory/hparams/parser.py": parser(call), "/w/src/llamafactory/hparams/finetuning_args.py": "class FinetuningArguments:\n    finetuning_type: str = 'lora'\n" }, LF_DOC))
      .diagnostics.filter((d) => d.code === "transformers/unknown-key")
      .map((d) => `${d.severity}: ${d.message}`);
  it("an added class: the key is information naming the call; upstream's own call: the warning", () => {
    assert.deepEqual(run("_TRAIN_ARGS + [peft_args_class]"), ["information: Unknown key `reduction_factor` unless the fork's parser (`HfArgumentParser(_TRAIN_ARGS + [peft_args_class])`) accepts it"]);
    assert.deepEqual(run("_TRAIN_ARGS"), ["warning: Unknown key `reduction_factor`: LLaMA-Factory rejects it unless ALLOW_EXTRA_ARGS is set"]);
  });
});

describe("issue #31 (held-back): LLaMA-Factory's Megatron path (USE_MCA=1, from v0.9.4)", () => {
  // hparams/parser.py:56-65@v0.9.4: with USE_MCA=1 and mcore_adapter installed, `_TRAIN_MCA_ARGS` parses with
  // mcore_adapter's McaTrainingArguments (Megatron's keys); v0.9.3 has no such path.
  const LF_DOC = "/w/examples/megatron/qwen_full.yaml";
  const LFY = "model_name_or_path: Qwen/Qwen3-4B\nstage: sft\ndo_train: true\nfinetuning_type: full\ndataset: identity\ntemplate: qwen3\noutput_dir: saves/x\ntensor_model_parallel_size: 2\nsequence_parallel: true\n";
  const run = (files: Record<string, string>) =>
    analyzeDocument(`file://${LF_DOC}`, LFY, {}, fakeEnv(files, LF_DOC)).diagnostics.filter((d) => d.code === "transformers/unknown-key").map((d) => d.severity);
  it("a file with Megatron parallel sizes: information where the LLaMA-Factory in use has the path, warnings where it does not", () => {
    assert.deepEqual(run({}), ["information", "information"]);
    const parser = (mca: boolean) => `${mca ? "_TRAIN_MCA_ARGS = []\n" : ""}def _parse_train_args(args):\n    parser = HfArgumentParser(_TRAIN_ARGS)\n`;
    assert.deepEqual(run({ "/w/src/llamafactory/hparams/parser.py": parser(true) }), ["information", "information"]);
    assert.deepEqual(run({ "/w/src/llamafactory/hparams/parser.py": parser(false) }), ["warning", "warning"]);
  });
});
