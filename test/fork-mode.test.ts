/**
 * Fork mode (issue #17 §3). Minimal configs written here reproduce each cause seen on real forks' configs:
 *  - names upstream torchtitan never had (a fork's tables/keys like a GPU-cloud fork's [infra] and
 *    parallelism.prefetch_distance, a fork-registered optimizer "Muon", an NPU plugin's converter) get one
 *    information note, fork-config, not one error each; upstream rejects unknown fields at launch
 *    (torchtitan/config/manager.py:168 at v0.2.2) and raises NotImplementedError for optimizers other than
 *    Adam/AdamW (torchtitan/components/optimizer.py build_optimizers at v0.2.2), but a fork defines them;
 *  - typos, keys of another date, and other releases' converter names keep their own finding;
 *  - the upward search for the fork's config source stops at the repository root, not the CLI's folder;
 *  - precisionLens.torchtitanConfigSource / --torchtitan-config-source name the source explicitly;
 *  - a DeepSpeed `.conf` named to the CLI is read as DeepSpeed JSON.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { analyzeFixture, checkDiagnostics } from "./support/fixture";
import { runCliCaptured } from "./support/cli";

const V022 = { settings: { torchtitanVersion: "v0.2.2", worldSize: 8 } };
/** Only the schema family: the precision rules are covered elsewhere. */
const SCHEMA = ["unknown-key", "unknown-section", "invalid-value", "unknown-converter", "fork-config", "moved-key"];
const only = (r: ReturnType<typeof analyzeFixture>) => r.diagnostics.filter((d) => SCHEMA.includes(d.code));

const FORK_TOML = `[job]
description = "fork"
[model]
name = "llama3"
flavor = "8B"
[training]
local_batch_size = 1
seq_len = 2048
[parallelism]
data_parallel_shard_degree = -1
prefetch_distance = 2
[optimizer]
name = "Muon"
lr = 0.02
[infra]
cluster = "x"
`;

describe("fork-config: one note for names upstream never had", () => {
  it("a fork's key, table and optimizer: one information note at the first, nothing per name", () => {
    const r = analyzeFixture(FORK_TOML, V022);
    const ds = only(r);
    assert.deepEqual(ds.map((d) => `${d.severity}[${d.code}]`), ["information[fork-config]"]);
    const d = ds[0]!;
    assert.equal(d.range.start.line, 10); // prefetch_distance
    assert.match(d.message, /^torchtitan fork config: 3 names upstream never had, not checked: parallelism\.prefetch_distance, \+2 more$/);
    assert.match(d.detail ?? "", /: parallelism\.prefetch_distance, optimizer\.name = "Muon", \[infra\]\. /);
    assert.match(d.detail ?? "", /precisionLens\.torchtitanConfigSource setting or --torchtitan-config-source PATH/);
    assert.deepEqual(d.related?.map((x) => x.location.range.start.line), [12, 14]);
  });

  it("a typo beside fork names keeps its own error; an upstream optimizer typo stays invalid-value", () => {
    checkDiagnostics(
      `# precision-lens: framework=torchtitan
[training]
local_batch_size = 1
seq_lenn = 2048
#^^^^^^^ error[unknown-key]: did you mean seq_len?
[optimizer]
name = "AdamWW"
#      ^^^^^^^^ error[invalid-value]: did you mean "AdamW"?
[infra]
#^^^^^^ information[fork-config]: 1 name upstream never had, not checked: [infra]
cluster = "x"
`,
      { ...V022, ignore: ["global-batch-size", "memory-exceeds-gpu", "no-mixed-precision"] },
    );
  });

  it("a fork-registered converter is unknown to upstream, not a KeyError; a stale upstream name is still one", () => {
    const text = `# precision-lens: framework=torchtitan
[model]
name = "llama3"
converters = ["npu_gmm_fused", "float8"]
`;
    const ds = only(analyzeFixture(text, V022));
    const conv = ds.filter((d) => d.code === "unknown-converter");
    assert.deepEqual(conv.map((d) => d.message.slice(0, 20)), ['Converter "float8" i']);
    assert.match(ds.find((d) => d.code === "fork-config")!.message, /converter "npu_gmm_fused"/);
  });

  it("a key upstream had at another date, or an old name, is no fork evidence", () => {
    const ds = only(analyzeFixture(`# precision-lens: framework=torchtitan\n[training]\nbatch_size = 8\nseq_len = 2048\n[parallelism]\ntensor_parallel_degree = 1\n`, V022));
    assert.ok(!ds.some((d) => d.code === "fork-config"), JSON.stringify(ds));
    assert.ok(ds.some((d) => d.code === "moved-key"));
  });

  it("an upstream-only file gets no fork note", () => {
    const ds = only(analyzeFixture(`# precision-lens: framework=torchtitan\n[training]\nlocal_batch_size = 8\nseq_len = 2048\n[optimizer]\nname = "AdamW"\n`, V022));
    assert.deepEqual(ds, []);
  });
});

const CFG_WITH_INFRA = `[job]\ndescription = "x"\n[model]\nname = "llama3"\nflavor = "8B"\n[training]\nlocal_batch_size = 1\nseq_len = 2048\n[parallelism]\ndata_parallel_shard_degree = -1\n[infra]\ncluster = "a"\n`;

