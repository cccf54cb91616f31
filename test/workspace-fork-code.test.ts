/**
 * Issue #30 §2 and §3: the workspace's own torchtitan code dates it (workspace/forkCode.ts), and launch scripts
 * are read as the launcher sees them (workspace/worldSize.ts). Synthetic workspaces: test/fixtures/fork-code-workspace
 * on disk, and in-memory ones (test/support/fakeEnv.ts).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { epBranchAsksTpMesh, parallelizeDifference, readForkCode } from "../server/src/core/workspace/forkCode";
import { inferWorldSize, worldSizeFromScript } from "../server/src/core/workspace";
import { namingRank, scriptOverrides } from "../server/src/core/workspace/worldSize";
import { fakeEnv } from "./support/fakeEnv";
import { buildTitanContext } from "../server/src/core/frameworks/torchtitan/analyzer";
import { parseTomlDocument } from "../server/src/core/parse/toml";

const WS = join(import.meta.dirname, "fixtures", "fork-code-workspace");
const REGISTRY = join(WS, "configs", "registry.py");

const AMP_PRE_2458 = `def maybe_enable_amp(parallel_dims, mixed_precision_param, device_type):\n    if parallel_dims.fsdp_enabled:\n        return None\n    if parallel_dims.tp_enabled or parallel_dims.pp_enabled:\n        return None\n    return torch.autocast(device_type)\n`;
const AMP_2458 = AMP_PRE_2458.replace("parallel_dims.fsdp_enabled:", "parallel_dims.fsdp_enabled or parallel_dims.dp_replicate_enabled:");
const UP_PAR = "def parallelize_llama(m, d, c):\n    apply_fsdp(m)\n    apply_ddp(m)\n";

function codeEnv(files: Record<string, string>) {
  return fakeEnv({ "/ws/configs/x.py": "", ...files }, "/ws/configs/x.py", ["/ws"]);
}

describe("forkCode: the workspace's torchtitan code matched against upstream states", () => {
  it("maybe_enable_amp without dp_replicate + Python config classes → 2026-02-23 … 2026-03-09, decided by utils.py maybe_enable_amp", () => {
    const f = readForkCode(codeEnv({ "/ws/torchtitan/distributed/utils.py": AMP_PRE_2458, "/ws/torchtitan/config/configs.py": "class X: pass\n" }))!;
    assert.deepEqual(f.window, { from: "2026-02-23", until: "2026-03-09" });
    assert.equal(f.decidedBy?.file, "torchtitan/distributed/utils.py");
    assert.equal(f.decidedBy?.fn, "maybe_enable_amp");
    assert.equal(f.decidedBy?.location.range.start.line, 0);
  });
  it("a maybe_enable_amp whose TP/PP branch returns autocast (upstream's null context commented out) matches no upstream state, and a PP-only config of that fork gets no fp32 warning (held-back orangingq)", () => {
    const patched = AMP_PRE_2458.replace("    if parallel_dims.tp_enabled or parallel_dims.pp_enabled:\n        return None\n", "    if parallel_dims.tp_enabled or parallel_dims.pp_enabled:\n        # return contextlib.nullcontext()\n        return torch.autocast(device_type, dtype=torch.bfloat16)\n");
    assert.notEqual(patched, AMP_PRE_2458);
    const files = { "/ws/torchtitan/distributed/utils.py": patched, "/ws/torchtitan/config/job_config.py": "class JobConfig: pass\n" };
    const f = readForkCode(codeEnv(files))!;
    assert.equal(f.tpPpAutocast?.file, "torchtitan/distributed/utils.py");
    assert.match(f.unmatched ?? "", /autocasts TP or PP without FSDP/);
    const toml = `[model]\nname = "llama3"\nflavor = "8B"\n[training]\nsteps = 10\n[parallelism]\ndata_parallel_shard_degree = -1\npipeline_parallel_degree = 4\n`;
    const code = (utils: string) => analyzeDocument("file:///ws/train_configs/a.toml", toml, { worldSize: 4 }, fakeEnv({ ...files, "/ws/torchtitan/distributed/utils.py": utils, "/ws/train_configs/a.toml": toml }, "/ws/train_configs/a.toml", ["/ws"]));
    assert.equal(code(patched).diagnostics.filter((d) => d.code === "no-mixed-precision").length, 0);
    assert.equal(code(AMP_PRE_2458).diagnostics.filter((d) => d.code === "no-mixed-precision").length, 1);
  });
  it("the same function with TOML-era config classes → 2025-06-16 … 2026-02-23", () => {
    const f = readForkCode(codeEnv({ "/ws/torchtitan/distributed/utils.py": AMP_PRE_2458, "/ws/torchtitan/config/job_config.py": "class Job: pass\n" }))!;
    assert.deepEqual(f.window, { from: "2025-06-16", until: "2026-02-23" });
    assert.equal(f.configFormat, "toml");
  });
  it("a dp_replicate_enabled branch (#2458) → 2026-03-09 … 2026-04-09", () => {
    const f = readForkCode(codeEnv({ "/ws/torchtitan/distributed/utils.py": AMP_2458, "/ws/torchtitan/config/configs.py": "" }))!;
    assert.deepEqual(f.window, { from: "2026-03-09", until: "2026-04-09" });
  });
  it("no maybe_enable_amp with Python classes → from 2026-04-09; configs.py's reduce Literal and the optimizer narrow it", () => {
    const utils = "def other():\n    pass\n";
    assert.deepEqual(readForkCode(codeEnv({ "/ws/torchtitan/distributed/utils.py": utils, "/ws/torchtitan/config/configs.py": 'mixed_precision_reduce: Literal["float32"] = "float32"\n' }))!.window, { from: "2026-04-09", until: "2026-09-11" });
    assert.deepEqual(readForkCode(codeEnv({ "/ws/torchtitan/distributed/utils.py": utils, "/ws/torchtitan/config/configs.py": 'mixed_precision_reduce: Literal["float32", "bfloat16"] = "float32"\n' }))!.window, { from: "2026-09-11" });
    assert.deepEqual(readForkCode(codeEnv({ "/ws/torchtitan/distributed/utils.py": utils, "/ws/torchtitan/config/configs.py": "", "/ws/torchtitan/components/optimizer.py": "impl = 'fused'\n" }))!.window, { from: "2026-04-09", until: "2026-04-15" });
  });
  it("code that matches no known state says so (no autocast in maybe_enable_amp; no config classes)", () => {
    const f = readForkCode(codeEnv({ "/ws/torchtitan/distributed/utils.py": "def maybe_enable_amp(p, m, d):\n    if p.tp_enabled:\n        return None\n", "/ws/torchtitan/config/configs.py": "" }))!;
    assert.equal(f.window, undefined);
    assert.match(f.unmatched!, /maybe_enable_amp matches no upstream version \(no autocast\)/);
    assert.match(readForkCode(codeEnv({ "/ws/torchtitan/distributed/utils.py": "x = 1\n" }))!.unmatched!, /no config classes/);
  });
  it("a submodule's package (torchtitan/torchtitan) is found; no package → undefined", () => {
    assert.equal(readForkCode(codeEnv({ "/ws/torchtitan/torchtitan/distributed/utils.py": AMP_2458, "/ws/torchtitan/torchtitan/config/configs.py": "" }))!.packagePath, "torchtitan/torchtitan");
    assert.equal(readForkCode(codeEnv({})), undefined);
  });
  it("parallelize read as written: upstream-shaped → nothing; DDP only, none, autocast; comments are not code", () => {
    assert.deepEqual(parallelizeDifference(UP_PAR), []);
    assert.deepEqual(parallelizeDifference("def parallelize_x(m):\n    replicate(m)\n"), ["DDP only (fully_shard is never called)"]);
    assert.deepEqual(parallelizeDifference("def parallelize_x(m):\n    # fully_shard(m)\n    return m\n"), ["no data parallelism (neither fully_shard nor replicate/DDP is called)"]);
    assert.deepEqual(parallelizeDifference("def parallelize_x(m):\n    fully_shard(m)\n    m.f = torch.autocast('cuda')(m.f)\n"), ["autocast patched in"]);
  });
});

describe("a fork's own parallelize decides whether EP at TP = 1 asks for the tp mesh (forkCode epBranchAsksTpMesh, eras.ts epAsksTpMesh)", () => {
  // Shapes written for this test after the three upstream ones (v0.2.0 qwen3/infra/parallelize.py:95-108 indexes
  // world_mesh["tp"] only `if parallel_dims.tp_enabled`; v0.2.1 :102-105 calls get_mesh("tp"); v0.2.2 :110-113
  // calls get_optional_mesh("tp")).
  const branch = (inner: string) => `def parallelize_qwen3(model, parallel_dims, job_config):\n    if not parallel_dims.ep_enabled:\n        pass\n    if parallel_dims.tp_enabled or parallel_dims.ep_enabled:\n${inner}    if parallel_dims.fsdp_enabled or parallel_dims.ep_enabled:\n        apply_fsdp(model)\n    return model\n`;
  const ASKS = branch('        mesh = parallel_dims.get_mesh("tp")\n        apply_moe_ep_tp(model, tp_mesh=mesh)\n');
  const OPTIONAL = branch('        apply_moe_ep_tp(model, tp_mesh=parallel_dims.get_optional_mesh("tp"))\n');
  const GUARDED = branch('        apply_moe_ep_tp(model, tp_mesh=world_mesh["tp"] if parallel_dims.tp_enabled else None)\n');
  const INDEXED = branch('        apply_moe_ep_tp(model, tp_mesh=world_mesh["tp"])\n');
  const LATE_GUARD = branch('        apply_moe_ep_tp(\n            model,\n            tp_mesh=world_mesh["tp"]\n            if parallel_dims.tp_enabled\n            else None,\n        )\n');

  it("reads the branch: get_mesh and an unguarded index ask; get_optional_mesh and a conditional do not; no branch → undefined", () => {
    assert.equal(epBranchAsksTpMesh(ASKS), true);
    assert.equal(epBranchAsksTpMesh(INDEXED), true);
    assert.equal(epBranchAsksTpMesh(OPTIONAL), false);
    assert.equal(epBranchAsksTpMesh(GUARDED), false);
    assert.equal(epBranchAsksTpMesh(LATE_GUARD), false);
    assert.equal(epBranchAsksTpMesh(ASKS.replace('parallel_dims.get_mesh("tp")', '# parallel_dims.get_mesh("tp")\n        parallel_dims.get_optional_mesh("tp")')), false);
    assert.equal(epBranchAsksTpMesh(UP_PAR), undefined);
  });

  const toml = `# precision-lens: world-size=8\n[model]\nname = "qwen3"\nflavor = "debugmodel_moe"\n[training]\nsteps = 10\n[parallelism]\ndata_parallel_shard_degree = -1\ntensor_parallel_degree = 1\nexpert_parallel_degree = 4\n`;
  const files = (par: string) => ({
    "/ws/torchtitan/distributed/utils.py": AMP_PRE_2458,
    "/ws/torchtitan/config/job_config.py": "class JobConfig: pass\n",
    "/ws/torchtitan/models/qwen3/infra/parallelize.py": par,
    "/ws/train_configs/a.toml": toml,
  });
  const run = (par: string, version?: string) =>
    analyzeDocument("file:///ws/train_configs/a.toml", toml, version ? { torchtitanVersion: version } : {}, fakeEnv(files(par), "/ws/train_configs/a.toml", ["/ws"]));

  it("a fork whose branch asks fails at any date, naming its file; one that guards builds even at v0.2.1", () => {
    const asks = run(ASKS, "v0.2.2");
    const d = asks.diagnostics.find((x) => x.code === "ep-needs-tp-mesh")!;
    assert.equal(d.severity, "error");
    assert.equal(d.message, "qwen3 with EP 4 and TP 1: its parallelize asks for the tp mesh, launch fails");
    assert.equal(d.range.start.line, 9); // expert_parallel_degree
    assert.ok(d.related?.some((r) => r.location.uri === "file:///ws/torchtitan/models/qwen3/infra/parallelize.py" && r.message.includes("takes the tp mesh unguarded")));
    assert.equal(asks.mechanism, "error");
    for (const par of [GUARDED, OPTIONAL]) {
      const ok = run(par, "v0.2.1");
      assert.deepEqual(ok.diagnostics.filter((x) => x.code === "ep-needs-tp-mesh"), []);
      assert.equal(ok.mechanism, "fully_shard");
    }
  });
});

describe("a fork taken between 2026-02-23 and 2026-04-09 dates a Python registry (fixture fork-code-workspace)", () => {
  const r = analyzeDocument(pathToFileURL(REGISTRY).href, readFileSync(REGISTRY, "utf8"), {}, nodeEnv(REGISTRY, [WS]));
  it("the version comes from the fork's utils.py, named, not v0.4.0; the rewritten parallelize is stated and caps it", () => {
    assert.equal(r.torchtitanVersion?.value, "main@2026-02-23");
    assert.equal(r.torchtitanVersion?.source, "workspace-code");
    assert.match(r.torchtitanVersion!.detail, /torchtitan\/distributed\/utils\.py \(maybe_enable_amp\)/);
    assert.match(r.torchtitanVersion!.detail, /fork parallelize differs: torchtitan\/models\/mymodel\/parallelize\.py: DDP only \(fully_shard is never called\), autocast patched in/);
    assert.equal(r.torchtitanVersion?.kind, "inferred");
  });
  it("TP-only on the fork's era gets no mixed precision: fp32 compute", () => {
    assert.equal(r.mechanism, "none");
    assert.equal(r.precision?.compute.dtype, "float32");
  });
  it("the world size from run.sh's CONFIG=${CONFIG:-\"tp_only\"} and NGPU default", () => {
    assert.equal(r.worldSize?.value, 4);
    assert.equal(r.worldSize?.kind, "run-script");
    assert.match(r.worldSize!.detail, /run\.sh/);
  });
  it("without the rewritten model the version is a known workspace-code fact", () => {
    const files: Record<string, string> = { "/ws/torchtitan/distributed/utils.py": AMP_PRE_2458, "/ws/torchtitan/config/configs.py": "", "/ws/torchtitan/models/llama3/parallelize.py": UP_PAR, "/ws/configs/x.py": readFileSync(REGISTRY, "utf8") };
    const q = analyzeDocument("file:///ws/configs/x.py", files["/ws/configs/x.py"]!, {}, fakeEnv(files, "/ws/configs/x.py", ["/ws"]));
    assert.equal(q.torchtitanVersion?.kind, "workspace-code");
    assert.equal(q.torchtitanVersion?.value, "main@2026-02-23");
  });
});

describe("a TOML-era fork's code dates its TOML files", () => {
  const toml = "[model]\nname = \"llama3\"\n[parallelism]\ndata_parallel_shard_degree = 1\ntensor_parallel_degree = 2\n";
  it("no maybe_enable_amp + job_config.py → before 2025-06-16 (not the default v0.2.2)", () => {
    const files = { "/ws/torchtitan/distributed/utils.py": "def other():\n    pass\n", "/ws/torchtitan/config/job_config.py": "class JobConfig: pass\n", "/ws/train_configs/a.toml": toml };
    const r = analyzeDocument("file:///ws/train_configs/a.toml", toml, {}, fakeEnv(files, "/ws/train_configs/a.toml", ["/ws"]));
    assert.equal(r.torchtitanVersion?.source, "workspace-code");
    // A window of dates, not one release: the key history inside it is not certain (only what holds at every date is).
    assert.equal(r.torchtitanVersion?.kind, "inferred");
    assert.match(r.torchtitanVersion!.value, /^main@2025-0[3-6]-\d\d$/);
    assert.match(r.torchtitanVersion!.detail, /no maybe_enable_amp/);
  });
  it("a pin is named as not what runs", () => {
    const files = { "/ws/torchtitan/distributed/utils.py": AMP_PRE_2458, "/ws/torchtitan/config/job_config.py": "", "/ws/requirements.txt": "torchtitan==0.1.0\n", "/ws/train_configs/a.toml": toml };
    const r = analyzeDocument("file:///ws/train_configs/a.toml", toml, {}, fakeEnv(files, "/ws/train_configs/a.toml", ["/ws"]));
    assert.equal(r.torchtitanVersion?.value, "v0.2.2");
    assert.match(r.torchtitanVersion!.detail, /the pin \(torchtitan 0\.1\.0 pinned in requirements\.txt\) is not what runs here/);
  });
});

describe("launch scripts as the launcher sees them", () => {
  const CFG = "/ws/configs/a.toml";
  it("a comment naming the config is not a launch; a script that passes the config beats one that only mentions it", () => {
    assert.equal(namingRank("# NGPU=64 for a.toml\n", "a.toml"), undefined);
    assert.equal(namingRank("cp a.toml /tmp\n", "a.toml"), 1);
    assert.equal(namingRank('CONFIG_FILE=${CONFIG_FILE:-"./configs/a.toml"}\n', "a.toml"), 0);
    assert.equal(namingRank("--config debug_tp_only\n", "tp_only"), 1);
    const files = {
      "/ws/configs/a_copy.sh": "NGPU=64\ncp a.toml backup/\n",
      "/ws/configs/b_run.sh": "NGPU=16 ./run_train.sh --job.config_file ./configs/a.toml\n",
      "/ws/configs/c.sh": "# torchrun --nproc_per_node 2 a.toml\n",
      [CFG]: "",
    };
    const w = inferWorldSize(fakeEnv(files, CFG, ["/ws"]))!;
    assert.equal(w.value, 16);
    assert.equal(w.file, "configs/b_run.sh");
  });
  it("the nearest folder's script wins over one higher up", () => {
    const files = { "/ws/run.sh": "NGPU=32 ./run_train.sh --job.config_file configs/a.toml\n", "/ws/configs/run.sh": "NGPU=2 ./run_train.sh --job.config_file a.toml\n", [CFG]: "" };
    assert.equal(inferWorldSize(fakeEnv(files, CFG, ["/ws"]))!.value, 2);
  });
  it("NGPU counted from CUDA_VISIBLE_DEVICES; torchrun --nproc_per_node gpu", () => {
    const a = worldSizeFromScript("export CUDA_VISIBLE_DEVICES=0,1,2,3,4,5\nNGPU=$(echo $CUDA_VISIBLE_DEVICES | tr ',' '\\n' | wc -l)\ntorchrun --nproc_per_node=$NGPU train.py --job.config_file a.toml\n", "a.toml")!;
    assert.equal(a.value, 6);
    assert.match(a.detail, /CUDA_VISIBLE_DEVICES/);
    assert.equal(worldSizeFromScript("CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node gpu train.py --job.config_file a.toml\n", "a.toml")!.value, 2);
    assert.equal(worldSizeFromScript("torchrun --nproc_per_node gpu train.py --job.config_file a.toml\n", "a.toml"), undefined);
  });
  it("#SBATCH --nodes × --ntasks-per-node with srun; --gres through SLURM variables", () => {
    const s = worldSizeFromScript("#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=8\nsrun python -m torchtitan.train --job.config_file a.toml\n", "a.toml")!;
    assert.equal(s.value, 32);
    assert.match(s.detail, /--nodes 4 × --ntasks-per-node 8/);
    assert.equal(worldSizeFromScript("#SBATCH -N 2\n#SBATCH --gres=gpu:8\ntorchrun --nnodes $SLURM_NNODES --nproc_per_node $SLURM_GPUS_PER_NODE t.py --job.config_file a.toml\n", "a.toml")!.value, 16);
  });
  it("--parallelism.* flags of the script that runs a TOML override its degrees", () => {
    const toml = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\ndata_parallel_shard_degree = -1\ntensor_parallel_degree = 1\n";
    const files = { "/ws/configs/run.sh": "NGPU=8 ./run_train.sh --job.config_file a.toml --parallelism.tensor_parallel_degree 8 --parallelism.data_parallel_shard_degree=1\n", [CFG]: toml };
    const env = fakeEnv(files, CFG, ["/ws"]);
    assert.deepEqual(scriptOverrides(env, ["parallelism"]).map((o) => `${o.path.join(".")}=${o.raw}`), ["parallelism.tensor_parallel_degree=8", "parallelism.data_parallel_shard_degree=1"]);
    const r = analyzeDocument("file://" + CFG, toml, {}, env);
    assert.equal(r.parallel?.tp, 8);
    assert.equal(r.parallel?.dp_shard, 1);
    assert.equal(r.layoutName, "TP-only");
  });
  it("an upstream preset's comment copied into another model's file is no evidence; one in its own model's file is", () => {
    const copied = "# NOTE: this toml config is a preset for 64 A100 GPUs.\n[model]\nname = \"llama3\"\nflavor = \"1B\"\n[parallelism]\ndata_parallel_shard_degree = -1\n";
    const own = copied.replace('"1B"', '"70B"');
    const PRESET = "/ws/configs/llama3_70b.toml";
    assert.equal(analyzeDocument("file://" + PRESET, copied, {}, fakeEnv({ [PRESET]: "" }, PRESET, ["/ws"])).worldSize?.source, "default");
    const o = analyzeDocument("file://" + PRESET, own, {}, fakeEnv({ [PRESET]: "" }, PRESET, ["/ws"])).worldSize!;
    assert.equal(o.value, 64);
    assert.equal(o.source, "comment");
  });
  it("an upstream preset's header kept in a fork's file of another name is no evidence of its size or GPU: no global-batch warning on 64 GPUs (held-back orangingq logs/h200/*/config.toml)", () => {
    // The fork's llama3 8B config under logs/, with upstream llama3_8b.toml's header, PP 4 and 16 × dp_shard.
    const text = "# NOTE: this toml config is a preset for 64 A100 GPUs.\n[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nglobal_batch_size = 64\nlocal_batch_size = 16\n[parallelism]\ndata_parallel_shard_degree = -1\npipeline_parallel_degree = 4\n";
    const LOG = "/ws/logs/h200/run1/config.toml";
    const r = analyzeDocument("file://" + LOG, text, {}, fakeEnv({ [LOG]: text }, LOG, ["/ws"]));
    assert.equal(r.worldSize?.source, "default");
    assert.equal(r.worldSize?.value, 8);
    assert.ok(!r.diagnostics.some((d) => d.code === "global-batch-size"), r.diagnostics.map((d) => d.message).join("\n"));
    assert.ok(!r.hovers.some((h) => /A100/.test(h.markdown)), "no A100 from upstream's header");
  });
  it("a config path through a script variable names this file only where it expands to this file's folders (held-back orangingq run.sh: CONFIG_FILE=\"${LOG_DIR}/config.toml\")", () => {
    const toml = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\ndata_parallel_shard_degree = -1\n";
    const LOG = "/ws/logs/this/config.toml";
    const script = (logDir: string) => `LOG_DIR=${logDir}\nCONFIG_FILE="\${LOG_DIR}/config.toml"\nNGPU=4\nARGS=(\n  "--nproc_per_node=\${NGPU}"\n  "-m" "torchtitan.train"\n  "--job.config_file=\${CONFIG_FILE}"\n)\ntorchrun "\${ARGS[@]}"\n`;
    const size = (scriptPath: string, text: string) => analyzeDocument("file://" + LOG, toml, {}, fakeEnv({ [scriptPath]: text, [LOG]: toml }, LOG, ["/ws"])).worldSize!;
    // Another run's folder, on the machine that ran it: not this file, although the name is the same.
    assert.equal(size("/ws/logs/run.sh", script('"/opt/ckpt/torchtitan/logs/other"')).source, "default");
    // A variable the script does not assign: not matched by name either.
    assert.equal(size("/ws/logs/run.sh", script('""').replace(/^LOG_DIR=.*\n/m, "")).source, "default");
    // This file's folders (the checkout lies elsewhere on that machine), and the script's own folder.
    const here = size("/ws/logs/run.sh", script('"/opt/ckpt/torchtitan/logs/this"'));
    assert.equal(here.value, 4);
    assert.equal(here.source, "run-script");
    const own = size("/ws/logs/this/run.sh", script('"$(dirname "$(realpath "${BASH_SOURCE[0]}")")"').replace(/^LOG_DIR=.*$/m, 'THIS_FILE="$(realpath "${BASH_SOURCE[0]}")"\nLOG_DIR="$(dirname "${THIS_FILE}")"'));
    assert.equal(own.value, 4);
    assert.equal(own.source, "run-script");
  });
  it("a variable part in the config's file name (config_${TODAY}.toml) matches where the script's assignments allow it, and only there (#30)", () => {
    const toml = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\ndata_parallel_shard_degree = -1\n";
    const size = (cfg: string, script: string) => analyzeDocument("file://" + cfg, toml, {}, fakeEnv({ "/ws/configs/run.sh": script, [cfg]: toml }, cfg, ["/ws"])).worldSize!;
    const run = (assign: string) => `${assign}\nNGPU=4 ./run_train.sh --job.config_file ./configs/config_\${TODAY}.toml\n`;
    // `$(date +%Y%m%d)` prints 8 digits: config_20250101.toml is this script's, config_llama.toml is not.
    const dated = size("/ws/configs/config_20250101.toml", run("TODAY=$(date +%Y%m%d)"));
    assert.equal(dated.value, 4);
    assert.equal(dated.source, "run-script");
    assert.equal(size("/ws/configs/config_llama.toml", run("TODAY=$(date +%Y%m%d)")).source, "default");
    assert.equal(size("/ws/configs/config_2025-01-01.toml", run('TODAY="$(date +%F)"')).value, 4);
    // A literal assignment: that value only.
    assert.equal(size("/ws/configs/config_v2.toml", run("TODAY=v2")).value, 4);
    assert.equal(size("/ws/configs/config_v3.toml", run("TODAY=v2")).source, "default");
    // A variable the script does not assign, or a date format with a non-numeric field: nothing matches.
    assert.equal(size("/ws/configs/config_20250101.toml", run("")).source, "default");
    assert.equal(size("/ws/configs/config_Jan.toml", run("TODAY=$(date +%b)")).source, "default");
  });
  it("a script and a comment that disagree: the script decides, both are named", () => {
    const toml = "# this config is for 64 GPUs\n[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\ndata_parallel_shard_degree = -1\n";
    const env = fakeEnv({ "/ws/configs/run.sh": "NGPU=8 ./run_train.sh --job.config_file a.toml\n", [CFG]: toml }, CFG, ["/ws"]);
    const w = analyzeDocument("file://" + CFG, toml, {}, env).worldSize!;
    assert.equal(w.value, 8);
    assert.match(w.detail, /NGPU=8 in configs\/run\.sh; the comment on line 1 states 64 GPUs/);
    assert.equal(w.overrides?.[0]?.value, 64);
  });
});

