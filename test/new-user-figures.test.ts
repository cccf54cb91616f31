/**
 * Figures and words a new user can trust (issue #34): no tokens/s for a model below the calibrated size, quick
 * fixes that say when they do not fit in GPU memory (the one that fits preferred), an estimate over 1.5× the
 * GPU a warning, no internal references in hovers and reports, whole phrases for the world size's source
 * (both sources named when they disagree), and no `ds-auto-dropped` assumption when a YAML fills the "auto".
 */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import { hoverAt } from "../server/src/core/features/index";
import { CALIBRATED_MIN_PARAMS, modelArch, paramCounts } from "../server/src/core/engine";
import { fileJson } from "../server/src/cli/stream";
import { buildReportView, renderReportHtml } from "../server/src/core/report";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { fakeEnv } from "./support/fakeEnv";

const ROOT = resolve(__dirname, "..");
const SEED = readFileSync(join(ROOT, "examples/tp_only_8gpu.toml"), "utf8");
const DEBUG = '[model]\nname = "llama3"\nflavor = "debugmodel"\n\n[training]\nlocal_batch_size = 8\nseq_len = 2048\n\n[parallelism]\ndata_parallel_shard_degree = -1\n';

describe("no throughput figure below the calibrated model size", () => {
  it("the floor is the smallest calibrated model (Llama 3.1 8B), above the 3B flavor", () => {
    assert.ok(paramCounts(modelArch("llama3", "8B")!).total >= CALIBRATED_MIN_PARAMS);
    assert.ok(paramCounts(modelArch("llama3", "3B") ?? modelArch("llama3", "debugmodel")!).total < CALIBRATED_MIN_PARAMS);
    assert.match(readFileSync(join(ROOT, "docs/estimates.md"), "utf8"), /\*\*Smallest calibrated model\.\*\* The published runs below start at Llama 3\.1 8B/);
  });

  it("the debug model: the reason instead of tokens/s in the report, the hover table, the visual report; JSON keeps it beside the figures", () => {
    const r = analyzeDocument("file:///w/debug.toml", DEBUG, { worldSize: 8 });
    const md = r.reportMarkdown ?? "";
    assert.match(md, /\*\*Throughput\*\* on H100 SXM 80GB: not estimated for a 6M-parameter model: the estimate is calibrated from 8B parameters up, and a model this small is bound by kernel launches and overheads, not by its FLOPs\./);
    assert.doesNotMatch(md, /tokens\/s per GPU|MFU \d/);
    assert.ok(!r.hovers.some((h) => /tokens\/s/.test(h.markdown)), "no hover shows tokens/s");
    const view = buildReportView(r);
    assert.match(view.throughput.withheld ?? "", /^not estimated for a 6M-parameter model/);
    assert.ok(view.throughput.bars.every((b) => b.tokensPerSecondPerGpu === undefined));
    const html = renderReportHtml(view, { nonce: "abcdefgh12345678" });
    assert.match(html, /<p class="pl-note">Throughput not estimated for a 6M-parameter model/);
    assert.doesNotMatch(html, /\d tok\/s/, "what-if cells show — tok/s");
    const sim = fileJson("debug.toml", r).simulation as { throughput: { withheld?: string } };
    assert.match(sim.throughput.withheld ?? "", /^not estimated/);
  });

  it("an 8B model keeps its figure", () => {
    const r = analyzeDocument("file:///w/seed.toml", SEED, { worldSize: 8 });
    assert.match(r.reportMarkdown ?? "", /\*\*Throughput \(estimate\)\*\* on H100 SXM 80GB .* ≈ [\d,]+ tokens\/s per GPU/);
    assert.equal(r.simulation?.throughput?.withheld, undefined);
  });
});

