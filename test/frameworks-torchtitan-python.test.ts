/**
 * torchtitan Python config registries (torchtitan ≥ 2026-02-23): detection, static evaluation, resolution,
 * launch scripts, versions, rules and editor features. Fixtures are Python written here, with inline `#`
 * marker lines (test/support/fixture.ts; they are Python comments, so the analysis reads them as such).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import type { AnalysisEnv } from "../server/src/core/analysis";
import { codeLenses, completionsAt, hoverAt } from "../server/src/core/features/index";
import { parsePythonDocument, pyModuleOf } from "../server/src/core/parse/python";
import { noLaunchScripts } from "../server/src/core/workspace/worldSize";
import { analyzeFixture, checkDiagnostics, checkFix } from "./support/fixture";

const URI = "file:///ws/mytitan/config_registry.py";

function fakeEnv(files: Record<string, string>, documentPath = "/ws/mytitan/config_registry.py"): AnalysisEnv {
  return {
    readFile: (p) => files[p],
    listDir: (d) => [...new Set(Object.keys(files).filter((p) => p.startsWith(`${d}/`) && !p.slice(d.length + 1).includes("/")).map((p) => p.slice(d.length + 1)))],
    documentPath,
    workspaceRoots: ["/ws"],
  };
}

const HEAD = `# precision-lens: world-size=8 torchtitan-version=v0.4.0
from torchtitan.config import CompileConfig, ParallelismConfig, TrainingConfig
from torchtitan.trainer import Trainer
`;

/** A marker line (a Python comment) whose carets start at column `col` of the line above. */
function marker(col: number, len: number, expectation: string): string {
  return `    #${" ".repeat(col - 5)}${"^".repeat(len)} ${expectation}`;
}

function fn(r: ReturnType<typeof analyzeFixture>, name: string) {
  const f = r.configFunctions?.find((x) => x.name === name);
  assert.ok(f, `no config function ${name}; got ${r.configFunctions?.map((x) => x.name).join(", ")}`);
  return f;
}

describe("torchtitan Python: detection", () => {
  it("ordinary Python gets nothing and is never parsed", () => {
    const text = "import os\n\ndef main():\n    return os.getcwd()\n";
    const doc = parsePythonDocument("file:///x/app.py", text);
    assert.equal(pyModuleOf(doc), undefined, "the raw-text pre-check refuses it before parsing");
    const r = analyzeDocument("file:///x/app.py", text);
    assert.equal(r.framework, null);
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.hovers, []);
    assert.deepEqual(codeLenses(r), []);
  });
  it("a module that imports torchtitan but has no config function gets nothing", () => {
    const r = analyzeDocument("file:///x/util.py", "from torchtitan.config import TrainingConfig\n\ndef steps(c: TrainingConfig) -> int:\n    return c.steps\n");
    assert.equal(r.framework, null);
    assert.deepEqual(r.diagnostics, []);
  });
  it("a function returning Trainer.Config(...) without an annotation is a config function", () => {
    const r = analyzeFixture(`${HEAD}\ndef cfg():\n    return Trainer.Config(training=TrainingConfig(steps=3))\n`, { uri: URI });
    assert.equal(r.framework, "torchtitan");
    assert.equal(r.format, "python");
    assert.deepEqual(r.configFunctions?.map((f) => f.name), ["cfg"]);
  });
});

