/** Detection by content (spec other-frameworks.md §6): never by claiming every .yaml/.json file. */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import type { AnalysisEnv } from "../server/src/core/analysis";
import { analyzeDocument } from "../server/src/core/analyze";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { FRAMEWORKS } from "../server/src/core/frameworks/index";

const EXAMPLES = resolve(__dirname, "..", "examples", "yaml");

/** Real, read-only file access, rooted at the config's folder (the CLI's environment). */
function diskEnv(path: string): AnalysisEnv {
  return nodeEnv(path, []);
}

const analyzeExample = (rel: string) => {
  const p = join(EXAMPLES, rel);
  return analyzeDocument(`file://${p}`, readFileSync(p, "utf8"), {}, diskEnv(p));
};

describe("framework detection", () => {
  it("registers the analysers in the spec's order, torchtitan first", () => {
    assert.deepEqual(
      FRAMEWORKS.map((f) => `${f.id}:${f.formats.join("/")}`),
      ["torchtitan:toml", "torchtitan:python", "deepspeed:json/yaml", "verl:shell/yaml", "megatron:shell", "automodel:yaml", "accelerate:yaml", "torchtune:yaml", "axolotl:yaml", "lightning:yaml", "transformers:yaml/json"],
    );
  });

  for (const f of readdirSync(join(EXAMPLES, "unrelated"))) {
    it(`unrelated YAML gets nothing: ${f}`, () => {
      const r = analyzeExample(`unrelated/${f}`);
      assert.equal(r.framework, null);
      assert.equal(r.frameworkReason, "no training-config markers found");
      assert.deepEqual(r.diagnostics, []);
      assert.deepEqual(r.hovers, []);
    });
  }

  const expected: Record<string, string> = {
    "torchtune/llama3_8b_full_bf16.yaml": "torchtune",
    "torchtune/broken_offload.yaml": "torchtune",
    "accelerate/fsdp2_bf16.yaml": "accelerate",
    "accelerate/yaml11_pitfalls.yaml": "accelerate",
    "accelerate/deepspeed_conflict.yaml": "accelerate",
    "deepspeed/zero2_fp16.json": "deepspeed",
    "deepspeed/zero3_bf16_accum.json": "deepspeed",
    "deepspeed/auto_for_trainer.json": "deepspeed",
    "lightning/cli_fsdp.yaml": "lightning",
    "lightning/hydra_trainer_bf16_true.yaml": "lightning",
    "lightning/litgpt_full.yaml": "lightning",
    "axolotl/fft_fsdp2.yaml": "axolotl",
    "axolotl/lora_deepspeed.yaml": "axolotl",
  };
  for (const [rel, fw] of Object.entries(expected)) {
    it(`examples/yaml/${rel} is ${fw}, with a reason and a hover`, () => {
      const r = analyzeExample(rel);
      assert.equal(r.framework, fw);
      assert.ok(r.frameworkReason.length > 10);
      assert.ok(r.hovers.length > 0);
      assert.ok(r.hovers.every((h) => h.markdown.includes(`Detected as`)), "the hover says what was detected and why");
      assert.ok(r.reportMarkdown);
      if (r.mechanism !== "error") assert.ok(r.precision);
    });
  }

  it("the example DeepSpeed conflict is reported on both files", () => {
    const y = analyzeExample("accelerate/deepspeed_conflict.yaml");
    const j = analyzeExample("deepspeed/zero2_fp16.json");
    assert.ok(y.diagnostics.some((d) => d.code === "deepspeed/precision-mismatch"));
    assert.ok(j.diagnostics.some((d) => d.code === "deepspeed/precision-mismatch" && /deepspeed_conflict\.yaml/.test(d.message)));
  });

  it("a framework directive overrides detection; off opts out", () => {
    const text = "# precision-lens: framework=lightning\nprecision: 16-true\n";
    const r = analyzeDocument("file:///x/t.yaml", text);
    assert.equal(r.framework, "lightning");
    assert.ok(r.diagnostics.some((d) => d.code === "lightning/fp16-true-without-loss-scaling"));
    assert.ok(r.hovers.some((h) => /framework=/.test(h.markdown)));
    const off = analyzeDocument("file:///x/t.yaml", "# precision-lens: off\ntrainer:\n  precision: 16-true\n");
    assert.equal(off.framework, null);
  });

  it("YAML that merely mentions precision words is not claimed", () => {
    for (const text of [
      "mixed_precision: bf16\nnum_processes: 8\n", // no distributed_type
      "precision: bf16-mixed\n", // no trainer, no LitGPT markers
      "base_model: x\nsequence_len: 10\n", // no datasets list
      "dtype: bf16\n",
      "trainer:\n  name: bob\n",
      '{"fp16": {"enabled": true}}',
    ]) {
      const r = analyzeDocument(text.startsWith("{") ? "file:///x/a.json" : "file:///x/a.yaml", text);
      assert.equal(r.framework, null, text);
      assert.deepEqual(r.diagnostics, [], text);
    }
  });

  it("detection reasons name the markers", () => {
    assert.match(analyzeDocument("file:///x/a.yaml", "distributed_type: FSDP\nmixed_precision: bf16\n").frameworkReason, /distributed_type/);
    assert.match(analyzeDocument("file:///x/a.json", '{"zero_optimization": {"stage": 1}}').frameworkReason, /zero_optimization/);
    assert.match(analyzeDocument("file:///x/a.yaml", "model:\n  _component_: torchtune.models.x\n").frameworkReason, /_component_/);
  });
});

