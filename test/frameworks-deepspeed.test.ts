/** DeepSpeed JSON: detection, resolution per stage, DS1–DS9 and cross-file links (spec other-frameworks.md §5, §6.7). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AnalysisEnv, AnalysisResult } from "../server/src/core/analysis";
import { analyzeDocument } from "../server/src/core/analyze";
import { headline } from "../server/src/core/features/index";
import { applyEdits } from "../server/src/core/diagnostics/build";
import { LineIndex } from "../server/src/core/model/lineIndex";
import { checkDiagnostics } from "./support/fixture";
import { fakeEnv } from "./support/fakeEnv";

const uri = "file:///x/ds_config.json";
const analyze = (text: string, env?: AnalysisEnv, u = uri) => analyzeDocument(u, text, {}, env);
const codes = (r: AnalysisResult) => r.diagnostics.map((d) => `${d.severity}:${d.code}@${d.range.start.line}:${d.range.start.character}`);

function fixed(text: string, r: AnalysisResult, code: string, titlePart: string): string {
  const d = r.diagnostics.find((x) => x.code === code);
  assert.ok(d, `no ${code}: ${codes(r).join(", ")}`);
  const f = d.data?.fixes?.find((x) => x.title.includes(titlePart));
  assert.ok(f, `no fix "${titlePart}" on ${code}`);
  const after = applyEdits({ text, lines: new LineIndex(text) }, f.edits);
  JSON.parse(after);
  return after;
}

describe("DeepSpeed diagnostics", () => {
  it("DS1: fp16 and bf16 both enabled (on both keys, with fixes)", () => {
    const text = '{\n  "zero_optimization": {"stage": 2},\n  "fp16": {"enabled": true},\n  "bf16": {"enabled": true}\n}\n';
    const r = analyze(text);
    assert.equal(r.framework, "deepspeed");
    assert.deepEqual(codes(r), ["error:deepspeed/bf16-and-fp16@2:11", "error:deepspeed/bf16-and-fp16@3:11"]);
    assert.equal(r.mechanism, "error");
    const after = fixed(text, r, "deepspeed/bf16-and-fp16", "Disable fp16");
    assert.ok(!analyze(after).diagnostics.some((d) => d.code === "deepspeed/bf16-and-fp16"));
  });

  it("DS1 + DS2: Apex amp with a 16-bit mode and with ZeRO", () => {
    const r = analyze('{"zero_optimization": {"stage": 1}, "bf16": {"enabled": true}, "communication_data_type": "fp32", "amp": {"enabled": true}}');
    assert.deepEqual(
      r.diagnostics.map((d) => d.code),
      ["deepspeed/bf16-and-fp16", "deepspeed/amp-with-zero"],
    );
  });

  it("DS3: \"auto\" precision in a file a deepspeed launcher script runs directly", () => {
    const files = {
      "/p/ds.json": '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}}',
      "/p/run.sh": "deepspeed --num_gpus 8 train.py --deepspeed_config ds.json\n",
    };
    const r = analyze(files["/p/ds.json"], fakeEnv(files, "/p/ds.json"), "file:///p/ds.json");
    assert.deepEqual(codes(r), ["warning:deepspeed/auto-without-trainer@0:56"]);
    assert.match(r.diagnostics[0]!.message, /run\.sh/);
    // Without a launcher script (e.g. the HF Trainer fills "auto"), nothing.
    const quiet = analyze(files["/p/ds.json"], fakeEnv({ "/p/ds.json": files["/p/ds.json"] }, "/p/ds.json"), "file:///p/ds.json");
    assert.deepEqual(quiet.diagnostics, []);
  });

  it("DS4: bf16_optimizer_states without master weights, options at stage 0, param_dtype mismatch", () => {
    const r = analyze('{"train_batch_size": 8, "bf16": {"enabled": true, "bf16_optimizer_states": true}, "communication_data_type": "fp32", "data_types": {"param_dtype": "fp16"}}');
    assert.deepEqual(
      r.diagnostics.map((d) => d.code).sort(),
      ["deepspeed/bf16-master-weights", "deepspeed/bf16-master-weights", "deepspeed/bf16-master-weights"],
    );
  });

  it("DS5: bf16 gradient accumulation, fixed by adding data_types.grad_accum_dtype", () => {
    const text = '{\n  "zero_optimization": {"stage": 2},\n  "bf16": {"enabled": true},\n  "communication_data_type": "fp32",\n  "gradient_accumulation_steps": 8\n}\n';
    const r = analyze(text);
    assert.deepEqual(codes(r), ["warning:deepspeed/bf16-grad-accumulation@4:2"]);
    const after = fixed(text, r, "deepspeed/bf16-grad-accumulation", "fp32");
    assert.deepEqual(analyze(after).diagnostics, []);
    assert.equal(JSON.parse(after).data_types.grad_accum_dtype, "fp32");
  });

  it("DS5 fix adds to an existing data_types object", () => {
    const text = '{\n  "zero_optimization": {"stage": 2},\n  "bf16": {"enabled": true},\n  "communication_data_type": "fp32",\n  "gradient_accumulation_steps": 8,\n  "data_types": {"param_dtype": "bf16"}\n}\n';
    const after = fixed(text, analyze(text), "deepspeed/bf16-grad-accumulation", "fp32");
    assert.deepEqual(JSON.parse(after).data_types, { grad_accum_dtype: "fp32", param_dtype: "bf16" });
  });

  it("DS6: 16-bit gradient averaging is information, fixed by communication_data_type", () => {
    const text = '{\n  "zero_optimization": {"stage": 3},\n  "bf16": {"enabled": true}\n}\n';
    const r = analyze(text);
    assert.deepEqual(codes(r), ["information:deepspeed/low-precision-reduction@2:11"]);
    assert.equal(r.precision?.gradReduce.dtype, "bfloat16");
    const after = fixed(text, r, "deepspeed/low-precision-reduction", "fp32");
    const r2 = analyze(after);
    assert.deepEqual(r2.diagnostics, []);
    assert.equal(r2.precision?.gradReduce.dtype, "float32");
  });

  it("DS7: invalid communication dtype, negative loss scale, zero window, max_grad_norm", () => {
    const r = analyze(
      '{"zero_optimization": {"stage": 1}, "communication_data_type": "bfloat16", "fp16": {"enabled": true, "loss_scale": 0, "loss_scale_window": 0}, "optimizer": {"type": "AdamW", "params": {"max_grad_norm": 1.0}}}',
    );
    assert.deepEqual(r.diagnostics.map((d) => d.code), ["deepspeed/invalid-value", "deepspeed/invalid-value", "deepspeed/invalid-value"]);
    const r2 = analyze('{"zero_optimization": {"stage": 1}, "fp16": {"enabled": true, "loss_scale": -1}, "communication_data_type": "fp32"}');
    assert.deepEqual(r2.diagnostics.map((d) => d.code), ["deepspeed/invalid-value"]);
  });

  it("DS8: batch trio not divisible; and inconsistent with the world size setting", () => {
    const r = analyze('{"zero_optimization": {"stage": 0}, "train_batch_size": 30, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}');
    assert.deepEqual(r.diagnostics.map((d) => d.code), ["deepspeed/batch-size-product"]);
    const r2 = analyzeDocument(uri, '{"zero_optimization": {"stage": 0}, "train_batch_size": 32, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}', { worldSize: 8 });
    assert.deepEqual(r2.diagnostics.map((d) => d.code), ["deepspeed/batch-size-product"]);
    assert.equal(r2.diagnostics[0]!.data?.fixes?.[0]?.edits[0]?.newText, "64");
    // Consistent trio: world size inferred, no diagnostic.
    const ok = analyze('{"zero_optimization": {"stage": 0}, "train_batch_size": 32, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}');
    assert.deepEqual(ok.diagnostics, []);
    assert.equal(ok.worldSize?.value, 4);
  });
});

describe("DeepSpeed resolution", () => {
  it("bf16 ZeRO-3: fp32 master partitions, bf16 compute and reduction", () => {
    const r = analyze('{"zero_optimization": {"stage": 3}, "bf16": {"enabled": true}}');
    assert.equal(r.layoutName, "DeepSpeed ZeRO-3");
    assert.deepEqual([r.precision?.paramStorage.dtype, r.precision?.compute.dtype, r.precision?.gradReduce.dtype], ["float32", "bfloat16", "bfloat16"]);
    assert.ok(r.hovers.length > 0);
    assert.match(r.hovers[0]!.markdown, /optimizer state/);
  });
  it('"auto" precision with no known launcher: set by the launcher (HF Trainer/accelerate), not "float32"', () => {
    // Issue #9 §4: "auto" is meant to be filled by HF Trainer (`--bf16`/`--fp16`) or accelerate; the file alone
    // does not decide compute or reduction. ZeRO keeps fp32 master weights in every mode.
    const r = analyze('{"zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}}');
    assert.equal(r.precision?.paramStorage.dtype, "float32");
    assert.equal(r.precision?.compute.dtype, null);
    assert.equal(r.precision?.gradReduce.dtype, null);
    assert.match(r.precision?.setBy ?? "", /HF Trainer `--bf16`\/`--fp16`.*accelerate/);
    assert.equal(headline(r), "deepspeed: precision set by the launcher (HF Trainer `--bf16`/`--fp16`, or accelerate `mixed_precision`)");
    assert.ok(r.hovers.some((h) => /ds-auto-dropped/.test(h.markdown) && /\| compute \(matmuls\) \| set by the launcher \|/.test(h.markdown)));
  });
  it('"auto" precision in a file a `deepspeed` launcher script runs: standalone, so fp32', () => {
    const files = { "/p/ds.json": '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}}', "/p/run.sh": "deepspeed train.py --deepspeed_config ds.json\n" };
    const r = analyze(files["/p/ds.json"], fakeEnv(files, "/p/ds.json"), "file:///p/ds.json");
    assert.equal(r.precision?.compute.dtype, "float32");
    assert.equal(r.precision?.setBy, undefined);
  });
  it("no-batch-size: no batch key in a file a `deepspeed` launcher runs directly is an error; with no launcher, or with \"auto\", silent", () => {
    const ds = '{"zero_optimization": {"stage": 2}, "gradient_accumulation_steps": 4, "bf16": {"enabled": true}}';
    const files = { "/p/ds.json": ds, "/p/run.sh": "deepspeed train.py --deepspeed_config ds.json\n" };
    const r = analyze(ds, fakeEnv(files, "/p/ds.json"), "file:///p/ds.json");
    const d = r.diagnostics.find((x) => x.code === "deepspeed/no-batch-size");
    assert.ok(d, codes(r).join(", "));
    assert.equal(d.severity, "error");
    assert.equal(d.range.start.character, ds.indexOf('"gradient_accumulation_steps"'));
    assert.match(d.message, /No `train_batch_size` or `train_micro_batch_size_per_gpu`, and .*run\.sh runs this file directly: DeepSpeed asserts/);
    assert.ok(!analyze(ds).diagnostics.some((x) => x.code === "deepspeed/no-batch-size"));
    const withBatch = ds.replace("}}", '}, "train_micro_batch_size_per_gpu": 2}');
    assert.ok(!analyze(withBatch, fakeEnv({ ...files, "/p/ds.json": withBatch }, "/p/ds.json"), "file:///p/ds.json").diagnostics.some((x) => x.code === "deepspeed/no-batch-size"));
    const auto = ds.replace('"enabled": true', '"enabled": "auto"');
    assert.ok(!analyze(auto, fakeEnv({ ...files, "/p/ds.json": auto }, "/p/ds.json"), "file:///p/ds.json").diagnostics.some((x) => x.code === "deepspeed/no-batch-size"));
  });
  it("unknown-precision-key: a key DeepSpeedFP16Config / DeepSpeedBF16Config forbids is an error on the key; known keys are silent", () => {
    const text = '{\n  "train_micro_batch_size_per_gpu": 1,\n  "fp16": {"enabled": true, "opt_level": "O2", "loss_scale": 0},\n  "bf16": {"enabled": false, "loss_scale": 0}\n}\n';
    const r = analyze(text);
    const got = r.diagnostics.filter((x) => x.code === "deepspeed/unknown-precision-key").map((x) => `${x.severity}@${x.range.start.line}:${x.range.start.character} ${x.message}`);
    assert.deepEqual(got, [
      "error@2:28 `fp16.opt_level` is not a field of DeepSpeed's fp16 config: deepspeed.initialize raises a ValidationError",
      "error@3:29 `bf16.loss_scale` is not a field of DeepSpeed's bf16 config: deepspeed.initialize raises a ValidationError",
    ]);
    assert.equal(r.mechanism, "error");
    const ok = analyze('{"train_micro_batch_size_per_gpu": 1, "fp16": {"enabled": true, "auto_cast": false, "loss_scale": 0, "initial_scale_power": 16, "loss_scale_window": 1000, "hysteresis": 2, "consecutive_hysteresis": false, "min_loss_scale": 1}}');
    assert.deepEqual(ok.diagnostics.filter((x) => x.code === "deepspeed/unknown-precision-key"), []);
  });
  it("bf16 with torch_autocast keeps the bf16 cast and bf16 master weights (bf16_full.json style)", () => {
    // engine.py:1713-1720 at v0.19.5: the module is cast to the enabled mode whether or not torch_autocast is on;
    // base_optimizer.py:522-525: bf16_master_weights_and_grads makes the master weights/grads bf16.
    const r = analyze('{"zero_optimization": {"stage": 3}, "bf16": {"enabled": true, "bf16_master_weights_and_grads": true, "bf16_optimizer_states": true}, "torch_autocast": {"enabled": true, "dtype": "torch.bfloat16"}}');
    assert.equal(r.mechanism, "none");
    assert.deepEqual([r.precision?.paramStorage.dtype, r.precision?.compute.dtype, r.precision?.gradReduce.dtype], ["bfloat16", "bfloat16", "bfloat16"]);
    assert.match(r.reportMarkdown ?? "", /\| optimizer state \| `bfloat16` \| `bf16_optimizer_states` \|/);
    assert.deepEqual(r.diagnostics, []);
  });
  it("bf16_master_weights_and_grads drops the fp32 master copy", () => {
    const r = analyze('{"zero_optimization": {"stage": 2}, "bf16": {"enabled": true, "bf16_master_weights_and_grads": true}, "communication_data_type": "fp32"}');
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
    assert.deepEqual(r.diagnostics, []);
  });
  it("torch_autocast: fp32 parameters, bf16 compute", () => {
    const r = analyze('{"zero_optimization": {"stage": 1}, "torch_autocast": {"enabled": true, "dtype": "bfloat16"}}');
    assert.equal(r.mechanism, "autocast");
    assert.equal(r.precision?.paramStorage.dtype, "float32");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
  });
});

describe("cross-file links (DS9 on both files)", () => {
  const ds = '{\n  "zero_optimization": {"stage": 2},\n  "fp16": {"enabled": true},\n  "communication_data_type": "fp32"\n}\n';
  const acc = "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 4\ndeepspeed_config:\n  deepspeed_config_file: ../ds/zero2.json\n";
  const files = { "/repo/ds/zero2.json": ds, "/repo/accelerate/launch.yaml": acc };

  it("accelerate: DS9 on mixed_precision, plus AC4; precision read from the JSON", () => {
    const r = analyzeDocument("file:///repo/accelerate/launch.yaml", acc, {}, fakeEnv(files, "/repo/accelerate/launch.yaml"));
    assert.deepEqual(codes(r), ["error:accelerate/key-belongs-in-deepspeed-file@1:0", "warning:deepspeed/precision-mismatch@1:0"]);
    assert.match(r.diagnostics[1]!.message, /fp16\.enabled: true/);
    assert.equal(r.layoutName, "DeepSpeed ZeRO-2");
  });

  it("the DeepSpeed file reports the same conflict, naming the YAML that uses it", () => {
    const r = analyzeDocument("file:///repo/ds/zero2.json", ds, {}, fakeEnv(files, "/repo/ds/zero2.json"));
    assert.deepEqual(codes(r), ["warning:deepspeed/precision-mismatch@2:11"]);
    assert.match(r.diagnostics[0]!.message, /accelerate\/launch\.yaml/);
    assert.equal(r.worldSize?.value, 4);
  });

  it("Axolotl resolves `deepspeed:` from the folders above the YAML and fills \"auto\"", () => {
    const auto = '{"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}';
    const yaml = "base_model: x/y\ndatasets:\n  - path: a\n    type: alpaca\nsequence_len: 512\nadapter: lora\nbf16: auto\ndeepspeed: deepspeed_configs/zero3.json\n";
    const fs = { "/repo/deepspeed_configs/zero3.json": auto, "/repo/examples/llama/lora.yaml": yaml };
    const r = analyzeDocument("file:///repo/examples/llama/lora.yaml", yaml, {}, fakeEnv(fs, "/repo/examples/llama/lora.yaml"));
    assert.equal(r.framework, "axolotl");
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.layoutName, "DeepSpeed ZeRO-3");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.equal(r.precision?.paramStorage.dtype, "float32");
  });

  it("Axolotl: bf16 against an fp16 DeepSpeed file is DS9; a missing file is reported", () => {
    const yaml = "base_model: x/y\ndatasets:\n  - path: a\n    type: alpaca\nsequence_len: 512\nadapter: lora\nbf16: true\ndeepspeed: ds.json\n";
    const r = analyzeDocument("file:///r/a.yaml", yaml, {}, fakeEnv({ "/r/ds.json": ds }, "/r/a.yaml"));
    assert.deepEqual(codes(r), ["warning:deepspeed/precision-mismatch@6:0"]);
    const missing = analyzeDocument("file:///r/a.yaml", yaml, {}, fakeEnv({}, "/r/a.yaml"));
    assert.deepEqual(codes(missing), ["information:axolotl/deepspeed-config-missing@7:11"]);
  });

  it("Lightning: the DeepSpeed strategy's config file is followed", () => {
    const yaml = "trainer:\n  devices: 2\n  precision: bf16-mixed\n  strategy:\n    class_path: lightning.pytorch.strategies.DeepSpeedStrategy\n    init_args:\n      config: ds.json\n";
    const r = analyzeDocument("file:///l/t.yaml", yaml, {}, fakeEnv({ "/l/ds.json": ds }, "/l/t.yaml"));
    assert.deepEqual(codes(r), ["information:deepspeed/precision-mismatch@2:2"]);
    assert.match(r.diagnostics[0]!.message, /: DeepSpeed rejects both modes$/);
    assert.match(r.diagnostics[0]!.detail ?? "", /cannot be simultaneously enabled/);
  });
});

describe("DeepSpeed rules as JSON fixtures (inline `//` expectations)", () => {
  const json = { uri: "file:///x/ds_config.json" };
  it("DS1: fp16 and bf16 both enabled, reported on both blocks", () => {
    checkDiagnostics(
      `{
  "zero_optimization": {"stage": 2},
  "fp16": {"enabled": true},
//         ^^^^^^^^^^^^^^^ error[deepspeed/bf16-and-fp16]: DeepSpeed refuses to start
  "bf16": {"enabled": true}
//         ^^^^^^^^^^^^^^^ error[deepspeed/bf16-and-fp16]: bfloat16 and fp16 modes cannot be simultaneously enabled
}
`,
      json,
    );
  });

  it("DS1 + DS2: Apex amp with a 16-bit mode and with ZeRO", () => {
    checkDiagnostics(
      `{
  "zero_optimization": {"stage": 1},
  "bf16": {"enabled": true},
  "communication_data_type": "fp32",
  "amp": {"enabled": true}
//        ^^^^^^^^^^^^^^^ error[deepspeed/bf16-and-fp16]: (Apex AMP) is combined with DeepSpeed's own bf16 mode
//        ^^^^^^^^^^^^^^^ error[deepspeed/amp-with-zero]: Amp and ZeRO are not currently compatible
}
`,
      json,
    );
  });

  it("DS5 + DS6: bf16 with accumulation in bf16 and a bf16 gradient reduction", () => {
    checkDiagnostics(
      `{
  "zero_optimization": {"stage": 2},
  "bf16": {"enabled": true},
//         ^^^^^^^^^^^^^^^ information[deepspeed/low-precision-reduction]: gradients are averaged across ranks in bf16
  "gradient_accumulation_steps": 4
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning[deepspeed/bf16-grad-accumulation]: gradients are accumulated in bf16 across the 4 micro-steps
}
`,
      json,
    );
  });

  it("DS7 and DS8: invalid communication dtype and a batch trio that does not divide", () => {
    checkDiagnostics(
      `{
  "zero_optimization": {"stage": 2},
  "fp16": {"enabled": true, "loss_scale": -1},
//                                        ^^ error[deepspeed/invalid-value]: it must be ≥ 0
  "communication_data_type": "int8",
//                           ^^^^^^ error[deepspeed/invalid-value]: must be "fp32", "fp16" or "bf16"
  "train_batch_size": 30,
//                    ^^ error[deepspeed/batch-size-product]: is not a multiple of
  "train_micro_batch_size_per_gpu": 4
}
`,
      json,
    );
  });

  it("duplicate-key: DeepSpeed refuses duplicate keys", () => {
    checkDiagnostics(
      `{
  "zero_optimization": {"stage": 2},
  "communication_data_type": "fp32",
  "bf16": {"enabled": true},
  "bf16": {"enabled": true}
//^^^^^^ error[deepspeed/duplicate-key]: is defined twice in the same object
}
`,
      json,
    );
  });
});
