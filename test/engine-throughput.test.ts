/**
 * Issue #11: the throughput model (FLOPs at the compute dtype's rate, exposed collectives, pipeline
 * bubbles), the GPU table, CPU offload (issue #9 §3), the capacity information and the comparison of
 * each config with mixed precision on/off and the nearest FSDP layout.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { readCompile } from "../server/src/core/engine/fromConfig";
import { parseDocument } from "../server/src/core/analyze";
import { estimateThroughput, GPUS, GPU_IDS, modelArch, paramCounts, parseGpu, simulationToJson } from "../server/src/core/engine";
import type { Simulation } from "../server/src/core/engine/types";
import { layout, modeInput, sim } from "./engine-support";
import { runCliCaptured } from "./support/cli";
import { checkDiagnostics } from "./support/fixture";

const ROOT = resolve(__dirname, "..");
const SEED = readFileSync(join(ROOT, "examples/tp_only_8gpu.toml"), "utf8");
const termS = (s: Simulation, name: string) => s.throughput!.terms.find((t) => t.name === name)?.seconds;
const close = (a: number, b: number, msg?: string) => assert.ok(Math.abs(a / b - 1) < 1e-9, msg ?? `${a} ≉ ${b}`);

describe("GPU table (vendors' data sheets)", () => {
  it("covers the issue's GPUs, each with memory, dense rates and a cited source", () => {
    for (const id of ["h100-sxm", "h100-pcie", "h200", "a100-40gb", "a100-80gb", "b200", "mi300x", "l40s"]) assert.ok(GPU_IDS.includes(id as never), id);
    for (const g of Object.values(GPUS)) {
      const preAmpere = "cuda" in g.capability && g.capability.cuda[0] < 8;
      // Volta/Turing: no bf16/TF32 tensor cores (both assumed at the FP32 rate); GeForce Ampere/Ada: TF32 = FP32 rate.
      if (preAmpere) assert.ok(g.tflops.bf16 === g.tflops.fp32 && g.tflops.tf32 === g.tflops.fp32 && g.tflops.fp16 > 4 * g.tflops.fp32, g.id);
      else assert.ok(g.tflops.fp32 <= g.tflops.tf32 && g.tflops.tf32 < g.tflops.bf16, g.id);
      if (g.tflops.fp8 !== undefined) assert.ok(Math.abs(g.tflops.fp8 / (2 * g.tflops.bf16) - 1) < 0.02, g.id);
      assert.match(g.source, /data sheet|whitepaper/);
    }
    // The pre-Ampere and workstation GPUs transformers users name (issue #31 §3), with their compute capability.
    const cap = (raw: string) => { const g = GPUS[parseGpu(raw)!]; return "cuda" in g.capability ? g.capability.cuda.join(".") : "rocm"; };
    assert.deepEqual(["V100", "v100-16gb", "Tesla T4", "RTX 2080 Ti", "A10G", "A10", "L4", "A40", "A6000", "RTX 3090", "rtx_4090"].map(cap), ["7.0", "7.0", "7.5", "7.5", "8.6", "8.6", "8.9", "8.6", "8.6", "8.6", "8.9"]);
    assert.deepEqual([GPUS["v100-16gb"].memoryBytes, GPUS.t4.memoryBytes, GPUS["rtx-4090"].memoryBytes, GPUS["rtx-a6000"].memoryBytes], [16e9, 16e9, 24e9, 48e9]);
    assert.match(GPUS.a10g.source, /ASSUMED equal to the A10's/);
    assert.equal(GPUS["h100-sxm"].tflops.bf16, 989.5);
    assert.equal(GPUS.h200.memoryBytes, 141e9);
    assert.equal(GPUS["a100-80gb"].tflops.fp8, undefined);
  });
  it("parses ids and common spellings", () => {
    assert.equal(parseGpu("H100"), "h100-sxm");
    assert.equal(parseGpu("h100_sxm"), "h100-sxm");
    assert.equal(parseGpu("MI300X"), "mi300x");
    assert.equal(parseGpu("A100-80GB"), "a100-80gb");
    assert.equal(parseGpu("v100"), "v100-32gb");
    assert.equal(parseGpu("v99"), undefined);
  });
});

describe("compute at the rate of the compute dtype", () => {
  const tp8 = { layout: layout({ tp: 8 }), localBatchSize: 2 };
  it("fp32 linears run at the FP32 rate (PyTorch's default matmul precision), autocast's at BF16", () => {
    const fp32 = sim(modeInput("a", tp8));
    const amp = sim(modeInput("b", tp8));
    assert.equal(fp32.computeDtype, "float32");
    close(termS(fp32, "compute_linears")! / termS(amp, "compute_linears")!, GPUS["h100-sxm"].tflops.bf16 / GPUS["h100-sxm"].tflops.fp32);
    assert.ok(fp32.assumptions.some((a) => a.name === "fp32_matmul_precision" && a.value === "highest"));
  });
  it("fp32_matmul_precision = high: TF32 tensor cores", () => {
    const hi = sim(modeInput("a", { ...tp8, assumptions: { fp32_matmul_precision: "high" } }));
    const amp = sim(modeInput("b", tp8));
    close(termS(hi, "compute_linears")! / termS(amp, "compute_linears")!, GPUS["h100-sxm"].tflops.bf16 / GPUS["h100-sxm"].tflops.tf32);
  });
  it("linear FLOPs: 6 per parameter per token, plus the forward that full AC recomputes", () => {
    const none = sim(modeInput("c", { activationCheckpoint: "none" }));
    const full = sim(modeInput("c", { activationCheckpoint: "full" }));
    const arch = modelArch("llama3", "8B")!;
    const P = paramCounts(arch);
    const blockLinear = P.linear - P.output;
    close(termS(full, "compute_linears")! / termS(none, "compute_linears")!, (6 * P.linear + 2 * blockLinear) / (6 * P.linear));
  });
  it("float8 linears at the FP8 rate (derated); on an A100 (no FP8) at the BF16 rate, with a note", () => {
    const bf16 = sim(modeInput("c"));
    const f8 = sim(modeInput("d", { float8: { recipe: "tensorwise", filterFqns: ["output"] } }));
    assert.ok(termS(f8, "compute_linears")! < termS(bf16, "compute_linears")!);
    const a100 = sim(modeInput("d", { gpu: "a100-80gb" }));
    const a100bf16 = sim(modeInput("c", { gpu: "a100-80gb" }));
    close(termS(a100, "compute_linears")!, termS(a100bf16, "compute_linears")!);
    assert.ok(a100.throughput!.notes.some((n) => /no FP8 tensor cores/.test(n)));
  });
  it("MFU uses torchtitan's 6·(N − embedding) + 12·L·D·S FLOPs per token against the BF16 peak", () => {
    const s = sim(modeInput("c", { seqLen: 8192 }));
    const arch = modelArch("llama3", "8B")!;
    const P = paramCounts(arch);
    const flops = 6 * (P.total - P.embedding) + 12 * arch.dims.nLayers * arch.dims.dim * 8192;
    close(s.throughput!.mfu, (s.throughput!.tokensPerSecondPerGpu * flops) / 989.5e12);
  });
  it("TPS per GPU is local_batch_size · seq_len / (step · cp · tp · pp), as torchtitan logs it", () => {
    const s = sim(modeInput("c", { layout: layout({ dp_shard: 2, tp: 2, cp: 2 }), localBatchSize: 4, seqLen: 4096 }));
    close(s.throughput!.tokensPerSecondPerGpu, (4 * 4096) / (s.throughput!.stepSeconds * 4));
  });
  it("estimateThroughput (the per-cell entry point) agrees with the simulation", () => {
    const input = modeInput("c");
    const cell = estimateThroughput(input, "b200")!;
    const s = sim({ ...input, gpu: "b200" });
    assert.equal(cell.tokensPerSecondPerGpu, s.throughput!.tokensPerSecondPerGpu);
    assert.equal(cell.peakBytes, s.memory.perGpuBytes!.reserved);
    assert.ok(cell.tokensPerSecondPerGpu > estimateThroughput(input, "a100-80gb")!.tokensPerSecondPerGpu);
    assert.equal(estimateThroughput(modeInput("c", { model: { name: "qwen3", flavor: "8B" } })), undefined);
  });
});

describe("communication and pipeline bubbles", () => {
  it("TP collectives are exposed; async TP (with compile) leaves async_tp_exposed_fraction of them", () => {
    const base = { layout: layout({ dp_shard: 2, tp: 4 }), compile: { model: true, loss: false } };
    const vanilla = termS(sim(modeInput("c", base)), "tp_collectives")!;
    const asyncTp = termS(sim(modeInput("c", { ...base, asyncTp: true })), "tp_collectives")!;
    close(asyncTp, vanilla * 0.5);
    close(termS(sim(modeInput("c", { ...base, compile: undefined, asyncTp: true })), "tp_collectives")!, termS(sim(modeInput("c", { ...base, compile: undefined })), "tp_collectives")!, "async TP needs compile");
  });
  it("fp32 activations double the TP bytes of bf16 ones", () => {
    const fp32 = termS(sim(modeInput("a", { layout: layout({ tp: 8 }), activationCheckpoint: "none" })), "tp_collectives")!;
    const bf16 = termS(sim(modeInput("c", { layout: layout({ tp: 8 }), activationCheckpoint: "none" })), "tp_collectives")!;
    close(fp32, 2 * bf16);
  });
  it("bubble (pp − 1) / (v·m + pp − 1): 1F1B and GPipe one stage per rank, Interleaved1F1B two", () => {
    const pp = (schedule: string) => sim(modeInput("c", { layout: layout({ dp_shard: 2, pp: 4 }), localBatchSize: 8, ppMicrobatchSize: 1, ppSchedule: schedule })).throughput!;
    for (const [schedule, b] of [["1F1B", 3 / 11], ["GPipe", 3 / 11], ["Interleaved1F1B", 3 / 19]] as const) {
      const t = pp(schedule);
      const busy = t.terms.filter((x) => x.name.startsWith("compute") || x.name === "tp_collectives").reduce((a, x) => a + x.seconds, 0);
      close(t.terms.find((x) => x.name === "pp_bubble")!.seconds, (busy * b) / (1 - b), schedule);
    }
  });
  it("FSDP beyond one node uses the inter-node network", () => {
    const one = sim(modeInput("c", { layout: layout({ dp_shard: 8 }) })).throughput!.terms.find((t) => t.name === "exposed_communication")!;
    const many = sim(modeInput("c", { layout: layout({ dp_shard: 64 }) })).throughput!.terms.find((t) => t.name === "exposed_communication")!;
    assert.match(one.detail, /intra-node 450 GB\/s/);
    assert.match(many.detail, /inter-node 400 Gb\/s/);
    assert.ok(many.seconds > one.seconds);
  });
});

describe("memory: reserved, pipeline schedules, CPU offload", () => {
  it("reserved = allocated peak × allocator_reserved_overhead", () => {
    const s = sim(modeInput("c"));
    close(s.memory.perGpuBytes!.reserved, s.memory.perGpuBytes!.peak * 1.05);
    const t = sim(modeInput("c", { assumptions: { allocator_reserved_overhead: "1.2" } }));
    close(t.memory.perGpuBytes!.reserved, t.memory.perGpuBytes!.peak * 1.2);
  });
  it("Interleaved1F1B holds its warm-up chunks of half-size stages: (v−1)·pp + 2·(pp−1) + 1, capped at m·v", () => {
    const a = (schedule: string, local: number) => sim(modeInput("c", { layout: layout({ dp_shard: 2, pp: 4 }), localBatchSize: local, ppMicrobatchSize: 1, ppSchedule: schedule })).memory.activations!;
    assert.equal(a("Interleaved1F1B", 16).microbatchesInFlight, (4 + 6 + 1) / 2);
    assert.equal(a("Interleaved1F1B", 4).microbatchesInFlight, 4, "capped at every chunk of 4 microbatches");
    assert.equal(a("1F1B", 16).microbatchesInFlight, 4);
    assert.equal(a("GPipe", 16).microbatchesInFlight, 16);
  });
  it("PP gradient accumulation at the activation peak: the whole stage for 1F1B, one of v chunks for Interleaved1F1B", () => {
    const m = (schedule: string) => sim(modeInput("c", { layout: layout({ dp_shard: 2, pp: 4 }), localBatchSize: 8, ppSchedule: schedule })).memory;
    const one = m("1F1B");
    const two = m("Interleaved1F1B");
    assert.equal(one.terms.find((t) => t.name === "pp_grad_accumulation")!.bytes, 4 * one.paramsPerGpu!);
    assert.equal(two.terms.find((t) => t.name === "pp_grad_accumulation")!.bytes, (4 * two.paramsPerGpu!) / 2);
  });
  it("legacy pipeline_parallel_microbatches: the count sets the microbatch size", () => {
    const a = sim(modeInput("c", { layout: layout({ dp_shard: 2, pp: 4 }), localBatchSize: 16, ppMicrobatches: 4, seqLen: 1024 })).memory.activations!;
    assert.equal(a.tokensPerMicrobatch, 4 * 1024);
  });
  it("CPU offload (issue #9 §3): parameters, gradients and optimizer states live on the CPU, and the estimate says so", () => {
    const on = sim(modeInput("c", { cpuOffload: true }));
    const off = sim(modeInput("c"));
    for (const name of ["parameters", "gradients", "optimizer_states"]) assert.equal(on.memory.terms.find((t) => t.name === name), undefined, name);
    assert.deepEqual(on.memory.bytesPerParam, { params: 0, grads: 0, optimizer: 0 });
    assert.equal(on.memory.cpuBytes, off.memory.perGpuBytes!.persistent);
    assert.equal(on.memory.perGpuBytes!.persistent, 0);
    assert.ok(on.memory.notes.some((n) => /live on the CPU/.test(n)));
    assert.ok(termS(on, "cpu_offload")! > 0);
    assert.ok(on.throughput!.tokensPerSecondPerGpu < off.throughput!.tokensPerSecondPerGpu);
  });
  it("CPU offload is read from training.enable_cpu_offload", () => {
    const r = analyzeDocument("file:///w/train.toml", '[model]\nname = "llama3"\nflavor = "8B"\n[training]\nenable_cpu_offload = true\n[parallelism]\ndata_parallel_shard_degree = -1\n', { worldSize: 8 });
    assert.equal(r.simulation!.memory.perGpuBytes!.persistent, 0);
    assert.ok(r.simulation!.memory.cpuBytes! > 0);
    assert.equal(simulationToJson(r.simulation!).memory.cpuBytes, r.simulation!.memory.cpuBytes);
  });
});

describe("memory-exceeds-gpu (information, ≥ 15% over the GPU's memory)", () => {
  it("an 8B model in fp32 with AdamW on one GPU: a warning (over 1.5× the GPU) naming the dominant terms", () => {
    checkDiagnostics(`# precision-lens: world-size=1
[model]
name = "llama3"
flavor = "8B"

[training]
local_batch_size = 1
#^^^^^^^^^^^^^^^^^^^ warning[memory-exceeds-gpu]: This is an estimate; the largest terms: optimizer_states
seq_len = 2048

[parallelism]
data_parallel_shard_degree = -1
`);
  });
  it("information from 15% to 1.5× over: seq_len 10240 is 41% over an H100 SXM's 80 GB", () => {
    const r = analyzeDocument("file:///w/seed.toml", SEED.replace(/seq_len = 8192/, "seq_len = 10240"), { worldSize: 8 });
    const d = r.diagnostics.find((x) => x.code === "memory-exceeds-gpu")!;
    assert.equal(d.severity, "information");
    assert.match(d.message, /is 41% above the H100 SXM 80GB's 74\.51 GiB: it may run out of memory$/);
  });
  it("none below the margin: the seed case is ≈ 4% over an H100 SXM's 80 GB", () => {
    const r = analyzeDocument("file:///w/seed.toml", SEED);
    const reserved = r.simulation!.memory.perGpuBytes!.reserved;
    assert.ok(reserved > 80e9 && reserved < 80e9 * 1.15, String(reserved));
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "memory-exceeds-gpu"), []);
  });
  it("the GPU setting decides the capacity: the seed case on an L40S (48 GB), 73% over, gets a warning naming its assumptions", () => {
    const r = analyzeDocument("file:///w/seed.toml", SEED, { gpu: "l40s", worldSize: 8 });
    const d = r.diagnostics.find((x) => x.code === "memory-exceeds-gpu")!;
    assert.equal(d.severity, "warning");
    assert.match(d.message, /is 73% above the L40S 48GB's 44\.70 GiB: it will not fit$/);
    assert.match(d.detail ?? "", /L40S 48GB's 44\.70 GiB \(GPU from the precisionLens\.gpu setting\)/);
    assert.match(d.detail ?? "", /It rests on these assumptions: the GPU is an L40S 48GB \(the precisionLens\.gpu setting\); the world size is 8 \(from precisionLens\.worldSize setting \(8\)\); reserved = allocated × allocator_reserved_overhead 1\.05; the model's sizes are upstream's llama3 8B table\.$/);
    assert.equal(r.diagnostics.filter((x) => x.code === "memory-exceeds-gpu").length, 1);
  });
  it("a `# precision-lens: gpu=…` directive picks the GPU for this file (over the setting); a bad one is ignored with a warning", () => {
    const r = analyzeDocument("file:///w/seed.toml", `# precision-lens: gpu=l40s\n# precision-lens: world-size=8\n${SEED}`, { gpu: "h200" });
    assert.deepEqual(r.simulation!.throughput!.gpu, { value: "l40s", source: "directive" });
    assert.ok(r.diagnostics.some((d) => d.code === "memory-exceeds-gpu"));
    const bad = analyzeDocument("file:///w/seed.toml", `# precision-lens: gpu=v99\n${SEED}`);
    const w = bad.diagnostics.find((d) => d.code === "invalid-directive")!;
    assert.equal(w.severity, "warning");
    assert.match(w.message, /Unknown GPU type "v99"/);
    assert.deepEqual(bad.simulation!.throughput!.gpu, { value: "h100-sxm", source: "default" });
  });
  it("none while the world size is only run_train.sh's default: a -1 layout's per-GPU figure would rest on a guess", () => {
    const r = analyzeDocument("file:///w/seed.toml", SEED, { gpu: "l40s" });
    assert.equal(r.worldSize?.source, "default");
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "memory-exceeds-gpu"), []);
  });
  it("none when the file sets the model's shape itself (a fork's vocab_size or dim): the flavor table would contradict the file (issue #17 §2)", () => {
    for (const text of [SEED.replace("[training]\n", "[training]\nvocab_size = 256\n"), SEED.replace("[model]\n", "[model]\ndim = 512\n"), `${SEED}\n[model.args]\nn_layers = 4\n`]) {
      assert.notEqual(text, SEED);
      const r = analyzeDocument("file:///w/seed.toml", text, { gpu: "l40s", worldSize: 8 });
      assert.deepEqual(r.diagnostics.filter((d) => d.code === "memory-exceeds-gpu"), []);
      assert.deepEqual(r.doc.syntaxErrors, []);
    }
    // The same file without the override still gets it (the test above): the key is what silences it.
    assert.equal(analyzeDocument("file:///w/seed.toml", SEED, { gpu: "l40s", worldSize: 8 }).diagnostics.filter((d) => d.code === "memory-exceeds-gpu").length, 1);
  });
  it("a GPU named in the file's name is an inference (8xl40s → L40S); one without figures (GB300) silences the default's verdict (issue #17 §2)", () => {
    const named = analyzeDocument("file:///w/llama3-8xl40s-8k.toml", SEED, { worldSize: 8 });
    assert.deepEqual(named.simulation!.throughput!.gpu, { value: "l40s", source: "file-name" });
    const d = named.diagnostics.find((x) => x.code === "memory-exceeds-gpu")!;
    assert.match(d.message, /L40S 48GB's 44\.70 GiB/);
    assert.match(d.detail ?? "", /GPU from the file name/);
    const unknown = analyzeDocument("file:///w/llama3-16xgb300-8k.toml", SEED.replace("local_batch_size = 2\n", "local_batch_size = 64\n"), { worldSize: 8 });
    assert.deepEqual(unknown.doc.syntaxErrors, []);
    assert.equal(unknown.simulation!.throughput!.gpu.source, "default-contradicted");
    assert.deepEqual(unknown.diagnostics.filter((x) => x.code === "memory-exceeds-gpu"), []);
    // Without a GPU in the name, the same large batch on the default H100 is reported.
    const plain = analyzeDocument("file:///w/llama3-8k.toml", SEED.replace("local_batch_size = 2\n", "local_batch_size = 64\n"), { worldSize: 8 });
    assert.equal(plain.diagnostics.filter((x) => x.code === "memory-exceeds-gpu").length, 1);
  });
  it("a debugmodel never gets it", () => {
    const r = analyzeDocument("file:///w/d.toml", '[model]\nname = "llama3"\nflavor = "debugmodel"\n[parallelism]\ndata_parallel_shard_degree = -1\n', { gpu: "l40s" });
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "memory-exceeds-gpu"), []);
  });
});

describe("the comparison: mixed precision on/off and the nearest FSDP layout", () => {
  it("seed case: TP-only fp32 < PR #2213's autocast < TP 4 + FSDP 2 in bf16", () => {
    const t = analyzeDocument("file:///w/seed.toml", SEED).simulation!.throughput!;
    assert.deepEqual(t.gpu, { value: "h100-sxm", source: "default" });
    assert.deepEqual(t.alternatives.map((a) => [a.label, a.mechanism, a.compute]), [
      ["TP 8 as configured (float32)", "none", "float32"],
      ["TP 8 with autocast bf16 (as PR #2213 would apply)", "autocast", "bfloat16"],
      ["TP 4 + FSDP 2 in bf16 (FSDP mixed precision)", "fully_shard", "bfloat16"],
    ]);
    const [fp32, amp, fsdp] = t.alternatives.map((a) => a.tokensPerSecondPerGpu!);
    assert.ok(fp32! * 5 < amp!, `${fp32} vs ${amp}`);
    assert.ok(amp! < fsdp!);
    assert.equal(t.alternatives[0]!.tokensPerSecondPerGpu, t.tokensPerSecondPerGpu);
    assert.ok(t.alternatives[2]!.peakBytes! < t.alternatives[0]!.peakBytes!);
  });
  it("a PP-only config: autocast without the PR #2213 tag (PP never enters it), then PP lowered for FSDP", () => {
    const r = analyzeDocument("file:///w/p.toml", readFileSync(join(ROOT, "examples/pp_only_4gpu.toml"), "utf8"));
    const alts = r.simulation!.throughput!.alternatives;
    assert.deepEqual(alts.map((a) => a.label), ["PP 4 as configured (float32)", "PP 4 with autocast bf16", "PP 2 + FSDP 2 in bf16 (FSDP mixed precision)"]);
  });
  it("an FSDP config: the same layout with mixed precision off, no other layout", () => {
    const r = analyzeDocument("file:///w/f.toml", readFileSync(join(ROOT, "examples/fsdp_8gpu.toml"), "utf8"));
    const alts = r.simulation!.throughput!.alternatives;
    assert.deepEqual(alts.map((a) => [a.mechanism, a.compute]), [["fully_shard", "bfloat16"], ["fully_shard", "float32"]]);
    assert.match(alts[1]!.label, /mixed precision off/);
    assert.ok(alts[1]!.tokensPerSecondPerGpu! < alts[0]!.tokensPerSecondPerGpu!);
  });
  it("the JSON contract: simulation.throughput = {tokensPerSecondPerGpu, stepSeconds, mfu, gpu, alternatives}", () => {
    const r = runCliCaptured(["check", "--format", "json", "--gpu", "h200", "examples/tp_only_8gpu.toml"], ROOT);
    assert.equal(r.code, 0, r.err);
    const f = JSON.parse(r.out).files[0];
    const t = f.simulation.throughput;
    assert.deepEqual(Object.keys(t), ["tokensPerSecondPerGpu", "stepSeconds", "mfu", "gpu", "alternatives"]);
    assert.deepEqual(t.gpu, { value: "h200", source: "setting" });
    assert.deepEqual(Object.keys(t.alternatives[0]), ["label", "mechanism", "compute", "tokensPerSecondPerGpu", "peakBytes"]);
    assert.deepEqual(simulationToJson(analyzeDocument("file:///w/seed.toml", SEED, { gpu: "h200" }).simulation!).throughput, t);
  });
  it("explain --gpu prints the throughput section; an unknown --gpu is a usage error", () => {
    const r = runCliCaptured(["explain", "--gpu", "b200", "examples/tp_only_8gpu.toml"], ROOT);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /\*\*Throughput \(estimate\)\*\* on B200 180GB \(GPU from setting\)/);
    assert.match(r.out, /\| TP 4 \+ FSDP 2 in bf16 \(FSDP mixed precision\) \| fully_shard \| bfloat16 \|/);
    assert.match(r.out, /^TP 8 as configured \(float32\): ≈ [\d,]+ tokens\/s\/GPU; TP 8 with autocast bf16 \(as PR #2213 would apply\): ≈ [\d,]+ tokens\/s\/GPU; TP 4 \+ FSDP 2 in bf16 \(FSDP mixed precision\): ≈ [\d,]+ tokens\/s\/GPU\.$/m);
    assert.match(r.out, /`matmul_efficiency` = `0.44`/);
    assert.match(r.out, /GPU for the throughput and memory estimates: \*\*B200 180GB\*\* \(--gpu b200 on the command line\)/);
    assert.match(runCliCaptured(["explain", "examples/tp_only_8gpu.toml"], ROOT).out, /estimates: \*\*H100 SXM 80GB\*\* \(the default; set precisionLens\.gpu/);
    const bad = runCliCaptured(["check", "--gpu", "v99", "examples/tp_only_8gpu.toml"], ROOT);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--gpu: unknown GPU type "v99"/);
  });
});

describe("config keys the estimates read", () => {
  const doc = (text: string) => parseDocument("file:///c.toml", text, "toml");
  it("[compile] enable + components (default model and loss)", () => {
    assert.deepEqual(readCompile(doc("[compile]\nenable = true\n"), "2026-02-20"), { model: true, loss: true });
    assert.deepEqual(readCompile(doc('[compile]\nenable = true\ncomponents = ["model"]\n'), "2026-02-20"), { model: true, loss: false });
    assert.equal(readCompile(doc("[compile]\nenable = false\n"), "2026-02-20"), undefined);
  });
  it("training.compile: the loss is compiled only while train.py did (2024-10-22 … 2024-12-18, e10cb94 / e8977b0; from 2025-04-02, bbb1b61)", () => {
    const d = doc("[training]\ncompile = true\n");
    assert.deepEqual(readCompile(d, "2024-11-01"), { model: true, loss: true });
    assert.deepEqual(readCompile(d, "2024-12-26"), { model: true, loss: false });
    assert.deepEqual(readCompile(d, "2025-04-02"), { model: true, loss: true });
  });
  it("async TP, CPU offload and the legacy microbatch count (default pp before 2025-04-07, torchtitan #1073)", () => {
    const r = analyzeDocument("file:///w/a.toml", `# precision-lens: torchtitan-version=main@2025-01-15
[model]
name = "llama3"
flavor = "8B"
[training]
batch_size = 8
data_parallel_shard_degree = 2
tensor_parallel_degree = 2
compile = true
[experimental]
pipeline_parallel_degree = 2
enable_async_tensor_parallel = true
`, { worldSize: 8 });
    const t = r.simulation!.throughput!;
    assert.match(t.terms.find((x) => x.name === "tp_collectives")!.detail, /async TP/);
    assert.match(t.terms.find((x) => x.name === "pp_bubble")!.detail, /with 2 microbatches/);
  });
});