describe("quick fixes and memory", () => {
  const fixesOf = (text: string, settings = {}) => {
    const r = analyzeDocument("file:///w/train.toml", text, { worldSize: 8, ...settings });
    const d = r.diagnostics.find((x) => x.code === "no-mixed-precision");
    assert.ok(d, JSON.stringify(r.diagnostics.map((x) => x.code)));
    return d.data!.fixes!.map((f) => `${f.isPreferred ? "* " : "  "}${f.title}`);
  };

  it("the seed case: the layout fix fits and is preferred, its title says nothing about memory", () => {
    const f = fixesOf(SEED);
    assert.equal(f[0], "* Lower tensor_parallel_degree to 4 so FSDP shards over 2 GPUs (bf16 mixed precision)");
    assert.ok(f.every((t) => !/does not fit/.test(t)));
  });

  it("llama3 70B TP 8 on 8 A100s: both fixes say they do not fit, and neither is preferred", () => {
    const text = `# NOTE: this toml config is a preset for 8 A100 GPUs.\n${SEED.replace(/flavor = "8B"/, 'flavor = "70B"')}`;
    const f = fixesOf(text);
    assert.match(f[0]!, /^ {2}Lower tensor_parallel_degree to 4 so FSDP shards over 2 GPUs \(bf16 mixed precision\) — does not fit: ≈ [\d.]+ GiB per GPU, over the A100 SXM 80GB's 74\.51 GiB \(estimate\)$/);
    assert.match(f[1]!, /^ {2}Train fully in bf16: training\.dtype = "bfloat16" \(no fp32 master weights\) — does not fit/);
    assert.ok(f.every((t) => t.startsWith("  ")), f.join("\n"));
  });

  it("when the layout fix does not fit but full bf16 does, full bf16 is preferred", () => {
    // The seed case on 8 A100 40GB: TP 4 + FSDP 2 keeps the fp32 weights and the activations of 4 TP ranks.
    const f = fixesOf(SEED, { gpu: "a100-40gb" });
    assert.match(f[0]!, /^ {2}Lower tensor_parallel_degree to 4 .* — does not fit: ≈ [\d.]+ GiB per GPU, over the A100 SXM 40GB's 37\.25 GiB \(estimate\)$/);
    assert.equal(f[1], '* Train fully in bf16: training.dtype = "bfloat16" (no fp32 master weights)');
  });
});

describe("words", () => {
  it("no internal references (spec sections) in any hover or report of the examples", () => {
    const dir = join(ROOT, "examples");
    const files = [...readdirSync(dir).map((n) => join(dir, n)), ...readdirSync(join(dir, "yaml")).map((n) => join(dir, "yaml", n))].filter((f) => /\.(toml|ya?ml|json)$/.test(f));
    assert.ok(files.length > 10);
    for (const f of files) {
      const r = analyzeDocument(pathToFileURL(f).href, readFileSync(f, "utf8"), {}, nodeEnv(f, [dir]));
      for (const t of [r.reportMarkdown ?? "", ...r.hovers.map((h) => h.markdown), ...r.diagnostics.map((d) => `${d.message} ${d.detail ?? ""}`)]) {
        assert.doesNotMatch(t, /spec §|\[spec|torchtitan\.md §/, f);
        assert.doesNotMatch(t, /\.\s?;|from stated|from ≥/, f);
      }
    }
  });

  it("the assumptions of the YAML frameworks carry no spec references", () => {
    const torchtune = analyzeDocument("file:///w/full_finetune_distributed.yaml", "model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\nepochs: 1\noptimizer:\n  _component_: torch.optim.AdamW\n  lr: 3e-4\n", {}, fakeEnv({}, "/w/full_finetune_distributed.yaml"));
    assert.match(torchtune.reportMarkdown ?? "", /torchtune-missing-dtype/);
    assert.doesNotMatch(torchtune.reportMarkdown ?? "", /spec §/);
  });

  it("the world size's source reads as a phrase: a comment, the degrees", () => {
    const comment = analyzeDocument("file:///w/llama3_8b.toml", `# NOTE: this toml config is a preset for 64 A100 GPUs.\n${SEED.replace(/tensor_parallel_degree = 8/, "tensor_parallel_degree = 8")}`, {}, fakeEnv({}, "/w/llama3_8b.toml"));
    assert.equal(comment.worldSize?.detail, "the comment on line 1");
    const degrees = analyzeDocument("file:///w/t.toml", SEED.replace("context_parallel_degree = 1", "context_parallel_degree = 4"), {}, fakeEnv({}, "/w/t.toml"));
    assert.equal(degrees.worldSize?.detail, "the degrees, which need at least 32 GPUs");
  });

  it("a slurm file and a comment that disagree on the world size are both named", () => {
    const slurm = "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --gpus-per-node=8\nsrun torchrun --nnodes $SLURM_NNODES --nproc_per_node $SLURM_GPUS_PER_NODE -m torchtitan.train --job.config_file ./train.toml\n";
    const text = `# this config is for 64 A100 GPUs\n${SEED}`;
    const r = analyzeDocument("file:///ws/train.toml", text, {}, fakeEnv({ "/ws/job.slurm": slurm, "/ws/train.toml": text }, "/ws/train.toml"));
    assert.equal(r.worldSize?.value, 32);
    assert.match(r.worldSize?.detail ?? "", /job\.slurm.*; the comment on line 1 states 64 GPUs$/);
  });

  it("ds-auto-dropped: said for a DeepSpeed file alone, not when the YAML that uses it fills the \"auto\"", () => {
    const ds = '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}}';
    const acc = "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 4\ndeepspeed_config:\n  deepspeed_config_file: ../ds/zero2.json\n";
    const files = { "/repo/ds/zero2.json": ds, "/repo/accelerate/launch.yaml": acc };
    const linked = analyzeDocument("file:///repo/ds/zero2.json", ds, {}, fakeEnv(files, "/repo/ds/zero2.json"));
    assert.equal(linked.precision?.compute.dtype, "bfloat16");
    assert.doesNotMatch(linked.reportMarkdown ?? "", /ds-auto-dropped/);
    assert.ok(!linked.hovers.some((h) => /ds-auto-dropped/.test(h.markdown)));
    const alone = analyzeDocument("file:///x/ds.json", ds, {}, fakeEnv({ "/x/ds.json": ds }, "/x/ds.json"));
    assert.match(alone.reportMarkdown ?? "", /`ds-auto-dropped` — standalone DeepSpeed drops `"auto"` values .*\./);
  });

  it("the hover on a key opens with the key's documentation, then a three-line summary and the way to the full report", () => {
    const r = analyzeDocument("file:///w/examples/tp_only_8gpu.toml", SEED, { worldSize: 8 });
    const h = hoverAt(r, { line: 25, character: 3 })!;
    const parts = h.markdown.split("\n\n---\n\n");
    // After the diagnostic on this line: the key, then the summary.
    const key = parts.findIndex((p) => p.startsWith("**parallelism.tensor_parallel_degree**"));
    assert.ok(key >= 0, h.markdown);
    assert.equal(parts[key + 1], [
      "**Precision Lens** · torchtitan v0.2.2",
      "**TP-only on 8 GPUs** (world size: precisionLens.worldSize setting (8))",
      "Mechanism: **none: no mixed precision is applied** — TP or PP without FSDP: maybe_enable_amp returns a null context.",
      "≈ 77.49 GiB peak per GPU (estimate, reserved; 73.80 GiB allocated, 14.96 GiB persistent): ⚠ over the 74.51 GiB of an H100 SXM 80GB (estimate)",
      "_The full precision report (per-op dtypes, memory, what-if matrix): the code lens at the top of the file, or the Open Precision Report command._",
    ].join("\n\n"));
  });

  it("what-if cells whose peak is over the GPU's memory are marked (16 GPUs of a 70B model on 80 GB A100s)", () => {
    const text = `# NOTE: this toml config is a preset for 64 A100 GPUs.\n${SEED.replace(/flavor = "8B"/, 'flavor = "70B"')}`;
    const r = analyzeDocument("file:///w/llama3_70b.toml", text, {}, fakeEnv({}, "/w/llama3_70b.toml"));
    const html = renderReportHtml(buildReportView(r), { nonce: "abcdefgh12345678" });
    const cell = /<div class="pl-cell pl-mech-fully_shard pl-over" data-world-size="16" data-version="v0\.2\.2"[^>]*>[\s\S]*?<\/div>/.exec(html)?.[0];
    assert.ok(cell, "the 16-GPU v0.2.2 cell is marked over");
    assert.match(cell, /<span class="pl-l3">⚠ [\d.]+ GiB: no fit<\/span>/);
    assert.match(cell, /does not fit in the GPU&#39;s 74\.5 GiB"/);
    const fits = /<div class="pl-cell pl-mech-fully_shard( pl-current)?" data-world-size="64" data-version="v0\.2\.2"/.exec(html);
    assert.ok(fits, "64 GPUs fit and are not marked");
  });
});
