/**
 * Issue #30 §1: a torchtitan Python config function runs the SAME rule list as a TOML file
 * (python/titanContext.ts over rules/index.ts TITAN_RULES), each rule at the era it applies to. Every finding is
 * asserted at the literal that set the value (line, columns), with its severity, code and message part; fixes edit
 * that literal in Python spelling.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AnalysisResult, FrameworkAnalysis } from "../server/src/core/analysis";
import type { Diagnostic } from "../server/src/core/model/types";
import { analyzeFixture, checkFix } from "./support/fixture";

const URI = "file:///ws/mytitan/config_registry.py";

function head(version: string, extra = ""): string {
  return `# precision-lens: torchtitan-version=${version} world-size=8${extra}
from torchtitan.config import ParallelismConfig, TrainingConfig, CompileConfig
from torchtitan.trainer import Trainer
from torchtitan.models import deepseek_v3
from torchtitan.models.llama3 import model_registry
from torchtitan.components.quantization import Float8LinearConverter, MXFP8LinearConverter
`;
}

/** One function's text; `line` is 0-based in the full text (head is 6 lines, then two blank lines, then def). */
function fnText(version: string, body: string, extra = ""): string {
  return `${head(version, extra)}\n\ndef fn() -> Trainer.Config:\n    return ${body}\n`;
}
const BODY_LINE = 9;

function only(r: AnalysisResult, code: string): Diagnostic {
  const ds = r.diagnostics.filter((d) => d.code === code);
  assert.equal(ds.length, 1, `${code}: ${ds.length} found; all: ${r.diagnostics.map((d) => `${d.severity}[${d.code}] ${d.message}`).join(" | ")}`);
  return ds[0]!;
}

/** The [start, end) columns of `needle` on the body line. */
function cols(text: string, needle: string): [number, number] {
  const line = text.split("\n")[BODY_LINE]!;
  const c = line.indexOf(needle);
  assert.ok(c >= 0, `${needle} not on the body line: ${line}`);
  return [c, c + needle.length];
}

function at(d: Diagnostic, text: string, needle: string): void {
  const [s, e] = cols(text, needle);
  assert.deepEqual([d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character], [BODY_LINE, s, BODY_LINE, e], `${d.code} range`);
}

const codes = (r: FrameworkAnalysis | AnalysisResult): string[] => r.diagnostics.map((d) => d.code).filter((c) => c !== "memory-exceeds-gpu").sort();

const TP8 = "Trainer.Config(model_spec=model_registry(\"8B\"), parallelism=ParallelismConfig(tensor_parallel_degree=8))";
const PP8 = "Trainer.Config(model_spec=model_registry(\"8B\"), parallelism=ParallelismConfig(pipeline_parallel_degree=8))";

describe("no-mixed-precision (the seed warning) on registry functions", () => {
  // maybe_enable_amp (2026-02-23 … 2026-03-09) and #2458's replicate era (2026-03-09 … 2026-04-09): TP or PP without
  // FSDP gets no mixed precision at all; from #2900 (2026-04-09) fully_shard is applied at every degree.
  for (const v of ["main@2026-02-23", "main@2026-03-01", "main@2026-03-09", "main@2026-04-08"]) {
    it(`TP-only and PP-only at ${v}: a warning at the degree literal, fp32 compute`, () => {
      for (const [body, lit, layout] of [[TP8, "8", "TP-only"], [PP8, "8", "PP-only"]] as const) {
        const text = fnText(v, body);
        const r = analyzeFixture(text, { uri: URI });
        const d = only(r, "no-mixed-precision");
        assert.equal(d.severity, "warning");
        assert.match(d.message, new RegExp(`^No mixed precision: ${layout} on 8 GPUs trains in fp32 \\(dp_shard -1 → 1, so no FSDP\\)$`));
        const key = layout === "TP-only" ? "tensor_parallel_degree=8" : "pipeline_parallel_degree=8";
        const [s] = cols(text, key);
        assert.deepEqual([d.range.start.line, d.range.start.character, d.range.end.character], [BODY_LINE, s + key.length - lit.length, s + key.length]);
        assert.equal(r.precision?.compute.dtype, "float32");
        assert.equal(r.mechanism, "none");
      }
    });
  }
  it("the fix lowers the literal so FSDP shards (and the warning goes)", () => {
    const text = fnText("main@2026-03-01", TP8);
    checkFix(text, "no-mixed-precision", "Lower tensor_parallel_degree to 4", text.replace("tensor_parallel_degree=8", "tensor_parallel_degree=4"), { uri: URI, ignore: ["fsdp-tp-grad-allreduce-dtype"] });
  });
  it("a fix that would insert a key (TOML) is not offered on Python; one that edits a literal is", () => {
    const d = only(analyzeFixture(fnText("main@2026-03-01", TP8), { uri: URI }), "no-mixed-precision");
    assert.deepEqual(d.data?.fixes?.map((f) => f.title), ["Lower tensor_parallel_degree to 4 so FSDP shards over 2 GPUs (bf16 mixed precision)"]);
  });
  for (const v of ["main@2026-04-09", "v0.3.0", "v0.4.0"]) {
    it(`silent at ${v} (#2900: fully_shard at every degree)`, () => {
      const r = analyzeFixture(fnText(v, TP8), { uri: URI });
      assert.deepEqual(codes(r), []);
      assert.equal(r.precision?.compute.dtype, "bfloat16");
    });
  }
});

