/**
 * Issue #34, the second run through the steps as a new user: what that run still found, each pinned by a
 * test that fails without its fix.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keyHoverMarkdown } from "../server/src/core/frameworks/torchtitan/schema/hover";
import { converterNamesAt } from "../server/src/core/frameworks/torchtitan/schema/index";
import { analyzeDocument } from "../server/src/core/analyze";
import { fakeEnv } from "./support/fakeEnv";

describe("words (issue #34, second run)", () => {
  it("the model.converters hover lists each converter on its own line: no '8.9+.;'", () => {
    for (const when of ["v0.1.0", "v0.2.0", "v0.2.2"] as const) {
      const md = keyHoverMarkdown(when, "model.converters")!;
      assert.ok(md, when);
      assert.doesNotMatch(md, /\.;/, `${when}: a full stop before a semicolon`);
      const names = converterNamesAt(when);
      assert.ok(names.length >= 2, `${when}: ${names}`);
      for (const n of names) assert.match(md, new RegExp(`^- \`"${n.replace(/\./g, "\\.")}"\` — [^\\n]*\\.$`, "m"), `${when}: ${n} on a line of its own`);
      assert.match(md, new RegExp(`Converters in ${when}:\\n\\n- `));
    }
  });
});

describe("no internal provenance tags in what a user reads (issue #34, second run)", () => {
  // Each of these configs reaches a message, detail, hover or report line that used to carry the team's
  // internal `[inferred]` tag; the hedge is in the words ("probably", information severity), not a tag.
  const cases: Array<[string, string]> = [
    ["/w/axolotl.yaml", "base_model: meta-llama/Llama-3.2-1B\ndatasets:\n  - path: tatsu-lab/alpaca\n    type: alpaca\nsequence_len: 1024\nbf16: auto\n"],
    ["/w/axolotl.yaml", "base_model: meta-llama/Llama-3.2-1B\ndatasets:\n  - path: tatsu-lab/alpaca\n    type: alpaca\nsequence_len: 1024\nbfloat16: true\n"],
    ["/w/config.yaml", "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\noptimizer:\n  _component_: torch.optim.AdamW\nloss:\n  _component_: torchtune.modules.loss.LinearCrossEntropyLoss\ndtype: fp32\ndata_parallel_replicate_dim: 4\ndata_parallel_shard_dim: 1\n"],
    ["/w/config.yaml", "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\noptimizer:\n  _component_: torch.optim.AdamW\nloss:\n  _component_: torchtune.modules.loss.LinearCrossEntropyLoss\n"],
    ["/w/ds.json", '{"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": "auto"}, "zero_optimization": {"stage": 2}}\n'],
    ["/w/fsdp.yaml", "compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\nfsdp_config:\n  fsdp_version: 1\n  fsdp_reshard_after_forward: SHARD_GRAD_OP\n"],
  ];
  for (const [path, text] of cases) {
    it(`${path}: ${text.split("\n").at(-2)}`, () => {
      const r = analyzeDocument(`file://${path}`, text, {}, fakeEnv({}, path));
      const all = [r.reportMarkdown ?? "", ...r.hovers.map((h) => h.markdown), ...r.diagnostics.map((d) => `${d.message}\n${d.detail ?? ""}`)];
      assert.ok(all.join("").length > 0, "the case reaches some output");
      for (const t of all) assert.doesNotMatch(t, /\[inferred\]/);
    });
  }
});