describe("run-script flags typed as tyro types them (Python configs)", () => {
  const reg = readFileSync(REGISTRY, "utf8");
  const run = (flag: string, version: string) => {
    const files = { "/ws/configs/x.py": reg, "/ws/run.sh": `NGPU=4 CONFIG=tp_only ./run_train.sh --module configs.x ${flag}\n` };
    return analyzeDocument("file:///ws/configs/x.py", reg, { torchtitanVersion: version, origin: "cli" }, fakeEnv(files, "/ws/configs/x.py", ["/ws"]));
  };
  it("--training.mixed_precision_reduce bfloat16 at v0.3.0: tyro exits 2, an error on the function naming the flag", () => {
    const r = run("--training.mixed_precision_reduce bfloat16", "v0.3.0");
    const d = r.diagnostics.find((x) => x.code === "invalid-value");
    assert.ok(d, JSON.stringify(r.diagnostics.map((x) => x.code)));
    assert.equal(d.severity, "error");
    assert.match(d.message, /tyro rejects --training\.mixed_precision_reduce bfloat16 from run\.sh \(torchtitan v0\.3\.0 accepts "float32"\)/);
    assert.equal(d.range.start.line, 4);
    assert.equal(r.mechanism, "error");
  });
  it("the same flag at v0.4.0 (bf16 reduce a choice) and float32 at v0.3.0 are accepted", () => {
    assert.equal(run("--training.mixed_precision_reduce bfloat16", "v0.4.0").diagnostics.filter((x) => x.code === "invalid-value").length, 0);
    assert.equal(run("--training.mixed_precision_reduce float32", "v0.3.0").diagnostics.filter((x) => x.code === "invalid-value").length, 0);
  });
});