describe("launch failures the engine computes, reported for Python configs", () => {
  const DDP_TP = `Trainer.Config(model_spec=model_registry("8B"), parallelism=ParallelismConfig(data_parallel_replicate_degree=4, data_parallel_shard_degree=1, tensor_parallel_degree=2))`;
  it("DDP+TP at main@2026-03-01 (llama3): an error at the replicate literal; the headline says the launch fails", () => {
    const text = fnText("main@2026-03-01", DDP_TP);
    const r = analyzeFixture(text, { uri: URI });
    const d = only(r, "ddp-with-other-parallelism");
    assert.equal(d.severity, "error");
    assert.match(d.message, /^DDP \(replicate 4, shard 1\) cannot be combined with TP: torchtitan raises RuntimeError at launch$/);
    at(d, text, "4");
    assert.match(r.configFunctions![0]!.detail, /the launch fails/);
    checkFix(text, "ddp-with-other-parallelism", "Shard instead of replicate", text.replace("data_parallel_replicate_degree=4, data_parallel_shard_degree=1", "data_parallel_replicate_degree=1, data_parallel_shard_degree=4"), { uri: URI, ignore: ["fsdp-tp-grad-allreduce-dtype"] });
  });
  it("DDP+TP with a model that is not read: a warning led by the assumed model (qwen3's DDP check never raises)", () => {
    const text = fnText("main@2026-03-01", DDP_TP.replace('model_spec=model_registry("8B"), ', ""));
    const d = only(analyzeFixture(text, { uri: URI }), "ddp-with-other-parallelism");
    assert.equal(d.severity, "warning");
    assert.match(d.message, /^Assuming model "llama3"/);
    assert.equal(d.data?.facts?.assumed, "model");
  });
  it("DDP+TP in the replicate era (main@2026-03-09): replicate with MixedPrecisionPolicy, no error", () => {
    const r = analyzeFixture(fnText("main@2026-03-09", DDP_TP), { uri: URI });
    assert.deepEqual(codes(r), []);
    assert.equal(r.mechanism, "fully_shard");
  });
  it("EP that does not divide dp_shard·cp·tp: an error at the EP literal", () => {
    const text = fnText("main@2026-03-01", `Trainer.Config(model_spec=deepseek_v3.model_registry("16B"), parallelism=ParallelismConfig(expert_parallel_degree=3))`);
    const d = only(analyzeFixture(text, { uri: URI }), "parallel-dims-ep-divisibility");
    assert.equal(d.severity, "error");
    assert.match(d.message, /^expert_parallel_degree = 3 does not divide the ranks torchtitan main@2026-03-01 needs: the launch fails$/);
    const [s] = cols(text, "expert_parallel_degree=3");
    assert.deepEqual([d.range.start.line, d.range.start.character, d.range.end.character], [BODY_LINE, s + 23, s + 24]);
  });
  it("ETP: must be 1 or TP while the field exists (parallel-dims-etp); removed from 2026-04-30 (#3167): removed-key", () => {
    const body = `Trainer.Config(model_spec=deepseek_v3.model_registry("16B"), parallelism=ParallelismConfig(tensor_parallel_degree=2, expert_parallel_degree=2, expert_tensor_parallel_degree=4))`;
    const early = fnText("main@2026-03-01", body);
    const d = only(analyzeFixture(early, { uri: URI }), "parallel-dims-etp");
    assert.equal(d.severity, "error");
    assert.match(d.message, /^expert_tensor_parallel_degree = 4 must be 1 or tensor_parallel_degree \(2\): the launch fails$/);
    const late = fnText("v0.3.0", body);
    const r = analyzeFixture(late, { uri: URI });
    const removed = only(r, "removed-key");
    assert.equal(removed.severity, "warning");
    assert.match(removed.message, /^parallelism\.expert_tensor_parallel_degree no longer exists in torchtitan v0\.3\.0 \(removed 2026-04-30\)/);
    const [s] = cols(late, "expert_tensor_parallel_degree=4");
    assert.deepEqual([removed.range.start.character, removed.range.end.character], [s + 30, s + 31]);
    assert.ok(!r.diagnostics.some((x) => x.code === "parallel-dims-etp"), "a removed field is not read");
    assert.equal(r.parallel?.etp, 1);
    // On the default version (no pin: a fork may still have the field) it is only information, led by the guess.
    const unpinned = analyzeFixture(late.replace("torchtitan-version=v0.3.0 ", ""), { uri: URI });
    const info = only(unpinned, "removed-key");
    assert.equal(info.severity, "information");
    assert.match(info.message, /^Assuming torchtitan v0\.4\.0/);
  });
  it("deepseek_v3 with EP but no fsdp mesh (dp_shard 1, TP 8, EP 8) at main@2026-03-01: ValueError", () => {
    const text = fnText("main@2026-03-01", `Trainer.Config(model_spec=deepseek_v3.model_registry("16B"), parallelism=ParallelismConfig(data_parallel_shard_degree=1, tensor_parallel_degree=8, expert_parallel_degree=8))`);
    const r = analyzeFixture(text, { uri: URI });
    const d = only(r, "ep-without-fsdp-mesh");
    assert.equal(d.severity, "error");
    assert.equal(r.mechanism, "error");
  });
  it("float8 on an A100: an error at the converter; none on an H100; the step shows no fp8 GEMM on the A100", () => {
    const body = `Trainer.Config(model_spec=model_registry("8B", converters=[Float8LinearConverter.Config()]))`;
    const text = fnText("main@2026-03-01", body, " gpu=a100");
    const r = analyzeFixture(text, { uri: URI });
    const d = only(r, "quantize-gpu-unsupported");
    assert.equal(d.severity, "error");
    assert.match(d.message, /^float8 on A100 SXM 80GB: torchtitan needs an SM 8\.9\+ GPU, so the launch fails \(ValueError\)$/);
    at(d, text, "Float8LinearConverter.Config()");
    assert.equal(r.simulation?.float8, undefined);
    assert.ok(!r.simulation?.forward.some((o) => o.float8), "no fp8 GEMM on an A100");
    assert.deepEqual(codes(analyzeFixture(fnText("main@2026-03-01", body, " gpu=h100"), { uri: URI })), []);
  });
  it("MXFP8 on an H100: an error at the converter", () => {
    const text = fnText("v0.3.0", `Trainer.Config(model_spec=model_registry("8B", converters=[MXFP8LinearConverter.Config()]))`, " gpu=h100");
    const d = only(analyzeFixture(text, { uri: URI }), "quantize-gpu-unsupported");
    assert.equal(d.severity, "error");
    assert.match(d.message, /^MXFP8 on H100 SXM 80GB: torchtitan needs SM100/);
    at(d, text, "MXFP8LinearConverter.Config()");
  });
});

