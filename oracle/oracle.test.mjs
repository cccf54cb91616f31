// The differential oracle as a node test (`npm run test:oracle`): runs oracle/run.py in .oracle-venv and
// fails on any undocumented disagreement (the run's exit code), printing the table. Skipped, with the reason,
// when the oracle environment is absent (create it with `bash oracle/setup.sh`; CI does).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const venv = process.env.ORACLE_VENV ?? join(root, ".oracle-venv");
const python = join(venv, "bin", "python");
const skip = !existsSync(python)
  ? `no oracle environment at ${venv} (run \`bash oracle/setup.sh\`, as .ci/run does)`
  : !existsSync(join(root, "dist", "cli.js"))
    ? "dist/cli.js is not built (npm run build)"
    : false;

test("the frameworks agree with Precision Lens on every config, or the difference is documented", { skip, timeout: 30 * 60_000 }, () => {
  const r = spawnSync(python, [join(root, "oracle", "run.py")], { cwd: root, encoding: "utf8", env: { ...process.env, ORACLE_VENV: venv }, maxBuffer: 64 << 20 });
  process.stdout.write(r.stdout.slice(-20000));
  process.stderr.write(r.stderr.slice(-8000));
  assert.equal(r.status, 0, "oracle/run.py found undocumented disagreements (or failed): see oracle/out/agreement.md");
  const report = JSON.parse(readFileSync(join(root, "oracle", "out", "agreement.json"), "utf8"));
  const corpus = process.env.PL_CORPUS ?? join(root, "..", "shared", "corpus");
  if (existsSync(corpus)) assert.ok(report.configs >= 150, `only ${report.configs} configs checked`);
  else console.log(`# no corpus at ${corpus}: only examples/ and test/fixtures/ were checked (${report.configs} configs)`);
  assert.equal(report.totals.undocumented, 0);
  assert.deepEqual(report.unused_documented, [], "documented differences no claim needs any more: remove them from oracle/known_differences.json");
  // torchtitan 0.3.0 registries (issue #30 §6): the run scripts' flags of oracle/fixtures/titan3/flags/ go through tyro.
  if (report.kinds["titan3.dims"]) assert.ok(report.kinds["titan3.flags"]?.checked >= 6, `titan3.flags: ${JSON.stringify(report.kinds["titan3.flags"])}`);
  // NeMo AutoModel (issue #35): the corner cases in oracle/automodel/ are always checked when 0.7.0 installed.
  if (report.installs.some((i) => i.name === "nemo_automodel" && i.status === "installed")) {
    assert.ok((report.frameworks.automodel ?? 0) >= 17, `automodel configs: ${report.frameworks.automodel}`);
    for (const k of ["automodel.storage", "automodel.compute", "automodel.reduce", "automodel.no-master-copy", "automodel.storage.refused"]) assert.ok(report.kinds[k]?.checked > 0, k);
  }
});