describe("torchtitan Python: static evaluation and resolution", () => {
  it("keyword arguments of the section configs give the layout and the dtypes", () => {
    const r = analyzeFixture(`${HEAD}\ndef tp2() -> Trainer.Config:\n    return Trainer.Config(\n        parallelism=ParallelismConfig(tensor_parallel_degree=2, data_parallel_shard_degree=-1),\n        training=TrainingConfig(mixed_precision_param="bfloat16"),\n    )\n`, { uri: URI });
    assert.equal(r.layoutName, "FSDP+TP");
    assert.equal(r.mechanism, "fully_shard");
    assert.deepEqual(r.parallel, { dp_replicate: 1, dp_shard: 4, cp: 1, tp: 2, pp: 1, ep: 1, etp: 1 });
    assert.equal(r.precision?.paramStorage.dtype, "float32");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.equal(r.precision?.gradReduce.dtype, "float32");
    assert.equal(r.worldSize?.source, "directive");
    // The -1 shard degree gets its resolved value as an inlay hint.
    assert.ok(r.inlayHints?.some((h) => h.label === " = 4" && h.position.line === 6), JSON.stringify(r.inlayHints));
  });

  it("config = base() chains and attribute assignments are followed; module constants too", () => {
    const text = `${HEAD}
TP = 4


def base() -> Trainer.Config:
    return Trainer.Config(training=TrainingConfig(steps=10))


def big() -> Trainer.Config:
    config = base()
    config.parallelism.tensor_parallel_degree = TP
    config.training.dtype = "bfloat16"
    return config
`;
    const r = analyzeFixture(text, { uri: URI, settings: { configFunction: "big" }, ignore: ["pure-bf16", "fsdp-tp-grad-allreduce-dtype"] });
    assert.equal(r.layoutName, "FSDP+TP");
    assert.equal(r.parallel?.tp, 4);
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16");
    assert.match(r.reportMarkdown ?? "", /Followed: `base\(\)`/);
    assert.match(r.reportMarkdown ?? "", /bf16 optimizer state/);
  });

  it("imports are followed into workspace modules (relative and absolute)", () => {
    const base = `from torchtitan.config import ParallelismConfig\nfrom torchtitan.trainer import Trainer\n\ndef base8() -> Trainer.Config:\n    return Trainer.Config(parallelism=ParallelismConfig(tensor_parallel_degree=8))\n`;
    const env = fakeEnv({ "/ws/mytitan/base.py": base, "/ws/other/pkg/shared.py": base.replace("tensor_parallel_degree=8", "pipeline_parallel_degree=2") });
    const text = `${HEAD}from .base import base8\nfrom other.pkg.shared import base8 as pp_base\n\n\ndef mine() -> Trainer.Config:\n    return base8()\n\n\ndef mine_pp() -> Trainer.Config:\n    return pp_base()\n`;
    const r = analyzeFixture(text, { uri: URI, env, ignore: ["fsdp-tp-grad-allreduce-dtype"] });
    assert.match(fn(r, "mine").detail, /^TP-only on 8 GPUs/);
    assert.match(fn(r, "mine_pp").detail, /^FSDP\+PP on 8 GPUs/);
    assert.match(r.reportMarkdown ?? "", /base8\(\) in \/ws\/mytitan\/base\.py/);
  });

  it("a base that is not in the workspace leaves its fields unknown, never defaulted silently", () => {
    const text = `${HEAD}from torchtitan.models.llama3.config_registry import llama3_8b\n\n\ndef mine() -> Trainer.Config:\n    config = llama3_8b()\n    config.training.mixed_precision_param = "float32"\n    return config\n`;
    const r = analyzeFixture(text, { uri: URI });
    const report = r.reportMarkdown ?? "";
    assert.match(report, /`training\.dtype` \| \? \| not known: `llama3_8b\(\)` was not followed/);
    assert.match(report, /`training\.mixed_precision_param` \| `"float32"` \| line 9/);
    assert.match(report, /\*\*Not certain\*\*/);
    assert.match(fn(r, "mine").detail, /not certain/);
  });

  it("graph_trainer's to_graph_trainer_config(base(), ...) keeps the base's layout and dtypes (#30 §2)", () => {
    const text = `${HEAD}from torchtitan.experiments.graph_trainer.configs import GraphTrainerCompileConfig, to_graph_trainer_config
from . import model_registry


def base_tp() -> Trainer.Config:
    return Trainer.Config(
        training=TrainingConfig(mixed_precision_param="float32"),
        parallelism=ParallelismConfig(data_parallel_shard_degree=1, tensor_parallel_degree=8),
    )


def graph_tp() -> Trainer.Config:
    config = to_graph_trainer_config(base_tp(), model_registry)
    config.compile = GraphTrainerCompileConfig(enable=True)
    return config


def graph_opaque() -> Trainer.Config:
    return to_graph_trainer_config(somewhere_else(), model_registry)
`;
    const r = analyzeFixture(text, { uri: URI, ignore: ["fp32-param-dtype"] });
    const g = fn(r, "graph_tp");
    assert.deepEqual(g.parallel, { dp_replicate: 1, dp_shard: 1, cp: 1, tp: 8, pp: 1, ep: 1, etp: 1 });
    assert.equal(g.precision?.compute.dtype, "float32", "the base's mixed_precision_param is carried over");
    assert.match(g.detail, /^TP-only on 8 GPUs/);
    // A base the analysis cannot see: the wrapper's result is unknown, never the default layout.
    const o = fn(r, "graph_opaque");
    assert.match(o.detail, /\? compute/);
    assert.equal(o.precision?.compute.dtype ?? null, null);
  });

  it("a loop is named as not followed in the hover and the report", () => {
    const text = `${HEAD}\ndef looped() -> Trainer.Config:\n    config = Trainer.Config()\n    for k in ["a"]:\n        config.training.dtype = "bfloat16"\n    return config\n`;
    const r = analyzeFixture(text, { uri: URI });
    const h = hoverAt(r, { line: 4, character: 6 });
    assert.ok(h);
    assert.match(h.markdown, /not followed: for loop `for k in \["a"\]:` \(line 7\)/);
  });

  it("optimizer.implementation = fused_opt_states_bf16 keeps optimizer states in bf16", () => {
    const text = `${HEAD}from torchtitan.components.optimizer import OptimizersContainer\n\n\ndef lowmem() -> Trainer.Config:\n    return Trainer.Config(optimizer=OptimizersContainer.Config(implementation="fused_opt_states_bf16"))\n`;
    const r = analyzeFixture(text, { uri: URI });
    assert.match(fn(r, "lowmem").detail, /fp32 params, bf16 compute, fp32 reduce, bf16 optimizer state/);
    assert.match(r.reportMarkdown ?? "", /\| optimizer state \| bf16 \| optimizer\.implementation = "fused_opt_states_bf16"/);
  });

  it("one GPU: FSDP2 on a size-1 mesh, bf16 compute, no gradient reduction (#2900)", () => {
    const text = `# precision-lens: world-size=1 torchtitan-version=main@2026-05-01\nfrom torchtitan.trainer import Trainer\n\n\ndef one() -> Trainer.Config:\n    return Trainer.Config()\n`;
    const r = analyzeFixture(text, { uri: URI });
    assert.equal(r.mechanism, "fully_shard");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.equal(r.precision?.gradReduce.dtype, null);
    assert.match(r.reportMarkdown ?? "", /the RMSNorms run on bf16 inputs and weights/);
    // The per-op table says it op by op: the norms in bf16, the loss upcast (loss.py@b5bcd76c6:58 pred.float()).
    assert.match(r.reportMarkdown ?? "", /\| attention_norm \| `bfloat16` \|/);
    assert.match(r.reportMarkdown ?? "", /\| loss \| `float32` \|/);
  });

  it("before #2900 (main@2026-03-20) a single GPU ran under autocast", () => {
    const text = `# precision-lens: world-size=1 torchtitan-version=main@2026-03-20\nfrom torchtitan.trainer import Trainer\n\n\ndef one() -> Trainer.Config:\n    return Trainer.Config()\n`;
    const r = analyzeFixture(text, { uri: URI });
    assert.equal(r.mechanism, "autocast");
    assert.doesNotMatch(r.reportMarkdown ?? "", /RMSNorms run on bf16/);
    // The loss is fp32 under autocast too (log_softmax is on its fp32 list; loss.py upcasts anyway).
    assert.match(r.reportMarkdown ?? "", /\| loss \| `float32` \|/);
  });
});