describe("detection confidence: evidence for must outweigh evidence against (issue #17 §4)", () => {
  it("a TOML sharing [model]/[training]/[checkpoint] with torchtitan but whose keys no torchtitan ever had is not torchtitan", () => {
    // The shape of an RL framework's TOML (NVIDIA cosmos-rl configs): common table names, its own keys.
    const text = `[model]\nmodel_name_or_path = "x"\nmodel_max_length = 4096\n[training]\nepoch = 1\nbatch_size_per_replica = 8\nfsdp_offload = false\ngrad_accum_iters = 4\n[checkpoint]\nsave_freq = 100\nsave_mode = "async"\n[parallelism]\ndp_shard_size = 8\ntp_size = 1\n`;
    const r = analyzeDocument("file:///x/grpo.toml", text);
    assert.equal(r.framework, null);
    assert.deepEqual(r.diagnostics, []);
  });

  it("a fork's torchtitan TOML (most keys upstream's, a few its own) stays torchtitan", () => {
    const text = `[job]\ndescription = "fork"\n[model]\nname = "llama3"\nflavor = "8B"\n[training]\nlocal_batch_size = 1\nseq_len = 2048\nsteps = 10\n[parallelism]\ndata_parallel_shard_degree = -1\nprefetch_distance = 2\n[infra]\ncluster = "a"\nnodes = 2\n`;
    assert.equal(analyzeDocument("file:///x/fork.toml", text).framework, "torchtitan");
  });

  it("a NeMo 1.x layout (trainer: beside exp_manager: and model:) is not Lightning 2: not claimed", () => {
    // NeMo's Megatron YAMLs (examples/nlp/language_modeling/conf/megatron_gpt_config.yaml): precision 16/bf16 is normal on PL 1.x.
    const text = "name: megatron_gpt\ntrainer:\n  devices: 1\n  num_nodes: 1\n  accelerator: gpu\n  precision: bf16\n  logger: False\nexp_manager:\n  explicit_log_dir: null\n  exp_dir: null\nmodel:\n  micro_batch_size: 4\n  megatron_amp_O2: False\n";
    const r = analyzeDocument("file:///x/megatron_gpt_config.yaml", text);
    assert.equal(r.framework, null);
    assert.deepEqual(r.diagnostics, []);
    // The same trainer block without exp_manager is a LightningCLI config.
    assert.equal(analyzeDocument("file:///x/cli.yaml", "trainer:\n  devices: 1\n  precision: bf16\nmodel:\n  lr: 1\n").framework, "lightning");
  });
});
