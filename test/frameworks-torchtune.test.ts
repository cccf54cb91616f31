/** torchtune: detection, resolution and TT1–TT12 (spec other-frameworks.md §1), fixture style. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { checkDiagnostics, checkFix } from "./support/fixture";

const uri = "file:///x/config.yaml";
/** The smallest torchtune training recipe the detector accepts; each fixture adds what it is about. */
const base = "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\noptimizer:\n  _component_: torch.optim.AdamW\nloss:\n  _component_: torchtune.modules.loss.LinearCrossEntropyLoss\n";


describe("torchtune diagnostics", () => {
  it("TT1 fp16 training, TT5 compile+optimizer_in_bwd, TT6 TP with LoRA and no plan, TT8 bitsandbytes distributed, TT10 offload without fused, TT12 dims vs nproc", () => {
    // framework=torchtune layout=HSDP+TP mech=error P=float16 C=float16 R=float16 ws=8
    checkDiagnostics(
      `# tune run --nproc_per_node 8 full_finetune_distributed --config x
model:
  _component_: torchtune.models.llama3_1.lora_llama3_1_8b
optimizer:
  _component_: bitsandbytes.optim.PagedAdamW8bit
               #^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[torchtune/bitsandbytes-distributed]: \`bitsandbytes.optim.PagedAdamW8bit\` in a distributed config:
  lr: 2e-5
loss:
  _component_: torchtune.modules.loss.LinearCrossEntropyLoss
dtype: fp16
       #^^^ error[torchtune/fp16-training-rejected]: \`dtype: fp16\` in a training
tensor_parallel_dim: 2
                   # ^ error[torchtune/tensor-parallel-plan]: \`tensor_parallel_dim: 2\` without a \`tensor_parallel_plan\`:
                   # ^ error[torchtune/tensor-parallel-plan]: \`tensor_parallel_dim: 2\` with a LoRA
data_parallel_replicate_dim: 2
data_parallel_shard_dim: 3
                       # ^ error[torchtune/parallel-dims-product]: The parallel dims multiply to
fsdp_cpu_offload: True
                  #^^^ information[torchtune/cpu-offload-without-fused-adamw]: \`fsdp_cpu_offload: True\` runs the optimizer
optimizer_in_bwd: True
compile: True
         #^^^ warning[torchtune/optimizer-in-bwd-compile]: No torchtune pin found in the workspace; assuming the newest torchtune (0.7.0): there \`compile: True\` also compiles the optimizer step
`,
      { uri },
    );
  });

  // TT5 depends on the torchtune version: bool `compile` compiles the optimizer step from PR #2659
  // (recipes/full_finetune_distributed.py:344-354 at bd2a0fc, 0.7.0) and the ValueError is at :399-403;
  // v0.6.1's recipe compiles only the model and the loss (recipes/full_finetune_distributed.py:292,344,542).
  const tt5 = `# tune run --nproc_per_node 2 full_finetune_distributed --config x\n${base}dtype: fp32\noptimizer_in_bwd: True\ncompile: True\n`;
  const pinned = (file: string, text: string) => ({
    documentPath: "/w/cfg/config.yaml",
    workspaceRoots: ["/w"],
    readFile: (p: string) => (p === `/w/${file}` ? text : undefined),
    listDir: (d: string) => (d === "/w" ? [file] : d === "/w/cfg" ? ["config.yaml"] : []),
  });
  it("TT5 with torchtune 0.6.1 pinned: nothing (compile: True compiles the model and loss only)", () => {
    const r = analyzeDocument("file:///w/cfg/config.yaml", tt5, {}, pinned("requirements.txt", "torch==2.6.0\ntorchtune==0.6.1\n"));
    assert.deepEqual(r.diagnostics.map((d) => d.code), []);
  });
  it("TT5 with torchtune 0.7.0 pinned (uv.lock): an error naming the pin", () => {
    const r = analyzeDocument("file:///w/cfg/config.yaml", tt5, {}, pinned("uv.lock", '[[package]]\nname = "torchtune"\nversion = "0.7.0"\n'));
    const d = r.diagnostics.find((x) => x.code === "torchtune/optimizer-in-bwd-compile");
    assert.equal(d?.severity, "error");
    assert.match(d!.message, /torchtune 0\.7\.0 pinned in uv\.lock/);
  });
  it("TT5 with a nightly from before the change pinned: nothing", () => {
    const r = analyzeDocument("file:///w/cfg/config.yaml", tt5, {}, pinned("pyproject.toml", '[project]\ndependencies = ["torchtune==0.7.0.dev20250401"]\n'));
    assert.deepEqual(r.diagnostics.map((d) => d.code), []);
  });

  it("TT3 is information for an ordinary bf16 run; OmegaConf interpolations are not flagged", () => {
    // framework=torchtune layout=FSDP2 mech=none P=bfloat16 C=bfloat16 R=bfloat16 ws=4
    checkDiagnostics(
      `# tune run --nproc_per_node 4 full_finetune_distributed --config x
model:
  _component_: torchtune.models.llama3_1.llama3_1_8b
optimizer:
  _component_: torch.optim.AdamW
  lr: 2e-5
  fused: True
loss:
  _component_: torchtune.modules.loss.LinearCrossEntropyLoss
output_dir: /tmp/out
metric_logger:
  log_dir: \${output_dir}/logs
dtype: bf16
       #^^^ information[torchtune/pure-bf16]: \`dtype: bf16\` is pure bf16
`,
      { uri },
    );
  });

  it("TT3 becomes a warning with lr < 1e-5", () => {
    // framework=torchtune layout=FSDP2 mech=none P=bfloat16 C=bfloat16 R=bfloat16 ws=undefined
    checkDiagnostics(
      `model:
  _component_: torchtune.models.qwen2_5.qwen2_5_7b
optimizer:
  _component_: torch.optim.AdamW
  lr: 5e-6
loss:
  _component_: torchtune.modules.loss.LinearCrossEntropyLoss
dtype: bf16
       #^^^ warning[torchtune/pure-bf16]: \`dtype: bf16\` is pure bf16
`,
      { uri },
    );
  });

  it("TT4 clip_grad_norm and grad accumulation with optimizer_in_bwd (no TT5 on a single-device recipe)", () => {
    // framework=torchtune layout=single device mech=none P=float32 C=float32 R=float32 ws=1
    checkDiagnostics(
      `# tune run full_finetune_single_device --config x
model:
  _component_: torchtune.models.llama3_1.llama3_1_8b
optimizer:
  _component_: torch.optim.AdamW
loss:
  _component_: torchtune.modules.loss.LinearCrossEntropyLoss
optimizer_in_bwd: True
clip_grad_norm: 1.0
                #^^ error[torchtune/optimizer-in-bwd-clipping-accumulation]: \`clip_grad_norm\` is set while \`optimizer_in_bwd:
gradient_accumulation_steps: 4
                           # ^ error[torchtune/optimizer-in-bwd-clipping-accumulation]: \`gradient_accumulation_steps: 4\` with \`optimizer_in_bwd: True\`:
compile: True
dtype: fp32
`,
      { uri },
    );
  });

  it("TT2 invalid dtype name, TT7 offloading without AC, TT11 dead fsdp.cpu_offload, yaml-1.1-boolean", () => {
    // framework=torchtune layout=FSDP2 mech=error P=float32 C=float32 R=float32 ws=undefined
    checkDiagnostics(
      `${base}dtype: bfloat16
       #^^^^^^^ error[torchtune/unknown-dtype]: \`dtype: bfloat16\` is not a
enable_activation_offloading: True
                              #^^^ error[torchtune/offload-without-checkpointing]: \`enable_activation_offloading: True\` needs activation checkpointing,
enable_activation_checkpointing: False
fsdp:
  cpu_offload: True
  #^^^^^^^^^^ warning[torchtune/cpu-offload-key-ignored]: \`fsdp.cpu_offload\` is never read: torchtune
checkpointer:
  model_type: NO
              #^ information[yaml-1.1-boolean]: \`checkpointer.model_type: NO\` is read as
`,
      { uri },
    );
  });

  it("TT9 replicate without shard is information ([inferred])", () => {
    // framework=torchtune layout=replicated (no gradient sync) mech=none P=float32 C=float32 R=float32 ws=undefined
    checkDiagnostics(
      `${base}dtype: fp32
data_parallel_replicate_dim: 4
                           # ^ information[torchtune/replicate-only-data-parallel]: \`data_parallel_replicate_dim: 4\` with \`data_parallel_shard_dim:
data_parallel_shard_dim: 1
`,
      { uri },
    );
  });

  it("TT1 is information in a generation config", () => {
    // framework=torchtune layout=generation / evaluation (no training) mech=none P=float16 C=float16 R=float16 ws=undefined
    checkDiagnostics(
      `model:
  _component_: torchtune.models.llama3_1.llama3_1_8b
prompt: "hello"
dtype: fp16
       #^^^ information[torchtune/fp16-training-rejected]: \`dtype: fp16\` is accepted by
`,
      { uri },
    );
  });

  it("TT6 TP without a plan", () => {
    // framework=torchtune layout=FSDP2+TP mech=none P=float32 C=float32 R=float32 ws=undefined
    checkDiagnostics(
      `model:
  _component_: torchtune.models.llama3_1.llama3_1_70b
optimizer:
  _component_: torch.optim.AdamW
loss:
  _component_: torchtune.modules.loss.LinearCrossEntropyLoss
tensor_parallel_dim: 8
                   # ^ error[torchtune/tensor-parallel-plan]: \`tensor_parallel_dim: 8\` without a \`tensor_parallel_plan\`:
dtype: fp32
`,
      { uri },
    );
  });
});

