/**
 * Real configs from other projects (../shared/corpus/wild, read-only, never copied here; SOURCES.md there
 * names each file's repository and commit): every YAML/JSON file of the accelerate, axolotl, deepspeed,
 * lightning and torchtune folders, and the YAML/JSON decoys, gets exactly the diagnostics pinned below
 * (code, 1-based line, severity, a part of the message) and the resolved precision headline. Skips with a
 * message when the folder is absent.
 *
 * Every diagnostic is justified by the framework's source, cited as file:line at a tag:
 *   accelerate v1.14.0, axolotl v0.18.0, DeepSpeed v0.19.5, Lightning 2.6.5, LitGPT v0.5.13,
 *   torchtune v0.6.1 (and bd2a0fc = version.txt 0.7.0 for the newest).
 * Files without diagnostics are pinned as such: that is the point for the decoys and for the files where
 * an earlier version cried wolf (gpt-neox YAML undetected, bf16_full.json read as fp32 autocast, Jinja
 * templates reported as syntax errors, LitGPT multi-GPU read as DDP, TT5 asserted without a version).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { headline } from "../server/src/core/features/index";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { CORPUS, corpusSkip } from "./support/corpus";

const WILD = join(CORPUS, "wild");
const FOLDERS = ["accelerate", "axolotl", "deepspeed", "lightning", "torchtune", "decoys"];

interface Expected {
  framework: string | null;
  headline: string | null;
  /** [parameter storage, compute, gradient reduction]; null entries are "none"/"set by the launcher". */
  precision: [string | null, string | null, string | null] | null;
  /** "severity code@line: message part". */
  diagnostics: string[];
}

// accelerate v1.14.0 utils/dataclasses.py:2117: the FSDP policy is param_dtype = reduce_dtype = the
// mixed-precision dtype; utils/fsdp_utils.py:708-714: FSDP2 upcasts trainable parameters to fp32. Hence AC5.
const AC5_BF16 = "FSDP1 with mixed_precision bf16: fp32 master weights, bf16 compute, bf16 gradient reduction";
const AC5_FSDP2 = "FSDP2 with mixed_precision bf16: fp32 master weights, bf16 compute, bf16 gradient reduction";
// torchtune v0.6.1 recipes/full_finetune_distributed.py:129,539 (get_dtype, then the model is built under
// set_default_dtype): no autocast, no fp32 master copy; training/_distributed.py:559,568 fully_shard without
// a mixed-precision policy, so the reduction is bf16 too. TT3 is information, a warning when lr < 1e-5.
const TT3 = "`dtype: bf16` is pure bf16: weights, gradients, optimizer states and the reduction are bf16, no fp32 master copy";
const TT3_LR = "`dtype: bf16` is pure bf16 (no fp32 master copy): with lr = 0.000005, small updates round away in bf16";
// DeepSpeed v0.19.5 runtime/engine.py:1364-1375: with no communication_data_type the gradients are averaged
// in the enabled fp16/bf16 dtype.
const DS6 = (mode: string) => `${mode} without \`communication_data_type\`: gradients are averaged across ranks in ${mode}`;
const DS_BF16 = "model cast to bfloat16, fp32 master weights (no autocast)";
const PURE_BF16 = "model cast to bfloat16, no fp32 master weights (no autocast)";

