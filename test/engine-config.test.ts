/**
 * simulationInputFromConfig: which config keys feed the simulator, legacy spellings and converter names
 * by era included; then the whole path config → simulation for a few documents.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { simulate, simulationInputFromConfig, simulationToJson } from "../server/src/core/engine";
import { parseTomlDocument } from "../server/src/core/parse/toml";
import { layout } from "./engine-support";

const doc = (t: string) => parseTomlDocument("file:///x.toml", t);
const decided = (versionDate: string, l = layout({ dp_shard: 8 })) => ({ mechanism: "fully_shard" as const, layout: l, ddp: false, paramDtype: "bfloat16" as const, reduceDtype: "float32" as const, trainingDtype: "float32" as const, versionDate });

const V010 = `[model]
name = "llama3"
flavor = "405B"
converters = ["float8"]
[training]
local_batch_size = 2
seq_len = 8192
[activation_checkpoint]
mode = "full"
[float8]
enable_fsdp_float8_all_gather = true
filter_fqns = ["output"]
`;

describe("simulationInputFromConfig", () => {
  it("v0.1.0: converters = [\"float8\"] with a [float8] table → tensorwise float8, Float8 TP styles", () => {
    const i = simulationInputFromConfig(doc(V010), decided("2025-06-17"));
    assert.deepEqual(i.float8, { fsdpFloat8AllGather: true, filterFqns: ["output"], float8TensorParallel: true });
    assert.deepEqual(i.model, { name: "llama3", flavor: "405B" });
    assert.equal(i.localBatchSize, 2);
    assert.equal(i.seqLen, 8192);
    assert.equal(i.activationCheckpoint, "full");
  });
  it("v0.2.2: the legacy converter name is not registered → no float8", () => {
    assert.equal(simulationInputFromConfig(doc(V010), decided("2026-02-20")).float8, undefined);
  });
  it("v0.2.2: quantize.linear.float8 converter and table; TP float8 styles never selected", () => {
    const t = `[model]\nconverters = ["quantize.linear.float8"]\n[quantize.linear.float8]\nrecipe_name = "rowwise"\nfilter_fqns = ["output"]\n`;
    assert.deepEqual(simulationInputFromConfig(doc(t), decided("2026-02-20")).float8, { recipe: "rowwise", filterFqns: ["output"], float8TensorParallel: false });
  });
  it("defaults: llama3 debugmodel, no AC/batch keys left to the engine's defaults", () => {
    const i = simulationInputFromConfig(doc("[parallelism]\ndata_parallel_shard_degree = -1\n"), decided("2026-02-20"));
    assert.deepEqual(i.model, { name: "llama3", flavor: "debugmodel" });
    assert.equal(i.localBatchSize, undefined);
    assert.equal(i.activationCheckpoint, undefined);
    assert.equal(i.castForwardInputs, true);
  });
  it("PP keys, reshard policy, loss parallel, legacy batch_size", () => {
    const t = `[training]\nbatch_size = 4\n[parallelism]\npipeline_parallel_microbatch_size = 2\npipeline_parallel_schedule = "GPipe"\nfsdp_reshard_after_forward = "always"\ndisable_loss_parallel = true\n[activation_checkpoint]\nmode = "selective"\nselective_ac_option = "op"\n`;
    const i = simulationInputFromConfig(doc(t), decided("2025-06-01"));
    assert.equal(i.localBatchSize, 4);
    assert.equal(i.ppMicrobatchSize, 2);
    assert.equal(i.ppSchedule, "GPipe");
    assert.equal(i.reshardAfterForward, "always");
    assert.equal(i.lossParallel, false);
    assert.equal(i.selectiveAcOption, "op");
  });
  it("config → simulation: the v0.1.0 405B preset on 128 GPUs (FSDP 16 × TP 8) all-gathers float8 over FSDP and TP", () => {
    const s = simulate(simulationInputFromConfig(doc(V010), decided("2025-06-17", layout({ dp_shard: 16, tp: 8 }))))!;
    const j = simulationToJson(s);
    assert.equal(j.collectives.fsdp_all_gather, "float8_e4m3fn");
    assert.equal(j.collectives.tp_norm_all_gather, "float8_e4m3fn");
    assert.equal(j.forward.output, "bfloat16");
    assert.equal(s.forward.find((o) => o.op === "output")!.float8, undefined);
    assert.ok(j.assumptions.length > 0);
  });
});