describe("dtype rules at their eras", () => {
  it("float16-without-grad-scaler: a warning at the literal, fixed to bfloat16", () => {
    const text = fnText("v0.3.0", `Trainer.Config(model_spec=model_registry("8B"), training=TrainingConfig(mixed_precision_param="float16"))`);
    const d = only(analyzeFixture(text, { uri: URI }), "float16-without-grad-scaler");
    assert.equal(d.severity, "warning");
    at(d, text, '"float16"');
    checkFix(text, "float16-without-grad-scaler", 'Change to "bfloat16"', text.replace('"float16"', '"bfloat16"'), { uri: URI });
  });
  it("bf16-storage-fp32-compute: a warning at mixed_precision_param's literal", () => {
    const text = fnText("main@2026-03-01", `Trainer.Config(model_spec=model_registry("8B"), training=TrainingConfig(dtype="bfloat16", mixed_precision_param="float32"))`);
    const d = only(analyzeFixture(text, { uri: URI }), "bf16-storage-fp32-compute");
    assert.equal(d.severity, "warning");
    assert.match(d.message, /^bf16 storage with fp32 compute/);
    at(d, text, '"float32"');
  });
  it("reduce-dtype-not-allowed: bf16 reduce before #4597 (v0.3.0) is a warning; from v0.4.0 a declared choice", () => {
    const body = `Trainer.Config(model_spec=model_registry("8B"), training=TrainingConfig(mixed_precision_reduce="bfloat16"))`;
    const text = fnText("v0.3.0", body);
    const d = only(analyzeFixture(text, { uri: URI }), "reduce-dtype-not-allowed");
    assert.equal(d.severity, "warning");
    assert.match(d.message, /is not a declared choice in torchtitan v0\.3\.0: used anyway, unchecked$/);
    at(d, text, '"bfloat16"');
    assert.deepEqual(codes(analyzeFixture(fnText("v0.4.0", body), { uri: URI })), []);
  });
  it("cpu-offload-without-fsdp on TP-only at main@2026-03-01, silent from #2900", () => {
    const body = `Trainer.Config(model_spec=model_registry("8B"), training=TrainingConfig(enable_cpu_offload=True), parallelism=ParallelismConfig(tensor_parallel_degree=8))`;
    const text = fnText("main@2026-03-01", body);
    const r = analyzeFixture(text, { uri: URI });
    const d = only(r, "cpu-offload-without-fsdp");
    assert.equal(d.severity, "warning");
    at(d, text, "True");
    assert.deepEqual(codes(analyzeFixture(fnText("v0.3.0", body), { uri: URI })), []);
  });
});

