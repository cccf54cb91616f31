/**
 * Forks and custom config modules (issue #9 §2): torchtitan's config source found in the workspace is
 * read as text (a bounded dataclass scanner, nothing executed) and its tables and keys are known, with
 * hovers saying where from. Fixtures: test/fixtures/fork-workspace (a fork's torchtitan/config/job_config.py
 * adding training.prefetch_factor, [infra], [grpo], [grpo.sampling] and an imported [grpo.reward_model])
 * and test/fixtures/custom-module-workspace (job.custom_config_module naming a module of the workspace).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { NO_ENV, type AnalysisEnv, type AnalysisResult } from "../server/src/core/analysis";
import { analyzeDocument } from "../server/src/core/analyze";
import { completionsAt } from "../server/src/core/features/index";
import { parseTomlDocument } from "../server/src/core/parse/toml";
import { workspaceSchemas } from "../server/src/core/workspace/forkSchema";
import { scanArgparseConfig, scanClasses, scanJobConfig } from "../server/src/core/workspace/pyDataclass";
import { nodeEnv } from "../server/src/host/nodeEnv";

const FORK = resolve(__dirname, "fixtures/fork-workspace");
const FORK_CFG = join(FORK, "train_configs/fork_grpo.toml");
const CUSTOM = resolve(__dirname, "fixtures/custom-module-workspace");
const CUSTOM_CFG = join(CUSTOM, "configs/gdn.toml");

function analyze(path: string, root: string | undefined): AnalysisResult {
  const env = root ? nodeEnv(path, [root]) : NO_ENV;
  return analyzeDocument(pathToFileURL(path).href, readFileSync(path, "utf8"), {}, env);
}

/** The hover markdown at a 0-based line and character. */
function hoverAt(r: AnalysisResult, line: number, character = 0): string {
  return r.hovers
    .filter((h) => h.range.start.line <= line && line <= h.range.end.line && (h.range.start.line < line || h.range.start.character <= character) && (line < h.range.end.line || character <= h.range.end.character))
    .map((h) => h.markdown)
    .join("\n\n");
}

function lineOf(path: string, text: string): number {
  const i = readFileSync(path, "utf8").split("\n").findIndex((l) => l.startsWith(text));
  assert.ok(i >= 0, text);
  return i;
}

describe("dataclass scanner (text only)", () => {
  const text = readFileSync(join(FORK, "torchtitan/config/job_config.py"), "utf8");

  it("reads the JobConfig tree: fork keys in upstream tables, new tables, nested tables; open tables for imported classes", () => {
    const s = scanJobConfig(text)!;
    const paths = s.keys.map((k) => k.path);
    for (const p of ["training.prefetch_factor", "training.num_workers", "infra.cluster", "infra.nodes", "infra.use_rdma", "grpo.enable", "grpo.kl_coef", "grpo.sampling.temperature", "grpo.sampling.group_size", "job.custom_config_module"]) assert.ok(paths.includes(p), p);
    assert.deepEqual(s.openTables, ["grpo.reward_model"]);
    assert.ok(s.tables.includes("grpo.sampling"));
    // Method locals and docstrings are not fields.
    assert.ok(!paths.some((p) => /not_a_field|to_dict|Batches/.test(p)));
    assert.equal(s.keys.find((k) => k.path === "infra.nodes")?.type, "int");
    assert.equal(s.keys.find((k) => k.path === "training.mixed_precision_param")?.type, undefined);
  });

  it("no JobConfig → nothing; broken or huge text never throws", () => {
    assert.equal(scanJobConfig("x = 1\n"), undefined);
    assert.deepEqual(scanJobConfig("@dataclass\nclass JobConfig:\n    a: int = (\n")?.keys, []);
    const huge = "@dataclass\nclass JobConfig:\n" + "    x: int = 1\n".repeat(50000) + '"""\n'.repeat(3);
    assert.ok(scanClasses(huge).length === 1);
    const self = "@dataclass\nclass A:\n    a: A = field(default_factory=A)\n@dataclass\nclass JobConfig:\n    a: A = field(default_factory=A)\n";
    assert.deepEqual(scanJobConfig(self)!.tables, ["a"]);
  });
});

