/**
 * The torchtitan analyser with the precision engine and workspace inference wired in (issue #3): the
 * CLI JSON `simulation` contract, eras on the same config, world size and version from the workspace.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { runCliCaptured } from "./support/cli";
import { parseVersion } from "../server/src/core/frameworks/torchtitan/versions";

const ROOT = resolve(__dirname, "..");
const SEED = readFileSync(join(ROOT, "examples/tp_only_8gpu.toml"), "utf8");

function cli(args: string[], cwd = ROOT): { code: number; out: string; err: string } {
  return runCliCaptured(args, cwd);
}

interface SimJson {
  forward: Record<string, string>;
  collectives: Record<string, string>;
  grad: { computed: string; stored: string };
  optimizerState: string;
  memory: { bytesPerParam: { params: number; grads: number; optimizer: number }; perGpuBytes: { persistent: number | null; peak: number | null } };
  assumptions: { name: string; value: string }[];
}
interface FileJson {
  mechanism: string;
  torchtitanVersion: { value: string; source: string };
  worldSize: { value: number; source: string };
  simulation: SimJson | null;
  diagnostics: { code: string; severity: string; message: string }[];
}

function checkJson(args: string[], cwd = ROOT): FileJson {
  const r = cli(["check", "--format", "json", ...args], cwd);
  assert.ok(r.code === 0 || r.code === 1, r.err);
  return (JSON.parse(r.out) as { files: FileJson[] }).files[0]!;
}

const OPS = ["tok_embeddings", "attention_norm", "wq", "wk", "wv", "rope", "attention", "wo", "attention_residual", "ffn_norm", "w1", "w3", "silu", "ffn_mul", "w2", "ffn_residual", "norm", "output", "loss"];

describe("simulation in the CLI JSON contract", () => {
  it("the seed case in v0.2.2: every op float32, TP collectives float32, no FSDP collectives", () => {
    const f = checkJson(["--torchtitan-version", "v0.2.2", "examples/tp_only_8gpu.toml"]);
    assert.deepEqual(f.torchtitanVersion, { value: "v0.2.2", source: "setting", kind: "cli" });
    const sim = f.simulation!;
    assert.deepEqual(Object.keys(sim.forward), OPS);
    assert.ok(Object.values(sim.forward).every((d) => d === "float32"), JSON.stringify(sim.forward));
    assert.deepEqual(Object.keys(sim.collectives).sort(), ["tp_embedding_reduce_scatter", "tp_final_norm_all_gather", "tp_loss_all_reduce", "tp_norm_all_gather", "tp_projection_reduce_scatter"]);
    assert.ok(Object.values(sim.collectives).every((d) => d === "float32"));
    assert.deepEqual(sim.grad, { computed: "float32", stored: "float32" });
    assert.equal(sim.optimizerState, "float32");
    assert.deepEqual(sim.memory.bytesPerParam, { params: 4, grads: 4, optimizer: 8 });
    assert.ok(sim.memory.perGpuBytes.peak! > sim.memory.perGpuBytes.persistent!);
    // fp32 attention runs SDPA's Math backend: a named assumption, shown in the output
    assert.deepEqual(sim.assumptions.find((a) => a.name === "fp32_sdpa_backend"), { name: "fp32_sdpa_backend", value: "math" });
  });

  it("the same config with PR #2213: autocast — linears bf16, norms and loss fp32", () => {
    const f = checkJson(["--torchtitan-version", "v0.2.2+pr2213", "examples/tp_only_8gpu.toml"]);
    assert.equal(f.mechanism, "autocast");
    assert.deepEqual([f.simulation!.forward.wq, f.simulation!.forward.w2, f.simulation!.forward.output], ["bfloat16", "bfloat16", "bfloat16"]);
    assert.deepEqual([f.simulation!.forward.attention_norm, f.simulation!.forward.loss], ["float32", "float32"]);
    assert.ok(!f.diagnostics.some((d) => d.code === "no-mixed-precision"));
  });

  it("FSDP+TP on 64 GPUs: bf16 all-gather, fp32 reduce-scatter, fp32 .grad", () => {
    const f = checkJson(["examples/fsdp_tp_64gpu.toml"]);
    assert.equal(f.simulation!.collectives.fsdp_all_gather, "bfloat16");
    assert.equal(f.simulation!.collectives.fsdp_reduce_scatter, "float32");
    assert.deepEqual(f.simulation!.grad, { computed: "bfloat16", stored: "float32" });
    // the -1 shard degree divides the persistent bytes per parameter (16 B / 8)
    assert.deepEqual(f.simulation!.memory.bytesPerParam, { params: 0.5, grads: 0.5, optimizer: 1 });
  });

  it("a failed launch has simulation null", () => {
    assert.equal(checkJson(["examples/ddp_tp_error.toml"]).simulation, null);
  });
});

describe("explain", () => {
  it("prints the report with the per-op table, collectives, memory and the era comparison", () => {
    const r = cli(["explain", "examples/tp_only_8gpu.toml"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^# Precision report: tp_only_8gpu\.toml$/m);
    assert.match(r.out, /^\| wq \| `float32` \| `float32` \|/m);
    assert.match(r.out, /^\| tp_projection_reduce_scatter \| `float32` \|/m);
    assert.match(r.out, /\*\*peak\*\*/);
    assert.match(r.out, /v0\.2\.2 with PR #2213 \(unmerged what-if\): autocast, bf16 compute/);
    assert.match(r.out, /## Diagnostics\n\n### Line 26\n\n\*\*\[no-mixed-precision\]\([^)]*\)\*\* \(warning\): No mixed precision/);
    assert.equal(r.out.split("\n").filter((l) => l === "## Diagnostics").length, 1);
  });

  it("rejects options it does not take, and more than one file", () => {
    assert.equal(cli(["explain", "--fix", "examples/tp_only_8gpu.toml"]).code, 2);
    assert.match(cli(["explain", "examples/tp_only_8gpu.toml", "examples/fsdp_8gpu.toml"]).err, /explain takes exactly one file/);
    assert.equal(cli(["explain", "examples/ddp_tp_error.toml"]).code, 1, "an error-level diagnostic exits 1");
  });
});

