/** verl: the launch-script reader, detection, Hydra composition, the actor's precision table and VL1–VL6, fixture style. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { headline } from "../server/src/core/features";
import { readShell } from "../server/src/core/parse/shell";
import { fakeEnv } from "./support/fakeEnv";
import { checkDiagnostics, checkFix } from "./support/fixture";

const uri = "file:///p/run_grpo.sh";
/** A workspace pinning verl at `v`, with the script at /p/run_grpo.sh. */
const pinned = (v: string, extra: Record<string, string> = {}) => fakeEnv({ "/p/requirements.txt": `verl==${v}\n`, ...extra }, "/p/run_grpo.sh");

describe("launch scripts as data (parse/shell.ts)", () => {
  it("expands arrays, quoted strings, ${VAR:-default} and keeps each word's written range", () => {
    const s = readShell(`GPUS=8\nARGS=(\n  --num-layers 24 # c\n  --bf16\n)\nOTHER="--tp 4"\ntorchrun --nproc_per_node \${N:-$GPUS} x.py "\${ARGS[@]}" $OTHER --lr=$LR\n`);
    assert.equal(s.commands.length, 1);
    const w = s.commands[0]!.words;
    assert.deepEqual(w.map((x) => x.text), ["torchrun", "--nproc_per_node", "8", "x.py", "--num-layers", "24", "--bf16", "--tp", "4", "--lr=${LR}"]);
    assert.deepEqual(w[6]!.range, { start: { line: 3, character: 2 }, end: { line: 3, character: 8 } });
    assert.deepEqual(w[8]!.range.start, { line: 5, character: 12 });
  });
  it("a comment line ends a continued command, as in bash", () => {
    const s = readShell(`python3 -m a \\\n  x=1 \\\n# note\n  y 2\n`);
    assert.deepEqual(s.commands.map((c) => c.words.map((x) => x.text)), [["python3", "-m", "a", "x=1"], ["y", "2"]]);
  });
});

describe("verl detection", () => {
  it("a run script launching verl.trainer.main_ppo, and a verl trainer YAML", () => {
    assert.equal(analyzeDocument(uri, "python3 -m verl.trainer.main_ppo trainer.nnodes=1\n").framework, "verl");
    assert.equal(analyzeDocument("file:///p/my_ppo.yaml", "actor_rollout_ref:\n  actor:\n    strategy: fsdp\ntrainer:\n  nnodes: 1\n").framework, "verl");
  });
  it("decoys stay silent: other Hydra YAMLs, other verl entry points, other torchrun scripts, a grep", () => {
    for (const [u, t] of [
      ["file:///p/train.yaml", "defaults:\n  - model: llama\n  - _self_\ntrainer:\n  max_epochs: 3\nmodel:\n  lr: 1e-5\n"],
      ["file:///p/gen.sh", "python3 -m verl.trainer.main_generation model.path=x rollout.dtype=bf16\n"],
      ["file:///p/pre.sh", "torchrun --nproc_per_node 8 pretrain_gpt.py --bf16 --num-layers 24\n"],
      ["file:///p/g.sh", "grep -r verl.trainer.main_ppo . # python3 -m verl.trainer.main_ppo\n"],
    ] as const) {
      const r = analyzeDocument(u, t);
      assert.notEqual(r.framework, "verl", u);
      assert.deepEqual(r.diagnostics, [], u);
    }
  });
});