describe("fork config classes found by following the config manager's imports", () => {
  const jobConfig = `from dataclasses import dataclass, field\n\n\n@dataclass\nclass Model:\n    name: str = "llama3"\n    flavor: str = "8B"\n    norm_type: str = "rmsnorm"\n\n\n@dataclass\nclass Training:\n    batch_size: int = 8\n    seq_len: int = 2048\n\n\n@dataclass\nclass JobConfig:\n    model: Model = field(default_factory=Model)\n    training: Training = field(default_factory=Training)\n`;
  const toml = `[model]\nname = "llama3"\nflavor = "8B"\nnorm_type = "rmsnorm"\n\n[training]\nbatch_size = 8\nseq_len = 2048\n\n[compile]\nenable = false\n`;
  const files = {
    "/ws/torchtitan/distributed/utils.py": AMP_PRE_2458,
    "/ws/torchtitan/config/manager.py": "from torchtitan.experiments.my_cfg.job import JobConfig\n\n\nclass ConfigManager:\n    pass\n",
    "/ws/torchtitan/experiments/my_cfg/job.py": jobConfig,
    "/ws/train_configs/a.toml": toml,
  };
  it("model.norm_type and training.batch_size, which the fork's classes declare, get no per-key warning", () => {
    const r = analyzeDocument("file:///ws/train_configs/a.toml", toml, {}, fakeEnv(files, "/ws/train_configs/a.toml", ["/ws"]));
    const about = r.diagnostics.filter((d) => /norm_type|batch_size/.test(d.message));
    assert.deepEqual(about.map((d) => `${d.code}: ${d.message}`), []);
    assert.ok(r.torchtitanSchemaSources?.some((m) => /imported by torchtitan\/config\/manager\.py/.test(m.label) && m.sourcePath === "torchtitan/experiments/my_cfg/job.py"), JSON.stringify(r.torchtitanSchemaSources?.map((m) => m.label)));
  });
  it("without the manager's import, in a workspace with its own torchtitan package: upstream's key history joins the one fork note", () => {
    const { ["/ws/torchtitan/config/manager.py"]: _, ...rest } = files;
    const r = analyzeDocument("file:///ws/train_configs/a.toml", toml, {}, fakeEnv(rest, "/ws/train_configs/a.toml", ["/ws"]));
    assert.deepEqual(r.diagnostics.filter((d) => ["moved-key", "removed-key", "deprecated-key"].includes(d.code)).map((d) => d.message), []);
    const note = r.diagnostics.filter((d) => d.code === "fork-config");
    assert.equal(note.length, 1);
    assert.match(note[0]!.detail ?? "", /model\.norm_type/);
    assert.match(note[0]!.detail ?? "", /training\.batch_size/);
  });
  it("an old key's new name is the one the fork's classes declare along upstream's rename chain (held-back cakeng: model_weights_only → last_save_model_weights_only, not last_save_model_only)", () => {
    const cls = `from dataclasses import dataclass, field\n\n\n@dataclass\nclass Checkpoint:\n    enable_checkpoint: bool = False\n    last_save_model_weights_only: bool = True\n\n\n@dataclass\nclass JobConfig:\n    checkpoint: Checkpoint = field(default_factory=Checkpoint)\n`;
    const cfg = `[model]\nname = "llama3"\nflavor = "8B"\n\n[training]\nsteps = 10\n\n[checkpoint]\nenable_checkpoint = false\nmodel_weights_only = false\n`;
    const ws = { ...files, "/ws/torchtitan/experiments/my_cfg/job.py": cls, "/ws/train_configs/a.toml": cfg };
    const r = analyzeDocument("file:///ws/train_configs/a.toml", cfg, { torchtitanVersion: "v0.2.2" }, fakeEnv(ws, "/ws/train_configs/a.toml", ["/ws"]));
    const moved = r.diagnostics.filter((d) => d.code === "moved-key");
    assert.equal(moved.length, 1, JSON.stringify(r.diagnostics.map((d) => `${d.code} ${d.message}`)));
    assert.match(moved[0]!.message, /checkpoint\.model_weights_only (?:was renamed to|is now) checkpoint\.last_save_model_weights_only\b/);
    assert.deepEqual(moved[0]!.data?.facts?.movedTo, "checkpoint.last_save_model_weights_only");
  });
  it("a JobConfig subclass reached from the run script's own entry point (a bash array: -m timelyfreeze.train) declares the fork's tables, for the configs it runs and those beside them (held-back orangingq)", () => {
    const cls = `from dataclasses import dataclass, field\nfrom torchtitan.config.job_config import JobConfig, Metrics as BaseMetrics\n\n\n@dataclass\nclass Metrics(BaseMetrics):\n    draw_graph: bool = False\n\n\n@dataclass\nclass Freezing:\n    freeze: bool = False\n\n\n@dataclass\nclass FreezeConfig(JobConfig):\n    metrics: Metrics = field(default_factory=Metrics)\n    freezing: Freezing = field(default_factory=Freezing)\n`;
    const train = `import os\nimport torch\nfrom torchtitan.config import ConfigManager\nfrom tf.core.config import FreezeConfig\n`;
    const script = `NGPU=4\nCONFIG_FILE="$(dirname "\${BASH_SOURCE[0]}")/config_run.toml"\nARGS=(\n  "--nproc_per_node=\${NGPU}"\n  "-m"\n  "tf.train"\n  "--job.config_file=\${CONFIG_FILE}"\n)\ntorchrun "\${ARGS[@]}"\n`;
    const cfg = `[model]\nname = "llama3"\nflavor = "8B"\n\n[training]\nsteps = 10\n\n[metrics]\ndraw_graph = true\n\n[freezing]\nfreeze = true\n`;
    const ws = { ...files, "/ws/tf/core/config.py": cls, "/ws/tf/train.py": train, "/ws/logs/run1/run.sh": script, "/ws/logs/run1/config_run.toml": cfg, "/ws/logs/run1/config_old.toml": cfg };
    for (const name of ["config_run.toml", "config_old.toml"]) {
      const path = `/ws/logs/run1/${name}`;
      const r = analyzeDocument("file://" + path, cfg, { torchtitanVersion: "v0.2.2" }, fakeEnv(ws, path, ["/ws"]));
      assert.deepEqual(r.diagnostics.filter((d) => /draw_graph|freezing/.test(d.message)).map((d) => `${d.code} ${d.message}`), [], name);
      assert.ok(r.torchtitanSchemaSources?.some((m) => m.sourcePath === "tf/core/config.py" && /imported by tf\/train\.py/.test(m.label)), JSON.stringify(r.torchtitanSchemaSources?.map((m) => m.label)));
    }
  });
  it("a fork's train.py in a folder above the config (no run script) leads to its JobConfig subclass (held-back orangingq timelyfreeze/train_configs)", () => {
    const cls = `from dataclasses import dataclass, field\nfrom torchtitan.config.job_config import JobConfig\n\n\n@dataclass\nclass Freezing:\n    freeze: bool = False\n\n\n@dataclass\nclass FreezeConfig(JobConfig):\n    freezing: Freezing = field(default_factory=Freezing)\n`;
    const cfg = `[model]\nname = "llama3"\nflavor = "8B"\n\n[training]\nsteps = 10\nseq_len = 2048\n\n[parallelism]\ndata_parallel_shard_degree = -1\n\n[freezing]\nfreeze = true\n`;
    const path = "/ws/tf/train_configs/a.toml";
    const job = "from dataclasses import dataclass, field\n\n@dataclass\nclass Training:\n    steps: int = 1\n\n@dataclass\nclass JobConfig:\n    training: Training = field(default_factory=Training)\n";
    const ws = { "/ws/torchtitan/distributed/utils.py": AMP_PRE_2458, "/ws/torchtitan/config/job_config.py": job, "/ws/tf/core/config.py": cls, "/ws/tf/train.py": "from tf.core.config import FreezeConfig\n", [path]: cfg };
    const unknown = (w: Record<string, string>) => analyzeDocument("file://" + path, cfg, { torchtitanVersion: "v0.2.2" }, fakeEnv(w, path, ["/ws"])).diagnostics.filter((d) => /freezing/.test(`${d.message} ${d.detail ?? ""}`));
    assert.deepEqual(unknown(ws).map((d) => d.message), []);
    const { ["/ws/tf/train.py"]: _, ...without } = ws;
    assert.equal(unknown(without).length, 1, "without the fork's trainer the table is unknown");
  });
  it("a value upstream's code would not use (compile.components \"visual\") of a key the fork's own config classes declare is the fork's: no invalid-value (held-back xiao-hu qwen3_vl)", () => {
    const job = "from dataclasses import dataclass, field\n\n@dataclass\nclass Compile:\n    enable: bool = False\n    components: list[str] = field(default_factory=lambda: ['model', 'loss'])\n\n@dataclass\nclass JobConfig:\n    compile: Compile = field(default_factory=Compile)\n";
    const cfg = `[model]\nname = "llama3"\nflavor = "8B"\n\n[training]\nsteps = 10\nseq_len = 2048\n\n[compile]\nenable = true\ncomponents = ["model", "visual"]\n`;
    const path = "/ws/train_configs/q.toml";
    const run = (w: Record<string, string>) => analyzeDocument("file://" + path, cfg, { torchtitanVersion: "v0.2.2" }, fakeEnv({ ...w, [path]: cfg }, path, ["/ws"])).diagnostics.filter((d) => d.code === "invalid-value");
    assert.deepEqual(run({ "/ws/torchtitan/distributed/utils.py": AMP_PRE_2458, "/ws/torchtitan/config/job_config.py": job }).map((d) => d.message), []);
    assert.equal(run({}).length, 1, "upstream alone: the warning stays");
  });
  it("with no torchtitan package in the workspace the same keys are reported one by one against upstream", () => {
    const r = analyzeDocument("file:///ws/train_configs/a.toml", toml, {}, fakeEnv({ "/ws/train_configs/a.toml": toml }, "/ws/train_configs/a.toml", ["/ws"]));
    assert.ok(r.diagnostics.some((d) => d.code !== "fork-config" && /norm_type/.test(d.message)), JSON.stringify(r.diagnostics.map((d) => `${d.code} ${d.message}`)));
  });
});