describe("layout and shape rules at their eras", () => {
  it("seq-len-divisibility: tp × 2 × cp before #3664 (2026-06-25); the trainer's (tp if SP) × (2·cp if cp > 1) at v0.3.0", () => {
    const body = (n: number) => `Trainer.Config(model_spec=model_registry("8B"), training=TrainingConfig(seq_len=${n}), parallelism=ParallelismConfig(tensor_parallel_degree=2))`;
    const early = fnText("main@2026-03-01", body(2050));
    const d = only(analyzeFixture(early, { uri: URI }), "seq-len-divisibility");
    assert.equal(d.severity, "error");
    assert.match(d.message, /^seq_len 2050 is not divisible by tp × 2 × cp = 4: torchtitan asserts \(2052 works\)$/);
    at(d, early, "2050");
    assert.ok(!analyzeFixture(fnText("v0.3.0", body(2050)), { uri: URI }).diagnostics.some((x) => x.code === "seq-len-divisibility"), "2050 % 2 = 0 under the trainer's check");
    const late = only(analyzeFixture(fnText("v0.3.0", body(2049)), { uri: URI }), "seq-len-divisibility");
    assert.match(late.message, /^seq_len 2049 is not divisible by the SP\/CP divisor = 2: torchtitan raises ValueError \(2050 works\)$/);
  });
  it("no-effect: mixed_precision_reduce on TP-only before #2900 (no FSDP reads it); silent from v0.3.0", () => {
    const body = `Trainer.Config(model_spec=model_registry("8B"), training=TrainingConfig(mixed_precision_reduce="float32"), parallelism=ParallelismConfig(tensor_parallel_degree=8))`;
    const text = fnText("main@2026-03-01", body);
    const d = only(analyzeFixture(text, { uri: URI }), "no-effect");
    assert.equal(d.severity, "information");
    assert.match(d.message, /^training\.mixed_precision_reduce has no effect: this TP-only layout has no FSDP/);
    at(d, text, '"float32"');
    assert.deepEqual(codes(analyzeFixture(fnText("v0.3.0", body), { uri: URI })), []);
  });
  it("pp-1f1b-microbatches: 2 microbatches for 4 stages with the default 1F1B schedule (Schedule1F1B raises)", () => {
    const text = fnText("v0.3.0", `Trainer.Config(model_spec=model_registry("8B"), training=TrainingConfig(local_batch_size=2), parallelism=ParallelismConfig(pipeline_parallel_degree=4))`);
    const d = only(analyzeFixture(text, { uri: URI }), "pp-1f1b-microbatches");
    assert.equal(d.severity, "error");
    assert.match(d.message, /^1F1B needs at least 4 microbatches for 4 stages, this config gives 2/);
  });
  it("fp32-param-dtype: mixed_precision_param = \"float32\" at the literal", () => {
    const text = fnText("v0.3.0", `Trainer.Config(model_spec=model_registry("8B"), training=TrainingConfig(mixed_precision_param="float32"))`);
    const d = only(analyzeFixture(text, { uri: URI }), "fp32-param-dtype");
    assert.equal(d.severity, "information");
    at(d, text, '"float32"');
  });
});