describe("verl resolution", () => {
  it("defaults: fp32 weights and AdamW state, bf16 compute, fp32 reduction, 8 GPUs by default (assumed)", () => {
    const r = analyzeDocument(uri, "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo\n");
    assert.equal(r.framework, "verl");
    assert.equal(r.precision?.paramStorage.dtype, "float32");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.equal(r.precision?.gradReduce.dtype, "float32");
    assert.equal(r.worldSize?.value, 8);
    assert.equal(r.worldSize?.kind, "default");
    assert.deepEqual(r.diagnostics, []);
    assert.match(r.reportMarkdown ?? "", /Rollout \(vllm\).*bfloat16/);
    assert.doesNotMatch(r.reportMarkdown ?? "", /Critic/);
  });
  it("overrides apply over the user's YAML named by --config-name, in Hydra's order", () => {
    const env = fakeEnv({ "/p/cfg/my_ppo.yaml": "actor_rollout_ref:\n  actor:\n    fsdp_config:\n      model_dtype: bf16\ntrainer:\n  n_gpus_per_node: 4\n" }, "/p/run_grpo.sh");
    const r = analyzeDocument(uri, "python3 -m verl.trainer.main_ppo --config-path=cfg --config-name=my_ppo actor_rollout_ref.actor.fsdp_config.model_dtype=fp32 trainer.nnodes=2\n", {}, env);
    assert.equal(r.precision?.paramStorage.dtype, "float32");
    assert.equal(r.worldSize?.value, 8);
    assert.match(r.worldSize?.detail ?? "", /n_gpus_per_node 4 \(my_ppo\.yaml line 6\) × trainer\.nnodes 2 \(line 1\)/);
  });
  it("an unreadable --config-name makes what it could set unknown: no finding rests on a default", () => {
    const r = analyzeDocument(uri, "python3 -m verl.trainer.main_ppo --config-name=missing actor_rollout_ref.actor.fsdp_config.mixed_precision.param_dtype=fp32\n", {}, fakeEnv({}, "/p/run_grpo.sh"));
    assert.equal(r.worldSize, undefined);
    assert.deepEqual(r.diagnostics, []);
    assert.match(r.reportMarkdown ?? "", /verl-config-path/);
    // The headline says what is not known; it never claims a failure no diagnostic reports (held-back verl scripts).
    if (!r.precision) assert.match(headline(r) ?? "", /: precision not known \(a setting it rests on was not read\)$/);
    assert.doesNotMatch(headline(r) ?? "", /fails at launch/);
  });
});

