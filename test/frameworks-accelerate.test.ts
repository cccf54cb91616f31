/** accelerate: detection, resolution and AC1–ignored-backend-section (spec other-frameworks.md §2), fixture style. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import type { AnalysisEnv } from "../server/src/core/analysis";
import { checkDiagnostics, checkFix } from "./support/fixture";

const uri = "file:///x/accelerate.yaml";

describe("accelerate diagnostics", () => {
  it("`distributed_type: no` (YAML boolean False) runs one process with the mixed precision asked for (issue #17 §5)", () => {
    const r = checkDiagnostics(`compute_environment: LOCAL_MACHINE\ndistributed_type: no\nmixed_precision: bf16\nnum_processes: 1\n`, { uri, ignore: ["yaml-1.1-boolean"] });
    assert.equal(r.worldSize?.value, 1);
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    checkDiagnostics(
      `distributed_type: yes
                  #^^ warning[accelerate/bare-no-boolean]: launches one process
mixed_precision: bf16
`,
      { uri, ignore: ["yaml-1.1-boolean"] },
    );
  });

  it("AC1 bare no is a YAML 1.1 boolean that crashes mixed_precision; other keys get yaml-1.1-boolean; bool keys (use_cpu) stay silent", () => {
    // framework=accelerate layout=single device mech=error P=undefined C=undefined R=undefined ws=1
    // A bare `distributed_type: NO` is False too, but accelerate launches it as one process: no error
    // (accelerate 16cb6eb config_args.py L169-173 converts only a str; launch.py L1222-1240; issue #17 §5).
    checkDiagnostics(
      `compute_environment: LOCAL_MACHINE
distributed_type: NO
mixed_precision: no
                 #^ warning[accelerate/bare-no-boolean]: Assuming accelerate 1.14.0 (inferred): \`mixed_precision: no\` is the boolean False
downcast_bf16: no
               #^ information[yaml-1.1-boolean]: \`downcast_bf16: no\` is read as
use_cpu: no
num_processes: 1
`,
      { uri },
    );
  });

  it("AC1 `mixed_precision: no` by the accelerate pin: 0.33.0 reads False as \"no\" (information), 0.34.0 crashes (error); `yes` crashes at any version", () => {
    // config_args.py from_yaml_file's isinstance(bool) branch at v0.26.0–v0.33.0; gone in process_config at v0.34.0.
    const at = (v: string) => ({ readFile: (p: string) => (p === "/x/requirements.txt" ? `accelerate==${v}\n` : undefined), listDir: (d: string) => (d === "/x" ? ["requirements.txt", "accelerate.yaml"] : []), documentPath: "/x/accelerate.yaml" }) as AnalysisEnv;
    const text = "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nmixed_precision: no\nnum_processes: 2\n";
    const old = analyzeDocument(uri, text, {}, at("0.33.0")).diagnostics.filter((d) => d.code === "accelerate/bare-no-boolean");
    assert.deepEqual(old.map((d) => d.severity), ["information"]);
    assert.match(old[0]!.message, /accelerate 0\.33\.0 reads it as "no"/);
    const r33 = analyzeDocument(uri, text, {}, at("0.33.0"));
    assert.equal(r33.mechanism, "none");
    const neu = analyzeDocument(uri, text, {}, at("0.34.0")).diagnostics.filter((d) => d.code === "accelerate/bare-no-boolean");
    assert.deepEqual(neu.map((d) => d.severity), ["error"]);
    const yes = analyzeDocument(uri, text.replace("mixed_precision: no", "mixed_precision: yes"), {}, at("0.30.0")).diagnostics.filter((d) => d.code === "accelerate/bare-no-boolean");
    assert.deepEqual(yes.map((d) => d.severity), ["error"]);
    const yesUnpinned = analyzeDocument(uri, text.replace("mixed_precision: no", "mixed_precision: yes")).diagnostics.filter((d) => d.code === "accelerate/bare-no-boolean");
    assert.deepEqual(yesUnpinned.map((d) => d.severity), ["error"]);
  });

  it("AC2 on a key accelerate removed (ipex_config, gone in 1.13.0): silent on an older pin, an error on a newer one, a warning naming the release when nothing is pinned (issue #17)", () => {
    const text = "compute_environment: LOCAL_MACHINE\ndistributed_type: 'NO'\nipex_config:\n  use_xpu: true\nmixed_precision: bf16\nnum_processes: 1\n";
    const env = (req?: string): AnalysisEnv => ({
      readFile: (p) => (p === "/ws/requirements.txt" && req ? req : undefined),
      listDir: (d) => (d === "/ws" && req ? ["requirements.txt"] : []),
      documentPath: "/ws/default_config.yaml",
      workspaceRoots: ["/ws"],
    });
    const ac2 = (e: AnalysisEnv) => analyzeDocument("file:///ws/default_config.yaml", text, {}, e).diagnostics.filter((d) => d.code === "accelerate/unknown-key").map((d) => [d.severity, d.message]);
    assert.deepEqual(ac2(env("accelerate==0.30.1\n")), []);
    assert.deepEqual(ac2(env("accelerate==1.13.0\n")), [["error", "`ipex_config` was removed in accelerate 1.13.0: `accelerate launch` 1.13.0 refuses the file"]]);
    assert.deepEqual(ac2(env()), [["warning", "`ipex_config` was removed in accelerate 1.13.0: from that release `accelerate launch` refuses the file"]]);
  });
  it("AC2 unknown top-level keys (FSDP key at top level, typo) and AC3 invalid mixed_precision", () => {
    // framework=accelerate layout=MULTI_GPU mech=error P=undefined C=undefined R=undefined ws=2
    checkDiagnostics(
      `distributed_type: MULTI_GPU
mixed_precision: bfloat16
                 #^^^^^^^ error[accelerate/unknown-mixed-precision]: \`mixed_precision: bfloat16\` is not one
num_processes: 2
fsdp_offload_params: true
#^^^^^^^^^^^^^^^^^^ error[accelerate/unknown-key]: \`fsdp_offload_params\` is not an accelerate
num_proceses: 4
#^^^^^^^^^^^ error[accelerate/unknown-key]: \`num_proceses\` is not an accelerate
`,
      { uri },
    );
  });

  it("AC5 FSDP2+bf16 explanation, AC6 v1-only keys and strategy string under FSDP2, AC7 forward prefetch and LOCAL_STATE_DICT", () => {
    // framework=accelerate layout=FSDP2 mech=fully_shard P=float32 C=bfloat16 R=bfloat16 ws=8
    checkDiagnostics(
      `distributed_type: FSDP
mixed_precision: bf16
                 #^^^ information[accelerate/low-precision-reduction]: FSDP2 with mixed_precision bf16: fp32
num_processes: 8
fsdp_config:
  fsdp_version: 2
  fsdp_sharding_strategy: FULL_SHARD
  #^^^^^^^^^^^^^^^^^^^^^ warning[accelerate/fsdp-version-option]: \`fsdp_sharding_strategy\` is an FSDP1 option;
  fsdp_backward_prefetch: BACKWARD_PRE
  #^^^^^^^^^^^^^^^^^^^^^ warning[accelerate/fsdp-version-option]: \`fsdp_backward_prefetch\` is an FSDP1 option;
  fsdp_reshard_after_forward: SHARD_GRAD_OP
                              #^^^^^^^^^^^^ error[accelerate/fsdp-version-option]: With \`fsdp_version: 2\`, \`fsdp_reshard_after_forward\` must
  fsdp_forward_prefetch: true
                         #^^^ error[accelerate/fsdp2-unsupported-option]: \`fsdp_forward_prefetch: true\` is not supported
  fsdp_state_dict_type: LOCAL_STATE_DICT
                        #^^^^^^^^^^^^^^^ error[accelerate/fsdp2-unsupported-option]: \`fsdp_state_dict_type: LOCAL_STATE_DICT\` is not supported
`,
      { uri },
    );
  });

  it("AC8 cpu-RAM-efficient loading without sync, AC11 fp16, AC13 [inferred] reshard strategy without sharding_strategy", () => {
    // framework=accelerate layout=FSDP1 mech=fully_shard P=float32 C=float16 R=float16 ws=4
    checkDiagnostics(
      `distributed_type: FSDP
mixed_precision: fp16
                 #^^^ information[accelerate/fp16-prefer-bf16]: fp16 mixed precision: on Ampere
                 #^^^ information[accelerate/low-precision-reduction]: FSDP1 with mixed_precision fp16: fp32
num_processes: 4
fsdp_config:
  fsdp_reshard_after_forward: SHARD_GRAD_OP
                              #^^^^^^^^^^^^ information[accelerate/fsdp1-sharding-strategy-wins]: With FSDP1 under \`accelerate
  fsdp_sync_module_states: false
                           #^^^^ error[accelerate/ram-efficient-loading-without-sync]: \`fsdp_cpu_ram_efficient_loading\` is true by default
`,
      { uri },
    );
  });

  it("ignored-backend-section: a deepspeed_config / fsdp_config section under another distributed_type is ignored by accelerate launch (held-back open-r1 fork's zero3.yaml with distributed_type NO); empty sections stay silent", () => {
    const r = analyzeDocument(uri, "compute_environment: LOCAL_MACHINE\ndeepspeed_config:\n  zero3_init_flag: true\n  zero_stage: 3\ndistributed_type: 'NO'\nmixed_precision: bf16\nnum_processes: 1\n");
    const d = r.diagnostics.filter((x) => x.code === "accelerate/ignored-backend-section");
    assert.deepEqual(d.map((x) => [x.severity, x.range.start.line, x.range.start.character, x.range.end.character]), [["warning", 1, 0, 16]]);
    assert.equal(d[0]!.message, "`deepspeed_config` is ignored with `distributed_type: NO`: DeepSpeed ZeRO-3 does not run (one process)");
    assert.match(d[0]!.detail ?? "", /unless the command line passes `--use_deepspeed`/);
    const f = analyzeDocument(uri, "distributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_processes: 8\nfsdp_config:\n  fsdp_version: 2\n").diagnostics.filter((x) => x.code === "accelerate/ignored-backend-section");
    assert.equal(f[0]?.message, "`fsdp_config` is ignored with `distributed_type: MULTI_GPU`: FSDP does not run (DDP)");
    for (const text of ["distributed_type: MULTI_GPU\ndeepspeed_config: {}\nfsdp_config: {}\nmixed_precision: bf16\nnum_processes: 8\n", "distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 3\nmixed_precision: bf16\nnum_processes: 8\n"]) {
      assert.deepEqual(analyzeDocument(uri, text).diagnostics.filter((x) => x.code === "accelerate/ignored-backend-section"), [], text);
    }
  });

  it("ignored-deepspeed-key: DeepSpeed JSON keys under `deepspeed_config` without a deepspeed_config_file never reach DeepSpeed; accelerate's own keys and launch-argument names are silent (issue #31 §2)", () => {
    const text = "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 3\n  gradient_clipping: 1.0\n  offload_optimizer_nvme_path: none\n  num_machines: 1\n  train_micro_batch_size_per_gpu: 4\n  bf16:\n    enabled: true\n  zero3_init_flags: true\n";
    const d = analyzeDocument(uri, text).diagnostics.filter((x) => x.code === "accelerate/ignored-deepspeed-key");
    assert.deepEqual(d.map((x) => [x.severity, x.range.start.line, x.range.start.character, x.range.end.character]), [["warning", 9, 2, 32], ["warning", 10, 2, 6], ["warning", 12, 2, 18]]);
    assert.deepEqual(d.map((x) => x.message), [
      "`train_micro_batch_size_per_gpu` under `deepspeed_config` is never passed to DeepSpeed",
      "`deepspeed_config.bf16` is never passed to DeepSpeed by `accelerate launch`: the value does not reach the run",
      "`deepspeed_config.zero3_init_flags` is never passed to DeepSpeed by `accelerate launch`: did you mean `zero3_init_flag`?",
    ]);
    assert.match(d[1]!.detail ?? "", /The precision comes from `mixed_precision` \(here `bf16`\)/);
    assert.match(JSON.stringify(d[2]!.data), /"newText":"zero3_init_flag"/);
    // With a deepspeed_config_file, or under another distributed_type, this rule is silent (others judge the section).
    const withFile = text.replace("  zero_stage: 3\n", "  deepspeed_config_file: ds.json\n");
    assert.deepEqual(analyzeDocument(uri, withFile).diagnostics.filter((x) => x.code === "accelerate/ignored-deepspeed-key"), []);
    assert.deepEqual(analyzeDocument(uri, text.replace("DEEPSPEED", "MULTI_GPU")).diagnostics.filter((x) => x.code === "accelerate/ignored-deepspeed-key"), []);
  });
  it("ignored-deepspeed-key: `deepspeed_moe_layer_cls_names` is read from accelerate 0.30.0: reported only with an older pin", () => {
    const text = "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 3\n  deepspeed_moe_layer_cls_names: MixtralSparseMoeBlock\n";
    const env = (req: string): AnalysisEnv => ({ readFile: (p) => (p === "/x/requirements.txt" ? req : undefined), listDir: (p) => (p === "/x" ? ["requirements.txt", "accelerate.yaml"] : []), documentPath: "/x/accelerate.yaml", workspaceRoots: ["/x"] });
    const at = (req: string) => analyzeDocument(uri, text, {}, env(req)).diagnostics.filter((x) => x.code === "accelerate/ignored-deepspeed-key");
    assert.deepEqual(at("accelerate==0.30.0\n"), []);
    assert.deepEqual(at(""), []);
    const old = at("accelerate==0.29.3\n");
    assert.deepEqual(old.map((x) => [x.severity, x.range.start.line, x.message]), [["warning", 5, "`deepspeed_moe_layer_cls_names` is ignored at accelerate 0.29.3: it is passed to DeepSpeed only from 0.30.0"]]);
  });

  it("AC9 [inferred] unprefixed parallelism key; AC10 product and TP with pure replication", () => {
    // framework=accelerate layout=DDP+TP mech=none P=float32 C=float32 R=float32 ws=8
    checkDiagnostics(
      `distributed_type: FSDP
mixed_precision: 'no'
                 #^^^ information[accelerate/low-precision-reduction]: FSDP with mixed_precision 'no': the
num_processes: 8
fsdp_config:
  fsdp_version: 2
parallelism_config:
#^^^^^^^^^^^^^^^^^ error[accelerate/parallelism-sizes]: The parallelism sizes multiply to
#^^^^^^^^^^^^^^^^^ error[accelerate/parallelism-sizes]: TP/CP with pure replication (dp_replicate
  parallelism_config_dp_replicate_size: 2
  parallelism_config_tp_size: 2
  cp_size: 2
  #^^^^^^ information[accelerate/parallelism-key-without-prefix]: \`parallelism_config.cp_size\` lacks the \`parallelism_config_\`
`,
      { uri },
    );
  });

  it("AC10 CP with SP, CP without FSDP2, CP with pure replication", () => {
    // framework=accelerate layout=DDP+CP mech=fully_shard P=float32 C=bfloat16 R=bfloat16 ws=8
    checkDiagnostics(
      `distributed_type: FSDP
mixed_precision: bf16
                 #^^^ information[accelerate/low-precision-reduction]: FSDP1 with mixed_precision bf16: fp32
num_processes: 8
parallelism_config:
#^^^^^^^^^^^^^^^^^ error[accelerate/parallelism-sizes]: TP/CP with pure replication (dp_replicate
#^^^^^^^^^^^^^^^^^ error[accelerate/parallelism-sizes]: Context parallelism (cp_size > 1)
#^^^^^^^^^^^^^^^^^ error[accelerate/parallelism-sizes]: Context parallelism (cp_size 2) needs
  parallelism_config_dp_replicate_size: 2
  parallelism_config_cp_size: 2
  parallelism_config_sp_size: 2
`,
      { uri },
    );
  });

  it("AC12 fp8 without a backend", () => {
    // framework=accelerate layout=DDP (MULTI_GPU) mech=autocast P=float32 C=bfloat16 R=float32 ws=2
    checkDiagnostics(
      `distributed_type: MULTI_GPU
mixed_precision: fp8
                 #^^ information[accelerate/fp8-without-backend]: fp8 without \`fp8_config.backend\`: accelerate picks
num_processes: 2
`,
      { uri },
    );
  });

  it("AC4 keys that must live in the DeepSpeed file", () => {
    // framework=accelerate layout=DeepSpeed ZeRO-2 mech=none P=float32 C=bfloat16 R=bfloat16 ws=4
    checkDiagnostics(
      `distributed_type: DEEPSPEED
mixed_precision: bf16
#^^^^^^^^^^^^^^ error[accelerate/key-belongs-in-deepspeed-file]: \`mixed_precision\` cannot be set together
num_processes: 4
deepspeed_config:
  deepspeed_config_file: ds.json
  zero_stage: 2
  #^^^^^^^^^ error[accelerate/key-belongs-in-deepspeed-file]: \`deepspeed_config.zero_stage\` cannot be set together
  gradient_accumulation_steps: 4
  #^^^^^^^^^^^^^^^^^^^^^^^^^^ error[accelerate/key-belongs-in-deepspeed-file]: \`deepspeed_config.gradient_accumulation_steps\` cannot be set together
`,
      { uri },
    );
  });

  it("a clean DDP config has no diagnostics", () => {
    // framework=accelerate layout=DDP (MULTI_GPU) mech=autocast P=float32 C=bfloat16 R=float32 ws=8
    checkDiagnostics(
      `compute_environment: LOCAL_MACHINE
distributed_type: MULTI_GPU
mixed_precision: bf16
num_processes: 8
gpu_ids: all
`,
      { uri },
    );
  });
});

describe("accelerate quick fixes", () => {
  const opts = { uri };
  it("AC1: a boolean True distributed_type offers the type to write", () => checkFix("distributed_type: yes\nnum_processes: 2\n", "accelerate/bare-no-boolean", "MULTI_GPU", 'distributed_type: "MULTI_GPU"\nnum_processes: 2\n', opts));
  it("AC1: quote no", () => checkFix("distributed_type: MULTI_GPU\nmixed_precision: no\n", "accelerate/bare-no-boolean", "'no'", "distributed_type: MULTI_GPU\nmixed_precision: 'no'\n", opts));
  it("AC2: remove an unknown key (block)", () =>
    checkFix("distributed_type: MULTI_GPU\nbogus:\n  a: 1\nnum_processes: 2\n", "accelerate/unknown-key", "Remove", "distributed_type: MULTI_GPU\nnum_processes: 2\n", opts));
  it("AC3: fp32 → 'no'", () => checkFix("distributed_type: MULTI_GPU\nmixed_precision: fp32\n", "accelerate/unknown-mixed-precision", "'no'", "distributed_type: MULTI_GPU\nmixed_precision: 'no'\n", opts));
  it("AC3: bfloat16 → bf16", () => checkFix("distributed_type: MULTI_GPU\nmixed_precision: bfloat16\n", "accelerate/unknown-mixed-precision", "bf16", "distributed_type: MULTI_GPU\nmixed_precision: bf16\n", opts));
  it("AC4: remove mixed_precision next to a DeepSpeed file", () =>
    checkFix(
      "distributed_type: DEEPSPEED\nmixed_precision: bf16\ndeepspeed_config:\n  deepspeed_config_file: ds.json\n",
      "accelerate/key-belongs-in-deepspeed-file",
      "Remove",
      "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: ds.json\n",
      opts,
    ));
  it("AC6: FSDP1 strategy under FSDP2 → boolean", () =>
    checkFix(
      "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: SHARD_GRAD_OP\n",
      "accelerate/fsdp-version-option",
      "false",
      "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: false\n",
      { uri, ignore: ["accelerate/low-precision-reduction"] },
    ));
  it("AC6: a boolean fsdp_reshard_after_forward under FSDP1 is not read (the launcher always passes a sharding strategy): information, no error, no fix", () => {
    // accelerate utils/launch.py:313@v1.14.0 exports FSDP_SHARDING_STRATEGY (default FULL_SHARD); utils/dataclasses.py
    // :1845-1854 falls back to reshard_after_forward only when no sharding strategy is set (held-back LLaMA-Factory fork).
    const r = analyzeDocument(uri, "distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n  fsdp_reshard_after_forward: true\n", {});
    const d = r.diagnostics.filter((x) => x.code === "accelerate/fsdp-version-option");
    assert.deepEqual(d.map((x) => [x.severity, x.message, x.range.start.line, x.range.start.character]), [["information", "With FSDP1, `fsdp_reshard_after_forward` is not read: `fsdp_sharding_strategy` decides", 3, 30]]);
    assert.equal(d[0]!.data?.fixes, undefined);
  });
  it("AC6: remove an FSDP1-only key", () =>
    checkFix(
      "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_use_orig_params: true\n",
      "accelerate/fsdp-version-option",
      "Remove",
      "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n",
      opts,
    ));
  it("AC7: LOCAL_STATE_DICT → SHARDED_STATE_DICT", () =>
    checkFix(
      "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_state_dict_type: LOCAL_STATE_DICT\n",
      "accelerate/fsdp2-unsupported-option",
      "SHARDED",
      "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_state_dict_type: SHARDED_STATE_DICT\n",
      opts,
    ));
  it("AC8: sync module states", () =>
    checkFix("distributed_type: FSDP\nfsdp_config:\n  fsdp_sync_module_states: false\n", "accelerate/ram-efficient-loading-without-sync", "true", "distributed_type: FSDP\nfsdp_config:\n  fsdp_sync_module_states: true\n", opts));
  it("AC9: add the parallelism_config_ prefix", () =>
    checkFix(
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_version: 2\nparallelism_config:\n  tp_size: 2\n",
      "accelerate/parallelism-key-without-prefix",
      "Rename",
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_version: 2\nparallelism_config:\n  parallelism_config_tp_size: 2\n",
      opts,
    ));
  it("AC11: fp16 → bf16", () => checkFix("distributed_type: MULTI_GPU\nmixed_precision: fp16\n", "accelerate/fp16-prefer-bf16", "bf16", "distributed_type: MULTI_GPU\nmixed_precision: bf16\n", opts));
  it("AC13: add fsdp_sharding_strategy", () =>
    checkFix(
      "distributed_type: FSDP\nfsdp_config:\n  fsdp_reshard_after_forward: SHARD_GRAD_OP\n",
      "accelerate/fsdp1-sharding-strategy-wins",
      "fsdp_sharding_strategy",
      "distributed_type: FSDP\nfsdp_config:\n  fsdp_reshard_after_forward: SHARD_GRAD_OP\n  fsdp_sharding_strategy: SHARD_GRAD_OP\n",
      opts,
    ));
  it("yaml-1.1-boolean: quote it", () =>
    checkFix("distributed_type: MULTI_GPU\ndowncast_bf16: no\n", "yaml-1.1-boolean", "Quote", "distributed_type: MULTI_GPU\ndowncast_bf16: 'no'\n", opts));
});

describe("accelerate resolution", () => {
  it("FSDP2 + bf16: fp32 master, bf16 compute, bf16 reduction, with the parallelism layout", () => {
    const r = analyzeDocument(
      uri,
      "distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\nfsdp_config:\n  fsdp_version: 2\nparallelism_config:\n  parallelism_config_dp_replicate_size: 2\n  parallelism_config_dp_shard_size: 2\n  parallelism_config_tp_size: 2\n",
    );
    assert.equal(r.framework, "accelerate");
    assert.match(r.frameworkReason, /distributed_type/);
    assert.equal(r.layoutName, "HSDP+TP");
    assert.equal(r.mechanism, "fully_shard");
    assert.deepEqual(r.parallel, { dp_replicate: 2, dp_shard: 2, cp: 1, tp: 2, pp: 1, ep: 1, etp: 1 });
    assert.deepEqual(
      [r.precision?.paramStorage.dtype, r.precision?.compute.dtype, r.precision?.gradReduce.dtype],
      ["float32", "bfloat16", "bfloat16"],
    );
    const h = r.hovers.find((x) => x.range.start.line === 1);
    assert.ok(h);
    assert.match(h.markdown, /gradient reduction/);
  });

  it("DDP + bf16 is autocast; parameters stay in the load dtype", () => {
    const r = analyzeDocument(uri, "distributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_processes: 4\n");
    assert.equal(r.mechanism, "autocast");
    assert.equal(r.layoutName, "DDP (MULTI_GPU)");
    assert.equal(r.worldSize?.value, 4);
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.match(r.precision!.paramStorage.knob, /load dtype/);
  });

  it("a broken mixed_precision makes the mechanism `error`", () => {
    const r = analyzeDocument(uri, "distributed_type: MULTI_GPU\nmixed_precision: no\n");
    assert.equal(r.mechanism, "error");
  });

  it("SageMaker configs have their own keys", () => {
    const r = analyzeDocument(uri, "compute_environment: AMAZON_SAGEMAKER\ndistributed_type: 'NO'\nec2_instance_type: ml.p3.2xlarge\niam_role_name: x\n");
    assert.deepEqual(r.diagnostics, []);
  });
});
