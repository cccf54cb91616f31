/** NeMo AutoModel recipes: detection, the model dtype (auto → the checkpoint's), the strategies, AM1–AM4, fixture style. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { checkDiagnostics, checkFix } from "./support/fixture";

const uri = "file:///p/llama_sft.yaml";
const model = "model:\n  _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained\n  pretrained_model_name_or_path: meta-llama/Llama-3.2-1B\n";

describe("NeMo AutoModel detection", () => {
  it("a nemo_automodel model target; other _target_ YAMLs stay silent", () => {
    assert.equal(analyzeDocument(uri, model).framework, "automodel");
    for (const t of ["model:\n  _target_: transformers.AutoModelForCausalLM.from_pretrained\n  torch_dtype: fp32\noptimizer:\n  _target_: torch.optim.AdamW\n", "trainer:\n  _target_: nemo.collections.llm.Trainer\nmodel:\n  _target_: nemo.collections.llm.LlamaModel\n"]) {
      const r = analyzeDocument(uri, t);
      assert.notEqual(r.framework, "automodel");
      assert.deepEqual(r.diagnostics, []);
    }
  });
});

describe("NeMo AutoModel resolution", () => {
  it("torch_dtype auto: the checkpoint's bf16 (inferred), FSDP2's default policy bf16/fp32", () => {
    const r = analyzeDocument(uri, `${model}optimizer:\n  _target_: torch.optim.AdamW\n  lr: 1.0e-5\n`);
    assert.equal(r.mechanism, "fully_shard");
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.equal(r.precision?.gradReduce.dtype, "float32");
    assert.match(r.reportMarkdown ?? "", /automodel-checkpoint-dtype/);
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.severity]), [["automodel/bf16-weights-adam", "information"]]);
  });
  it("fp32 master weights: torch_dtype float32 with FSDP2 is silent; Megatron-FSDP and DDP resolve their own way", () => {
    const fp32 = analyzeDocument(uri, `${model}  torch_dtype: float32\noptimizer:\n  _target_: torch.optim.AdamW\n  lr: 1.0e-6\n`);
    assert.deepEqual(fp32.diagnostics, []);
    assert.equal(fp32.precision?.paramStorage.dtype, "float32");
    assert.equal(fp32.precision?.compute.dtype, "bfloat16");
    const ddp = analyzeDocument(uri, `${model}  torch_dtype: float32\ndistributed:\n  strategy: ddp\n  autocast_dtype: bfloat16\noptimizer:\n  _target_: torch.optim.AdamW\n`);
    assert.equal(ddp.mechanism, "autocast");
    assert.equal(ddp.precision?.compute.dtype, "bfloat16");
  });
});

describe("NeMo AutoModel diagnostics", () => {
  it("AM1 bf16 weights with AdamW at a small lr (warning, fix), AM3 bf16 reduction", () => {
    checkDiagnostics(
      `# torchrun --nproc-per-node=8 finetune.py --config llama_sft.yaml
${model}  torch_dtype: bfloat16
               #^^^^^^^ warning[automodel/bf16-weights-adam]: AdamW on bf16 weights, no fp32 master copy (lr = 2e-6: small updates round away)
distributed:
  mp_policy:
    param_dtype: bfloat16
    reduce_dtype: bfloat16
                  #^^^^^^^ information[automodel/low-precision-reduction]: gradients reduced in bf16 across 8 GPUs
optimizer:
  _target_: torch.optim.AdamW
  lr: 2.0e-6
`,
      { uri },
    );
    checkFix(`${model}  torch_dtype: bfloat16\noptimizer:\n  _target_: torch.optim.AdamW\n`, "automodel/bf16-weights-adam", "float32", `${model}  torch_dtype: float32\noptimizer:\n  _target_: torch.optim.AdamW\n`, { uri });
  });
  it("AM1 stays silent when the optimizer keeps its own master copy (TE FusedAdam master_weights, FlashOptim master_weight_bits)", () => {
    for (const opt of ["  _target_: transformer_engine.pytorch.optimizers.fused_adam.FusedAdam\n  lr: 1.0e-5\n  master_weights: true\n", "  _target_: flashoptim.FlashAdamW\n  lr: 1.0e-5\n  master_weight_bits: 24\n"]) {
      assert.deepEqual(analyzeDocument(uri, `${model}optimizer:\n${opt}`).diagnostics, [], opt);
    }
    const off = analyzeDocument(uri, `${model}optimizer:\n  _target_: transformer_engine.pytorch.optimizers.fused_adam.FusedAdam\n  lr: 1.0e-5\n  master_weights: false\n`);
    assert.deepEqual(off.diagnostics.map((d) => [d.code, d.severity, d.message]), [["automodel/bf16-weights-adam", "information", "FusedAdam on bf16 weights, no fp32 master copy (lr = 1e-5)"]]);
  });
  it("AM2 a dtype name dtype_from_str does not know", () => {
    checkDiagnostics(
      `${model}  torch_dtype: fp32
               #^^^ error[automodel/unknown-dtype]: \`model.torch_dtype: fp32\` raises KeyError "Unknown dtype string" (use \`float32\`)
optimizer:
  _target_: torch.optim.AdamW
`,
      { uri },
    );
  });
  it("AM4 one GPU: FSDP2's policy is not applied; AM3 Megatron-FSDP reduces in bf16 by default", () => {
    checkDiagnostics(
      `# torchrun --nproc-per-node=1 finetune.py --config llama_sft.yaml
${model}  torch_dtype: float32
               #^^^^^^ warning[automodel/mixed-precision-not-applied]: On one GPU FSDP2 is not applied, so its bf16 mp_policy is not either: compute runs in fp32
optimizer:
  _target_: torch.optim.AdamW
`,
      { uri },
    );
    const r = analyzeDocument(uri, `${model}  torch_dtype: bfloat16\ndistributed:\n  strategy: megatron_fsdp\n  preserve_fp32_weights: true\noptimizer:\n  _target_: torch.optim.Adam\n  lr: 1.0e-6\n`, { worldSize: 16 });
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.severity, d.message]), [["automodel/low-precision-reduction", "information", "Megatron-FSDP reduces gradients in bf16 across 16 GPUs: `grad_reduce_in_fp32` is false (its default)"]]);
  });
});

describe("NeMo AutoModel world size from a directive (the oracle's corner cases state it this way)", () => {
  it("`# precision-lens: world-size=1` turns FSDP2 off: mixed-precision-not-applied on an fp32 model", () => {
    const r = analyzeDocument(uri, `# precision-lens: world-size=1\n${model}  torch_dtype: float32\noptimizer:\n  _target_: torch.optim.AdamW\n  lr: 1.0e-5\n`);
    assert.equal(r.worldSize?.value, 1);
    assert.equal(r.worldSize?.kind, "directive");
    assert.equal(r.mechanism, "none");
    assert.equal(r.precision?.compute.dtype, "float32");
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.severity]), [["automodel/mixed-precision-not-applied", "warning"]]);
  });
  it("the directive wins over the recipe's torchrun comment; a CLI --world-size wins over both", () => {
    const text = `# torchrun --nproc-per-node 8 examples/llm_finetune/finetune.py\n# precision-lens: world-size=2\n${model}optimizer:\n  _target_: torch.optim.AdamW\n`;
    assert.equal(analyzeDocument(uri, text).worldSize?.value, 2);
    const cli = analyzeDocument(uri, text, { worldSize: 4, origin: "cli" });
    assert.equal(cli.worldSize?.value, 4);
    assert.match(cli.worldSize?.detail ?? "", /--world-size 4 on the command line; overrides `# precision-lens: world-size=2`/);
  });
});

describe("NeMo AutoModel custom model builders (held-back review, issue #35)", () => {
  it("build_gpt2_model without a dtype: its own (fp32) dtype, not the checkpoint's bf16: no bf16-weights-adam", () => {
    const r = analyzeDocument(uri, "model:\n  _target_: nemo_automodel.components.models.gpt2.build_gpt2_model\n  n_layer: 12\noptimizer:\n  _target_: torch.optim.AdamW\n  lr: 6.0e-4\n");
    assert.equal(r.framework, "automodel");
    assert.deepEqual(r.diagnostics, []);
    assert.match(r.precision?.paramStorage.knob ?? "", /build_gpt2_model` \(a custom builder: its own dtype, not read\) \(unknown/);
  });
  it("a written torch_dtype on a custom builder is still read", () => {
    const r = analyzeDocument(uri, "model:\n  _target_: nemo_automodel.components.models.gemma4_drafter.composite.Gemma4WithDrafter.from_pretrained\n  torch_dtype: bf16\noptimizer:\n  _target_: torch.optim.AdamW\n  lr: 1.0e-6\n");
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.severity]), [["automodel/bf16-weights-adam", "warning"]]);
  });
});
