/**
 * Workspace inference with an in-memory AnalysisEnv: torchtitan version (pins, then config keys, then
 * the default) and world size (launch scripts / slurm files that name the config).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { AnalysisEnv } from "../server/src/core/analysis";
import { parseTomlDocument } from "../server/src/core/parse/toml";
import { parseVersion } from "../server/src/core/frameworks/torchtitan/versions";
import { findPin, inferVersion, inferWorldSize, interpretPin, KEY_EVIDENCE, versionForWindow } from "../server/src/core/workspace";
import { fakeEnv as memoryEnv } from "./support/fakeEnv";
import { corpusSkip } from "./support/corpus";

const fakeEnv = (files: Record<string, string>, documentPath?: string, roots: string[] = ["/ws"]) => memoryEnv(files, documentPath, roots);

/** Files by absolute path; directories are implied by the paths. */
const CFG = "/ws/configs/train.toml";
const doc = (text: string) => parseTomlDocument("file://" + CFG, text);
const MODERN = `[parallelism]\ndata_parallel_shard_degree = -1\n`;

describe("inferVersion: workspace pins", () => {
  it("requirements.txt next to the config", () => {
    const v = inferVersion(doc(MODERN), fakeEnv({ "/ws/configs/requirements.txt": "torch>=2.8\ntorchtitan==0.2.1\n" }, CFG));
    assert.equal(v.value, "v0.2.1");
    assert.equal(v.source, "workspace-pin");
    assert.match(v.detail, /torchtitan 0\.2\.1 pinned in configs\/requirements\.txt/);
  });
  it("walks up to the workspace root; the closest directory wins", () => {
    const files = { "/ws/requirements-train.txt": "torchtitan==0.1.0\n", "/ws/configs/pyproject.toml": '[project]\ndependencies = ["torchtitan==0.2.0"]\n' };
    assert.equal(inferVersion(doc(MODERN), fakeEnv(files, CFG)).value, "v0.2.0");
    assert.equal(inferVersion(doc(MODERN), fakeEnv({ "/ws/requirements-train.txt": "torchtitan==0.1.0\n" }, CFG)).value, "v0.1.0");
  });
  it("does not look above the workspace root", () => {
    const v = inferVersion(doc(MODERN), fakeEnv({ "/requirements.txt": "torchtitan==0.1.0\n" }, CFG));
    assert.notEqual(v.source, "workspace-pin");
  });
  it("a range is not a pin; the lock file then decides", () => {
    const files = { "/ws/pyproject.toml": '[project]\ndependencies = ["torchtitan>=0.2"]\n', "/ws/uv.lock": '[[package]]\nname = "torch"\nversion = "2.9.0"\n\n[[package]]\nname = "torchtitan"\nversion = "0.2.2"\nsource = { registry = "https://pypi.org/simple" }\n' };
    const v = inferVersion(doc(""), fakeEnv(files, CFG));
    assert.equal(v.value, "v0.2.2");
    assert.match(v.detail, /uv\.lock/);
  });
  it("poetry.lock, pdm.lock, poetry git tags, PEP 508 git references", () => {
    assert.equal(inferVersion(doc(""), fakeEnv({ "/ws/poetry.lock": '[[package]]\nname = "torchtitan"\nversion = "0.2.0"\n' }, CFG)).value, "v0.2.0");
    assert.equal(inferVersion(doc(""), fakeEnv({ "/ws/pdm.lock": '[[package]]\nname = "torchtitan"\nversion = "0.1.0"\n' }, CFG)).value, "v0.1.0");
    assert.equal(findPin('[tool.poetry.dependencies]\ntorchtitan = { git = "https://github.com/pytorch/torchtitan.git", tag = "v0.2.1" }\n', "pyproject")!.raw, "v0.2.1");
    assert.equal(findPin("torchtitan @ git+https://github.com/pytorch/torchtitan.git@v0.2.2\n", "requirements")!.raw, "v0.2.2");
    assert.equal(findPin('[tool.poetry.dependencies]\ntorchtitan = "0.2.0"\n', "pyproject")!.raw, "0.2.0");
    assert.equal(findPin("torchtitan>=0.2\n", "requirements"), undefined);
    assert.equal(findPin("# torchtitan==0.1.0\n", "requirements"), undefined);
  });
  it("nightly builds map to a main-branch date", () => {
    const v = inferVersion(doc(""), fakeEnv({ "/ws/requirements.txt": "torchtitan==0.2.0.dev20251101\n" }, CFG));
    assert.equal(v.value, "main@2025-11-01");
    assert.ok(parseVersion(v.value));
  });
  it("a pin outside the TOML era is reported (≥ 0.3, or a build after 2026-02-23)", () => {
    for (const pin of ["0.3.0", "1.0.0", "0.3.0.dev20260301"]) {
      const v = inferVersion(doc(""), fakeEnv({ "/ws/requirements.txt": `torchtitan==${pin}\n` }, CFG));
      assert.equal(v.source, "workspace-pin", pin);
      assert.deepEqual(v.outsideTomlEra, { pin, file: "requirements.txt" }, pin);
      assert.equal(v.value, "v0.2.2");
      assert.match(v.detail, /no longer reads TOML/);
    }
    assert.equal(interpretPin("0.2.3").kind, "outside");
  });
  it("an undatable pin (a commit) falls through to the config keys, noted in the evidence", () => {
    const v = inferVersion(doc("[float8]\nfilter_fqns = [\"output\"]\n"), fakeEnv({ "/ws/requirements.txt": "git+https://github.com/pytorch/torchtitan@abc1234\n" }, CFG));
    assert.equal(v.source, "config-keys");
    assert.ok(v.evidence.some((e) => /cannot be dated/.test(e)));
  });
});