describe("torchtune quick fixes", () => {
  const opts = { uri, ignore: [] };
  it("TT1: fp16 → bf16", () => checkFix(`${base}dtype: fp16\n`, "torchtune/fp16-training-rejected", "bf16", `${base}dtype: bf16\n`, opts));
  it("TT2: bfloat16 → bf16", () => checkFix(`${base}dtype: bfloat16\n`, "torchtune/unknown-dtype", "bf16", `${base}dtype: bf16\n`, opts));
  it("TT3: bf16 → fp32", () => checkFix(`${base}dtype: bf16\n`, "torchtune/pure-bf16", "fp32", `${base}dtype: fp32\n`, opts));
  it("TT4: clip_grad_norm → null", () =>
    checkFix(`${base}dtype: fp32\noptimizer_in_bwd: True\nclip_grad_norm: 1.0\n`, "torchtune/optimizer-in-bwd-clipping-accumulation", "clip_grad_norm: null", `${base}dtype: fp32\noptimizer_in_bwd: True\nclip_grad_norm: null\n`, opts));
  it("TT5: compile True → model and loss only", () =>
    checkFix(
      `# tune run --nproc_per_node 2 full_finetune_distributed --config x\n${base}dtype: fp32\noptimizer_in_bwd: True\ncompile: True\n`,
      "torchtune/optimizer-in-bwd-compile",
      "model and loss",
      `# tune run --nproc_per_node 2 full_finetune_distributed --config x\n${base}dtype: fp32\noptimizer_in_bwd: True\ncompile:\n  model: true\n  loss: true\n  optimizer_step: false\n`,
      opts,
    ));
  it("TT6: TP without a plan → 1", () => checkFix(`${base}dtype: fp32\ntensor_parallel_dim: 4\n`, "torchtune/tensor-parallel-plan", "tensor_parallel_dim: 1", `${base}dtype: fp32\ntensor_parallel_dim: 1\n`, opts));
  it("TT7: enable activation checkpointing", () =>
    checkFix(`${base}dtype: fp32\nenable_activation_offloading: True\nenable_activation_checkpointing: False\n`, "torchtune/offload-without-checkpointing", "checkpointing", `${base}dtype: fp32\nenable_activation_offloading: True\nenable_activation_checkpointing: True\n`, opts));
  it("TT7: adds the AC key when absent", () =>
    checkFix(`${base}dtype: fp32\nenable_activation_offloading: True\n`, "torchtune/offload-without-checkpointing", "checkpointing", `${base}dtype: fp32\nenable_activation_offloading: True\nenable_activation_checkpointing: True\n`, opts));
  it("TT8: bitsandbytes → torchao AdamW8bit", () =>
    checkFix(
      `model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\noptimizer:\n  _component_: bitsandbytes.optim.PagedAdamW8bit\nloss:\n  _component_: x\ndtype: fp32\nfsdp_cpu_offload: False\n`,
      "torchtune/bitsandbytes-distributed",
      "torchao",
      `model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\noptimizer:\n  _component_: torchao.prototype.low_bit_optim.AdamW8bit\nloss:\n  _component_: x\ndtype: fp32\nfsdp_cpu_offload: False\n`,
      opts,
    ));
  it("TT9: shard dim → -1", () =>
    checkFix(`${base}dtype: fp32\ndata_parallel_replicate_dim: 2\ndata_parallel_shard_dim: 1\n`, "torchtune/replicate-only-data-parallel", "-1", `${base}dtype: fp32\ndata_parallel_replicate_dim: 2\ndata_parallel_shard_dim: -1\n`, opts));
  it("TT10: fused: True", () =>
    checkFix(
      `model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\noptimizer:\n  _component_: torch.optim.AdamW\n  fused: False\nloss:\n  _component_: x\ndtype: fp32\nfsdp_cpu_offload: True\n`,
      "torchtune/cpu-offload-without-fused-adamw",
      "fused",
      `model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\noptimizer:\n  _component_: torch.optim.AdamW\n  fused: True\nloss:\n  _component_: x\ndtype: fp32\nfsdp_cpu_offload: True\n`,
      opts,
    ));
  it("TT11: the dead fsdp.cpu_offload becomes top-level fsdp_cpu_offload", () =>
    checkFix(`${base}fsdp:\n  cpu_offload: False\ndtype: fp32\n`, "torchtune/cpu-offload-key-ignored", "fsdp_cpu_offload", `${base}fsdp_cpu_offload: False\ndtype: fp32\n`, opts));
  it("TT12: shard dim → -1", () =>
    checkFix(
      `# tune run --nproc_per_node 8 full_finetune_distributed --config x\n${base}dtype: fp32\ndata_parallel_shard_dim: 4\n`,
      "torchtune/parallel-dims-product",
      "-1",
      `# tune run --nproc_per_node 8 full_finetune_distributed --config x\n${base}dtype: fp32\ndata_parallel_shard_dim: -1\n`,
      opts,
    ));
});