const EXPECTED: Record<string, Expected> = {
  // --- accelerate ---------------------------------------------------------------------------------
  "accelerate/huggingface__alignment-handbook__fsdp.yaml": { framework: "accelerate", headline: "FSDP1 on 8 GPUs: FSDP mixed precision (bfloat16 compute)", precision: ["float32", "bfloat16", "bfloat16"], diagnostics: [`information accelerate/low-precision-reduction@18: ${AC5_BF16}`] },
  "accelerate/huggingface__open-r1__fsdp.yaml": { framework: "accelerate", headline: "FSDP1 on 8 GPUs: FSDP mixed precision (bfloat16 compute)", precision: ["float32", "bfloat16", "bfloat16"], diagnostics: [`information accelerate/low-precision-reduction@19: ${AC5_BF16}`] },
  // DEEPSPEED without a config file: accelerate adds `bf16: {enabled: true}` (spec §2.4); DeepSpeed keeps
  // fp32 master partitions (engine.py:1714-1720 casts the module, ZeRO keeps fp32 masters).
  "accelerate/huggingface__open-r1__zero2.yaml": { framework: "accelerate", headline: `DeepSpeed ZeRO-2 on 8 GPUs: ${DS_BF16}`, precision: ["float32", "bfloat16", "bfloat16"], diagnostics: [] },
  "accelerate/huggingface__peft__deepspeed_config_z3_qlora.yaml": { framework: "accelerate", headline: `DeepSpeed ZeRO-3 on 2 GPUs: ${DS_BF16}`, precision: ["float32", "bfloat16", "bfloat16"], diagnostics: [] },
  // mixed_precision 'no' under FSDP: set_mixed_precision is never called, so no casting policy.
  "accelerate/huggingface__peft__fsdp_config_qlora.yaml": { framework: "accelerate", headline: "FSDP1 on 2 GPUs: no mixed precision (float32 compute)", precision: ["float32", "float32", "float32"], diagnostics: ["information accelerate/low-precision-reduction@17: FSDP with mixed_precision 'no': the model runs in whatever dtype the script loads it in"] },
  "accelerate/huggingface__peft__int8_training_config.yaml": { framework: "accelerate", headline: "DDP (MULTI_XPU) on 4 GPUs: no mixed precision (float32 compute)", precision: ["float32", "float32", "float32"], diagnostics: [] },
  "accelerate/huggingface__peft__tp_config.yaml": { framework: "accelerate", headline: "DDP (MULTI_GPU) on 2 GPUs: autocast (bfloat16 compute)", precision: ["float32", "bfloat16", "float32"], diagnostics: [] },
  // parallelism_config_sp_size 2 × dp_shard 2 = 4 processes (no AC10); sp kept in the layout (checked below).
  // `seq_parallel_communication_data_type` is a DeepSpeed JSON key: accelerate reads no such key from `deepspeed_config`
  // (no match in src/ at v1.14.0 or main 16cb6eb8), so it never reaches DeepSpeed (ignored-deepspeed-key).
  "accelerate/huggingface__trl__alst_ulysses_4gpu.yaml": { framework: "accelerate", headline: `DeepSpeed ZeRO-3 + SP (Ulysses) on 4 GPUs: ${DS_BF16}`, precision: ["float32", "bfloat16", "bfloat16"], diagnostics: ["warning accelerate/ignored-deepspeed-key@20: `seq_parallel_communication_data_type` under `deepspeed_config` is never passed"] },
  "accelerate/huggingface__trl__context_parallel_2gpu.yaml": { framework: "accelerate", headline: "CP on 2 GPUs: FSDP mixed precision (bfloat16 compute)", precision: ["float32", "bfloat16", "bfloat16"], diagnostics: [`information accelerate/low-precision-reduction@17: ${AC5_FSDP2}`] },
  "accelerate/huggingface__trl__deepspeed_zero3.yaml": { framework: "accelerate", headline: `DeepSpeed ZeRO-3 on 8 GPUs: ${DS_BF16}`, precision: ["float32", "bfloat16", "bfloat16"], diagnostics: [] },
  "accelerate/huggingface__trl__fsdp2.yaml": { framework: "accelerate", headline: "FSDP2 on 8 GPUs: FSDP mixed precision (bfloat16 compute)", precision: ["float32", "bfloat16", "bfloat16"], diagnostics: [`information accelerate/low-precision-reduction@17: ${AC5_FSDP2}`] },
  "accelerate/huggingface__trl__multi_gpu.yaml": { framework: "accelerate", headline: "DDP (MULTI_GPU) on 8 GPUs: autocast (bfloat16 compute)", precision: ["float32", "bfloat16", "float32"], diagnostics: [] },

  // --- Axolotl (modal-labs: every file a LoRA/QLoRA, bf16 auto) ------------------------------------
  // `/workspace/axolotl/deepspeed_configs/zero3_bf16.json` is the Docker image's copy of Axolotl's bundled
  // file (deepspeed_configs/zero3_bf16.json at v0.18.0: ZeRO-3, "bf16": {"enabled": true}); not found here,
  // so it is read from the documented table and said so (information, not a failure).
  "axolotl/modal-labs__llm-finetuning__codellama.yml": { framework: "axolotl", headline: `axolotl: ${DS_BF16}`, precision: ["float32", "bfloat16", "bfloat16"], diagnostics: ["information axolotl/deepspeed-config-missing@68: read as Axolotl's bundled deepspeed_configs/zero3_bf16.json at axolotl v0.18.0"] },
  // LoRA without DeepSpeed/FSDP: HF Trainer AMP over fp32 adapters; no diagnostic (adamw_bnb_8bit is only
  // rejected with FSDP2, schemas/validation.py at v0.18.0).
  "axolotl/modal-labs__llm-finetuning__llama-3.yml": { framework: "axolotl", headline: "axolotl: autocast (bfloat16 compute)", precision: ["float32", "bfloat16", "float32"], diagnostics: [] },
  // deepspeed_configs/zero2.json at v0.18.0: ZeRO-2, optimizer offloaded to the CPU, bf16/fp16 "auto"
  // (filled by the HF Trainer from `bf16: auto`). The empty `fsdp:`/`fsdp_config:` keys are null: no FSDP.
  "axolotl/modal-labs__llm-finetuning__mixtral.yml": { framework: "axolotl", headline: `axolotl: ${DS_BF16}`, precision: ["float32", "bfloat16", "bfloat16"], diagnostics: ["information axolotl/deepspeed-config-missing@99: read as Axolotl's bundled deepspeed_configs/zero2.json at axolotl v0.18.0"] },
  "axolotl/modal-labs__llm-finetuning__pythia.yml": { framework: "axolotl", headline: "axolotl: autocast (bfloat16 compute)", precision: ["float32", "bfloat16", "float32"], diagnostics: [] },

  // --- DeepSpeed --------------------------------------------------------------------------------------
  // gpt-neox YAML (DeepSpeed keys in a flow mapping with # comments), detected by content; fp16 ZeRO-1.
  // DS6 holds there: NeoX's `communication_data_type` defaults to None and is handed to DeepSpeed as is
  // (megatron/neox_arguments/deepspeed_args.py:167 at ea7aefd, the corpus commit); its `fp32_allreduce` only
  // concerns bf16 model-parallel all-reduces (megatron/model/utils.py:384).
  "deepspeed/EleutherAI__gpt-neox__1-3B-transformer-engine.yml": { framework: "deepspeed", headline: "deepspeed: model cast to float16, fp32 master weights (no autocast)", precision: ["float32", "float16", "float16"], diagnostics: [`information deepspeed/low-precision-reduction@83: ${DS6("fp16")}`] },
  "deepspeed/EleutherAI__gpt-neox__125M.yml": { framework: "deepspeed", headline: "deepspeed: model cast to float16, fp32 master weights (no autocast)", precision: ["float32", "float16", "float16"], diagnostics: [`information deepspeed/low-precision-reduction@71: ${DS6("fp16")}`] },
  // bf16 + bf16_master_weights_and_grads + bf16_optimizer_states + torch_autocast: engine.py:1714-1720 casts
  // the parameters to bf16 whether or not torch_autocast is on; base_optimizer.py:522-525 makes the master
  // weights/grads bf16. No DS6: bf16 gradients are what that option is for (precision_config.py:63).
  "deepspeed/deepspeedai__DeepSpeedExamples__bf16_full.json": { framework: "deepspeed", headline: `deepspeed: ${PURE_BF16}`, precision: ["bfloat16", "bfloat16", "bfloat16"], diagnostics: [] },
  // OneBitAdam: after freeze_step the backward all-reduce is off and 1-bit momentum is exchanged instead
  // (runtime/fp16/onebit/adam.py:250-256), so DS6's advice does not apply.
  "deepspeed/deepspeedai__DeepSpeedExamples__deepspeed_bsz4k_onebitadam_config_seq128_nccl.json": { framework: "deepspeed", headline: "deepspeed: model cast to float16, fp32 master weights (no autocast)", precision: ["float32", "float16", "float16"], diagnostics: [] },
  "deepspeed/deepspeedai__DeepSpeedExamples__zf_config.json": { framework: "deepspeed", headline: `deepspeed: ${DS_BF16}`, precision: ["float32", "bfloat16", "bfloat16"], diagnostics: [`information deepspeed/low-precision-reduction@3: ${DS6("bf16")}`] },

  // --- Lightning (LitGPT) ------------------------------------------------------------------------------
  // LitGPT finetune/full.py:107-114 (v0.5.13): devices × num_nodes > 1 → FSDPStrategy. bf16-true casts the
  // module (Lightning 2.6.5 fabric/plugins/precision/fsdp.py:88-97: param = reduce = bf16), so PL8.
  "lightning/Lightning-AI__litgpt__llama-3.1-8b_full.yaml": { framework: "lightning", headline: `FSDP (LitGPT) on 4 GPUs: ${PURE_BF16}`, precision: ["bfloat16", "bfloat16", "bfloat16"], diagnostics: ["information lightning/pure-bf16@8: `precision: bf16-true` is pure bf16: weights, gradients and optimizer state are bf16 with no fp32 master copy"] },
  // devices: 1 → no strategy; one device has no gradient reduction (null).
  "lightning/Lightning-AI__litgpt__llama-3.1-8b_qlora.yaml": { framework: "lightning", headline: `single device: ${PURE_BF16}`, precision: ["bfloat16", "bfloat16", null], diagnostics: ["information lightning/pure-bf16@8: `precision: bf16-true` is pure bf16: weights, gradients and optimizer state are bf16 with no fp32 master copy"] },
  // pretrain.py:142-143: more than one device → FSDPStrategy (HYBRID_SHARD); `devices: auto` = every visible
  // GPU (utils.py:556). bf16-mixed under FSDP: fsdp.py:96-97 reduces in bf16, so PL9.
  "lightning/Lightning-AI__litgpt__pretrain_tinyllama.yaml": { framework: "lightning", headline: "lightning: FSDP mixed precision (bfloat16 compute)", precision: ["float32", "bfloat16", "bfloat16"], diagnostics: ["information lightning/low-precision-reduction@14: FSDP with bf16-mixed: fp32 master weights, bf16 compute, and bf16 gradient reduction and buffers"] },

  // --- torchtune -------------------------------------------------------------------------------------
  // Jinja templates ({{student_model_dir}}): the placeholders are read as nulls, not reported as YAML errors.
  "torchtune/Azure__torchtune-azureml__knowledge_distillation_qwen2.yaml": { framework: "torchtune", headline: `torchtune: ${PURE_BF16}`, precision: ["bfloat16", "bfloat16", "bfloat16"], diagnostics: [`information torchtune/pure-bf16@87: ${TT3}`] },
  // lora_finetune_single_device (v0.6.1 recipes/lora_finetune_single_device.py:127,431): pure bf16, one device.
  "torchtune/Azure__torchtune-azureml__lora_finetune_phi4.yaml": { framework: "torchtune", headline: `single device: ${PURE_BF16}`, precision: ["bfloat16", "bfloat16", null], diagnostics: ["information torchtune/pure-bf16@96: `dtype: bf16` is pure bf16: weights, gradients and optimizer states are bf16, no fp32 master copy"] },
  // A quantization config (no optimizer/loss): not a training run, so no TT3 and no gradient reduction.
  "torchtune/Azure__torchtune-azureml__quant_phi4.yaml": { framework: "torchtune", headline: `torchtune: ${PURE_BF16}`, precision: ["bfloat16", "bfloat16", null], diagnostics: [] },
  "torchtune/InflectionAI__torchtune__llama3_3_llama_medusa.yaml": { framework: "torchtune", headline: `torchtune: ${PURE_BF16}`, precision: ["bfloat16", "bfloat16", "bfloat16"], diagnostics: [`information torchtune/pure-bf16@56: ${TT3}`] },
  "torchtune/InflectionAI__torchtune__qwen2_5_vision_7B_v_full.yaml": { framework: "torchtune", headline: `FSDP2 on 2 GPUs: ${PURE_BF16}`, precision: ["bfloat16", "bfloat16", "bfloat16"], diagnostics: [`warning torchtune/pure-bf16@78: ${TT3_LR}`] },
  "torchtune/OpenPipe__ART__config.yaml": { framework: "torchtune", headline: `FSDP2 on 4 GPUs: ${PURE_BF16}`, precision: ["bfloat16", "bfloat16", "bfloat16"], diagnostics: [`warning torchtune/pure-bf16@62: ${TT3_LR}`] },
  // `compile: True` + `optimizer_in_bwd: True`: torchtune 0.7.0 (bd2a0fc recipes/full_finetune_distributed.py:344-354,
  // 399-403) raises ValueError; v0.6.1 compiles only model and loss (:292,344,542). No pin here, so the newest is
  // assumed and said, as a warning, not an error.
  "torchtune/SWE-Gym__SWE-Gym__RM-1x_qwen25_coder_32b_base_full.yaml": {
    framework: "torchtune",
    headline: `torchtune: ${PURE_BF16}`,
    precision: ["bfloat16", "bfloat16", "bfloat16"],
    diagnostics: ["warning torchtune/optimizer-in-bwd-compile@72: No torchtune pin, so 0.7.0 is assumed: there `compile: True` is rejected with `optimizer_in_bwd: True`", `information torchtune/pure-bf16@85: ${TT3}`],
  },
  "torchtune/SWE-Gym__SWE-Gym__policy_qwen25_coder_32b_full.yaml": {
    framework: "torchtune",
    headline: `FSDP2 on 2 GPUs: ${PURE_BF16}`,
    precision: ["bfloat16", "bfloat16", "bfloat16"],
    diagnostics: ["warning torchtune/optimizer-in-bwd-compile@89: No torchtune pin, so 0.7.0 is assumed: there `compile: True` is rejected with `optimizer_in_bwd: True`", `information torchtune/pure-bf16@102: ${TT3}`],
  },

  // --- decoys: not training configs, nothing at all -----------------------------------------------------
  "decoys/deepspeedai__DeepSpeedExamples__qwen_clip_config.json": { framework: null, headline: null, precision: null, diagnostics: [] },
  // Not a decoy: a TRL `--config` file (transformers framework, issue #23). `torch_dtype: bfloat16` + `bf16: true` with
  // no `deepspeed`/`fsdp` key: pure bf16 if launched plain/DDP (trl/trainer/sft_config.py; transformers has no upcast
  // outside FSDP/DeepSpeed). open-r1 launches it with accelerate_configs/zero3.yaml (fp32 master weights): the launcher
  // is not found here, so the parameter storage is by launcher and HF1 (true under plain/DDP only) is not reported.
  "decoys/huggingface__open-r1__config_distill.yaml": { framework: "transformers", headline: "transformers: bfloat16 compute; parameter storage by launcher (launcher unknown)", precision: [null, "bfloat16", "bfloat16"], diagnostics: ["warning transformers/trl-model-dtype@5: `torch_dtype` is rejected from TRL 1.0.0", "warning transformers/unknown-key@38: `overwrite_output_dir` is rejected from transformers 5.0.0", "warning transformers/unknown-key@48: `warmup_ratio` is rejected from transformers 5.15.0"] },
};