describe("inferVersion: config keys", () => {
  const env = fakeEnv({}, CFG);
  it("[float8] → before v0.2.0 → v0.1.0", () => {
    const v = inferVersion(doc("[parallelism]\ntensor_parallel_degree = 1\n[float8]\nenable_fsdp_float8_all_gather = false\n"), env);
    assert.equal(v.value, "v0.1.0");
    assert.equal(v.source, "config-keys");
    assert.match(v.detail, /\[float8\] table/);
  });
  it("[quantize.linear.float8] → v0.2.x → v0.2.2", () => {
    assert.equal(inferVersion(doc("[quantize.linear.float8]\nfilter_fqns = [\"output\"]\n"), env).value, "v0.2.2");
  });
  it("[quantize.grouped_mm.float8] → v0.2.2", () => {
    assert.equal(inferVersion(doc("[quantize.grouped_mm.float8]\nfqns = [\"experts\"]\n"), env).value, "v0.2.2");
  });
  it("training.dtype exists from 2025-09-16", () => {
    assert.equal(inferVersion(doc("[training]\ndtype = \"bfloat16\"\n"), env).value, "v0.2.2");
  });
  it("degrees in [training] without [parallelism] → main before 2025-03-18", () => {
    const v = inferVersion(doc("[training]\ndata_parallel_shard_degree = -1\ntensor_parallel_degree = 2\n"), env);
    assert.equal(v.value, "main@2025-03-17");
    assert.ok(parseVersion(v.value));
  });
  it("[quantize.dense.float8] only existed 2025-09-26 … 2025-09-30", () => {
    assert.equal(inferVersion(doc("[quantize.dense.float8]\nfilter_fqns = []\n"), env).value, "main@2025-09-29");
  });
  it("keys from different eras: conflict reported, default used", () => {
    const v = inferVersion(doc("[float8]\nfilter_fqns = []\n[quantize.linear.float8]\nfilter_fqns = []\n"), env);
    assert.equal(v.value, "v0.2.2");
    assert.match(v.detail, /different torchtitan versions/);
  });
  it("nothing version-specific → default v0.2.2", () => {
    const v = inferVersion(doc("[model]\nname = \"llama3\"\n"), NO_PATH);
    assert.equal(v.value, "v0.2.2");
    assert.equal(v.source, "default");
  });
  it("every evidence window yields a version the era seam accepts", () => {
    for (const k of KEY_EVIDENCE) {
      const v = versionForWindow(k.from, k.until);
      assert.ok(parseVersion(v), `${k.what}: ${v}`);
      if (k.from) assert.ok(parseVersion(v)!.date >= k.from || v.startsWith("main@"), `${k.what}: ${v} before ${k.from}`);
      if (k.until) assert.ok(parseVersion(v)!.date < k.until, `${k.what}: ${v} not before ${k.until}`);
    }
  });
  it("versionForWindow picks the latest release inside the window", () => {
    assert.equal(versionForWindow("2025-06-01", "2025-09-26"), "v0.1.0");
    assert.equal(versionForWindow("2025-09-30", undefined), "v0.2.2");
    assert.equal(versionForWindow(undefined, "2024-09-10"), "main@2024-09-09");
  });
});