describe("torchtitan Python: versions and launch", () => {
  const registry = `from torchtitan.config import ParallelismConfig, TrainingConfig\nfrom torchtitan.trainer import Trainer\n\n\ndef my_cfg() -> Trainer.Config:\n    return Trainer.Config(\n        training=TrainingConfig(mixed_precision_reduce="bfloat16"),\n    )\n`;
  it("the pin in requirements.txt dates the version; bf16 reduce before #4597 is not a declared choice", () => {
    const env = fakeEnv({ "/ws/requirements.txt": "torchtitan==0.3.0\n", "/ws/mytitan/config_registry.py": registry });
    const r = checkDiagnostics(`${registry.replace('mixed_precision_reduce="bfloat16"),', 'mixed_precision_reduce="bfloat16"),\n        #                                              ^^^^^^^^^^ warning[reduce-dtype-not-allowed]: not a declared choice in torchtitan v0.3.0')}`, { uri: URI, env });
    assert.equal(r.torchtitanVersion?.value, "v0.3.0");
    assert.equal(r.torchtitanVersion?.source, "workspace-pin");
    assert.equal(r.precision?.gradReduce.dtype, "bfloat16");
  });
  it("with no pin (v0.4.0 assumed) bf16 reduce is allowed and nothing is reported", () => {
    const r = checkDiagnostics(registry, { uri: URI, env: fakeEnv({}) });
    assert.equal(r.torchtitanVersion?.source, "default");
    assert.equal(r.precision?.gradReduce.dtype, "bfloat16");
  });
  it("NGPU, CONFIG and --section.option flags in a run script, each with its source", () => {
    const script = `#!/bin/bash\nNGPU=4 MODULE=mytitan CONFIG=my_cfg ./run_train.sh --parallelism.tensor_parallel_degree 2 --training.mixed_precision_reduce=float32\n`;
    const env = fakeEnv({ "/ws/mytitan/train.sh": script });
    const r = analyzeFixture(registry, { uri: URI, env, ignore: ["fsdp-tp-grad-allreduce-dtype"] });
    assert.equal(r.worldSize?.value, 4);
    assert.equal(r.worldSize?.source, "run-script");
    assert.equal(r.layoutName, "FSDP+TP");
    assert.equal(r.parallel?.tp, 2);
    assert.equal(r.precision?.gradReduce.dtype, "float32");
    assert.match(r.reportMarkdown ?? "", /`parallelism\.tensor_parallel_degree` \| `2` \| flag in mytitan\/train\.sh/);
  });
  it("the search for run scripts is skipped only when no searched folder holds one (noLaunchScripts, issue #36)", () => {
    assert.equal(noLaunchScripts(fakeEnv({})), true);
    assert.equal(noLaunchScripts(fakeEnv({ "/ws/mytitan/notes.txt": "x" })), true);
    // A script two folders up, naming no function, still means each function searches.
    assert.equal(noLaunchScripts(fakeEnv({ "/ws/run.sh": "echo\n" })), false);
    const script = `#!/bin/bash\nNGPU=4 MODULE=mytitan CONFIG=my_cfg ./run_train.sh --parallelism.tensor_parallel_degree 2\n`;
    const r = analyzeFixture(registry, { uri: URI, env: fakeEnv({ "/ws/train.sh": script }), ignore: ["fsdp-tp-grad-allreduce-dtype"] });
    assert.equal(r.worldSize?.value, 4);
    assert.equal(r.worldSize?.source, "run-script");
    assert.equal(r.parallel?.tp, 2);
  });
});