describe("what the simulation and JSON say for Python configs", () => {
  it("bf16 optimizer states (fused_opt_states_bf16) reach the simulation and the memory estimate", () => {
    const text = `${head("v0.3.0")}from torchtitan.components.optimizer import OptimizersContainer\n\n\ndef fn() -> Trainer.Config:\n    return Trainer.Config(model_spec=model_registry("8B"), optimizer=OptimizersContainer.Config(implementation="fused_opt_states_bf16"))\n`;
    const r = analyzeFixture(text, { uri: URI });
    assert.equal(r.simulation?.optimizerState, "bfloat16");
    assert.equal(r.simulation?.storageDtype, "float32");
    const opt = r.simulation?.memory?.terms.find((i) => i.name === "optimizer_states");
    assert.ok(opt, "an optimizer-state memory term");
    assert.match(opt.detail, /AdamW exp_avg \+ exp_avg_sq in bfloat16/);
    // 2 bytes for each of the two states, sharded 8 ways: 0.5 byte per parameter on one GPU.
    assert.equal(r.simulation?.memory?.bytesPerParam.optimizer, 0.5);
  });
  it("float8's default recipe: tensorwise before #3127 (2026-04-27), rowwise at v0.3.0", () => {
    const body = `Trainer.Config(model_spec=model_registry("8B", converters=[Float8LinearConverter.Config()]))`;
    assert.equal(analyzeFixture(fnText("main@2026-03-01", body, " gpu=h100"), { uri: URI }).simulation?.float8?.recipe, "tensorwise");
    assert.equal(analyzeFixture(fnText("v0.3.0", body, " gpu=h100"), { uri: URI }).simulation?.float8?.recipe, "rowwise");
  });
  it("a storage dtype set by a helper that is not followed is not reported as fp32 (null, and ? in the headline)", () => {
    const text = `${head("v0.3.0")}from mylib import set_bf16\n\n\ndef fn() -> Trainer.Config:\n    config = Trainer.Config(model_spec=model_registry("8B"))\n    set_bf16(config)\n    return config\n`;
    const r = analyzeFixture(text, { uri: URI });
    assert.equal(r.precision?.paramStorage.dtype, null);
    assert.match(r.precision?.paramStorage.knob ?? "", /^training\.dtype not known: /);
    assert.match(r.configFunctions![0]!.detail, /: \? params, \? compute/);
    assert.doesNotMatch(r.configFunctions![0]!.detail, /fp32/, "neither the dtypes nor the optimizer state are guessed");
    assert.equal(r.simulation, undefined, "no step simulated on the default it may not have");
  });
});