describe("verl diagnostics", () => {
  it("VL1 bf16 actor weights with AdamW (lr from a shell variable), VL5 bf16 reduction, VL6 missing + (capped: version assumed)", () => {
    checkDiagnostics(
      `LR=5e-7
ARGS=(
  algorithm.adv_estimator=grpo
  actor_rollout_ref.actor.optim.lr=$LR
  actor_rollout_ref.actor.fsdp_config.model_dtype=bf16
  #^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[verl/bf16-weights-adamw]: actor \`model_dtype=bf16\`: AdamW on bf16 weights, no fp32 master copy (lr = 5e-7: small updates round away)
  actor_rollout_ref.actor.fsdp_config.mixed_precision.param_dtype=bf16
  #^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[verl/mixed-precision-needs-plus]: Assuming verl 0.9.1 (the default): verl's config has no \`mixed_precision\`
  +actor_rollout_ref.actor.fsdp_config.mixed_precision.reduce_dtype=bf16
  #^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ information[verl/low-precision-reduction]: actor: gradients reduced in bf16 across 16 GPUs
  trainer.n_gpus_per_node=8
  trainer.nnodes=2
)
python3 -m verl.trainer.main_ppo "\${ARGS[@]}"
`,
      { uri },
    );
  });
  it("VL1 is information when the learning rate is known and large, and silent for fp32", () => {
    const r = analyzeDocument(uri, "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.actor.optim.lr=1e-4 actor_rollout_ref.actor.fsdp_config.model_dtype=bfloat16\n");
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.severity]), [["verl/bf16-weights-adamw", "information"]]);
    assert.match(r.diagnostics[0]!.message, /\(lr = 1e-4\)$/);
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
    assert.deepEqual(analyzeDocument(uri, "python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.fsdp_config.model_dtype=fp32\n").diagnostics, []);
  });
  it("VL1 for the critic only when GAE uses it; not for the reference policy (no optimizer)", () => {
    const gae = analyzeDocument(uri, "python3 -m verl.trainer.main_ppo critic.model.fsdp_config.model_dtype=bf16 actor_rollout_ref.ref.fsdp_config.model_dtype=bf16\n");
    assert.deepEqual(gae.diagnostics.map((d) => d.message.split(" ")[0]), ["critic"]);
    assert.match(gae.diagnostics[0]!.message, /lr = 1e-5/);
    const grpo = analyzeDocument(uri, "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo critic.model.fsdp_config.model_dtype=bf16\n");
    assert.deepEqual(grpo.diagnostics, []);
  });
  it("VL6 is an error with verl pinned, and its fix adds the +", () => {
    const text = "python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.fsdp_config.mixed_precision.param_dtype=bf16\n";
    const r = analyzeDocument(uri, text, {}, pinned("0.9.1"));
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.severity]), [["verl/mixed-precision-needs-plus", "error"]]);
    assert.equal(r.mechanism, "error");
    checkFix(text, "verl/mixed-precision-needs-plus", "Prefix with +", "python3 -m verl.trainer.main_ppo +actor_rollout_ref.actor.fsdp_config.mixed_precision.param_dtype=bf16\n", { uri, env: pinned("0.9.1") });
  });
  it("VL2 a dtype verl does not accept (torch.bfloat16 as a string)", () => {
    checkDiagnostics(
      `ARGS=(
  actor_rollout_ref.actor.fsdp_config.model_dtype=torch.bfloat16
  #^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[verl/unknown-dtype]: actor: \`model_dtype=torch.bfloat16\` raises RuntimeError "unexpected precision" (use \`bfloat16\`)
)
python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo "\${ARGS[@]}"
`,
      { uri },
    );
  });
  it("VL3 param_dtype ignored by verl 0.7.1's engine; silent at 0.8.0 and with the legacy actor", () => {
    const text = "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo trainer.use_legacy_worker_impl=disable +actor_rollout_ref.actor.fsdp_config.mixed_precision.param_dtype=fp32\n";
    const old = analyzeDocument(uri, text, {}, pinned("0.7.1"));
    assert.deepEqual(old.diagnostics.map((d) => [d.code, d.severity]), [["verl/param-dtype-not-applied", "warning"]]);
    assert.match(old.diagnostics[0]!.message, /actor: `param_dtype=fp32` is not applied in forward: verl 0\.7\.1 autocasts to bf16/);
    assert.equal(old.precision?.compute.dtype, "bfloat16");
    const fixed = analyzeDocument(uri, text, {}, pinned("0.8.0"));
    assert.deepEqual(fixed.diagnostics, []);
    assert.equal(fixed.precision?.compute.dtype, "float32");
    const legacy = analyzeDocument(uri, text.replace("trainer.use_legacy_worker_impl=disable ", ""), {}, pinned("0.7.1"));
    assert.deepEqual(legacy.diagnostics, []);
    assert.equal(legacy.precision?.compute.dtype, "float32");
    // Unpinned: the newest release (fixed) is assumed, so nothing rests on a guess.
    assert.deepEqual(analyzeDocument(uri, text).diagnostics, []);
  });
  it("VL4 fp16 with no loss scaler at verl 0.7.1's engine; silent at 0.9.1 (ShardedGradScaler)", () => {
    const text = "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo trainer.use_legacy_worker_impl=disable +actor_rollout_ref.actor.fsdp_config.mixed_precision.param_dtype=fp16\n";
    const old = analyzeDocument(uri, text, {}, pinned("0.7.1"));
    assert.deepEqual(old.diagnostics.map((d) => d.code).sort(), ["verl/fp16-without-loss-scaling", "verl/param-dtype-not-applied"]);
    assert.deepEqual(analyzeDocument(uri, text, {}, pinned("0.9.1")).diagnostics, []);
  });
  it("a verl trainer YAML: its own values over the defaults", () => {
    checkDiagnostics(
      `actor_rollout_ref:
  actor:
    optim:
      lr: 1e-6
    fsdp_config:
      model_dtype: bf16
                   #^^^ warning[verl/bf16-weights-adamw]: actor \`model_dtype=bf16\`: AdamW on bf16 weights
algorithm:
  adv_estimator: grpo
trainer:
  n_gpus_per_node: 8
  nnodes: 1
`,
      { uri: "file:///p/my_ppo.yaml" },
    );
  });
  it("strategy megatron (ppo_megatron_trainer): bf16 params and compute, fp32 reduction and optimizer states; unsupported-megatron-dtype: a megatron.dtype McoreEngineConfig rejects", () => {
    const run = "python3 -m verl.trainer.main_ppo --config-name='ppo_megatron_trainer.yaml' algorithm.adv_estimator=grpo";
    const r = analyzeDocument(uri, `${run} trainer.n_gpus_per_node=8 trainer.nnodes=1\n`, {}, pinned("0.9.1"));
    assert.equal(r.framework, "verl");
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual([r.precision?.paramStorage.dtype, r.precision?.compute.dtype, r.precision?.gradReduce.dtype], ["bfloat16", "bfloat16", "float32"]);
    assert.match(r.reportMarkdown ?? "", /Mechanism: \*\*Megatron-Core mixed precision \(model in megatron.dtype, fp32 main parameters and optimizer state\)\*\*/);
    assert.match(r.reportMarkdown ?? "", /Workers: the Megatron engine/);
    const off = analyzeDocument(uri, `${run} +actor_rollout_ref.actor.megatron.override_ddp_config.grad_reduce_in_fp32=False\n`, {}, pinned("0.9.1"));
    assert.equal(off.precision?.gradReduce.dtype, "bfloat16");
    checkDiagnostics(
      `python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \\
  actor_rollout_ref.actor.megatron.dtype=bf16
  #^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[verl/unsupported-megatron-dtype]: actor: \`megatron.dtype=bf16\` fails McoreEngineConfig's check (only bfloat16 or float16) (use \`bfloat16\`)
`,
      { uri, env: pinned("0.9.1") },
    );
    assert.deepEqual(analyzeDocument(uri, "python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer actor_rollout_ref.actor.megatron.dtype=bf16\n", {}, pinned("0.5.0")).diagnostics, []);
  });
  it("a relative --config-path resolves against verl/trainer/main_ppo.py: a fork's own config folder, else the packaged one", () => {
    const run = "python3 -m verl.trainer.main_ppo --config-path=./config --config-name='ppo_megatron_trainer' trainer.n_gpus_per_node=8 trainer.nnodes=1\n";
    const fork = fakeEnv(
      {
        "/p/verl/trainer/main_ppo.py": "import hydra\n",
        "/p/verl/trainer/config/ppo_megatron_trainer.yaml": "actor_rollout_ref:\n  actor:\n    strategy: megatron\n    megatron:\n      dtype: float16\n",
      },
      "/p/examples/run_megatron.sh",
    );
    const r = analyzeDocument("file:///p/examples/run_megatron.sh", run, {}, fork);
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual([r.precision?.paramStorage.dtype, r.precision?.gradReduce.dtype], ["float16", "float32"]);
    assert.equal(r.mechanism, "none");
    assert.match(r.reportMarkdown ?? "", /`megatron.dtype: float16` \(ppo_megatron_trainer.yaml line 5\)/);
    assert.match(r.reportMarkdown ?? "", /verl-vendored/);
    const plain = analyzeDocument("file:///p/examples/run_megatron.sh", run, {}, fakeEnv({}, "/p/examples/run_megatron.sh"));
    assert.deepEqual([plain.precision?.paramStorage.dtype, plain.precision?.gradReduce.dtype], ["bfloat16", "float32"]);
  });
});