describe("torchtitan Python: rules", () => {
  it("unknown-dtype: an error when the literal is in the file and everything was followed, with a fix", () => {
    const text = `${HEAD}\ndef bad() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(dtype="bf16"))\n    #                                                   ^^^^^^ error[unknown-dtype]: KeyError at launch\n`;
    checkDiagnostics(text, { uri: URI });
    checkFix(text, "unknown-dtype", 'Change to "bfloat16"', text.replace('dtype="bf16"', 'dtype="bfloat16"'), { uri: URI, ignore: ["pure-bf16"] });
  });
  it("unknown-dtype is only a warning when a statement was not followed", () => {
    const text = `${HEAD}\ndef bad() -> Trainer.Config:\n    config = Trainer.Config(training=TrainingConfig(dtype="bf16"))\n    #                                                     ^^^^^^ warning[unknown-dtype]: Assuming bad() as read (inferred): training.dtype\n    if True:\n        pass\n    return config\n`;
    const r = checkDiagnostics(text, { uri: URI });
    // The message keeps the finding within 120 characters; the detail names the statement not followed.
    const d = r.diagnostics.find((x) => x.code === "unknown-dtype")!;
    assert.match(d.detail ?? "", /^Assuming bad\(\) as read, inferred: if statement on line 8 not followed: /);
  });
  it("parallel-dims: degrees that do not divide the explicit world size fail at launch", () => {
    const text = `${HEAD}\ndef odd() -> Trainer.Config:\n    return Trainer.Config(parallelism=ParallelismConfig(tensor_parallel_degree=3, data_parallel_shard_degree=2))\n${marker(109, 1, "error[parallel-dims-product]: != WORLD_SIZE(8)")}\n`;
    checkDiagnostics(text, { uri: URI });
  });
  it("a default world size never contradicts the degrees: NGPU=8 fails tp 3, so the smallest size they allow is inferred", () => {
    const text = `from torchtitan.config import ParallelismConfig\nfrom torchtitan.trainer import Trainer\n\n\ndef odd() -> Trainer.Config:\n    return Trainer.Config(parallelism=ParallelismConfig(tensor_parallel_degree=3))\n`;
    const r = checkDiagnostics(text, { uri: URI, env: fakeEnv({}) });
    assert.deepEqual([r.worldSize?.value, r.worldSize?.kind, r.worldSize?.source], [3, "inferred", "degrees"]);
    assert.match(fn(r, "odd").detail, /^TP-only on 3 GPUs/);
  });
  it("fsdp-tp-grad-allreduce-dtype: information on FSDP+TP with bf16 params and fp32 reduce; never on TP-only without FSDP", () => {
    const text = `${HEAD}\ndef tp2() -> Trainer.Config:\n    return Trainer.Config(parallelism=ParallelismConfig(tensor_parallel_degree=2))\n    #                                                                          ^ information[fsdp-tp-grad-allreduce-dtype]: runs in bf16, not reduce_dtype float32\n`;
    checkDiagnostics(text, { uri: URI });
    // TP-only (dp_shard -1 → 1 on 8 GPUs): fully_shard on a size-1 mesh, no FSDP reduction to compare with.
    const tpOnly = analyzeFixture(`${HEAD}\ndef tp8() -> Trainer.Config:\n    return Trainer.Config(parallelism=ParallelismConfig(tensor_parallel_degree=8))\n`, { uri: URI });
    assert.equal(tpOnly.layoutName, "TP-only");
    assert.deepEqual(tpOnly.diagnostics.map((d) => d.code), []);
  });
  it("pure-bf16: information, with a fix back to fp32 master weights", () => {
    const text = `${HEAD}\ndef full_bf16() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(dtype="bfloat16"))\n    #                                                   ^^^^^^^^^^ information[pure-bf16]\n`;
    checkDiagnostics(text, { uri: URI });
  });
  it("config functions sharing a helper get its finding once, naming them (issue #17: seven pure-bf16 notes on one line)", () => {
    const text = `${HEAD}\ndef _base() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(dtype="bfloat16"))\n    #                                                   ^^^^^^^^^^ information[pure-bf16]\n\n\ndef a() -> Trainer.Config:\n    return _base()\n\n\ndef b() -> Trainer.Config:\n    return _base()\n`;
    const r = checkDiagnostics(text, { uri: URI });
    assert.equal(r.diagnostics.length, 1);
    assert.match(r.diagnostics[0]!.detail ?? "", /\(the same in 3 config functions: _base, a, b\)$/);
  });
});

