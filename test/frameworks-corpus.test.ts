/**
 * The real configs in ../shared/corpus (read-only, never copied here) produce exactly the diagnostics the spec
 * predicts for them, and no others. Skips with a message when the corpus is absent (a fresh clone).
 *
 * Predicted by the spec (other-frameworks.md): pure-bf16 on every bf16 training recipe (Warning where lr < 1e-5),
 * cpu-offload-without-fused-adamw on the CPU-offload recipes with `fused: False` (§1.6 70B_full), cpu-offload-key-ignored on 405B_qlora.yaml's dead
 * `fsdp: cpu_offload` (§1.6), unknown-key on invalid_keys.yaml (§2.7), bare-no-boolean on the SageMaker file's bare `NO`,
 * low-precision-reduction on the FSDP configs, pure-bf16 on full fine-tunes in bf16, deprecated-fsdp1-syntax on the legacy `fsdp:` lists and prefixed keys
 * (§4.5), low-precision-reduction on DeepSpeed files with a 16-bit mode and no `communication_data_type`.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import type { AnalysisEnv } from "../server/src/core/analysis";
import { analyzeDocument } from "../server/src/core/analyze";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { CORPUS, listFiles, corpusSkip } from "./support/corpus";

const FOLDERS: Record<string, string[]> = {
  torchtune: ["torchtune"],
  accelerate: ["accelerate", "deepspeed"],
  axolotl: ["axolotl", "deepspeed"],
  deepspeed: ["deepspeed"],
  "lightning-hydra-template": ["lightning"],
};

/** Diagnostics per file (code@line, 1-based), for every file that has any. All other files must have none. */
const EXPECTED: Record<string, string[]> = {
  "accelerate/examples/alst_ulysses_sequence_parallelism/sp-alst.ds-config.json": ["deepspeed/low-precision-reduction@3"],
  "accelerate/examples/config_yaml_templates/fsdp.yaml": ["accelerate/low-precision-reduction@4"],
  "accelerate/examples/deepspeed_config_templates/zero_stage1_config.json": ["deepspeed/low-precision-reduction@3"],
  "accelerate/examples/deepspeed_config_templates/zero_stage2_config.json": ["deepspeed/low-precision-reduction@3"],
  "accelerate/examples/deepspeed_config_templates/zero_stage2_offload_config.json": ["deepspeed/low-precision-reduction@3"],
  "accelerate/examples/deepspeed_config_templates/zero_stage3_config.json": ["deepspeed/low-precision-reduction@3"],
  "accelerate/examples/deepspeed_config_templates/zero_stage3_offload_config.json": ["deepspeed/low-precision-reduction@3"],
  "accelerate/examples/slurm/fsdp_config.yaml": ["accelerate/low-precision-reduction@1"],
  "accelerate/examples/torch_native_parallelism/configs/cp.yaml": ["accelerate/low-precision-reduction@16"],
  "accelerate/examples/torch_native_parallelism/configs/tp_hsdp.yaml": ["accelerate/low-precision-reduction@16"],
  // distributed_type: NO is a YAML boolean, which accelerate does not convert and launches as one process
  // (config_args.py L169-173, launch.py L1222-1240 at 16cb6eb; issue #17 §5): no finding.
  "accelerate/tests/test_configs/0_30_0_sagemaker.yaml": [],
  "accelerate/tests/test_configs/invalid_keys.yaml": ["accelerate/unknown-key@14", "accelerate/unknown-key@15"],
  "accelerate/tests/test_configs/latest_fsdp.yaml": ["accelerate/low-precision-reduction@21"],
  // accelerate's own launch test: the deepspeed_config (`deepspeed_config_file: path/to/be/ignored`) and fsdp_config
  // sections under distributed_type NO are ignored by `accelerate launch` (ignored-backend-section; launch.py:1214-1239@v1.14.0).
  "accelerate/tests/test_configs/validate_launch_cmd.yaml": ["accelerate/ignored-backend-section@5", "accelerate/ignored-backend-section@7"],
  "accelerate/tests/tp/fsdp2_tp_preparation_config.yaml": ["accelerate/low-precision-reduction@10"],
  "axolotl/deepspeed_configs/zero3_bf16.json": ["deepspeed/low-precision-reduction@15"],
  "axolotl/deepspeed_configs/zero3_bf16_cpuoffload_all.json": ["deepspeed/low-precision-reduction@25"],
  "axolotl/deepspeed_configs/zero3_bf16_cpuoffload_params.json": ["deepspeed/low-precision-reduction@21"],
  "axolotl/examples/distributed-parallel/llama-3_1-8b-hsdp-tp.yaml": ["axolotl/pure-bf16@41"],
  "axolotl/examples/distributed-parallel/qwen3-8b-fsdp-tp-cp.yaml": ["axolotl/pure-bf16@38"],
  "axolotl/examples/jamba/qlora_fsdp_large.yaml": ["axolotl/deprecated-fsdp1-syntax@53", "axolotl/deprecated-fsdp1-syntax@56"],
  "axolotl/examples/llama-2/fft_optimized.yml": ["axolotl/pure-bf16@39"],
  "axolotl/examples/llama-2/lisa.yml": ["axolotl/pure-bf16@43"],
  "axolotl/examples/llama-2/qlora-fsdp.yml": ["axolotl/deprecated-fsdp1-syntax@57", "axolotl/deprecated-fsdp1-syntax@60"],
  "axolotl/examples/llama-3/3b-qat-fsdp2.yaml": ["axolotl/pure-bf16@51", "axolotl/deprecated-fsdp1-syntax@61", "axolotl/deprecated-fsdp1-syntax@65"],
  "axolotl/examples/llama-3/3b-qat-mxfp4.yaml": ["axolotl/pure-bf16@51"],
  "axolotl/examples/llama-3/3b-qat-nvfp4.yaml": ["axolotl/pure-bf16@50"],
  "axolotl/examples/llama-3/fft-8b-liger-fsdp.yaml": ["axolotl/deprecated-fsdp1-syntax@58", "axolotl/deprecated-fsdp1-syntax@61"],
  "axolotl/examples/llama-3/fft-8b.yaml": ["axolotl/pure-bf16@29"],
  "axolotl/examples/llama-3/qlora-1b-gdpo.yaml": ["axolotl/pure-bf16@52"],
  "axolotl/examples/llama-3/qlora-fsdp-405b.yaml": ["axolotl/deprecated-fsdp1-syntax@47", "axolotl/deprecated-fsdp1-syntax@50"],
  "axolotl/examples/llama-3/qlora-fsdp-70b.yaml": ["axolotl/deprecated-fsdp1-syntax@57", "axolotl/deprecated-fsdp1-syntax@60"],
  "axolotl/examples/llama-3/sparse-finetuning.yaml": ["axolotl/pure-bf16@37"],
  "deepspeed/tests/model/Megatron_GPT2/ds_config_func_bs4_zero2_offload.json": ["deepspeed/low-precision-reduction@14"],
  "deepspeed/tests/model/Megatron_GPT2/ds_config_func_bs8_no_zero.json": ["deepspeed/low-precision-reduction@10"],
  "deepspeed/tests/model/Megatron_GPT2/ds_config_func_bs8_zero2.json": ["deepspeed/low-precision-reduction@13"],
  "deepspeed/tests/torch_compile/ds_config_z3.json": ["deepspeed/low-precision-reduction@27"],
  "torchtune/recipes/configs/gemma2/27B_full.yaml": ["torchtune/pure-bf16@79"],
  "torchtune/recipes/configs/gemma2/27B_lora.yaml": ["torchtune/pure-bf16@90"],
  "torchtune/recipes/configs/gemma2/27B_lora_single_device.yaml": ["torchtune/pure-bf16@81"],
  "torchtune/recipes/configs/gemma2/27B_qlora_single_device.yaml": ["torchtune/pure-bf16@81"],
  "torchtune/recipes/configs/gemma2/2B_full.yaml": ["torchtune/pure-bf16@81"],
  "torchtune/recipes/configs/gemma2/2B_lora.yaml": ["torchtune/pure-bf16@92"],
  "torchtune/recipes/configs/gemma2/2B_lora_single_device.yaml": ["torchtune/pure-bf16@83"],
  "torchtune/recipes/configs/gemma2/2B_qlora_single_device.yaml": ["torchtune/pure-bf16@83"],
  "torchtune/recipes/configs/gemma2/9B_full.yaml": ["torchtune/pure-bf16@79"],
  "torchtune/recipes/configs/gemma2/9B_lora.yaml": ["torchtune/pure-bf16@90"],
  "torchtune/recipes/configs/gemma2/9B_lora_single_device.yaml": ["torchtune/pure-bf16@81"],
  "torchtune/recipes/configs/gemma2/9B_qlora_single_device.yaml": ["torchtune/pure-bf16@81"],
  "torchtune/recipes/configs/llama3_1/405B_qlora.yaml": ["torchtune/cpu-offload-key-ignored@73", "torchtune/pure-bf16@93"],
  "torchtune/recipes/configs/llama3_1/70B_full.yaml": ["torchtune/cpu-offload-without-fused-adamw@86", "torchtune/pure-bf16@92"],
  "torchtune/recipes/configs/llama3_1/70B_lora.yaml": ["torchtune/pure-bf16@86"],
  "torchtune/recipes/configs/llama3_1/8B_full.yaml": ["torchtune/pure-bf16@87"],
  "torchtune/recipes/configs/llama3_1/8B_full_dpo.yaml": ["torchtune/pure-bf16@95"],
  "torchtune/recipes/configs/llama3_1/8B_full_single_device.yaml": ["torchtune/pure-bf16@78"],
  "torchtune/recipes/configs/llama3_1/8B_lora.yaml": ["torchtune/pure-bf16@99"],
  "torchtune/recipes/configs/llama3_1/8B_lora_dpo.yaml": ["torchtune/pure-bf16@90"],
  "torchtune/recipes/configs/llama3_1/8B_lora_dpo_single_device.yaml": ["torchtune/pure-bf16@87"],
  "torchtune/recipes/configs/llama3_1/8B_lora_single_device.yaml": ["torchtune/pure-bf16@90"],
  "torchtune/recipes/configs/llama3_1/8B_qat_full.yaml": ["torchtune/pure-bf16@87"],
  "torchtune/recipes/configs/llama3_1/8B_qat_lora.yaml": ["torchtune/pure-bf16@87"],
  "torchtune/recipes/configs/llama3_1/8B_qlora_single_device.yaml": ["torchtune/pure-bf16@89"],
  "torchtune/recipes/configs/llama3_3/70B_full.yaml": ["torchtune/cpu-offload-without-fused-adamw@86", "torchtune/pure-bf16@92"],
  "torchtune/recipes/configs/llama3_3/70B_full_multinode.yaml": ["torchtune/pure-bf16@84"],
  "torchtune/recipes/configs/llama3_3/70B_lora.yaml": ["torchtune/pure-bf16@86"],
  "torchtune/recipes/configs/llama3_3/70B_qlora.yaml": ["torchtune/pure-bf16@86"],
  "torchtune/recipes/configs/llama4/maverick_17B_128E_full.yaml": ["torchtune/cpu-offload-without-fused-adamw@78", "torchtune/pure-bf16@82"],
  "torchtune/recipes/configs/llama4/scout_17B_16E_full.yaml": ["torchtune/cpu-offload-without-fused-adamw@79", "torchtune/pure-bf16@91"],
  "torchtune/recipes/configs/llama4/scout_17B_16E_lora.yaml": ["torchtune/pure-bf16@91"],
  "torchtune/recipes/configs/mistral/7B_full.yaml": ["torchtune/pure-bf16@86"],
  "torchtune/recipes/configs/mistral/7B_full_low_memory.yaml": ["torchtune/pure-bf16@77"],
  "torchtune/recipes/configs/mistral/7B_full_ppo_low_memory.yaml": ["torchtune/pure-bf16@145"],
  "torchtune/recipes/configs/mistral/7B_lora.yaml": ["torchtune/pure-bf16@99"],
  "torchtune/recipes/configs/mistral/7B_lora_single_device.yaml": ["torchtune/pure-bf16@88"],
  "torchtune/recipes/configs/mistral/7B_qlora_single_device.yaml": ["torchtune/pure-bf16@89"],
  "torchtune/recipes/configs/phi3/mini_full.yaml": ["torchtune/pure-bf16@81"],
  "torchtune/recipes/configs/phi3/mini_full_low_memory.yaml": ["torchtune/pure-bf16@74"],
  "torchtune/recipes/configs/phi3/mini_lora.yaml": ["torchtune/pure-bf16@91"],
  "torchtune/recipes/configs/phi3/mini_lora_single_device.yaml": ["torchtune/pure-bf16@83"],
  "torchtune/recipes/configs/phi3/mini_qlora_single_device.yaml": ["torchtune/pure-bf16@83"],
  "torchtune/recipes/configs/qwen2_5/0.5B_full.yaml": ["torchtune/pure-bf16@73"],
  "torchtune/recipes/configs/qwen2_5/0.5B_full_single_device.yaml": ["torchtune/pure-bf16@65"],
  "torchtune/recipes/configs/qwen2_5/0.5B_lora.yaml": ["torchtune/pure-bf16@81"],
  "torchtune/recipes/configs/qwen2_5/0.5B_lora_single_device.yaml": ["torchtune/pure-bf16@73"],
  "torchtune/recipes/configs/qwen2_5/1.5B_full.yaml": ["torchtune/pure-bf16@73"],
  "torchtune/recipes/configs/qwen2_5/1.5B_full_single_device.yaml": ["torchtune/pure-bf16@68"],
  "torchtune/recipes/configs/qwen2_5/1.5B_lora.yaml": ["torchtune/pure-bf16@80"],
  "torchtune/recipes/configs/qwen2_5/1.5B_lora_single_device.yaml": ["torchtune/pure-bf16@72"],
  "torchtune/recipes/configs/qwen2_5/1.5B_qat_single_device.yaml": ["torchtune/pure-bf16@78"],
  "torchtune/recipes/configs/qwen2_5/14B_lora_single_device.yaml": ["torchtune/pure-bf16@86"],
  "torchtune/recipes/configs/qwen2_5/14B_to_7B_KD_lora_single_device.yaml": ["torchtune/pure-bf16@106"],
  "torchtune/recipes/configs/qwen2_5/32B_lora.yaml": ["torchtune/pure-bf16@92"],
  "torchtune/recipes/configs/qwen2_5/3B_full.yaml": ["torchtune/pure-bf16@83"],
  "torchtune/recipes/configs/qwen2_5/3B_full_single_device.yaml": ["torchtune/pure-bf16@76"],
  "torchtune/recipes/configs/qwen2_5/3B_lora.yaml": ["torchtune/pure-bf16@95"],
  "torchtune/recipes/configs/qwen2_5/3B_lora_single_device.yaml": ["torchtune/pure-bf16@86"],
  "torchtune/recipes/configs/qwen2_5/3B_qat_single_device.yaml": ["torchtune/pure-bf16@81"],
  "torchtune/recipes/configs/qwen2_5/72B_lora.yaml": ["torchtune/pure-bf16@92"],
  "torchtune/recipes/configs/qwen2_5/7B_full.yaml": ["torchtune/pure-bf16@85"],
  "torchtune/recipes/configs/qwen2_5/7B_full_single_device.yaml": ["torchtune/pure-bf16@78"],
  "torchtune/recipes/configs/qwen2_5/7B_lora.yaml": ["torchtune/pure-bf16@98"],
  "torchtune/recipes/configs/qwen2_5/7B_lora_single_device.yaml": ["torchtune/pure-bf16@89"],
};

