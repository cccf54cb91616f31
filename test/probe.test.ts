/**
 * `precision-lens probe`: the script generator (the plan it embeds, nothing from the config's text) and
 * `--compare` against an observation written here (the shape the script prints; the values are those a
 * CPU run of examples/fsdp_tp_64gpu.toml scaled to TP 2 + FSDP 2 printed, oracle/frameworks/probe_worker.py),
 * with and without a deliberate difference. No Python needed; the oracle runs the script itself.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { predictionInput, probePlan, probeScript } from "../server/src/cli/probeCommand";
import { runCliCaptured } from "./support/cli";

const ROOT = join(__dirname, "..");
const tmp = mkdtempSync(join(tmpdir(), "pl-probe-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const bf = "bfloat16";
const f32 = "float32";
const OPS = ["tok_embeddings", "attention_norm", "wq", "wk", "wv", "rope", "attention", "wo", "attention_residual", "ffn_norm", "w1", "silu", "w3", "ffn_mul", "w2", "ffn_residual", "norm", "output"];
const PARAM_OPS = ["tok_embeddings", "attention_norm", "wq", "wk", "wv", "wo", "ffn_norm", "w1", "w2", "w3", "norm", "output"];

/** One observed variant: FSDP2 bf16 params / fp32 reduce on TP 2 + FSDP 2, as the CPU run printed it. */
function fsdpTpVariant(label: string, compute: string) {
  return {
    label,
    mechanism: "fully_shard",
    paramDtype: compute,
    reduceDtype: f32,
    trainingDtype: f32,
    ddp: false,
    layout: { dp_replicate: 1, dp_shard: 2, cp: 1, tp: 2, pp: 1, ep: 1, etp: 1 },
    configuredLayout: { dp_replicate: 1, dp_shard: 8, cp: 1, tp: 8, pp: 1, ep: 1, etp: 1 },
    worldSize: 4,
    forward: { ...Object.fromEntries(OPS.map((o) => [o, compute])), loss: f32 } as Record<string, string>,
    backward: { ...Object.fromEntries(OPS.map((o) => [o, compute])), loss: f32 } as Record<string, string>,
    params: Object.fromEntries(PARAM_OPS.map((o) => [o, { storage: f32, compute, stored: f32, optimizerState: f32 }])),
    grad: { stored: f32 },
    optimizerState: f32,
    collectives: {
      fsdp_all_gather: [compute],
      tp_embedding_reduce_scatter: [compute],
      tp_norm_all_gather: [compute],
      tp_projection_reduce_scatter: [compute],
      tp_final_norm_all_gather: [compute],
      tp_loss_all_reduce: [f32],
      fsdp_reduce_scatter: [f32],
    },
    unmapped: [],
    stepSeconds: 0.85,
    tokensPerSecondPerRank: 75.2,
    peakBytes: null,
  };
}

function observation() {
  return {
    probe: 1,
    source: "fsdp_tp_64gpu.toml",
    device: "cpu",
    torch: "2.13.0",
    ranks: 4,
    variants: [fsdpTpVariant("TP 8 + FSDP 8 as configured", bf), fsdpTpVariant('TP 8 + FSDP 8, mixed precision off (mixed_precision_param = "float32")', f32)],
    skipped: [],
  };
}

function writeObs(name: string, obs: unknown): string {
  const p = join(tmp, name);
  writeFileSync(p, JSON.stringify(obs));
  return p;
}

describe("probe: the script", () => {
  it("embeds the resolved plan: the variants, their mechanism, dtypes and layouts", () => {
    const text = readFileSync(join(ROOT, "examples/fsdp_tp_64gpu.toml"), "utf8");
    const r = analyzeDocument("file:///x/fsdp_tp_64gpu.toml", text, {}, undefined, "toml");
    const plan = probePlan(r, "fsdp_tp_64gpu.toml", "cpu");
    assert.ok(!("error" in plan));
    assert.deepEqual(
      plan.variants.map((v) => [v.label, v.mechanism, v.paramDtype, v.reduceDtype, v.trainingDtype, v.layout.tp, v.layout.dp_shard]),
      [
        ["TP 8 + FSDP 8 as configured", "fully_shard", bf, f32, f32, 8, 8],
        ['TP 8 + FSDP 8, mixed precision off (mixed_precision_param = "float32")', "fully_shard", f32, f32, f32, 8, 8],
      ],
    );
    const script = probeScript(plan);
    assert.equal(script.split("PLAN = json.loads(r'''").length, 2);
    assert.match(script, /def run_variant\(v, device, world, rank\):/);
    assert.match(script, /fully_shard\(model, mesh=dp_mesh, mp_policy=mp\)/);
  });

  it("carries no config text: a comment and a quote in the file name stay out of the code", () => {
    const text = `# rm -rf / ''' ; import os\n[training]\nmixed_precision_param = "bfloat16"\n[parallelism]\ndata_parallel_shard_degree = -1\n`;
    const r = analyzeDocument("file:///x/a.toml", text, { worldSize: 2 }, undefined, "toml");
    const plan = probePlan(r, "it's'''.toml", "cuda");
    assert.ok(!("error" in plan));
    const script = probeScript(plan);
    assert.ok(!script.includes("rm -rf"), "config comments never reach the script");
    assert.ok(!script.includes("'''.toml"), "a quote in the file name is escaped");
    assert.match(script, /"source":"it\\u0027s\\u0027\\u0027\\u0027\.toml"/);
    assert.match(script, /"device":"cuda"/);
  });

  it("names what it does not reproduce (CP, PP)", () => {
    for (const [file, part] of [["examples/cp_only_8gpu.toml", "context parallel (CP 8)"], ["examples/pp_only_4gpu.toml", "pipeline parallel (PP 4)"]] as const) {
      const r = analyzeDocument(`file:///x/${file}`, readFileSync(join(ROOT, file), "utf8"), {}, undefined, "toml");
      const plan = probePlan(r, file, "cpu");
      assert.ok(!("error" in plan));
      assert.ok(plan.notReproduced.some((n) => n.startsWith(part)), plan.notReproduced.join("\n"));
    }
  });

  it("writes the script with --out and refuses a config with no simulation", () => {
    const out = join(tmp, "probe.py");
    const w = runCliCaptured(["probe", "examples/fsdp_8gpu.toml", "--device", "cpu", "--out", out], ROOT);
    assert.equal(w.code, 0, w.err);
    assert.match(w.out, /wrote .*probe\.py: 2 variants \(FSDP 8 as configured; FSDP 8, mixed precision off/);
    assert.match(readFileSync(out, "utf8"), /"device":"cpu"/);
    const bad = runCliCaptured(["probe", "examples/bad_degrees.toml"], ROOT);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /no simulation for this config/);
    const dev = runCliCaptured(["probe", "--device", "tpu", "examples/fsdp_8gpu.toml"], ROOT);
    assert.equal(dev.code, 2);
    assert.match(dev.err, /--device must be cuda or cpu, got "tpu"/);
  });
});