describe("torchtitan Python: editor features", () => {
  const text = `${HEAD}\ndef a() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(mixed_precision_param="bfloat16"))\n\n\ndef b() -> Trainer.Config:\n    config = a()\n    config.compile.enable = True\n    return config\n`;
  it("one code lens per config function, on its def line", () => {
    const r = analyzeFixture(text, { uri: URI });
    const lenses = codeLenses(r);
    assert.deepEqual(lenses.map((l) => [l.range.start.line, l.title]), [
      [4, "Precision Lens: a: FSDP on 8 GPUs: fp32 params, bf16 compute, fp32 reduce, fp32 optimizer state · ≈1.27 GiB peak per GPU (estimate)"],
      // b() turns compile on: its own step, its own figure.
      [8, "Precision Lens: b: FSDP on 8 GPUs: fp32 params, bf16 compute, fp32 reduce, fp32 optimizer state · ≈834.94 MiB peak per GPU (estimate)"],
    ]);
  });
  it("the code lens and the inlay hints do not repeat each other on the def line (issue #34)", () => {
    const r = analyzeFixture(text, { uri: URI });
    const defLines = new Set(codeLenses(r).map((l) => l.range.start.line));
    assert.deepEqual((r.inlayHints ?? []).filter((h) => defLines.has(h.position.line)), []);
  });
  it("hover on a precision field: its doc, default with its source, the resolved picture", () => {
    const r = analyzeFixture(text, { uri: URI });
    const h = hoverAt(r, { line: 5, character: 76 });
    assert.ok(h);
    assert.match(h.markdown, /\*\*`training\.mixed_precision_param`\*\* = `"bfloat16"` in `a\(\)`/);
    assert.match(h.markdown, /configs\.py@b5bcd76c6:94/);
  });
  it("hover on a field's name (`mixed_precision_param=`, `config.compile.enable =`): the same documentation as on its value (issue #34)", () => {
    const r = analyzeFixture(text, { uri: URI });
    const onName = hoverAt(r, { line: 5, character: 52 });
    assert.ok(onName, "a hover on the keyword's name");
    assert.match(onName.markdown, /\*\*`training\.mixed_precision_param`\*\* = `"bfloat16"` in `a\(\)`/);
    const attr = hoverAt(r, { line: 10, character: 20 });
    assert.ok(attr, "a hover on an attribute assignment's name");
    assert.match(attr.markdown, /\*\*`compile\.enable`\*\* = `true` in `b\(\)`/);
  });
  it("completion offers the fields of the constructor around the cursor, minus those written", () => {
    const t = `${HEAD}\ndef c() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(dtype="bfloat16", ))\n`;
    const r = analyzeFixture(t, { uri: URI });
    const items = completionsAt(r, { line: 5, character: 68 });
    const labels = items.map((i) => i.label);
    assert.ok(labels.includes("mixed_precision_param") && labels.includes("mixed_precision_reduce"), labels.join(","));
    assert.ok(!labels.includes("dtype"), "dtype is already written");
    assert.ok(!labels.includes("tensor_parallel_degree"), "a ParallelismConfig field is not offered in TrainingConfig");
    assert.deepEqual(completionsAt(analyzeDocument("file:///x/app.py", "import os\nprint(os.sep, )\n"), { line: 1, character: 14 }), []);
  });
  it("document symbols list the config functions", () => {
    const r = analyzeFixture(text, { uri: URI });
    assert.deepEqual(r.configFunctions?.map((f) => [f.name, f.selectionRange.start.line]), [["a", 4], ["b", 8]]);
  });
});