const NO_PATH: AnalysisEnv = { readFile: () => undefined, listDir: () => [] };

const RUN_TRAIN = `#!/usr/bin/bash
NGPU=\${NGPU:-"8"}
CONFIG_FILE=\${CONFIG_FILE:-"./configs/train.toml"}
if [ -n "$COMM_MODE" ]; then
    NGPU="\${NGPU}" LOCAL_RANK=0 python3 -m torchtitan.train --job.config_file "\${CONFIG_FILE}"
else
    torchrun --nproc_per_node=\${NGPU} --rdzv_backend c10d \\
    -m torchtitan.train --job.config_file \${CONFIG_FILE} "$@"
fi
`;

describe("inferWorldSize", () => {
  it("run_train.sh style: NGPU default through torchrun --nproc_per_node=${NGPU}", () => {
    const w = inferWorldSize(fakeEnv({ "/ws/run_train.sh": RUN_TRAIN, [CFG]: "" }, CFG))!;
    assert.equal(w.value, 8);
    assert.equal(w.source, "run-script");
    assert.equal(w.detail, "NGPU=8 (default of NGPU=${NGPU:-8}) in run_train.sh");
  });
  it("a script in a sibling folder (not an ancestor of the config's folder) is not consulted", () => {
    assert.equal(inferWorldSize(fakeEnv({ "/ws/scripts/train.sh": "NGPU=16 CONFIG_FILE=../configs/train.toml ./run_train.sh\n" }, CFG)), undefined);
  });
  it("[float8] and training.dtype overlap (2025-09-16 … 2025-09-26): a main-branch date inside", () => {
    assert.equal(inferVersion(doc("[float8]\nfilter_fqns = []\n[training]\ndtype = \"bfloat16\"\n"), fakeEnv({}, CFG)).value, "main@2025-09-25");
  });
  it("scripts in the config's directory and its ancestors only; the script must name the config", () => {
    const files = { "/ws/configs/launch.sh": "NGPU=16 ./run_train.sh --job.config_file configs/train.toml\n", "/ws/other.sh": "NGPU=4 ./run_train.sh --job.config_file configs/other.toml\n" };
    const w = inferWorldSize(fakeEnv(files, CFG))!;
    assert.equal(w.value, 16);
    assert.equal(w.detail, "NGPU=16 in configs/launch.sh");
    assert.equal(inferWorldSize(fakeEnv({ "/ws/other.sh": files["/ws/other.sh"] }, CFG)), undefined);
  });
  it("NGPU=${NGPU:-N} form", () => {
    const w = inferWorldSize(fakeEnv({ "/ws/go.sh": "export NGPU=${NGPU:-4}\ntorchrun --nproc-per-node $NGPU -m torchtitan.train --job.config_file train.toml\n" }, CFG))!;
    assert.equal(w.value, 4);
  });
  it("torchrun --nnodes A --nproc_per_node B (space and = forms)", () => {
    assert.equal(inferWorldSize(fakeEnv({ "/ws/a.sh": "torchrun --nnodes 2 --nproc_per_node 8 -m torchtitan.train --job.config_file train.toml\n" }, CFG))!.value, 16);
    const w = inferWorldSize(fakeEnv({ "/ws/b.sh": "torchrun --nnodes=4 --nproc_per_node=4 -m torchtitan.train --job.config_file ./configs/train.toml\n" }, CFG))!;
    assert.equal(w.value, 16);
    assert.equal(w.detail, "torchrun --nnodes 4 --nproc_per_node 4 in b.sh");
    assert.equal(inferWorldSize(fakeEnv({ "/ws/c.sh": "torchrun --nnodes=1:4 --nproc_per_node=8 train.py --job.config_file train.toml\n" }, CFG))!.value, 32);
  });
  it("slurm: #SBATCH --nodes / --gpus-per-node when torchrun uses SLURM variables", () => {
    const slurm = "#!/bin/bash\n#SBATCH --nodes=8\n#SBATCH --gpus-per-node=8\nsrun torchrun --nnodes $SLURM_NNODES --nproc_per_node $SLURM_GPUS_PER_NODE -m torchtitan.train --job.config_file ./train.toml\n";
    const w = inferWorldSize(fakeEnv({ "/ws/job.slurm": slurm }, CFG))!;
    assert.equal(w.value, 64);
    assert.equal(w.source, "slurm");
    const gres = "#SBATCH -N 2\n#SBATCH --gres=gpu:4\nsrun torchrun --nnodes ${SLURM_JOB_NUM_NODES} --nproc_per_node ${SLURM_GPUS_ON_NODE} --job.config_file train.toml\n";
    assert.equal(inferWorldSize(fakeEnv({ "/ws/job.sbatch": gres }, CFG))!.value, 8);
    const perTask = "#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-task=8\nsrun torchrun --nnodes $SLURM_NNODES --nproc_per_node $SLURM_GPUS_PER_NODE --job.config_file train.toml\n";
    assert.equal(inferWorldSize(fakeEnv({ "/ws/job.slurm": perTask }, CFG))!.value, 32);
  });
  it("nothing executable is trusted: unresolvable values give no answer", () => {
    assert.equal(inferWorldSize(fakeEnv({ "/ws/a.sh": "torchrun --nproc_per_node=$(nvidia-smi -L | wc -l) --job.config_file train.toml\n" }, CFG)), undefined);
  });
  it("no document path → undefined", () => assert.equal(inferWorldSize(NO_PATH), undefined));
  it("Windows paths", () => {
    const files: Record<string, string> = { "C:\\ws\\run.sh": "NGPU=2 ./run_train.sh --job.config_file train.toml\n" };
    const env: AnalysisEnv = { readFile: (p) => files[p], listDir: (d) => (d === "C:\\ws" ? ["run.sh", "configs"] : []), documentPath: "C:\\ws\\configs\\train.toml", workspaceRoots: ["C:\\ws"] };
    assert.equal(inferWorldSize(env)!.value, 2);
  });
});

