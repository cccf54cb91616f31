/**
 * Issue #33 (minor): config values cannot inject Markdown into any framework's hover or the Markdown report.
 * One helper (core/model/markdown.ts `mdProse`) escapes every piece of ours that can hold a value; these tests
 * check its output and render each framework's hover and report with markdown-it (the renderer VS Code uses).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { analyzeDocument } from "../server/src/core/analyze";
import { mdProse } from "../server/src/core/model/markdown";
import { summaryMarkdown } from "../server/src/core/frameworks/common/precisionHover";

const require = createRequire(import.meta.url);
const MarkdownIt = require("markdown-it") as new (o: { html: boolean }) => { render(s: string): string };
const md = new MarkdownIt({ html: true });

describe("mdProse: the one escaping helper", () => {
  it("escapes emphasis, links, images, HTML, backslashes and stray backticks; keeps code spans and our bold", () => {
    assert.equal(mdProse("*x*"), "\\*x\\*");
    assert.equal(mdProse("_x_ snake_case"), "\\_x\\_ snake_case");
    assert.equal(mdProse("[a](http://e)"), "[a]\\(http://e)");
    assert.equal(mdProse("![i](http://e/i.png)"), "!\\[i]\\(http://e/i.png)");
    assert.equal(mdProse("<img src=x>"), "&lt;img src=x>");
    assert.equal(mdProse("a\\*b"), "a\\\\\\*b");
    assert.equal(mdProse("x\\x0a y\\"), "x\\x0a y\\\\");
    assert.equal(mdProse("a `code *x*` b"), "a `code *x*` b");
    assert.equal(mdProse("a ` b"), "a \\` b");
    assert.equal(mdProse("**pure bf16**: x"), "**pure bf16**: x");
  });

  it("keeps a value on its line and in its table cell", () => {
    assert.equal(mdProse("y\nz\r\n# h"), "y z # h");
    assert.equal(mdProse("a | b `c|d`", { cell: true }), "a \\| b `c\\|d`");
    assert.equal(mdProse("a | b"), "a | b");
  });
});

const BAD = "*x* [a](http://e) <img src=x> `tick | y\nz";
const Q = JSON.stringify(BAD);

/** What a user would see: no image, no link to the value's URL, no emphasis from it, no raw HTML element. */
function assertInert(markdown: string, where: string): void {
  const html = md.render(markdown);
  assert.ok(!/<img\b/.test(html), `${where}: an <img> element\n${html}`);
  assert.ok(!html.includes('href="http://e"'), `${where}: a link to the value's URL\n${html}`);
  assert.ok(!html.includes("<em>x</em>"), `${where}: emphasis from the value\n${html}`);
  for (const table of html.match(/<table>[\s\S]*?<\/table>/g) ?? []) {
    const cells = (table.match(/<tr>[\s\S]*?<\/tr>/g) ?? []).map((row) => (row.match(/<t[dh]\b/g) ?? []).length);
    assert.ok(cells.every((n) => n === cells[0]), `${where}: a table row with more or fewer cells than its header\n${table}`);
  }
  assert.ok(!markdown.split("\n").some((l) => l.startsWith('z"')), `${where}: the value's line break reached the Markdown`);
}

const CASES: [string, string][] = [
  ["file:///w/accelerate.yaml", `compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nmixed_precision: ${Q}\nnum_processes: 4\ndeepspeed_config:\n  deepspeed_config_file: ${Q}\n`],
  ["file:///w/trl.yaml", `model_name_or_path: ${Q}\ndataset_name: x\nlearning_rate: 2.0e-5\nbf16: true\ntorch_dtype: ${Q}\ndeepspeed: ${Q}\noutput_dir: out\n`],
  ["file:///w/axolotl.yaml", `base_model: ${Q}\ndatasets:\n  - path: x\n    type: alpaca\nbf16: true\ndeepspeed: ${Q}\nmicro_batch_size: 1\n`],
  ["file:///w/lightning.yaml", `trainer:\n  precision: ${Q}\n  devices: 2\n  strategy:\n    class_path: lightning.pytorch.strategies.DeepSpeedStrategy\n    init_args:\n      config: ${Q}\nmodel:\n  class_path: x\n`],
  ["file:///w/torchtune.yaml", `model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\ndtype: ${Q}\nepochs: 1\noptimizer:\n  _component_: torch.optim.AdamW\n  lr: 3e-6\n`],
  ["file:///w/ds.json", `{"bf16": {"enabled": ${Q}}, "zero_optimization": {"stage": ${Q}}, "train_micro_batch_size_per_gpu": ${Q}}`],
  ["file:///w/train.toml", `[job]\ndescription = ${Q}\n[model]\nname = "llama3"\nflavor = ${Q}\n[training]\nmixed_precision_param = ${Q}\n[parallelism]\ndata_parallel_shard_degree = -1\n`],
  ["file:///w/config_registry.py", `from torchtitan.config import ParallelismConfig, TrainingConfig\nfrom torchtitan.models.llama3 import model_registry\nfrom torchtitan.trainer import Trainer\n\n\ndef llama_x() -> Trainer.Config:\n    return Trainer.Config(\n        model_spec=model_registry(${Q}),\n        parallelism=ParallelismConfig(data_parallel_shard_degree=2),\n        training=TrainingConfig(mixed_precision_param=${Q}, dtype=${Q}),\n    )\n`],
];

describe("every framework's hover and the Markdown report stay inert (issue #33)", () => {
  for (const [uri, text] of CASES) {
    it(uri.slice("file:///w/".length), () => {
      const r = analyzeDocument(uri, text, {});
      assert.ok(r.framework, `${uri} was analysed`);
      for (const h of r.hovers) assertInert(h.markdown, `${uri} hover`);
      assertInert(r.reportMarkdown ?? "", `${uri} report`);
    });
  }

  it("the shared summary escapes each piece: the escaped form is in the Markdown", () => {
    const row = { dtype: "float32", from: BAD };
    const m = summaryMarkdown({ framework: "x", layoutName: BAD, worldSize: { value: 2, source: "setting", kind: "file", detail: BAD }, mechanism: "none", meaning: BAD, table: { P: row, C: row, G: row, R: row, O: row }, notes: [BAD], assumptions: [BAD], reasonLine: BAD });
    assert.ok(m.includes("\\*x\\* [a]\\(http://e) &lt;img src=x> \\`tick | y z"), m);
    assert.ok(m.includes("| \\*x\\* [a]\\(http://e) &lt;img src=x> \\`tick \\| y z |"), m);
    assertInert(m, "summary");
  });
});