describe("torchtitan Python: renamed Trainer.Config (aliases, subclasses, renamed config classes)", () => {
  const TOP = `# precision-lens: world-size=8 torchtitan-version=v0.4.0
from dataclasses import dataclass, field
from torchtitan.config import ParallelismConfig, TrainingConfig
`;
  it("an alias: from torchtitan.trainer import Trainer as T, T.Config(...)", () => {
    const r = analyzeFixture(`${TOP}from torchtitan.trainer import Trainer as T\n\n\ndef tp2() -> T.Config:\n    return T.Config(parallelism=ParallelismConfig(tensor_parallel_degree=2))\n`, { uri: URI });
    assert.equal(r.framework, "torchtitan");
    assert.deepEqual(r.configFunctions?.map((f) => f.name), ["tp2"]);
    assert.equal(r.layoutName, "FSDP+TP");
    assert.deepEqual(r.parallel, { dp_replicate: 1, dp_shard: 4, cp: 1, tp: 2, pp: 1, ep: 1, etp: 1 });
  });

  it("a fork's subclass with its own Config (class Lora(Trainer): class Config(Trainer.Config)), and a subclass of it", () => {
    const text = `${TOP}from torchtitan.trainer import Trainer


class Lora(Trainer):
    @dataclass(kw_only=True, slots=True)
    class Config(Trainer.Config):
        lora_rank: int = 8


class QLora(Lora):
    pass


def lora() -> Lora.Config:
    return Lora.Config(training=TrainingConfig(dtype="bfloat16"), lora_rank=16)


def qlora():
    return QLora.Config(parallelism=ParallelismConfig(tensor_parallel_degree=8))
`;
    const r = analyzeFixture(text, { uri: URI });
    assert.deepEqual(r.configFunctions?.map((f) => f.name), ["lora", "qlora"]);
    assert.equal(r.precision?.paramStorage.dtype, "bfloat16", "lora(): training.dtype from Lora.Config(...)");
    const q = analyzeFixture(text, { uri: URI, settings: { configFunction: "qlora" } });
    assert.equal(q.layoutName, "TP-only");
  });

  it("a renamed config class: class LoRAFTConfig(Trainer.Config)", () => {
    const text = `${TOP}from torchtitan.trainer import Trainer


@dataclass(kw_only=True, slots=True)
class LoRAFTConfig(Trainer.Config):
    lora_rank: int = 8


def ft() -> LoRAFTConfig:
    return LoRAFTConfig(training=TrainingConfig(mixed_precision_param="float32"))
`;
    const r = analyzeFixture(text, { uri: URI });
    assert.deepEqual(r.configFunctions?.map((f) => f.name), ["ft"]);
    assert.equal(r.precision?.compute.dtype, "float32");
  });

  it("a subclass Config that gives a section its own default: that section is named not followed, never defaulted", () => {
    const text = `${TOP}from torchtitan.trainer import Trainer


class Custom(Trainer):
    @dataclass(kw_only=True, slots=True)
    class Config(Trainer.Config):
        training: TrainingConfig = field(default_factory=lambda: TrainingConfig(dtype="bfloat16"))


def custom() -> Custom.Config:
    return Custom.Config(parallelism=ParallelismConfig(tensor_parallel_degree=2))
`;
    const r = analyzeFixture(text, { uri: URI });
    assert.deepEqual(r.configFunctions?.map((f) => f.name), ["custom"]);
    assert.equal(r.layoutName, "FSDP+TP", "parallelism is still read from the call");
    const h = hoverAt(r, { line: 12, character: 5 });
    assert.ok(h);
    assert.match(h.markdown, /`training\.dtype` is not known \(`Custom\.Config` \(Custom\(Trainer\)\) gives `training` its own default, which is not followed\)/);
    assert.ok(!r.diagnostics.some((d) => d.code === "pure-bf16"), "the class body's bf16 is not guessed");
  });

  it("a renamed config class whose __post_init__ sets a section: that section is not followed, even when the call sets it", () => {
    const text = `${TOP}from torchtitan.components.optimizer import OptimizersContainer
from torchtitan.trainer import Trainer


@dataclass(kw_only=True, slots=True)
class _ForkConfig(Trainer.Config):
    def __post_init__(self) -> None:
        Trainer.Config.__post_init__(self)
        self.optimizer = align(self.optimizer)


def fork() -> Trainer.Config:
    return _ForkConfig(optimizer=OptimizersContainer.Config(implementation="foreach"), parallelism=ParallelismConfig(expert_parallel_degree=8))
`;
    const r = analyzeFixture(text, { uri: URI });
    assert.deepEqual(r.configFunctions?.map((f) => f.name), ["fork"]);
    assert.equal(r.layoutName, "FSDP+EP", "parallelism is read from the call");
    const h = hoverAt(r, { line: 14, character: 5 });
    assert.ok(h);
    assert.match(h.markdown, /`optimizer\.implementation` \| \? \| not known: `_ForkConfig` \(\\_ForkConfig\(Trainer\.Config\)\) sets `optimizer` in a method \(`self\.optimizer = …`\), which is not followed/);
  });

  it("a class that is not a trainer's is not a config function", () => {
    const text = `${TOP}from torchtitan.trainer import Trainer


class Model:
    class Config:
        pass


def m() -> Model.Config:
    return Model.Config()
`;
    const r = analyzeDocument(URI, text);
    assert.equal(r.framework, null);
  });
});