const CORPUS = new URL("../../shared/corpus/torchtitan/", import.meta.url).pathname;

describe("corpus (../shared/corpus, read-only)", { skip: corpusSkip("torchtitan") }, () => {
  const realEnv = (documentPath: string, root: string): AnalysisEnv => ({
    readFile: (p) => (existsSync(p) ? readFileSync(p, "utf8") : undefined),
    listDir: (p) => (existsSync(p) ? readdirSync(p) : []),
    documentPath,
    workspaceRoots: [root],
  });
  const read = (rel: string) => parseTomlDocument("file://" + CORPUS + rel, readFileSync(CORPUS + rel, "utf8"));
  it("v0.1.0 llama3 configs are recognised as v0.1.0 by their keys", () => {
    for (const f of ["debug_model", "llama3_8b", "llama3_70b", "llama3_405b"]) {
      const rel = `v0.1.0/torchtitan/models/llama3/train_configs/${f}.toml`;
      assert.equal(inferVersion(read(rel), NO_PATH).value, "v0.1.0", f);
    }
  });
  it("v0.2.2 llama3 configs are recognised as v0.2.x", () => {
    for (const f of ["debug_model", "llama3_8b", "llama3_70b", "llama3_405b"]) {
      const rel = `v0.2.2/torchtitan/models/llama3/train_configs/${f}.toml`;
      assert.match(inferVersion(read(rel), NO_PATH).value, /^v0\.2\./, f);
    }
  });
  it("v0.2.2 launchers: run_train.sh names debug_model.toml (NGPU 8); multinode_trainer.slurm names llama3_8b.toml (4 × 8)", () => {
    const root = CORPUS + "v0.2.2";
    assert.equal(inferWorldSize(realEnv(`${root}/debug_model.toml`, root))!.value, 8);
    const w = inferWorldSize(realEnv(`${root}/llama3_8b.toml`, root))!;
    assert.equal(w.value, 32);
    assert.equal(w.source, "slurm");
  });
});