// Held-back misses (issue #35 §3): a --config-path led by the script's folder as the shell writes it, and launch
// commands inside `eval "…"` strings.
describe("verl: --config-path from $(pwd), $PWD, $(dirname $0); eval strings", () => {
  const yaml = "actor_rollout_ref:\n  actor:\n    fsdp_config:\n      model_dtype: bf16\ntrainer:\n  n_gpus_per_node: 4\n";
  const env = () => fakeEnv({ "/p/config/my_ppo.yaml": yaml }, "/p/run_grpo.sh");
  for (const lead of ['"$(pwd)/config"', "$PWD/config", "${PWD}/config", '"$(dirname $0)/config"']) {
    it(`--config-path=${lead} reads config/my_ppo.yaml beside the script`, () => {
      const r = analyzeDocument(uri, `python3 -m verl.trainer.main_ppo --config-path=${lead} --config-name=my_ppo trainer.nnodes=2\n`, {}, env());
      assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
      assert.equal(r.worldSize?.value, 8);
      assert.match(r.worldSize?.detail ?? "", /n_gpus_per_node 4 \(my_ppo\.yaml line 6\)/);
      assert.match(r.reportMarkdown ?? "", /verl-config-path-pwd/);
      assert.match(r.reportMarkdown ?? "", lead.includes("dirname") ? /is the script's own folder/ : /taken as the script's folder/);
    });
  }
  it("$(pwd) is the project root when the config is there and not beside the script (the nearest folder holding it)", () => {
    const script = "/p/examples/multiturn/run.sh";
    const text = 'PROJECT_DIR="$(pwd)"\nCONFIG_PATH="$PROJECT_DIR/examples/multiturn/config"\npython3 -m verl.trainer.main_ppo --config-path="$CONFIG_PATH" --config-name=my_ppo\n';
    const r = analyzeDocument(`file://${script}`, text, {}, fakeEnv({ "/p/examples/multiturn/config/my_ppo.yaml": yaml }, script, ["/p"]));
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
    assert.equal(r.worldSize?.value, 4);
    assert.match(r.reportMarkdown ?? "", /`\$\(pwd\)` is taken as `[^`]*`, the nearest folder above the script holding `examples\/multiturn\/config\/my_ppo\.yaml`/);
    const beside = analyzeDocument(`file://${script}`, text, {}, fakeEnv({}, script, ["/p"]));
    assert.equal(beside.worldSize, undefined);
  });
  it("a $(pwd) path with another variable after it stays unread (values unknown, no finding)", () => {
    const r = analyzeDocument(uri, 'python3 -m verl.trainer.main_ppo --config-path="$(pwd)/$CFG" --config-name=my_ppo\n', {}, env());
    assert.equal(r.worldSize, undefined);
    assert.deepEqual(r.diagnostics, []);
  });
  it("eval \"$CMD\": the command in the string is read, its words at the eval's argument", () => {
    const text = 'CMD="python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.fsdp_config.model_dtype=bf16 actor_rollout_ref.actor.optim.lr=1e-6 trainer.n_gpus_per_node=8 trainer.nnodes=1"\neval "$CMD"\n';
    const r = analyzeDocument(uri, text, {}, pinned("0.7.1"));
    assert.equal(r.framework, "verl");
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
    const d = r.diagnostics.find((x) => x.code === "verl/bf16-weights-adamw");
    assert.ok(d, JSON.stringify(r.diagnostics.map((x) => x.code)));
    assert.equal(d.severity, "warning");
    // The string has no place of its own in the file: the finding points at the eval's argument.
    assert.deepEqual(d.range, { start: { line: 1, character: 5 }, end: { line: 1, character: 11 } });
  });
  it("readShell: eval joins its arguments and reads them as commands; assignments inside stay", () => {
    const s = readShell(`eval "A=2; torchrun --nproc_per_node \\$A x.py"\necho $A\n`);
    assert.deepEqual(s.commands.map((c) => c.words.map((w) => w.text)), [["torchrun", "--nproc_per_node", "2", "x.py"], ["echo", "2"]]);
    assert.deepEqual(s.commands[0]!.words[0]!.range.start, { line: 0, character: 5 });
  });
});
