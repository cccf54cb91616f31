/**
 * The real configs in ../shared/corpus (read-only, never copied here) produce exactly the diagnostics the spec
 * predicts for them, and no others. Skips with a message when the corpus is absent (a fresh clone).
 *
 * Predicted by the spec (other-frameworks.md): TT3 on every bf16 training recipe (Warning where lr < 1e-5),
 * TT10 on the CPU-offload recipes with `fused: False` (§1.6 70B_full), TT11 on 405B_qlora.yaml's dead
 * `fsdp: cpu_offload` (§1.6), AC2 on invalid_keys.yaml (§2.7), AC1 on the SageMaker file's bare `NO`,
 * AC5 on the FSDP configs, AX4 on full fine-tunes in bf16, AX7 on the legacy `fsdp:` lists and prefixed keys
 * (§4.5), DS6 on DeepSpeed files with a 16-bit mode and no `communication_data_type`.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
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
  "accelerate/examples/alst_ulysses_sequence_parallelism/sp-alst.ds-config.json": ["deepspeed/DS6@3"],
  "accelerate/examples/config_yaml_templates/fsdp.yaml": ["accelerate/AC5@4"],
  "accelerate/examples/deepspeed_config_templates/zero_stage1_config.json": ["deepspeed/DS6@3"],
  "accelerate/examples/deepspeed_config_templates/zero_stage2_config.json": ["deepspeed/DS6@3"],
  "accelerate/examples/deepspeed_config_templates/zero_stage2_offload_config.json": ["deepspeed/DS6@3"],
  "accelerate/examples/deepspeed_config_templates/zero_stage3_config.json": ["deepspeed/DS6@3"],
  "accelerate/examples/deepspeed_config_templates/zero_stage3_offload_config.json": ["deepspeed/DS6@3"],
  "accelerate/examples/slurm/fsdp_config.yaml": ["accelerate/AC5@1"],
  "accelerate/examples/torch_native_parallelism/configs/cp.yaml": ["accelerate/AC5@16"],
  "accelerate/examples/torch_native_parallelism/configs/tp_hsdp.yaml": ["accelerate/AC5@16"],
  // distributed_type: NO is a YAML boolean, which accelerate does not convert and launches as one process
  // (config_args.py L169-173, launch.py L1222-1240 at 16cb6eb; issue #17 §5): no finding.
  "accelerate/tests/test_configs/0_30_0_sagemaker.yaml": [],
  "accelerate/tests/test_configs/invalid_keys.yaml": ["accelerate/AC2@14", "accelerate/AC2@15"],
  "accelerate/tests/test_configs/latest_fsdp.yaml": ["accelerate/AC5@21"],
  // accelerate's own launch test: the deepspeed_config (`deepspeed_config_file: path/to/be/ignored`) and fsdp_config
  // sections under distributed_type NO are ignored by `accelerate launch` (AC14; launch.py:1214-1239@v1.14.0).
  "accelerate/tests/test_configs/validate_launch_cmd.yaml": ["accelerate/AC14@5", "accelerate/AC14@7"],
  "accelerate/tests/tp/fsdp2_tp_preparation_config.yaml": ["accelerate/AC5@10"],
  "axolotl/deepspeed_configs/zero3_bf16.json": ["deepspeed/DS6@15"],
  "axolotl/deepspeed_configs/zero3_bf16_cpuoffload_all.json": ["deepspeed/DS6@25"],
  "axolotl/deepspeed_configs/zero3_bf16_cpuoffload_params.json": ["deepspeed/DS6@21"],
  "axolotl/examples/distributed-parallel/llama-3_1-8b-hsdp-tp.yaml": ["axolotl/AX4@41"],
  "axolotl/examples/distributed-parallel/qwen3-8b-fsdp-tp-cp.yaml": ["axolotl/AX4@38"],
  "axolotl/examples/jamba/qlora_fsdp_large.yaml": ["axolotl/AX7@53", "axolotl/AX7@56"],
  "axolotl/examples/llama-2/fft_optimized.yml": ["axolotl/AX4@39"],
  "axolotl/examples/llama-2/lisa.yml": ["axolotl/AX4@43"],
  "axolotl/examples/llama-2/qlora-fsdp.yml": ["axolotl/AX7@57", "axolotl/AX7@60"],
  "axolotl/examples/llama-3/3b-qat-fsdp2.yaml": ["axolotl/AX4@51", "axolotl/AX7@61", "axolotl/AX7@65"],
  "axolotl/examples/llama-3/3b-qat-mxfp4.yaml": ["axolotl/AX4@51"],
  "axolotl/examples/llama-3/3b-qat-nvfp4.yaml": ["axolotl/AX4@50"],
  "axolotl/examples/llama-3/fft-8b-liger-fsdp.yaml": ["axolotl/AX7@58", "axolotl/AX7@61"],
  "axolotl/examples/llama-3/fft-8b.yaml": ["axolotl/AX4@29"],
  "axolotl/examples/llama-3/qlora-1b-gdpo.yaml": ["axolotl/AX4@52"],
  "axolotl/examples/llama-3/qlora-fsdp-405b.yaml": ["axolotl/AX7@47", "axolotl/AX7@50"],
  "axolotl/examples/llama-3/qlora-fsdp-70b.yaml": ["axolotl/AX7@57", "axolotl/AX7@60"],
  "axolotl/examples/llama-3/sparse-finetuning.yaml": ["axolotl/AX4@37"],
  "deepspeed/tests/model/Megatron_GPT2/ds_config_func_bs4_zero2_offload.json": ["deepspeed/DS6@14"],
  "deepspeed/tests/model/Megatron_GPT2/ds_config_func_bs8_no_zero.json": ["deepspeed/DS6@10"],
  "deepspeed/tests/model/Megatron_GPT2/ds_config_func_bs8_zero2.json": ["deepspeed/DS6@13"],
  "deepspeed/tests/torch_compile/ds_config_z3.json": ["deepspeed/DS6@27"],
  "torchtune/recipes/configs/gemma2/27B_full.yaml": ["torchtune/TT3@79"],
  "torchtune/recipes/configs/gemma2/27B_lora.yaml": ["torchtune/TT3@90"],
  "torchtune/recipes/configs/gemma2/27B_lora_single_device.yaml": ["torchtune/TT3@81"],
  "torchtune/recipes/configs/gemma2/27B_qlora_single_device.yaml": ["torchtune/TT3@81"],
  "torchtune/recipes/configs/gemma2/2B_full.yaml": ["torchtune/TT3@81"],
  "torchtune/recipes/configs/gemma2/2B_lora.yaml": ["torchtune/TT3@92"],
  "torchtune/recipes/configs/gemma2/2B_lora_single_device.yaml": ["torchtune/TT3@83"],
  "torchtune/recipes/configs/gemma2/2B_qlora_single_device.yaml": ["torchtune/TT3@83"],
  "torchtune/recipes/configs/gemma2/9B_full.yaml": ["torchtune/TT3@79"],
  "torchtune/recipes/configs/gemma2/9B_lora.yaml": ["torchtune/TT3@90"],
  "torchtune/recipes/configs/gemma2/9B_lora_single_device.yaml": ["torchtune/TT3@81"],
  "torchtune/recipes/configs/gemma2/9B_qlora_single_device.yaml": ["torchtune/TT3@81"],
  "torchtune/recipes/configs/llama3_1/405B_qlora.yaml": ["torchtune/TT11@73", "torchtune/TT3@93"],
  "torchtune/recipes/configs/llama3_1/70B_full.yaml": ["torchtune/TT10@86", "torchtune/TT3@92"],
  "torchtune/recipes/configs/llama3_1/70B_lora.yaml": ["torchtune/TT3@86"],
  "torchtune/recipes/configs/llama3_1/8B_full.yaml": ["torchtune/TT3@87"],
  "torchtune/recipes/configs/llama3_1/8B_full_dpo.yaml": ["torchtune/TT3@95"],
  "torchtune/recipes/configs/llama3_1/8B_full_single_device.yaml": ["torchtune/TT3@78"],
  "torchtune/recipes/configs/llama3_1/8B_lora.yaml": ["torchtune/TT3@99"],
  "torchtune/recipes/configs/llama3_1/8B_lora_dpo.yaml": ["torchtune/TT3@90"],
  "torchtune/recipes/configs/llama3_1/8B_lora_dpo_single_device.yaml": ["torchtune/TT3@87"],
  "torchtune/recipes/configs/llama3_1/8B_lora_single_device.yaml": ["torchtune/TT3@90"],
  "torchtune/recipes/configs/llama3_1/8B_qat_full.yaml": ["torchtune/TT3@87"],
  "torchtune/recipes/configs/llama3_1/8B_qat_lora.yaml": ["torchtune/TT3@87"],
  "torchtune/recipes/configs/llama3_1/8B_qlora_single_device.yaml": ["torchtune/TT3@89"],
  "torchtune/recipes/configs/llama3_3/70B_full.yaml": ["torchtune/TT10@86", "torchtune/TT3@92"],
  "torchtune/recipes/configs/llama3_3/70B_full_multinode.yaml": ["torchtune/TT3@84"],
  "torchtune/recipes/configs/llama3_3/70B_lora.yaml": ["torchtune/TT3@86"],
  "torchtune/recipes/configs/llama3_3/70B_qlora.yaml": ["torchtune/TT3@86"],
  "torchtune/recipes/configs/llama4/maverick_17B_128E_full.yaml": ["torchtune/TT10@78", "torchtune/TT3@82"],
  "torchtune/recipes/configs/llama4/scout_17B_16E_full.yaml": ["torchtune/TT10@79", "torchtune/TT3@91"],
  "torchtune/recipes/configs/llama4/scout_17B_16E_lora.yaml": ["torchtune/TT3@91"],
  "torchtune/recipes/configs/mistral/7B_full.yaml": ["torchtune/TT3@86"],
  "torchtune/recipes/configs/mistral/7B_full_low_memory.yaml": ["torchtune/TT3@77"],
  "torchtune/recipes/configs/mistral/7B_full_ppo_low_memory.yaml": ["torchtune/TT3@145"],
  "torchtune/recipes/configs/mistral/7B_lora.yaml": ["torchtune/TT3@99"],
  "torchtune/recipes/configs/mistral/7B_lora_single_device.yaml": ["torchtune/TT3@88"],
  "torchtune/recipes/configs/mistral/7B_qlora_single_device.yaml": ["torchtune/TT3@89"],
  "torchtune/recipes/configs/phi3/mini_full.yaml": ["torchtune/TT3@81"],
  "torchtune/recipes/configs/phi3/mini_full_low_memory.yaml": ["torchtune/TT3@74"],
  "torchtune/recipes/configs/phi3/mini_lora.yaml": ["torchtune/TT3@91"],
  "torchtune/recipes/configs/phi3/mini_lora_single_device.yaml": ["torchtune/TT3@83"],
  "torchtune/recipes/configs/phi3/mini_qlora_single_device.yaml": ["torchtune/TT3@83"],
  "torchtune/recipes/configs/qwen2_5/0.5B_full.yaml": ["torchtune/TT3@73"],
  "torchtune/recipes/configs/qwen2_5/0.5B_full_single_device.yaml": ["torchtune/TT3@65"],
  "torchtune/recipes/configs/qwen2_5/0.5B_lora.yaml": ["torchtune/TT3@81"],
  "torchtune/recipes/configs/qwen2_5/0.5B_lora_single_device.yaml": ["torchtune/TT3@73"],
  "torchtune/recipes/configs/qwen2_5/1.5B_full.yaml": ["torchtune/TT3@73"],
  "torchtune/recipes/configs/qwen2_5/1.5B_full_single_device.yaml": ["torchtune/TT3@68"],
  "torchtune/recipes/configs/qwen2_5/1.5B_lora.yaml": ["torchtune/TT3@80"],
  "torchtune/recipes/configs/qwen2_5/1.5B_lora_single_device.yaml": ["torchtune/TT3@72"],
  "torchtune/recipes/configs/qwen2_5/1.5B_qat_single_device.yaml": ["torchtune/TT3@78"],
  "torchtune/recipes/configs/qwen2_5/14B_lora_single_device.yaml": ["torchtune/TT3@86"],
  "torchtune/recipes/configs/qwen2_5/14B_to_7B_KD_lora_single_device.yaml": ["torchtune/TT3@106"],
  "torchtune/recipes/configs/qwen2_5/32B_lora.yaml": ["torchtune/TT3@92"],
  "torchtune/recipes/configs/qwen2_5/3B_full.yaml": ["torchtune/TT3@83"],
  "torchtune/recipes/configs/qwen2_5/3B_full_single_device.yaml": ["torchtune/TT3@76"],
  "torchtune/recipes/configs/qwen2_5/3B_lora.yaml": ["torchtune/TT3@95"],
  "torchtune/recipes/configs/qwen2_5/3B_lora_single_device.yaml": ["torchtune/TT3@86"],
  "torchtune/recipes/configs/qwen2_5/3B_qat_single_device.yaml": ["torchtune/TT3@81"],
  "torchtune/recipes/configs/qwen2_5/72B_lora.yaml": ["torchtune/TT3@92"],
  "torchtune/recipes/configs/qwen2_5/7B_full.yaml": ["torchtune/TT3@85"],
  "torchtune/recipes/configs/qwen2_5/7B_full_single_device.yaml": ["torchtune/TT3@78"],
  "torchtune/recipes/configs/qwen2_5/7B_lora.yaml": ["torchtune/TT3@98"],
  "torchtune/recipes/configs/qwen2_5/7B_lora_single_device.yaml": ["torchtune/TT3@89"],
};

/** Real, read-only file access, rooted at the config's folder (the CLI's environment). */
function env(path: string): AnalysisEnv {
  return nodeEnv(path, []);
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

  it("405B_qlora.yaml: the dead `fsdp: cpu_offload` key is TT11, and its fix moves it to the top level", () => {
    const f = join(CORPUS, "torchtune/recipes/configs/llama3_1/405B_qlora.yaml");
    if (!existsSync(f)) return;
    const r = analyzeDocument(`file://${f}`, readFileSync(f, "utf8"), {}, env(f));
    const d = r.diagnostics.find((x) => x.code === "torchtune/TT11");
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