describe("torchtune resolution", () => {
  it("bf16 is pure bf16 under FSDP2: no master copy, bf16 reduction; hover says so", () => {
    const r = analyzeDocument(uri, `# tune run --nproc_per_node 8 full_finetune_distributed --config x\n${base}dtype: bf16\n`);
    assert.equal(r.framework, "torchtune");
    assert.match(r.frameworkReason, /torchtune/);
    assert.equal(r.layoutName, "FSDP2");
    assert.equal(r.mechanism, "none");
    assert.equal(r.worldSize?.value, 8);
    assert.deepEqual(r.parallel, { dp_replicate: 1, dp_shard: 8, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1 });
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.equal(r.precision?.gradReduce.dtype, "bfloat16");
    const h = r.hovers.find((x) => x.range.start.line === 7);
    assert.ok(h, "hover on dtype");
    assert.match(h.markdown, /pure bf16/);
    assert.match(h.markdown, /optimizer state/);
  });

  it("TP + inferred shard from the world-size setting", () => {
    const r = analyzeDocument(uri, `${base}dtype: fp32\ntensor_parallel_dim: 2\ntensor_parallel_plan:\n  _component_: torchtune.models.llama3.base_llama_tp_plan\ndata_parallel_shard_dim: -1\n`, { worldSize: 16 });
    assert.equal(r.layoutName, "FSDP2+TP");
    assert.deepEqual(r.parallel, { dp_replicate: 1, dp_shard: 8, cp: 1, tp: 2, pp: 1, ep: 1, etp: 1 });
    assert.equal(r.precision?.paramStorage.dtype, "float32");
    assert.deepEqual(r.diagnostics, []);
  });

  it("single-device recipe from the header: reduction n/a, world size 1", () => {
    const r = analyzeDocument(uri, `# tune run full_finetune_single_device --config x\n${base}dtype: fp32\n`);
    assert.equal(r.layoutName, "single device");
    assert.equal(r.worldSize?.value, 1);
  });

  it("detects by `dtype` + checkpointer + tokenizer without torchtune components", () => {
    const r = analyzeDocument(uri, "checkpointer:\n  checkpoint_dir: /m\ntokenizer:\n  path: /t\ndtype: fp32\n");
    assert.equal(r.framework, "torchtune");
  });
});