describe("probe --compare", () => {
  it("is clean (exit 0) on the CPU run's observation", () => {
    const r = runCliCaptured(["probe", "--compare", writeObs("clean.json", observation()), "examples/fsdp_tp_64gpu.toml"], ROOT);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /clean: \d+ claims over 2 variants agree \(cpu\)/);
  });

  it("exits 1 naming each deliberate difference: an op's dtype, a collective's, a missing and an extra collective", () => {
    const obs = observation();
    const v = obs.variants[0]!;
    v.forward.wq = f32;
    v.collectives.fsdp_reduce_scatter = [bf];
    delete (v.collectives as Record<string, string[]>).tp_loss_all_reduce;
    (v.collectives as Record<string, string[]>).pp_send_recv = [bf];
    const r = runCliCaptured(["probe", "--compare", writeObs("diff.json", obs), "examples/fsdp_tp_64gpu.toml"], ROOT);
    assert.equal(r.code, 1);
    const lines = r.out.split("\n").filter((l) => l.includes(": predicted "));
    assert.deepEqual(lines, [
      'examples/fsdp_tp_64gpu.toml: variant "TP 8 + FSDP 8 as configured": forward.wq: predicted bfloat16, observed float32',
      'examples/fsdp_tp_64gpu.toml: variant "TP 8 + FSDP 8 as configured": collectives.fsdp_reduce_scatter: predicted float32, observed bfloat16',
      'examples/fsdp_tp_64gpu.toml: variant "TP 8 + FSDP 8 as configured": collectives.tp_loss_all_reduce: predicted float32, observed absent',
      'examples/fsdp_tp_64gpu.toml: variant "TP 8 + FSDP 8 as configured": collectives.pp_send_recv: predicted absent, observed bfloat16',
    ]);
    assert.match(r.out, /4 differences in \d+ claims over 2 variants \(cpu\)/);
  });

  it("predicts for the device the observation names: CUDA on torch >= 2.12 lists rms_norm as fp32 (assumption), CPU never does", () => {
    const text = readFileSync(join(ROOT, "examples/single_gpu.toml"), "utf8");
    const r = analyzeDocument("file:///x/single_gpu.toml", text, {}, undefined, "toml");
    const plan = probePlan(r, "single_gpu.toml", "cpu");
    assert.ok(!("error" in plan) && r.simulationInput);
    const pv = plan.variants[0]!;
    assert.equal(pv.mechanism, "autocast");
    const v = { ...fsdpTpVariant(pv.label, bf), mechanism: "autocast", layout: { dp_replicate: 1, dp_shard: 1, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1 } };
    const at = (device: "cpu" | "cuda", torch: string) => predictionInput(r.simulationInput!, pv, v, { probe: 1, device, torch, variants: [] });
    assert.equal(at("cpu", "2.13.0").device, "cpu");
    assert.equal(at("cpu", "2.13.0").assumptions?.rms_norm_autocast, undefined);
    assert.equal(at("cuda", "2.13.0").device, "cuda");
    assert.equal(at("cuda", "2.13.0").assumptions?.rms_norm_autocast, "fp32");
    assert.equal(at("cuda", "2.11.0").assumptions?.rms_norm_autocast, undefined);
    assert.equal(at("cpu", "2.13.0").layout.tp, 1);
  });

  it("refuses what is not an observation", () => {
    const r = runCliCaptured(["probe", "--compare", writeObs("bad.json", { variants: [] }), "examples/fsdp_8gpu.toml"], ROOT);
    assert.equal(r.code, 2);
    assert.match(r.err, /not a probe observation \(no "probe": 1\)/);
  });
});