// What each torchtitan release registers (models, flavors, modules, model-built dtypes) is generated from the
// installed releases (scripts/titan-releases.py, issue #32): the committed data file must be what they say.
test("releases.data.ts is what scripts/titan-releases.py reads from the installed torchtitan releases", { skip: existsSync(python) ? false : skip, timeout: 10 * 60_000 }, () => {
  const r = spawnSync(python, [join(root, "scripts", "titan-releases.py"), "--check"], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr.slice(-3000)}: rerun .oracle-venv/bin/python scripts/titan-releases.py`);
  assert.match(r.stdout, /matches the installed releases/);
});

// `run.py --files DIR`: anyone's folder of configs, with per-file arguments in a sidecar (issue #32 §5). The
// two DeepSpeed files: one with a key DeepSpeedFP16Config forbids (the product's unknown-precision-key and
// DeepSpeedConfig's ValidationError must agree), one accepted at the sidecar's world size 4 (at the default
// world size 1 its batch trio 32 = 2 × 4 × W would fail, so the claim shows the sidecar was read).
test("oracle/run.py --files DIR checks a folder of one's own configs, with a sidecar's arguments", { skip, timeout: 10 * 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "pl-oracle-files-"));
  const out = mkdtempSync(join(tmpdir(), "pl-oracle-out-"));
  writeFileSync(join(dir, "bad_fp16.json"), '{"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 2}, "fp16": {"enabled": true, "opt_level": "O2"}}\n');
  writeFileSync(join(dir, "good.json"), '{"train_batch_size": 32, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4, "zero_optimization": {"stage": 2}, "bf16": {"enabled": true}, "communication_data_type": "fp32"}\n');
  writeFileSync(join(dir, "good.json.precision-lens"), "precision-lens: world-size=4\n");
  const r = spawnSync(python, [join(root, "oracle", "run.py"), "--files", dir, "--only", "deepspeed", "--out", out], { cwd: root, encoding: "utf8", env: { ...process.env, ORACLE_VENV: venv } });
  assert.equal(r.status, 0, r.stderr.slice(-3000));
  const report = JSON.parse(readFileSync(join(out, "agreement.json"), "utf8"));
  assert.equal(report.configs, 2);
  const load = Object.fromEntries(report.claims.filter((c) => c.kind === "ds.load").map((c) => [c.path.split("/").pop(), c]));
  assert.deepEqual(load["bad_fp16.json"].product, ["deepspeed/unknown-precision-key"]);
  assert.match(load["bad_fp16.json"].oracle, /ValidationError.*DeepSpeedFP16Config/);
  assert.equal(load["bad_fp16.json"].agree, true);
  assert.equal(load["good.json"].oracle, "accepts");
  assert.equal(load["good.json"].note, "world size 4");
  assert.equal(report.totals.undocumented, 0);
});

// Megatron-LM and verl (issue #35): the corner-case launch scripts of oracle/cases/ against megatron-core's own
// config dataclasses and parallel_state on a fake process group, and verl's Hydra composition, validate_config and
// FSDPEngine's MixedPrecision. Skipped, with the reason, where setup.sh could not install them.
const targetsSkip = skip || (!existsSync(join(venv, "megatron", "0.16.1", "megatron")) || !existsSync(join(venv, "verl", "0.9.1", "verl")) ? "megatron-core / verl are not installed in the oracle environment (oracle/requirements-targets.txt)" : false);
test("megatron-core and verl agree with Precision Lens on the oracle's corner-case launch scripts", { skip: targetsSkip, timeout: 10 * 60_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), "pl-oracle-rl-"));
  const r = spawnSync(python, [join(root, "oracle", "run.py"), "--files", join(root, "oracle", "cases"), "--only", "megatron,verl", "--out", out], { cwd: root, encoding: "utf8", env: { ...process.env, ORACLE_VENV: venv } });
  assert.equal(r.status, 0, `${r.stdout.slice(-3000)}${r.stderr.slice(-3000)}`);
  const report = JSON.parse(readFileSync(join(out, "agreement.json"), "utf8"));
  assert.deepEqual(report.frameworks, { megatron: 20, verl: 14 });
  assert.equal(report.totals.undocumented, 0);
  const at = (kind, name) => report.claims.find((c) => c.kind === kind && c.path.endsWith(`/${name}`));
  // a launch failure each side names: --bf16 with --fp16 (TransformerConfig), TP not dividing the world (parallel_state)
  assert.deepEqual(at("mcore.launch", "bf16_and_fp16.sh").product, ["megatron/bf16-and-fp16"]);
  assert.match(at("mcore.launch", "bf16_and_fp16.sh").oracle, /^TransformerConfig: ValueError: Only one of/);
  assert.match(at("mcore.launch", "tp_not_dividing_world.sh").oracle, /world_size \(6\) is not divisible by 4/);
  assert.match(at("mcore.launch", "heads_not_divisible_by_tp.sh").oracle, /num_attention_heads \(12\) must be a multiple/);
  assert.deepEqual(at("mcore.parallel", "bf16_tp4_pp2.sh").oracle, { tp: 4, pp: 2, cp: 1, ep: 1, dp_replicate: 2 });
  // verl: bf16 resident weights (PrecisionType.to_dtype), the MixedPrecision FSDPEngine builds, Hydra refusing a key without +
  assert.equal(at("verl.actor.storage", "bf16_model_dtype_adamw.sh").product, "bfloat16");
  assert.match(at("verl.actor.storage", "bf16_model_dtype_adamw.sh").oracle, /^bfloat16 /);
  assert.match(at("verl.actor.reduce", "mixed_precision_reduce_bf16.sh").oracle, /^bfloat16 /);
  assert.deepEqual(at("verl.launch", "mixed_precision_without_plus.sh").product, ["verl/mixed-precision-needs-plus"]);
  assert.match(at("verl.launch", "mixed_precision_without_plus.sh").oracle, /Could not override/);
  assert.match(at("verl.launch", "unknown_model_dtype.sh").oracle, /unexpected precision: bfloat/);
});

// Mutation testing, CI's subset (the whole set: `npm run test:oracle:mutants`): `mutants.py --ci` runs the
// unmutated product first (it must agree everywhere), then one mutant of each kind that CI can afford: a launch
// error dropped, a dtype flipped (DeepSpeed and torchtitan's FSDP reduce dtype, read from the FSDPModule that
// torchtitan's own parallelize_llama returns), a mechanism swapped, the world size off by a factor. Each must
// make the oracle fail (issue #32 §3).
test("the oracle catches product mutants (CI subset: mutants.py --ci)", { skip, timeout: 30 * 60_000 }, () => {
  const r = spawnSync(python, [join(root, "oracle", "mutants.py"), "--ci"], { cwd: root, encoding: "utf8", env: { ...process.env, ORACLE_VENV: venv } });
  process.stdout.write(r.stdout.slice(-4000));
  assert.equal(r.status, 0, `a mutant survived, or the baseline disagreed: ${r.stdout.slice(-2000)}${r.stderr.slice(-2000)}`);
  const res = JSON.parse(readFileSync(join(root, "oracle", "out", "mutants.json"), "utf8"));
  assert.deepEqual(res.mutants.map((m) => [m.name, m.status]), [
    ["ds-compute-flip", "caught"],
    ["ds-error-dropped-unknown-precision-key", "caught"],
    ["pl-litgpt-ddp-as-fsdp", "caught"],
    ["titan-reduce-bf16", "caught"],
    ["titan-world-size-directive-x2", "caught"],
    ["am-reduce-follows-param", "caught"],
  ]);
  const reduce = res.mutants.find((m) => m.name === "titan-reduce-bf16");
  assert.ok(reduce.by.some((b) => b.startsWith("titan.reduce titan_fsdp_bf16.toml")), reduce.by.join(", "));
});

// The transformers family (issue #31 §4), run only when asked (`run.py --only transformers`): its corner cases
// in oracle/hf/ (each pin set's folder pins it) and, where the corpus is present, the corpus's TrainingArguments
// / TRL / LLaMA-Factory files, each at the pin set holding the versions the product read for it. The full set
// (with the corpus) is at least 100 files; without the corpus only oracle/hf/ runs (CI's subset).
test("transformers / TRL: the frameworks' parsers, __post_init__ and DeepSpeed fill agree with Precision Lens", { skip, timeout: 20 * 60_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), "pl-oracle-hf-"));
  const r = spawnSync(python, [join(root, "oracle", "run.py"), "--only", "transformers", "--out", out], { cwd: root, encoding: "utf8", env: { ...process.env, ORACLE_VENV: venv }, maxBuffer: 64 << 20 });
  process.stdout.write(r.stdout.slice(-6000));
  assert.equal(r.status, 0, `undocumented disagreements (or a failure): ${r.stdout.slice(-3000)}${r.stderr.slice(-3000)}`);
  const report = JSON.parse(readFileSync(join(out, "agreement.json"), "utf8"));
  const corpus = process.env.PL_CORPUS ?? join(root, "..", "shared", "corpus");
  if (!existsSync(join(venv, "hf", "t5.24", "transformers"))) return void console.log("# the transformers pin sets are not installed (bash oracle/setup.sh): every file is not compared");
  assert.ok(report.configs >= (existsSync(corpus) ? 100 : 40), `only ${report.configs} transformers-family files checked`);
  assert.equal(report.totals.undocumented, 0);
  const claim = (kind, path, set) => report.claims.find((c) => c.kind === kind && c.path === path && c.version.startsWith(set));
  // the Trainer's DeepSpeed mismatch ValueError (gradient_accumulation_steps 32 vs 8), raised by trainer_config_finalize
  const gas = claim("hf.launch", "oracle/hf/t5.24/trainer/ds_gas_mismatch.yaml", "t5.24");
  assert.deepEqual(gas.product, ["transformers/deepspeed-value-mismatch"]);
  assert.match(gas.oracle, /^ValueError: Please correct the following DeepSpeed config values that mismatch/);
  // evaluation_strategy: HfArgumentParser rejects it at 4.52.3 and 5.24.0, and the product names it
  const ev = claim("hf.keys", "oracle/hf/t4.52/trainer/evaluation_strategy.yaml", "t4.52");
  assert.deepEqual([ev.oracle, ev.agree], [["evaluation_strategy"], true]);
  // a DeepSpeed JSON without a bf16 block, bf16: true: accelerate's set_mixed_precision inserts it
  const fill = claim("hf.ds.compute", "oracle/hf/t4.52/trainer/ds_no_bf16_block.yaml", "t4.52");
  assert.deepEqual([fill.product, fill.oracle], ["bfloat16", "bfloat16"]);
  // fsdp: hybrid_shard raises with FSDP2, the default at 5.24.0, not at 4.52.3
  assert.deepEqual(claim("hf.launch", "oracle/hf/t5.24/trainer/fsdp_hybrid_shard.yaml", "t5.24").product, ["transformers/fsdp1-strategy-with-fsdp2"]);
  assert.equal(claim("hf.launch", "oracle/hf/t4.52/trainer/fsdp_hybrid_shard.yaml", "t4.52").oracle, "launches");
  // `eval_strategy: no` is False to PyYAML: IntervalStrategy(False) raises at both sets; a quoted "no" launches
  for (const set of ["t4.52", "t5.24"]) {
    const no = claim("hf.launch", `oracle/hf/${set}/trainer/eval_strategy_bare_no.yaml`, set);
    assert.deepEqual([no.product, no.agree], [["transformers/boolean-enum-value"], true]);
    assert.match(no.oracle, /^ValueError: False is not a valid IntervalStrategy/);
    assert.equal(claim("hf.launch", `oracle/hf/${set}/trainer/eval_strategy_quoted_no.yaml`, set).oracle, "launches");
  }
  // GRPO: 16 × 8 processes × 4 is no multiple of 14 (raises), × 7 is (launches); 64 % (8 × 16) raises from TRL 0.20.0 only
  assert.match(claim("hf.launch", "oracle/hf/t5.24/grpo/ng14_ws8.yaml", "t5.24").oracle, /generation_batch_size \(512\) must be divisible by num_generations \(14\)/);
  assert.equal(claim("hf.launch", "oracle/hf/t5.24/grpo/ng14_ws7.yaml", "t5.24").oracle, "launches");
  assert.deepEqual(claim("hf.launch", "oracle/hf/t5.24/grpo/gbs64_ws16.yaml", "t5.24").product, ["transformers/grpo-generation-batch"]);
  assert.equal(claim("hf.launch", "oracle/hf/t4.52/grpo/gbs64_ws16.yaml", "t4.52").oracle, "launches");
  // nothing pinned: the newest releases reject these keys, and the product names each (as a warning)
  for (const [path, key] of [["trainer/overwrite_output_dir.yaml", "overwrite_output_dir"], ["trainer/warmup_ratio.yaml", "warmup_ratio"], ["sft/torch_dtype.yaml", "torch_dtype"]]) {
    const k = claim("hf.keys", `oracle/hf/unpinned/${path}`, "t5.24");
    assert.deepEqual([k.oracle, k.product, k.agree], [[key], `names ${key}`, true]);
  }
  // the project-dataclass case: HfArgumentParser((CustomArgs, TrainingArguments)) built by the fixture's own
  // train.py accepts the project's keys, and the product does not call them unknown; a typo is rejected and named
  const pd = "oracle/cases/hf/project_dataclass/";
  assert.deepEqual([claim("hf.launch", `${pd}config_bf16.yaml`, "t5.24").product, claim("hf.launch", `${pd}config_bf16.yaml`, "t5.24").oracle], ["launches", "launches"]);
  assert.deepEqual(claim("hf.keys", `${pd}config_typo.yaml`, "t5.24").oracle, ["data_pth"]);
  // LLaMA-Factory (issue #31 §4): its own get_train_args, patch_config and init_adapter at the lf0.9.5 set
  if (!existsSync(join(venv, "hf", "lf0.9.5", "llamafactory"))) return void console.log("# the lf0.9.5 pin set is not installed (bash oracle/setup.sh): LLaMA-Factory files are not compared");
  const lf = "oracle/cases/hf/lf0.9.5/";
  const quant = claim("lf.launch", `${lf}quantization_full.yaml`, "lf0.9.5");
  assert.deepEqual(quant.product, ["transformers/llamafactory-rejected-args"]);
  assert.match(quant.oracle, /^ValueError: Quantization is only compatible with the LoRA or OFT method/);
  assert.deepEqual(claim("lf.launch", `${lf}pure_bf16_zero3.yaml`, "lf0.9.5").product, ["transformers/pure-bf16-zero3"]);
  // pure_bf16 alone: no autocast, bf16 parameters (no upcast); LoRA under bf16: fp32 adapters, bf16 autocast
  const pure = claim("lf.amp", `${lf}pure_bf16_full.yaml`, "lf0.9.5");
  assert.deepEqual([pure.product, pure.oracle], ["no autocast", "no autocast"]);
  assert.deepEqual([claim("lf.storage", `${lf}pure_bf16_full.yaml`, "lf0.9.5").oracle, claim("lf.storage", `${lf}bf16_lora.yaml`, "lf0.9.5").oracle], ["bfloat16", "float32"]);
  assert.deepEqual(claim("lf.keys", `${lf}unknown_key.yaml`, "lf0.9.5").oracle, ["lora_rnk"]);
});