describe("a fork's torchtitan/config/job_config.py in the workspace", () => {
  it("its keys and tables get no diagnostic; a real typo still does, saying the fork does not define it either", () => {
    const r = analyze(FORK_CFG, FORK);
    assert.equal(r.torchtitanVersion?.value, "v0.2.2");
    const got = r.diagnostics.map((d) => `${d.range.start.line + 1} ${d.severity} ${d.code}`);
    // The version is inferred from the keys, not pinned: a warning that names the assumption (issue #17).
    assert.deepEqual(got, [`${lineOf(FORK_CFG, "stepz") + 1} warning unknown-key`]);
    assert.match(r.diagnostics[0]!.message, /^Assuming torchtitan v0\.2\.2 \(inferred\): unknown key "stepz" in \[training\]: upstream torchtitan v0\.2\.2 rejects it at launch; did you mean steps\?$/);
    assert.match(r.diagnostics[0]!.detail ?? "", /upstream torchtitan v0\.2\.2 rejects it at launch .*Did you mean steps\? It is not defined in torchtitan\/config\/job_config\.py either\./);
  });

  it("hovers say where the keys and tables are known from", () => {
    const r = analyze(FORK_CFG, FORK);
    assert.match(hoverAt(r, lineOf(FORK_CFG, "prefetch_factor")), /Known from `torchtitan\/config\/job_config\.py` \(the torchtitan config source in this workspace\), not from upstream torchtitan's schema/);
    assert.match(hoverAt(r, lineOf(FORK_CFG, "prefetch_factor")), /Defined by `Training` in torchtitan\/config\/job_config\.py \(line \d+\)/);
    assert.match(hoverAt(r, lineOf(FORK_CFG, "[infra]"), 1), /\*\*\[infra\]\*\* — known from `torchtitan\/config\/job_config\.py`/);
    assert.match(hoverAt(r, lineOf(FORK_CFG, "[grpo.sampling]"), 1), /known from `torchtitan\/config\/job_config\.py`/);
    // An upstream key keeps its upstream documentation.
    assert.match(hoverAt(r, lineOf(FORK_CFG, "local_batch_size")), /\*\*training\.local_batch_size\*\*/);
  });

  it("without the fork's source the same file gets one fork-config note, not an error per name (issue #17 §3)", () => {
    const r = analyze(FORK_CFG, undefined);
    // Names close to an upstream name stay findings of their own: a key upstream has in another table, a typo.
    assert.deepEqual(
      // The version is inferred: each message leads with that assumption (core/provenance.ts), which is stripped here.
      r.diagnostics.filter((d) => d.code === "unknown-key" || d.code === "unknown-section").map((d) => d.message.replace(/^Assuming [^:]*: u/, "U").split(":")[0]),
      ['Unknown key "prefetch_factor" in [training]', 'Unknown key "num_workers" in [training]', 'Unknown key "stepz" in [training]'],
    );
    const fork = r.diagnostics.filter((d) => d.code === "fork-config");
    assert.equal(fork.length, 1);
    assert.equal(fork[0]!.severity, "information");
    assert.match(fork[0]!.detail ?? "", /\[infra\].*\[grpo\].*--torchtitan-config-source PATH/);
  });

  it("an argparse-era config_manager.py (add_argument(\"--section.key\")) is read: a fork's keys are not unknown (issue #17)", () => {
    const manager = [
      "import argparse",
      "class JobConfig:",
      "    def __init__(self):",
      "        self.parser = argparse.ArgumentParser()",
      "        self.parser.add_argument(",
      '            "--training.dl_worker", type=int, default=0, help="workers"',
      "        )",
      "        self.parser.add_argument(",
      '            "--training.add_bos",',
      '            action="store_true",',
      "        )",
      '        self.parser.add_argument("--mixtera.port", type=int, default=8888)',
      '        self.parser.add_argument("--training.batch_size", type=int, default=8)',
      '        self.parser.add_argument("--parallelism.data_parallel_shard_degree", type=int, default=-1)',
    ].join("\n");
    const files: Record<string, string> = { "/ws/torchtitan/config_manager.py": manager };
    const env: AnalysisEnv = { readFile: (p) => files[p], listDir: () => [], documentPath: "/ws/configs/a.toml", workspaceRoots: ["/ws"] };
    const text = "# precision-lens: framework=torchtitan\n[training]\nbatch_size = 2\ndl_worker = 4\nadd_bos = true\n[parallelism]\ndata_parallel_shard_degree = -1\n[mixtera]\nport = 1\n";
    const r = analyzeDocument("file:///ws/configs/a.toml", text, { torchtitanVersion: "main@2025-01-15" }, env);
    assert.deepEqual(r.diagnostics.filter((d) => /^unknown|^fork-config/.test(d.code)).map((d) => d.code), []);
    // A key the parser does not define is still reported, against the fork's schema.
    const r2 = analyzeDocument("file:///ws/configs/a.toml", text + "[training2]\nx = 1\n", { torchtitanVersion: "main@2025-01-15" }, env);
    assert.ok(r2.diagnostics.some((d) => d.code === "unknown-section" && /training2/.test(d.message)), JSON.stringify(r2.diagnostics.map((d) => d.message)));
    assert.deepEqual(scanArgparseConfig(manager)!.keys.map((k) => [k.path, k.type ?? "-", k.line]), [
      ["training.dl_worker", "int", 4],
      ["training.add_bos", "bool", 7],
      ["mixtera.port", "int", 11],
      ["training.batch_size", "int", 12],
      ["parallelism.data_parallel_shard_degree", "int", 13],
    ]);
  });

  it("before 2025-04-18 every TOML key reaches the code: names the found argparse source does not declare are one fork note, not a note each (issue #17)", () => {
    const manager = 'import argparse\nclass JobConfig:\n    def __init__(self):\n        self.parser = argparse.ArgumentParser()\n        self.parser.add_argument("--training.batch_size", type=int, default=8)\n        self.parser.add_argument("--model.name", type=str, default="llama3")\n';
    const files: Record<string, string> = { "/ws/torchtitan/config_manager.py": manager };
    const env: AnalysisEnv = { readFile: (p) => files[p], listDir: () => [], documentPath: "/ws/configs/a.toml", workspaceRoots: ["/ws"] };
    const text = '# precision-lens: framework=torchtitan\n[model]\nname = "llama3"\nprecondition_mlp = true\npower_iter = 3\n[training]\nbatch_size = 2\n';
    const at = (v: string) => analyzeDocument("file:///ws/configs/a.toml", text, { torchtitanVersion: v }, env).diagnostics.filter((d) => /^unknown|^fork-config/.test(d.code));
    const early = at("main@2024-07-15");
    assert.deepEqual(early.map((d) => d.code), ["fork-config"]);
    assert.match(early[0]!.message, /^torchtitan fork config: 2 names outside its config source, not checked: model\.precondition_mlp, model\.power_iter$/);
    assert.match(early[0]!.detail ?? "", /torchtitan before 2025-04-18 .* sets every key of the TOML as an attribute/);
  });

  it("the older torchtitan/config_manager.py is read too", () => {
    const files: Record<string, string> = {
      "/ws/torchtitan/config_manager.py": "@dataclass\nclass Infra:\n    nodes: int = 1\n\n@dataclass\nclass JobConfig:\n    infra: Infra = field(default_factory=Infra)\n",
    };
    const env: AnalysisEnv = { readFile: (p) => files[p], listDir: () => [], documentPath: "/ws/configs/a.toml", workspaceRoots: ["/ws"] };
    const r = analyzeDocument("file:///ws/configs/a.toml", "[training]\nlocal_batch_size = 2\n[parallelism]\ndata_parallel_shard_degree = -1\n[infra]\nnodes = 2\n", { torchtitanVersion: "v0.2.2" }, env);
    assert.deepEqual(r.diagnostics.filter((d) => d.code.startsWith("unknown")), []);
  });

  it("reads only through the env, one stat-checked file per candidate path, and memoises the scan", () => {
    const reads: string[] = [];
    const real = nodeEnv(FORK_CFG, [FORK]);
    const env: AnalysisEnv = { ...real, readFile: (p) => (reads.push(p), real.readFile(p)) };
    const d = parseTomlDocument(pathToFileURL(FORK_CFG).href, readFileSync(FORK_CFG, "utf8"));
    const a = workspaceSchemas(d, env);
    const b = workspaceSchemas(d, env);
    assert.equal(a.length, 1);
    assert.deepEqual(a[0]!.keys.map((k) => k.path), b[0]!.keys.map((k) => k.path));
    assert.ok(reads.every((p) => p.endsWith(".py")));
    assert.ok(reads.length <= 2 * 2 * 3, `${reads.length} reads`);
  });
});

describe("completion offers a fork's keys", () => {
  it("under [infra], the fork's keys with where they are known from", () => {
    const r = analyze(FORK_CFG, FORK);
    const line = lineOf(FORK_CFG, "use_rdma");
    // Completing at the start of the last [infra] line: the keys not yet written are offered.
    const lines = readFileSync(FORK_CFG, "utf8").split("\n");
    const text = [...lines.slice(0, line), "", ...lines.slice(line + 1)].join("\n");
    const r2 = analyzeDocument(pathToFileURL(FORK_CFG).href, text, {}, nodeEnv(FORK_CFG, [FORK]));
    const items = completionsAt(r2, { line, character: 0 });
    const rdma = items.find((i) => i.label === "use_rdma");
    assert.ok(rdma, items.map((i) => i.label).join(", "));
    assert.equal(rdma.detail, "bool · torchtitan/config/job_config.py");
    assert.match(String(rdma.documentation), /Known from `torchtitan\/config\/job_config\.py`/);
    assert.ok(r.torchtitanSchemaSources?.length === 1);
  });
});

describe("a custom config module of the workspace", () => {
  it("job.custom_config_module resolving to a workspace file: its [gdn_args] is known, with the hover saying from where", () => {
    const r = analyze(CUSTOM_CFG, CUSTOM);
    assert.deepEqual(
      r.diagnostics.filter((d) => d.code.startsWith("unknown")).map((d) => d.message),
      [],
    );
    assert.match(hoverAt(r, lineOf(CUSTOM_CFG, "attn_freq")), /Known from `myorg\/gdn\/job_config\.py` \(the custom config module in this workspace/);
  });

  it("a module that is not in the workspace stays unknown: its tables are not flagged (the module may add them)", () => {
    const r = analyze(CUSTOM_CFG, undefined);
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "unknown-section"), []);
  });
});
