/** Megatron-LM launch scripts: detection, the flags as the config, validate_args' combinations (MG1–MG5), fixture style. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { fakeEnv } from "./support/fakeEnv";
import { checkDiagnostics } from "./support/fixture";

const uri = "file:///p/pretrain_llama.sh";

describe("Megatron-LM detection", () => {
  it("torchrun or python running pretrain_gpt.py", () => {
    assert.equal(analyzeDocument(uri, "torchrun --nproc_per_node 8 pretrain_gpt.py --bf16\n").framework, "megatron");
    assert.equal(analyzeDocument(uri, "python /opt/Megatron-LM/pretrain_gpt.py --bf16\n").framework, "megatron");
  });
  it("decoys stay silent: another pretrain_*.py, Megatron-DeepSpeed, another torchrun script, an echo", () => {
    for (const t of [
      "torchrun --nproc_per_node 8 pretrain_bert.py --bf16 --fp16\n",
      "deepspeed pretrain_gpt.py --bf16 --fp16 --deepspeed_config ds.json\n",
      "torchrun --nproc_per_node 8 pretrain_gpt.py --bf16 --fp16 --deepspeed --deepspeed_config ds.json\n",
      "torchrun --nproc_per_node 8 train.py --bf16 --fp16 pretrain_gpt.py\n",
      "echo torchrun pretrain_gpt.py --bf16 --fp16\n",
    ]) {
      const r = analyzeDocument(uri, t);
      assert.equal(r.framework, null, t);
      assert.deepEqual(r.diagnostics, [], t);
    }
  });
});

describe("Megatron-LM resolution", () => {
  it("--bf16 implies fp32 gradient accumulation and reduction; world size and layout from torchrun and the sizes", () => {
    const r = analyzeDocument(uri, "NODES=2\ntorchrun --nproc_per_node 8 --nnodes $NODES pretrain_gpt.py --bf16 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --num-layers 32 --use-distributed-optimizer\n");
    assert.equal(r.framework, "megatron");
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.worldSize?.value, 16);
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.equal(r.precision?.gradReduce.dtype, "float32");
    assert.match(r.precision?.gradReduce.knob ?? "", /implied by `--bf16`/);
    assert.deepEqual([r.parallel?.dp_replicate, r.parallel?.tp, r.parallel?.pp], [4, 2, 2]);
    assert.match(r.reportMarkdown ?? "", /`--bf16` implies \(validate_args\): params_dtype bfloat16; accumulate_allreduce_grads_in_fp32 True/);
  });
});

describe("Megatron-LM world size from a node-count variable", () => {
  it("MG2 on a world size whose node count is a script variable (the examples' NUM_NODES=1 placeholder) is a warning; a literal --nnodes keeps the error", () => {
    const body = "--nproc_per_node $GPUS_PER_NODE --nnodes";
    const args = "pretrain_gpt.py --fp16 --tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 --num-layers 96\n";
    const v = analyzeDocument(uri, `GPUS_PER_NODE=8\n# Change for multinode config\nNUM_NODES=1\nDIST=(\n  ${body} $NUM_NODES\n)\ntorchrun \${DIST[@]} ${args}`);
    assert.equal(v.worldSize?.value, 8);
    const mg2 = v.diagnostics.filter((d) => d.code === "megatron/parallel-sizes");
    assert.deepEqual(mg2.map((d) => [d.severity, d.range.start.line]), [["warning", 6]]);
    assert.match(mg2[0]!.message, /world size 8 is not divisible by TP × PP × CP = 8 × 16 × 1 = 128/);
    const lit = analyzeDocument(uri, `GPUS_PER_NODE=8\ntorchrun ${body} 1 ${args}`);
    assert.deepEqual(lit.diagnostics.filter((d) => d.code === "megatron/parallel-sizes").map((d) => d.severity), ["error"]);
  });
});

describe("Megatron-LM diagnostics", () => {
  it("MG2 attention heads / query groups that TP does not divide: TransformerConfig.__post_init__ raises (the oracle's megatron worker found these)", () => {
    const run = (args: string) => analyzeDocument(uri, `torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py --bf16 ${args}\n`).diagnostics.filter((d) => d.code === "megatron/parallel-sizes");
    const heads = run("--tensor-model-parallel-size 8 --num-attention-heads 12");
    assert.deepEqual(heads.map((d) => [d.severity, d.range.start.character]), [["error", 115]]);
    assert.match(heads[0]!.message, /^`--num-attention-heads 12` is not a multiple of the tensor parallel size 8: TransformerConfig stops the launch$/);
    const groups = run("--tensor-model-parallel-size 4 --num-attention-heads 16 --group-query-attention --num-query-groups 3");
    assert.deepEqual(groups.map((d) => d.severity), ["error"]);
    assert.match(groups[0]!.message, /`--num-query-groups 3` is neither a multiple nor a divisor of the tensor parallel size 4/);
    // a divisor (2 groups under TP 4), groups without --group-query-attention, and heads TP divides: accepted
    assert.deepEqual(run("--tensor-model-parallel-size 4 --num-attention-heads 16 --group-query-attention --num-query-groups 2"), []);
    assert.deepEqual(run("--tensor-model-parallel-size 4 --num-attention-heads 16 --num-query-groups 3"), []);
    assert.deepEqual(run("--tensor-model-parallel-size 4 --num-attention-heads 32"), []);
  });
  it("MG1 --bf16 with --fp16, MG2 world size / layers / experts, MG3 fp8 without bf16 (arrays and variables as bash writes them)", () => {
    checkDiagnostics(
      `GPUS=8
DIST=(--nproc_per_node $GPUS --nnodes 1)
ARGS=(
  --num-layers 30
               #^ error[megatron/parallel-sizes]: \`--num-layers 30\` is not divisible by the pipeline size 4
  --tensor-model-parallel-size 3
                             # ^ error[megatron/parallel-sizes]: world size 8 is not divisible by TP × PP × CP = 3 × 4 × 1 = 12
  --pipeline-model-parallel-size 4
  --expert-model-parallel-size 4
  --num-experts 6
              # ^ error[megatron/parallel-sizes]: \`--num-experts 6\` is not a multiple of the expert parallel size 4
  --fp8-format hybrid
  #^^^^^^^^^^^ warning[megatron/fp8-without-bf16]: \`--fp8-format hybrid\` without \`--bf16\`: parameters and every non-FP8 op stay fp32
)
torchrun "\${DIST[@]}" pretrain_gpt.py "\${ARGS[@]}"
`,
      { uri },
    );
    checkDiagnostics(
      `torchrun --nproc_per_node 8 pretrain_gpt.py --bf16 --fp16
                                                   #^^^^^ error[megatron/bf16-and-fp16]: \`--fp16\` with \`--bf16\`
`,
      { uri },
    );
  });
  it("MG4 precision-aware optimizer flags (an error with megatron-core pinned), MG5 bf16 gradients", () => {
    const env = fakeEnv({ "/p/requirements.txt": "megatron-core==0.16.1\n" }, "/p/pretrain_llama.sh");
    checkDiagnostics(
      `ARGS=(
  --bf16
  --main-grads-dtype bf16
  #^^^^^^^^^^^^^^^^^ information[megatron/low-precision-gradients]: gradients accumulate and reduce in bf16 across 8 GPUs
                     #^^^ error[megatron/precision-aware-optimizer]: \`--main-grads-dtype bf16\` without \`--use-precision-aware-optimizer\`
)
torchrun --nproc_per_node 8 pretrain_gpt.py "\${ARGS[@]}"
`,
      { uri, env },
    );
    checkDiagnostics(
      `ARGS=(
  --bf16
  --use-precision-aware-optimizer
  #^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[megatron/precision-aware-optimizer]: \`--use-precision-aware-optimizer\` without \`--use-distributed-optimizer\`
  --grad-reduce-in-bf16
  #^^^^^^^^^^^^^^^^^^^^ information[megatron/low-precision-gradients]: gradients accumulate and reduce in bf16 across 8 GPUs (--grad-reduce-in-bf16
)
torchrun --nproc_per_node 8 pretrain_gpt.py "\${ARGS[@]}"
`,
      { uri, env },
    );
  });
  it("a size written as an unset variable is not guessed", () => {
    const r = analyzeDocument(uri, "torchrun --nproc_per_node 8 pretrain_gpt.py --bf16 --tensor-model-parallel-size $TP --num-layers $L --pipeline-model-parallel-size 4\n");
    assert.deepEqual(r.diagnostics, []);
  });
});

// slime (issue #35 §3): its launch scripts pass Megatron-LM's flags to slime's own train.py (behind `ray job submit`).
describe("slime's train.py with Megatron-LM flags", () => {
  const slime = (flags: string) => `PERF_ARGS=(\n   --tensor-model-parallel-size 2\n${flags})\nray job submit --address="http://127.0.0.1:8265" \\\n   -- python3 train.py \\\n   --actor-num-nodes 1 \\\n   --actor-num-gpus-per-node 8 \\\n   \${PERF_ARGS[@]}\n`;
  it("is read as Megatron-LM flags: --bf16 with --fp16 is validate_args' error, at the flag in the array", () => {
    const r = analyzeDocument("file:///p/scripts/run-qwen3-4B.sh", slime("   --bf16\n   --fp16\n"));
    assert.equal(r.framework, "megatron");
    assert.match(r.frameworkReason, /slime's `train\.py` on line 6/);
    const d = r.diagnostics.find((x) => x.code === "megatron/bf16-and-fp16");
    assert.ok(d, JSON.stringify(r.diagnostics.map((x) => x.code)));
    assert.equal(d.severity, "error");
    assert.equal(d.range.start.line, 3);
  });
  it("bf16 alone resolves as Megatron's --bf16 (params bf16, fp32 gradient reduction)", () => {
    const r = analyzeDocument("file:///p/scripts/run-qwen3-4B.sh", slime("   --bf16\n"));
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
    assert.equal(r.precision?.gradReduce.dtype, "float32");
  });
  it("another train.py (no slime-only flag) gets nothing", () => {
    const r = analyzeDocument("file:///p/run.sh", "ray job submit -- python3 train.py --bf16 --fp16 --tensor-model-parallel-size 2\n");
    assert.equal(r.framework, null);
    assert.deepEqual(r.diagnostics, []);
  });
});

// Held-back review (issue #35): slime's scripts `source` their model flags (MODEL_ARGS) from another file, so a
// flag missing from the script proves nothing; neither does one missing beside `$@`.
describe("a missing flag proves nothing when the arguments are not all known", () => {
  it("slime: --expert-model-parallel-size 8 and --use-precision-aware-optimizer with MODEL_ARGS from a sourced file: silent", () => {
    const t = `source "\${SCRIPT_DIR}/models/qwen3-30B-A3B.sh"\nPERF_ARGS=(\n   --expert-model-parallel-size 8\n   --use-precision-aware-optimizer\n   --bf16\n)\nray job submit -- python3 train.py --actor-num-nodes 1 --actor-num-gpus-per-node 8 \${MODEL_ARGS[@]} \${PERF_ARGS[@]}\n`;
    const r = analyzeDocument("file:///p/scripts/run-qwen3-30B-A3B.sh", t);
    assert.equal(r.framework, "megatron");
    assert.deepEqual(r.diagnostics, []);
  });
  it("pretrain_gpt.py with $@: no error from a missing --num-experts; written with the flags known, it is an error", () => {
    const known = analyzeDocument(uri, "torchrun --nproc_per_node 8 pretrain_gpt.py --bf16 --expert-model-parallel-size 2\n");
    assert.deepEqual(known.diagnostics.map((d) => [d.code, d.severity]), [["megatron/parallel-sizes", "error"]]);
    const open = analyzeDocument(uri, 'torchrun --nproc_per_node 8 pretrain_gpt.py --bf16 --expert-model-parallel-size 2 "$@"\n');
    assert.deepEqual(open.diagnostics, []);
  });
});

describe("megatron: a Megatron-DeepSpeed checkout is declined (its examples keep Megatron-LM's scripts)", () => {
  const script = "torchrun --nproc_per_node 8 ../pretrain_gpt.py --fp16 --tensor-model-parallel-size 3\n";
  const doc = "/p/examples/pretrain_gpt_distributed.sh";
  const run = (files: Record<string, string>) => analyzeDocument(`file://${doc}`, script, {}, fakeEnv({ [doc]: script, ...files }, doc, ["/p"]));
  it("a sibling script that runs pretrain_gpt.py with the deepspeed launcher: not claimed, no findings, the reason names it", () => {
    const r = run({ "/p/examples/pretrain_gpt.sh": "deepspeed --num_gpus 8 ../pretrain_gpt.py --deepspeed --deepspeed_config ds.json\n" });
    assert.equal(r.framework, null);
    assert.deepEqual(r.diagnostics, []);
    assert.match(r.frameworkReason, /examples\/pretrain_gpt\.sh runs pretrain_gpt\.py with DeepSpeed: this checkout is Megatron-DeepSpeed/);
  });
  it("a pretrain_gpt.py above the script that imports deepspeed: not claimed", () => {
    const r = run({ "/p/pretrain_gpt.py": "import torch\nimport deepspeed\n" });
    assert.equal(r.framework, null);
    assert.match(r.frameworkReason, /pretrain_gpt\.py imports deepspeed/);
  });
  it("Megatron-LM's own checkout (its pretrain_gpt.py without deepspeed, no DeepSpeed launch): still checked", () => {
    const r = run({ "/p/pretrain_gpt.py": "import torch\nfrom megatron.training import pretrain\n", "/p/examples/other.sh": "torchrun ../pretrain_gpt.py --bf16\n" });
    assert.equal(r.framework, "megatron");
    assert.ok(r.diagnostics.some((d) => d.code === "megatron/parallel-sizes"));
  });
});