/** Real, read-only file access, rooted at the config's folder (the CLI's environment). */
function env(path: string): AnalysisEnv {
  // The corpus is the workspace (as `check ../shared/corpus` makes it); its own folder stays the innermost root.
  return nodeEnv(path, [CORPUS, dirname(path)]);
}

describe("real configs (../shared/corpus)", { skip: corpusSkip() }, () => {
  for (const folder of Object.keys(FOLDERS)) {
    it(`${folder}: every YAML/JSON file is detected and produces exactly the predicted diagnostics`, () => {
      const dir = join(CORPUS, folder);
      if (!existsSync(dir)) return;
      const files = listFiles(dir, [".yaml", ".yml", ".json"]);
      assert.ok(files.length > 0);
      const problems: string[] = [];
      for (const f of files) {
        const rel = f.slice(CORPUS.length + 1).replace(/\\/g, "/");
        const r = analyzeDocument(`file://${f}`, readFileSync(f, "utf8"), {}, env(f));
        if (!FOLDERS[folder]!.includes(r.framework ?? "null")) problems.push(`${rel}: framework ${r.framework} (${r.frameworkReason})`);
        const got = r.diagnostics.map((d) => `${d.code}@${d.range.start.line + 1}`);
        const want = EXPECTED[rel] ?? [];
        if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${rel}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
        if (!r.hovers.length) problems.push(`${rel}: no hover`);
      }
      assert.deepEqual(problems, []);
    });
  }

  it("405B_qlora.yaml: the dead `fsdp: cpu_offload` key is cpu-offload-key-ignored, and its fix moves it to the top level", () => {
    const f = join(CORPUS, "torchtune/recipes/configs/llama3_1/405B_qlora.yaml");
    if (!existsSync(f)) return;
    const r = analyzeDocument(`file://${f}`, readFileSync(f, "utf8"), {}, env(f));
    const d = r.diagnostics.find((x) => x.code === "torchtune/cpu-offload-key-ignored");
    assert.ok(d);
    assert.equal(d.severity, "warning");
    assert.equal(r.worldSize?.value, 8);
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
  });

  it("accelerate's deepspeed.yaml follows its DeepSpeed file and resolves ZeRO-1 fp16", () => {
    const f = join(CORPUS, "accelerate/examples/config_yaml_templates/deepspeed.yaml");
    if (!existsSync(f)) return;
    const r = analyzeDocument(`file://${f}`, readFileSync(f, "utf8"), {}, env(f));
    assert.equal(r.layoutName, "DeepSpeed ZeRO-1");
    assert.equal(r.precision?.compute.dtype, "float16");
    assert.equal(r.precision?.paramStorage.dtype, "float32");
  });
});