function wildFiles(): string[] {
  const out: string[] = [];
  for (const f of FOLDERS) {
    const dir = join(WILD, f);
    if (!existsSync(dir)) continue;
    for (const n of readdirSync(dir).sort()) if (/\.(ya?ml|json)$/i.test(n)) out.push(`${f}/${n}`);
  }
  return out;
}

function analyzeWild(rel: string) {
  const p = join(WILD, rel);
  return analyzeDocument(`file://${p}`, readFileSync(p, "utf8"), {}, nodeEnv(p, [CORPUS, dirname(p)]));
}

describe("real configs from other projects (../shared/corpus/wild): YAML/JSON frameworks", { skip: corpusSkip("wild") }, () => {
  it("every YAML/JSON file in the framework folders and the decoys has a pinned expectation", () => {
    assert.deepEqual([...wildFiles()].sort(), Object.keys(EXPECTED).filter((k) => existsSync(join(WILD, k))).sort());
  });
  for (const [rel, want] of Object.entries(EXPECTED)) {
    it(rel, { skip: existsSync(join(WILD, rel)) ? false : `${rel} is absent` }, () => {
      const r = analyzeWild(rel);
      assert.equal(r.framework, want.framework, r.frameworkReason);
      assert.equal(headline(r) ?? null, want.headline);
      assert.deepEqual(r.precision ? [r.precision.paramStorage.dtype, r.precision.compute.dtype, r.precision.gradReduce.dtype] : null, want.precision);
      const got = r.diagnostics.map((d) => `${d.severity} ${d.code}@${d.range.start.line + 1}`);
      assert.deepEqual(got, want.diagnostics.map((x) => x.split(": ")[0]), `diagnostics of ${rel}`);
      want.diagnostics.forEach((x, i) => {
        const part = x.slice(x.indexOf(": ") + 2);
        assert.ok(r.diagnostics[i]!.message.includes(part), `${rel}: message of ${got[i]} lacks "${part}":\n${r.diagnostics[i]!.message}`);
      });
    });
  }
  it("accelerate sp_size stays in the layout; the JSON contract shows gradient reduction null on one device", () => {
    if (!existsSync(join(WILD, "accelerate/huggingface__trl__alst_ulysses_4gpu.yaml"))) return;
    const r = analyzeWild("accelerate/huggingface__trl__alst_ulysses_4gpu.yaml");
    assert.deepEqual({ ...r.parallel }, { dp_replicate: 1, dp_shard: 2, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1, sp: 2 });
    assert.match(r.reportMarkdown ?? "", /Layout: dp_replicate 1 · dp_shard 2 · cp 1 · tp 1 · pp 1 · sp 2/);
    const one = analyzeWild("lightning/Lightning-AI__litgpt__llama-3.1-8b_qlora.yaml");
    assert.equal(JSON.parse(JSON.stringify(one.precision)).gradReduce.dtype, null);
    assert.match(one.reportMarkdown ?? "", /\| gradient reduction \| none \| one device: no gradient reduction \|/);
  });
});