describe("a run script with its own training entry point (custom-entry-point)", () => {
  const cfg = "[job]\ndump_folder = \"./out\"\n\n[parallelism]\ndata_parallel_replicate_degree = 1\ndata_parallel_shard_degree = 2\ntensor_parallel_degree = 1\n";
  const run = (entry: string) => {
    const script = `NGPU=\${NGPU:-"4"}\nCONFIG_FILE=\${CONFIG_FILE:-"./train_configs/ds.toml"}\ntorchrun --nproc_per_node=\${NGPU} ${entry} --job.config_file \${CONFIG_FILE}\n`;
    const files = { "/ws/exp/run_training.sh": script, "/ws/exp/train_configs/ds.toml": cfg };
    return analyzeDocument("file:///ws/exp/train_configs/ds.toml", cfg, {}, fakeEnv(files, "/ws/exp/train_configs/ds.toml", ["/ws"]));
  };
  it("train_ds_real.py builds its own mesh: the script's 4 GPUs are kept, torchtitan's check on them is an assumption", () => {
    const r = run("train_ds_real.py");
    assert.equal(r.worldSize?.value, 4);
    assert.equal(r.worldSize?.kind, "inferred");
    assert.match(r.worldSize!.detail, /run_training\.sh, which runs train_ds_real\.py, not torchtitan's trainer$/);
    const d = r.diagnostics.find((x) => x.code === "parallel-dims-product");
    assert.equal(d?.severity, "information");
    assert.match(d!.message, /^If torchtitan's trainer ran it \(the run script runs train_ds_real\.py\): The degrees multiply to 2, not the world size 4/);
    // The entry point is the launcher fact of the resolved context, with its provenance; the finding rests on it.
    assert.equal(d!.data?.facts?.assumed, "launcher");
    const ctx = buildTitanContext(parseTomlDocument("file:///ws/exp/train_configs/ds.toml", cfg), {}, fakeEnv({ "/ws/exp/run_training.sh": `NGPU=4\ntorchrun --nproc_per_node=\${NGPU} train_ds_real.py --job.config_file ./train_configs/ds.toml\n`, "/ws/exp/train_configs/ds.toml": cfg }, "/ws/exp/train_configs/ds.toml", ["/ws"])).ctx;
    assert.deepEqual(ctx.launcher, { value: "train_ds_real.py", source: "custom-entry", kind: "inferred", detail: "exp/run_training.sh runs train_ds_real.py, not torchtitan's trainer" });
  });
  it("torchtitan's own entry (-m torchtitan.train, torchtitan/train.py) keeps the script's fact, and the error", () => {
    for (const entry of ["-m torchtitan.train", "torchtitan/train.py"]) {
      const r = run(entry);
      assert.equal(r.worldSize?.kind, "run-script", entry);
      assert.equal(r.diagnostics.find((x) => x.code === "parallel-dims-product")?.severity, "error", entry);
    }
  });
});

describe("a field removed inside the window a fork's code allows is not reported (removed-key)", () => {
  // Python config classes and no maybe_enable_amp: 2026-04-09 … 2026-09-11; ETP was removed on 2026-04-30, inside it.
  const reg = `from torchtitan.trainer import Trainer\nfrom torchtitan.config import ParallelismConfig\n\ndef moe():\n    return Trainer.Config(parallelism=ParallelismConfig(expert_parallel_degree=2, expert_tensor_parallel_degree=1))\n`;
  const files = (configs: string) => ({ "/ws/torchtitan/distributed/utils.py": "def other():\n    pass\n", "/ws/torchtitan/config/configs.py": configs, "/ws/torchtitan/models/m/config_registry.py": reg });
  const run = (configs: string) => analyzeDocument("file:///ws/torchtitan/models/m/config_registry.py", reg, {}, fakeEnv(files(configs), "/ws/torchtitan/models/m/config_registry.py", ["/ws"]));
  it("window from 2026-04-09: the fork may predate the removal, so nothing", () => {
    const r = run('mixed_precision_reduce: Literal["float32"] = "float32"\n');
    assert.equal(r.torchtitanVersion?.source, "workspace-code");
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "removed-key").map((d) => d.message), []);
  });
  it("window from 2026-09-11 (after the removal): every candidate date lacks the field, so it is reported", () => {
    const r = run('mixed_precision_reduce: Literal["float32", "bfloat16"] = "float32"\n');
    const d = r.diagnostics.filter((x) => x.code === "removed-key");
    assert.equal(d.length, 1);
    assert.match(d[0]!.message, /parallelism\.expert_tensor_parallel_degree no longer exists in torchtitan .* \(removed 2026-04-30\)/);
  });
});

