/**
 * Issue #9 §4, without the corpus: the causes behind the wild-corpus fixes, each on a small hand-written file
 * (the corpus test, frameworks-wild.test.ts, pins the real files).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AnalysisEnv } from "../server/src/core/analysis";
import { analyzeDocument, sniffFormat } from "../server/src/core/analyze";
import { headline } from "../server/src/core/features/index";
import { fileJson } from "../server/src/cliMain";
import { findPackagePin, versionAtLeast } from "../server/src/core/workspace/packagePin";

const P = (r: ReturnType<typeof analyzeDocument>) => (r.precision ? [r.precision.paramStorage.dtype, r.precision.compute.dtype, r.precision.gradReduce.dtype] : null);
const codes = (r: ReturnType<typeof analyzeDocument>) => r.diagnostics.map((d) => `${d.severity} ${d.code}@${d.range.start.line + 1}`);

function env(files: Record<string, string>, documentPath: string): AnalysisEnv {
  return {
    readFile: (p) => files[p],
    listDir: (dir) => {
      const prefix = dir.endsWith("/") ? dir : `${dir}/`;
      return [...new Set(Object.keys(files).filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length).split("/")[0]!))];
    },
    documentPath,
  };
}

describe("DeepSpeed is detected by content, not extension", () => {
  it("block-style YAML with zero_optimization and a bf16 mapping", () => {
    const r = analyzeDocument("file:///p/ds.yaml", "zero_optimization:\n  stage: 2\nbf16:\n  enabled: true\ncommunication_data_type: fp32\n");
    assert.equal(r.framework, "deepspeed");
    assert.match(r.frameworkReason, /DeepSpeed config in YAML/);
    assert.deepEqual(P(r), ["float32", "bfloat16", "float32"]);
    assert.deepEqual(codes(r), []);
  });
  it("DS6 on block YAML offers no JSON-text fix (it would break the file)", () => {
    const r = analyzeDocument("file:///p/ds.yaml", "zero_optimization:\n  stage: 2\nbf16:\n  enabled: true\n");
    assert.deepEqual(codes(r), ["information deepspeed/low-precision-reduction@4"]);
    assert.equal(r.diagnostics[0]!.data?.fixes, undefined);
  });
  it("a `bf16: true` scalar next to train_batch_size is not DeepSpeed (HF/Axolotl style)", () => {
    assert.equal(analyzeDocument("file:///p/x.yaml", "bf16: true\ntrain_batch_size: 8\n").framework, null);
  });
  it("JSON in a .conf file, and gpt-neox style YAML in a .conf file", () => {
    assert.equal(sniffFormat('{"zero_optimization": {"stage": 1}}'), "json");
    assert.equal(sniffFormat('# neox\n{\n  "zero_optimization": {"stage": 1}, # c\n}'), "yaml");
    assert.equal(sniffFormat("[training]\nsteps = 1\n"), undefined);
    // Linear scan: runs of blank lines (which made a regex with nested quantifiers backtrack exponentially) are fine.
    assert.equal(sniffFormat(`${"\n".repeat(10_000)}x`), undefined);
    assert.equal(sniffFormat(`${" \n#\n".repeat(10_000)}{}`), "yaml");
    const r = analyzeDocument("file:///p/ds_config.conf", '{"zero_optimization": {"stage": 1}, "fp16": {"enabled": true}, "communication_data_type": "fp32"}');
    assert.equal(r.format, "json");
    assert.equal(r.framework, "deepspeed");
    assert.deepEqual(P(r), ["float32", "float16", "float32"]);
  });
  it("torch_autocast with no fp16/bf16 mode keeps fp32 parameters (the autocast branch applies only then)", () => {
    const r = analyzeDocument("file:///p/ds.json", '{"zero_optimization": {"stage": 1}, "torch_autocast": {"enabled": true, "dtype": "bfloat16"}}');
    assert.equal(r.mechanism, "autocast");
    assert.deepEqual(P(r), ["float32", "bfloat16", "float32"]);
  });
  it('"auto" precision: the CLI JSON shows null compute and reduction, and the text headline names the launcher', () => {
    const r = analyzeDocument("file:///p/ds.json", '{"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}');
    const j = fileJson("ds.json", r) as { precision: unknown };
    assert.deepEqual(j.precision, { paramStorage: "float32", compute: null, gradReduce: null });
    assert.match(headline(r)!, /^deepspeed: precision set by the launcher \(HF Trainer `--bf16`\/`--fp16`, or accelerate `mixed_precision`\)$/);
  });
});

describe('"auto" precision reached through a launcher config', () => {
  it("accelerate with a deepspeed_config_file whose bf16 is \"auto\" and no mixed_precision: set by `accelerate launch --mixed_precision`", () => {
    const yaml = "distributed_type: DEEPSPEED\nnum_processes: 8\ndeepspeed_config:\n  deepspeed_config_file: ds.json\n";
    const files = { "/w/acc.yaml": yaml, "/w/ds.json": '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}}' };
    const r = analyzeDocument("file:///w/acc.yaml", yaml, {}, env(files, "/w/acc.yaml"));
    assert.deepEqual(P(r), ["float32", null, null]);
    assert.equal(headline(r), "DeepSpeed ZeRO-2 on 8 GPUs: precision set by `accelerate launch --mixed_precision` (default no, which leaves DeepSpeed in fp32)");
  });
  it("Lightning DeepSpeed strategy with 32-true: nobody fills \"auto\", so fp32", () => {
    const yaml = "trainer:\n  precision: 32-true\n  devices: 2\n  strategy:\n    class_path: lightning.pytorch.strategies.DeepSpeedStrategy\n    init_args:\n      config: ds.json\n";
    const files = { "/w/t.yaml": yaml, "/w/ds.json": '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}}' };
    const r = analyzeDocument("file:///w/t.yaml", yaml, {}, env(files, "/w/t.yaml"));
    assert.deepEqual(P(r), ["float32", "float32", "float32"]);
    assert.equal(r.precision?.setBy, undefined);
  });
});

describe("Axolotl and DeepSpeed files that are not on disk", () => {
  it("accelerate's deepspeed_config_file not found: still DeepSpeed (fp32 master), precision set by the missing file", () => {
    const yaml = "distributed_type: DEEPSPEED\nnum_processes: 8\ndeepspeed_config:\n  deepspeed_config_file: configs/ds.json\n";
    const r = analyzeDocument("file:///w/acc.yaml", yaml, {}, env({ "/w/acc.yaml": yaml }, "/w/acc.yaml"));
    assert.deepEqual(P(r), ["float32", null, null]);
    assert.deepEqual(codes(r), ["information accelerate/deepspeed-config-missing@4"]);
    assert.equal(headline(r), "DeepSpeed on 8 GPUs: precision set by the DeepSpeed config file `configs/ds.json` (not found)");
  });
  it("a linked DeepSpeed file written as gpt-neox style YAML is read", () => {
    const yaml = "distributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n  deepspeed_config_file: ds.yml\n";
    const files = { "/w/acc.yaml": yaml, "/w/ds.yml": '# neox\n{\n  "zero_optimization": {"stage": 1},\n  "fp16": {"enabled": True},\n}\n' };
    const r = analyzeDocument("file:///w/acc.yaml", yaml, {}, env(files, "/w/acc.yaml"));
    assert.equal(r.layoutName, "DeepSpeed ZeRO-1");
    assert.deepEqual(P(r), ["float32", "float16", "float16"]);
  });
  const base = "base_model: m\ndatasets:\n  - path: d\n    type: alpaca\nsequence_len: 2048\nmicro_batch_size: 1\n";
  it("an unknown missing file keeps DeepSpeed semantics (fp32 master weights) and says it was not found", () => {
    const text = `${base}bf16: true\ndeepspeed: configs/my_ds.json\n`;
    const r = analyzeDocument("file:///w/x.yaml", text, {}, env({ "/w/x.yaml": text }, "/w/x.yaml"));
    assert.equal(r.layoutName, "DeepSpeed (config file not found)");
    assert.deepEqual(P(r), ["float32", "bfloat16", "bfloat16"]);
    assert.deepEqual(codes(r), ["information axolotl/deepspeed-config-missing@8"]);
    assert.match(r.diagnostics[0]!.message, /^DeepSpeed config not found: its own settings cannot be checked \(the run still uses DeepSpeed\)$/);
    assert.match(r.diagnostics[0]!.detail ?? "", /was not found .* The run still uses DeepSpeed: fp32 master weights in the ZeRO optimizer/);
  });
  it("a bundled name (deepspeed_configs/zero3_bf16.json) is read from the table; a conflicting fp16 request is DS9", () => {
    const text = `${base}bf16: false\nfp16: true\nadapter: lora\ndeepspeed: deepspeed_configs/zero3_bf16.json\n`;
    const r = analyzeDocument("file:///w/x.yaml", text, {}, env({ "/w/x.yaml": text }, "/w/x.yaml"));
    assert.equal(r.layoutName, "DeepSpeed ZeRO-3");
    assert.deepEqual(codes(r), ["warning deepspeed/precision-mismatch@8", "information axolotl/deepspeed-config-missing@10"]);
    assert.match(r.diagnostics[0]!.message, /Axolotl's bundled deepspeed_configs\/zero3_bf16\.json has `bf16\.enabled: true`/);
  });
  it("Lightning's DeepSpeed strategy config not found: said, and still DeepSpeed with fp32 master weights", () => {
    const yaml = "trainer:\n  precision: bf16-mixed\n  devices: 2\n  strategy:\n    class_path: lightning.pytorch.strategies.DeepSpeedStrategy\n    init_args:\n      config: ds/zero2.json\n";
    const r = analyzeDocument("file:///w/t.yaml", yaml, {}, env({ "/w/t.yaml": yaml }, "/w/t.yaml"));
    assert.deepEqual(codes(r), ["information lightning/deepspeed-config-missing@7"]);
    assert.deepEqual(P(r), ["float32", "bfloat16", "bfloat16"]);
  });
  it("an inline `deepspeed:` mapping is DeepSpeed too (no AX4: ZeRO keeps fp32 master weights)", () => {
    const r = analyzeDocument("file:///w/x.yaml", `${base}bf16: true\ndeepspeed:\n  zero_optimization:\n    stage: 3\n  bf16:\n    enabled: auto\n`);
    assert.equal(r.layoutName, "DeepSpeed ZeRO-3");
    assert.deepEqual(P(r), ["float32", "bfloat16", "bfloat16"]);
    assert.deepEqual(codes(r), []);
  });
  it("LoRA under the legacy `fsdp:` list is FSDP1 through accelerate: adapter gradients reduced in bf16", () => {
    const text = `${base}bf16: true\nadapter: lora\nfsdp:\n  - full_shard\n  - auto_wrap\n`;
    const r = analyzeDocument("file:///w/x.yaml", text);
    assert.equal(r.layoutName, "FSDP1");
    assert.equal(r.mechanism, "fully_shard");
    assert.deepEqual(P(r), ["float32", "bfloat16", "bfloat16"]);
  });
});

describe("Lightning on real layouts", () => {
  it("sgm/LDM style `lightning: trainer:` nesting is detected", () => {
    const r = analyzeDocument("file:///p/sd.yaml", "model:\n  target: sgm.models.diffusion.DiffusionEngine\nlightning:\n  trainer:\n    devices: 0,1\n    precision: bf16-mixed\n    strategy: fsdp\n");
    assert.equal(r.framework, "lightning");
    assert.match(r.frameworkReason, /`lightning\.trainer:` mapping .*sgm\/LDM/);
    assert.equal(r.worldSize?.value, 2);
    assert.deepEqual(P(r), ["float32", "bfloat16", "bfloat16"]);
  });
  it("precision 32 and 64 are silent aliases (no PL2); 16 still warns", () => {
    for (const p of ["32", "64", '"32"']) assert.deepEqual(codes(analyzeDocument("file:///p/t.yaml", `trainer:\n  precision: ${p}\n  devices: 1\n`)), []);
    assert.deepEqual(codes(analyzeDocument("file:///p/t.yaml", "trainer:\n  precision: 16\n  devices: 1\n")), ["warning lightning/legacy-precision-alias@2"]);
  });
  it("LitGPT: more than one device means FSDP (full/pretrain) or FSDP2 without a policy (LoRA)", () => {
    const litgpt = (extra: string) => analyzeDocument("file:///p/l.yaml", `precision: bf16-mixed\ncheckpoint_dir: c\nout_dir: o\ntrain:\n  epochs: 1\n${extra}`);
    const full = litgpt("devices: 2\nnum_nodes: 2\n");
    assert.equal(full.layoutName, "FSDP (LitGPT)");
    assert.equal(full.worldSize?.value, 4);
    assert.deepEqual(P(full), ["float32", "bfloat16", "bfloat16"]);
    const lora = litgpt("devices: 2\nlora_r: 8\n");
    assert.equal(lora.layoutName, "FSDP2 (LitGPT LoRA, ModelParallelStrategy)");
    assert.deepEqual(P(lora), ["float32", "bfloat16", "float32"]);
    assert.deepEqual(codes(lora), []);
    const one = litgpt("devices: 1\n");
    assert.equal(one.layoutName, "single device");
    assert.deepEqual(P(one), ["float32", "bfloat16", null]);
  });
  it("LitGPT thunder pretrain: `strategy: ddp` (or auto) on more than one device is DDP, not FSDP", () => {
    const litgpt = (extra: string) => analyzeDocument("file:///p/l.yaml", `precision: bf16-mixed\ncheckpoint_dir: c\nout_dir: o\ntrain:\n  epochs: 1\ndevices: 4\n${extra}`);
    for (const s of ["ddp", "auto"]) {
      const r = litgpt(`strategy: ${s}\n`);
      assert.equal(r.layoutName, "DDP (LitGPT)", s);
      assert.equal(r.parallel?.dp_replicate, 4, s);
      assert.equal(r.parallel?.dp_shard, 1, s);
      assert.equal(r.mechanism, "autocast", s);
      assert.deepEqual(P(r), ["float32", "bfloat16", "float32"], s);
    }
    assert.equal(litgpt("strategy: fsdp\n").layoutName, "FSDP (LitGPT)");
  });
});

describe("Lightning rules that depend on the Lightning version", () => {
  // FSDPPrecision.module_init_context used the policy's dtype before 2.6.4 (Lightning-AI/pytorch-lightning#21586,
  // src/lightning/fabric/plugins/precision/fsdp.py:115 at 2.6.4); LitGPT builds its model under fabric.init_module().
  const text = "precision: bf16-mixed\ncheckpoint_dir: c\nout_dir: o\ntrain:\n  epochs: 1\ndevices: 4\n";
  const at = (files: Record<string, string>) => analyzeDocument("file:///w/l.yaml", text, {}, { ...env({ "/w/l.yaml": text, ...files }, "/w/l.yaml"), workspaceRoots: ["/w"] });
  it("lightning 2.5.0 pinned: LitGPT's FSDP parameters are bf16, and PL9 says so", () => {
    const r = at({ "/w/requirements.txt": "lightning==2.5.0\nlitgpt==0.5.8\n" });
    assert.deepEqual(P(r), ["bfloat16", "bfloat16", "bfloat16"]);
    assert.match(r.diagnostics[0]!.message, /^FSDP with bf16-mixed: bf16 parameters, bf16 compute, and bf16 gradient reduction and buffers$/);
    assert.match(r.diagnostics[0]!.detail ?? "", /FSDP with bf16-mixed: bf16 parameters \(LitGPT builds the model under `fabric\.init_module\(\)`.*requirements\.txt pins lightning 2\.5\.0\)/);
  });
  it("lightning 2.6.4 pinned: fp32 parameters", () => {
    assert.deepEqual(P(at({ "/w/requirements.txt": "lightning==2.6.4\n" })), ["float32", "bfloat16", "bfloat16"]);
  });
  it("no pin: the newest Lightning is assumed, and the report says so", () => {
    const r = at({});
    assert.deepEqual(P(r), ["float32", "bfloat16", "bfloat16"]);
    assert.match(r.reportMarkdown ?? "", /no Lightning pin found in the workspace; assuming the newest Lightning \(2\.6\.5\)/);
  });
});

describe("single-device runs report gradient reduction none (null in JSON)", () => {
  it("accelerate distributed_type NO", () => {
    const r = analyzeDocument("file:///p/a.yaml", "distributed_type: 'NO'\nmixed_precision: bf16\n");
    assert.equal(r.precision?.gradReduce.dtype, null);
    assert.match(r.reportMarkdown ?? "", /\| gradient reduction \| none \| `distributed_type: NO`: one process, no gradient reduction \|/);
    assert.equal((fileJson("a.yaml", r) as { precision: { gradReduce: unknown } }).precision.gradReduce, null);
  });
  it("DeepSpeed with a batch trio of one GPU", () => {
    const r = analyzeDocument("file:///p/ds.json", '{"train_batch_size": 4, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 1, "bf16": {"enabled": true}, "zero_optimization": {"stage": 1}}');
    assert.equal(r.worldSize?.value, 1);
    assert.equal(r.precision?.gradReduce.dtype, null);
  });
});

describe("Jinja-templated YAML", () => {
  it("placeholders are read as nulls with the real offsets, not reported as syntax errors", () => {
    const text = "model:\n  _component_: torchtune.models.qwen2.qwen2_1_5b\ntokenizer:\n  path: {{model_dir}}/vocab.json\noptimizer:\n  _component_: torch.optim.AdamW\nloss:\n  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\ndtype: bf16\n";
    const r = analyzeDocument("file:///p/tpl.yaml", text);
    assert.equal(r.framework, "torchtune");
    assert.equal(r.doc.text, text);
    assert.deepEqual(codes(r), ["information torchtune/pure-bf16@9"]);
    assert.equal(r.diagnostics[0]!.range.start.character, 7);
  });
  it("a broken YAML file without placeholders still reports its syntax error", () => {
    const r = analyzeDocument("file:///p/b.yaml", "model:\n  _component_: torchtune.models.x\n bad: [\n");
    assert.ok(r.diagnostics.some((d) => d.code === "yaml-syntax"));
  });
});

describe("workspace package pins", () => {
  it("reads exact pins from requirements, pyproject, poetry and lock files; ignores ranges", () => {
    assert.equal(findPackagePin("torch==2.6\ntorchtune==0.6.1  # pinned\n", "torchtune", false), "0.6.1");
    assert.equal(findPackagePin('dependencies = ["torchtune[dev]==0.7.0"]', "torchtune", false), "0.7.0");
    assert.equal(findPackagePin('torchtune = "0.5.0"', "torchtune", false), "0.5.0");
    assert.equal(findPackagePin("git+https://github.com/pytorch/torchtune.git@v0.6.1", "torchtune", false), "0.6.1");
    assert.equal(findPackagePin("torchtune>=0.5\n", "torchtune", false), undefined);
    assert.equal(findPackagePin('[[package]]\nname = "torchtune"\nversion = "0.6.0"\n', "torchtune", true), "0.6.0");
    assert.equal(findPackagePin("mytorchtune==1.0\n", "torchtune", false), undefined);
  });
  it("reads setup.py `_deps` and conda-format requirements (issue #31)", () => {
    assert.equal(findPackagePin('_deps = [\n    "accelerate==0.33.0",\n    "transformers==4.43.1",\n]\n', "transformers", false), "4.43.1");
    assert.equal(findPackagePin("transformers=4.43.1=pypi_0\naccelerate=0.33.0=pypi_0\n", "transformers", false), "4.43.1");
    assert.equal(findPackagePin("transformers=4.43.1\n", "transformers", false), "4.43.1");
    assert.equal(findPackagePin("sentence-transformers=2.2.0=pypi_0\n", "transformers", false), undefined);
  });
  it("compares release numbers", () => {
    assert.equal(versionAtLeast("0.6.1", "0.7.0"), false);
    assert.equal(versionAtLeast("0.7.0", "0.7.0"), true);
    assert.equal(versionAtLeast("0.10.0", "0.7.0"), true);
  });
});

describe("a pin in a Dockerfile counts (issue #17: flash-attention pins pytorch-lightning 1.8.6 in training/Dockerfile:81)", () => {
  // The layout of flash-attention's training/: the Hydra experiment config is four folders below the Dockerfile.
  const text = "trainer:\n  accelerator: gpu\n  devices: 8\n  precision: 16\n";
  const uri = "file:///w/training/configs/experiment/owt/base.yaml";
  const at = (files: Record<string, string>) => analyzeDocument(uri, text, {}, { ...env({ "/w/training/configs/experiment/owt/base.yaml": text, ...files }, "/w/training/configs/experiment/owt/base.yaml"), workspaceRoots: ["/w"] });
  const pl2 = (r: ReturnType<typeof at>) => r.diagnostics.filter((d) => d.code === "lightning/legacy-precision-alias").map((d) => d.severity);
  it("pytorch-lightning 1.8.6 in a Dockerfile's pip install: `precision: 16` is the normal 1.x value, no PL2", () => {
    assert.deepEqual(pl2(at({ "/w/training/Dockerfile": "FROM base\nRUN pip install transformers==4.25.1 pytorch-lightning==1.8.6 wandb==0.13.7\n" })), []);
  });
  it("a conda environment.yml pin counts too", () => {
    assert.deepEqual(pl2(at({ "/w/environment.yml": "dependencies:\n  - pip:\n    - pytorch-lightning==1.9.5\n" })), []);
  });
  it("Lightning 2 pinned in a Dockerfile, or no pin at all: the legacy-alias warning, and without a pin the detail names the assumption", () => {
    assert.deepEqual(pl2(at({ "/w/training/Dockerfile": "RUN pip install lightning==2.4.0\n" })), ["warning"]);
    const none = at({}).diagnostics.find((d) => d.code === "lightning/legacy-precision-alias");
    assert.equal(none?.severity, "warning");
    assert.match(none!.detail ?? "", /no Lightning pin found in the workspace; assuming the newest Lightning \(2\.6\.5\); on pytorch-lightning 1\.x it is the normal value/);
  });
  it("findPackagePin reads a Dockerfile RUN line", () => {
    assert.equal(findPackagePin("RUN pip install datasets==2.8.0 pytorch-lightning==1.8.6 triton==2.0.0.dev20221202\n", "pytorch-lightning", false), "1.8.6");
  });
});