/** A fork checked out under a temporary folder: .git at its root, its job_config.py, a config two levels down. */
function forkTree(withGit: boolean): { root: string; cfg: string; jobConfig: string } {
  const root = mkdtempSync(join(tmpdir(), "pl-fork-"));
  if (withGit) mkdirSync(join(root, ".git"));
  mkdirSync(join(root, "torchtitan", "config"), { recursive: true });
  const jobConfig = join(root, "torchtitan", "config", "job_config.py");
  writeFileSync(jobConfig, "@dataclass\nclass Infra:\n    cluster: str = 'local'\n\n@dataclass\nclass JobConfig:\n    infra: Infra = field(default_factory=Infra)\n");
  mkdirSync(join(root, "configs", "nested"), { recursive: true });
  const cfg = join(root, "configs", "nested", "x.toml");
  writeFileSync(cfg, CFG_WITH_INFRA);
  return { root, cfg, jobConfig };
}

describe("the upward search stops at the repository root, not the CLI's folder", () => {
  it("a config checked from another folder finds the fork's job_config.py (nearest .git)", () => {
    const { cfg } = forkTree(true);
    const elsewhere = mkdtempSync(join(tmpdir(), "pl-cwd-"));
    const r = analyzeDocument(pathToFileURL(cfg).href, readFileSync(cfg, "utf8"), V022.settings, nodeEnv(cfg, [elsewhere]));
    assert.deepEqual(only(r), []);
    assert.match(r.torchtitanSchemaSources?.[0]?.sourcePath ?? "", /torchtitan\/config\/job_config\.py$/);
    // The CLI from another folder, a relative path up and across.
    const out = runCliCaptured(["check", "--format", "json", cfg], elsewhere);
    const file = JSON.parse(out.out).files[0];
    assert.deepEqual(file.diagnostics.filter((d: { code: string }) => SCHEMA.includes(d.code)), []);
  });

  it("without a .git the search goes up to the filesystem root", () => {
    const { cfg } = forkTree(false);
    const out = runCliCaptured(["check", "--format", "json", "--torchtitan-version", "v0.2.2", cfg], tmpdir());
    const file = JSON.parse(out.out).files[0];
    assert.deepEqual(file.diagnostics.filter((d: { code: string }) => SCHEMA.includes(d.code)), []);
  });
});

describe("precisionLens.torchtitanConfigSource / --torchtitan-config-source", () => {
  it("names the fork's source for a config outside the fork; a relative flag is relative to the CLI's folder", () => {
    const { root, jobConfig } = forkTree(true);
    const lone = mkdtempSync(join(tmpdir(), "pl-lone-"));
    mkdirSync(join(lone, ".git"));
    const cfg = join(lone, "x.toml");
    writeFileSync(cfg, CFG_WITH_INFRA);
    const without = JSON.parse(runCliCaptured(["check", "--format", "json", "--torchtitan-version", "v0.2.2", cfg], lone).out).files[0];
    assert.deepEqual(without.diagnostics.filter((d: { code: string }) => SCHEMA.includes(d.code)).map((d: { code: string }) => d.code), ["fork-config"]);
    for (const src of [jobConfig, root]) {
      const withSrc = JSON.parse(runCliCaptured(["check", "--format", "json", "--torchtitan-version", "v0.2.2", "--torchtitan-config-source", src, cfg], lone).out).files[0];
      assert.deepEqual(withSrc.diagnostics.filter((d: { code: string }) => SCHEMA.includes(d.code)), [], src);
    }
    const rel = JSON.parse(runCliCaptured(["check", "--format", "json", "--torchtitan-version", "v0.2.2", "--torchtitan-config-source", "torchtitan/config/job_config.py", cfg], root).out).files[0];
    assert.deepEqual(rel.diagnostics.filter((d: { code: string }) => SCHEMA.includes(d.code)), []);
  });

  it("a source that cannot be read is said once, and the file is checked against upstream", () => {
    const r = analyzeFixture(`# precision-lens: framework=torchtitan\n[training]\nlocal_batch_size = 1\nseq_len = 2048\n`, { settings: { ...V022.settings, torchtitanConfigSource: "/nonexistent/job_config.py" } });
    const ds = only(r);
    assert.deepEqual(ds.map((d) => `${d.severity}[${d.code}]`), ["information[fork-config]"]);
    assert.match(ds[0]!.message, /"\/nonexistent\/job_config\.py" could not be read: checked against upstream v0\.2\.2/);
  });
});

describe(".conf DeepSpeed files named to the CLI", () => {
  it("are read as DeepSpeed JSON, not parsed as TOML", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-conf-"));
    const f = join(dir, "stage3.conf");
    writeFileSync(f, `{\n  "bf16": { "enabled": "auto" },\n  "zero_optimization": { "stage": 3 },\n  "train_micro_batch_size_per_gpu": "auto"\n}\n`);
    const file = JSON.parse(runCliCaptured(["check", "--format", "json", f], dir).out).files[0];
    assert.equal(file.framework, "deepspeed");
  });
});