describe("torchtitan Python: severity follows the facts (core/provenance.ts gate)", () => {
  const err = (r: ReturnType<typeof analyzeFixture>, code: string) => r.diagnostics.filter((d) => d.code === code).map((d) => [d.severity, d.range.start.line, d.data?.facts?.assumed]);
  it("unknown-dtype written in a workspace module the function follows: an error at the call site", () => {
    const base = `from torchtitan.config import TrainingConfig\nfrom torchtitan.trainer import Trainer\n\ndef base() -> Trainer.Config:\n    return Trainer.Config(training=TrainingConfig(dtype="bf16"))\n`;
    const text = `${HEAD}from .base import base\n\n\ndef mine() -> Trainer.Config:\n    return base()\n`;
    const r = analyzeFixture(text, { uri: URI, env: fakeEnv({ "/ws/mytitan/base.py": base }) });
    assert.deepEqual(err(r, "unknown-dtype"), [["error", 7, undefined]]);
  });
  it("unknown-dtype set by a run script's flag: an error (a run script is a known fact)", () => {
    const script = `NGPU=8 CONFIG=flagged ./run_train.sh --training.mixed_precision_param bf16\n`;
    const text = `${HEAD}\ndef flagged() -> Trainer.Config:\n    return Trainer.Config()\n`;
    const r = analyzeFixture(text, { uri: URI, env: fakeEnv({ "/ws/mytitan/train.sh": script }) });
    // tyro rejects "bf16" (Literal["bfloat16", "float32"]) before any dtype is read: the flag is the launch failure.
    assert.deepEqual(err(r, "invalid-value"), [["error", 4, undefined]]);
    assert.deepEqual(err(r, "unknown-dtype"), []);
  });
  it("a function's launch: the run script and every --section.option flag as written, unknown fields included", () => {
    const script = `NGPU=8 CONFIG=flagged ./run_train.sh --parallelism.tensor_parallel_degree 8 --training.no_such_field=1\n`;
    const text = `${HEAD}\ndef flagged() -> Trainer.Config:\n    return Trainer.Config()\n\n\ndef plain() -> Trainer.Config:\n    return Trainer.Config()\n`;
    const r = analyzeFixture(text, { uri: URI, env: fakeEnv({ "/ws/mytitan/train.sh": script }) });
    assert.deepEqual(fn(r, "flagged").launch, { script: "mytitan/train.sh", flags: ["--parallelism.tensor_parallel_degree", "8", "--training.no_such_field", "1"] });
    assert.equal(fn(r, "plain").launch, undefined);
    // the known field is applied (TP 8), the unknown one is not read by the product
    assert.equal(fn(r, "flagged").parallel?.tp, 8);
  });
  it("a flag spelled with hyphens (tyro's help spelling) sets the field: --parallelism.tensor-parallel-degree 8 is TP 8", () => {
    const script = `NGPU=8 CONFIG=hyphen ./run_train.sh --parallelism.data-parallel-shard-degree=1 --parallelism.tensor-parallel-degree 8\n`;
    const text = `${HEAD}\ndef hyphen() -> Trainer.Config:\n    return Trainer.Config()\n`;
    const r = analyzeFixture(text, { uri: URI, env: fakeEnv({ "/ws/mytitan/train.sh": script }) });
    assert.deepEqual(fn(r, "hyphen").launch?.flags, ["--parallelism.data-parallel-shard-degree", "1", "--parallelism.tensor-parallel-degree", "8"]);
    assert.deepEqual([fn(r, "hyphen").parallel?.dp_shard, fn(r, "hyphen").parallel?.tp], [1, 8]);
  });
  it("a boolean flag takes no value in tyro: --compile.enable before --parallelism flags is two flags, not one", () => {
    const script = `NGPU=8 CONFIG=bare ./run_train.sh --compile.enable --parallelism.data_parallel_shard_degree 1 --parallelism.tensor_parallel_degree 8 --compile.no-enable \\\n  --x.y 1\n`;
    const text = `${HEAD}\ndef bare() -> Trainer.Config:\n    return Trainer.Config()\n`;
    const r = analyzeFixture(text, { uri: URI, env: fakeEnv({ "/ws/mytitan/train.sh": script }) });
    assert.deepEqual(fn(r, "bare").launch?.flags, ["--compile.enable", "--parallelism.data_parallel_shard_degree", "1", "--parallelism.tensor_parallel_degree", "8", "--compile.no-enable"]);
    assert.deepEqual([fn(r, "bare").parallel?.dp_shard, fn(r, "bare").parallel?.tp], [1, 8]);
  });
  it("parallel-dims on an explicit world size but a degree that is not known: a warning naming it", () => {
    const text = `${HEAD}\ndef odd() -> Trainer.Config:\n    return Trainer.Config(parallelism=ParallelismConfig(tensor_parallel_degree=3, data_parallel_shard_degree=2, pipeline_parallel_degree=PP))\n`;
    const r = analyzeFixture(text, { uri: URI });
    const d = r.diagnostics.find((x) => x.code === "parallel-dims-product");
    assert.equal(d?.severity, "warning");
    assert.equal(d?.data?.facts?.assumed, "evaluation");
    assert.match(d!.message, /^Assuming odd\(\) as read \(inferred\): the degrees multiply to 6, not the world size 8: the launch fails$/);
    assert.match(d!.detail ?? "", /^Assuming odd\(\) as read, inferred: parallelism\.pipeline_parallel_degree not known: /);
  });
});