describe("a key the workspace's own config classes declare has no upstream history finding", () => {
  const toml = '[job]\ndump_folder = "./out"\n\n[model]\nname = "llama3"\nflavor = "8B"\ntokenizer_path = "./tok"\n\n[compile]\nenable = false\n';
  const jobConfig = "from dataclasses import dataclass, field\n\n@dataclass\nclass Job:\n    dump_folder: str = './out'\n\n@dataclass\nclass Model:\n    name: str = 'llama3'\n    flavor: str = 'debugmodel'\n    tokenizer_path: str = './tests/assets/tokenizer'\n\n@dataclass\nclass Compile:\n    enable: bool = False\n\n@dataclass\nclass JobConfig:\n    job: Job = field(default_factory=Job)\n    model: Model = field(default_factory=Model)\n    compile: Compile = field(default_factory=Compile)\n";
  const run = (files: Record<string, string>) => analyzeDocument("file:///ws/train_configs/a.toml", toml, { torchtitanVersion: "main@2025-09-01" }, fakeEnv({ "/ws/train_configs/a.toml": toml, ...files }, "/ws/train_configs/a.toml", ["/ws"]));
  it("upstream alone: model.tokenizer_path is deprecated at main@2025-09-01", () => {
    assert.deepEqual(run({}).diagnostics.filter((d) => d.code === "deprecated-key").map((d) => d.range.start.line), [6]);
  });
  it("the fork's JobConfig declares it: the code that runs reads it, no finding", () => {
    const r = run({ "/ws/torchtitan/config/job_config.py": jobConfig });
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "deprecated-key" || d.code === "moved-key" || d.code === "removed-key"), []);
  });
});

describe("CUDA_VISIBLE_DEVICES with a positional default", () => {
  it("\"${1:-0,1,2,3}\" counts the four devices the script uses without an argument", () => {
    const script = 'export CUDA_VISIBLE_DEVICES="${1:-0,1,2,3}"\nNGPU=$(echo $CUDA_VISIBLE_DEVICES | tr \',\' \'\\n\' | grep -c .)\nCONFIG_FILE="${LOG_DIR}/x.toml"\ntorchrun --nproc_per_node=${NGPU} -m torchtitan.train --job.config_file=${CONFIG_FILE}\n';
    assert.equal(worldSizeFromScript(script, "x.toml")?.value, 4);
  });
});
