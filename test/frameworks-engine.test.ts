/** The per-op view (precision engine) in the full report of YAML/JSON frameworks, where it applies. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { perOpSection } from "../server/src/core/frameworks/common/engineView";

const tt = "# tune run --nproc_per_node 8 full_finetune_distributed --config x\nmodel:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\noptimizer:\n  _component_: torch.optim.AdamW\nloss:\n  _component_: x\ndtype: bf16\n";

describe("per-op view in the report", () => {
  it("torchtune pure bf16 under FSDP2: bf16 storage, bf16 reduce-scatter", () => {
    const r = analyzeDocument("file:///x/c.yaml", tt);
    assert.ok(r.reportMarkdown);
    assert.match(r.reportMarkdown, /Per-op view/);
    assert.match(r.reportMarkdown, /### Per-op dtypes \(FSDP\)/);
    assert.match(r.reportMarkdown, /fsdp_reduce_scatter/);
  });

  it("accelerate FSDP + bf16: fp32 storage, bf16 policy", () => {
    const r = analyzeDocument("file:///x/a.yaml", "distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\nfsdp_config:\n  fsdp_version: 2\n");
    assert.match(r.reportMarkdown ?? "", /### Per-op dtypes \(FSDP\)/);
  });

  it("Lightning DDP bf16-mixed: autocast with a DDP all-reduce", () => {
    const r = analyzeDocument("file:///x/t.yaml", "trainer:\n  devices: 4\n  strategy: ddp\n  precision: bf16-mixed\n");
    assert.match(r.reportMarkdown ?? "", /autocast/);
    assert.match(r.reportMarkdown ?? "", /ddp_all_reduce/);
  });

  it("DeepSpeed and LoRA have the summary only (the engine does not model them)", () => {
    const ds = analyzeDocument("file:///x/ds.json", '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": true}}');
    assert.ok(ds.reportMarkdown);
    assert.doesNotMatch(ds.reportMarkdown, /Per-op view/);
    const lora = analyzeDocument("file:///x/a.yaml", "base_model: x\ndatasets:\n  - path: a\nsequence_len: 8\nadapter: lora\n");
    assert.doesNotMatch(lora.reportMarkdown ?? "", /Per-op view/);
  });

  it("no view for an error or an unsupported dtype", () => {
    const layout = { dp_replicate: 1, dp_shard: 2, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1 };
    assert.equal(perOpSection({ mechanism: "error", layout, ddp: false, param: "bfloat16", reduce: "bfloat16", storage: "float32" }), undefined);
    assert.equal(perOpSection({ mechanism: "none", layout, ddp: false, param: "float64", reduce: "float64", storage: "float64" }), undefined);
  });

  it("inlay hints show the resolved dtypes after the precision value", () => {
    const r = analyzeDocument("file:///x/c.yaml", tt);
    const h = r.inlayHints?.find((x) => x.position.line === 7);
    assert.ok(h);
    assert.match(h.label, /params bf16 · compute bf16 · reduce bf16/);
  });
});