describe("workspace inference", () => {
  it("world size from a run script that names the config; version from a pinned requirement", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-ws-"));
    mkdirSync(join(dir, "configs"));
    writeFileSync(join(dir, "configs", "train.toml"), SEED);
    writeFileSync(join(dir, "launch.sh"), `#!/bin/bash\nNGPU=16 CONFIG_FILE=./configs/train.toml ./run_train.sh\n`);
    writeFileSync(join(dir, "requirements.txt"), "torch==2.9.0\ntorchtitan==0.2.1\n");
    const f = checkJson(["configs/train.toml"], dir);
    assert.equal(f.worldSize.value, 16);
    assert.equal(f.worldSize.source, "run-script");
    assert.deepEqual(f.torchtitanVersion, { value: "v0.2.1", source: "workspace-pin", kind: "workspace-pin" });
    assert.equal(f.mechanism, "fully_shard", "16 GPUs with TP 8 leave dp_shard = 2");
  });

  it("a pin of a torchtitan that no longer reads TOML is reported", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-ws-"));
    writeFileSync(join(dir, "train.toml"), SEED);
    writeFileSync(join(dir, "requirements.txt"), "torchtitan==0.3.0\n");
    const f = checkJson(["train.toml"], dir);
    const d = f.diagnostics.find((x) => x.code === "toml-not-read");
    assert.ok(d, JSON.stringify(f.diagnostics.map((x) => x.code)));
    assert.equal(d.severity, "warning");
    assert.match(d.message, /torchtitan 0\.3\.0 .*no longer reads TOML/);
  });

  it("without a pin, the keys decide: [float8] means before v0.2.0", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-ws-"));
    writeFileSync(join(dir, "train.toml"), SEED + "\n[float8]\nenable_fsdp_float8_all_gather = false\n");
    const f = checkJson(["train.toml"], dir);
    assert.equal(f.torchtitanVersion.source, "config-keys");
    // [float8] was replaced by [quantize.*] on 2025-09-26, before v0.2.0 (2025-10-17)
    const v = parseVersion(f.torchtitanVersion.value);
    assert.ok(v && v.date < "2025-09-26", f.torchtitanVersion.value);
  });
});
