/** The one-line headline (code lens, CLI text, language status) for each kind of mechanism. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import { codeLenses, headline } from "../server/src/core/features";
import { nodeEnv } from "../server/src/host/nodeEnv";

const EX = resolve(__dirname, "../examples");

function result(rel: string) {
  const f = join(EX, rel);
  return analyzeDocument(pathToFileURL(f).href, readFileSync(f, "utf8"), {}, nodeEnv(f, [EX]));
}

describe("headline", () => {
  it("names layout, GPUs, mechanism and compute dtype", () => {
    assert.equal(headline(result("tp_only_8gpu.toml")), "TP-only on 8 GPUs: no mixed precision (float32 compute)");
    assert.equal(headline(result("fsdp_8gpu.toml")), "FSDP on 8 GPUs: FSDP mixed precision (bfloat16 compute)");
    assert.equal(headline(result("ddp_8gpu.toml")), "DDP on 8 GPUs: autocast (bfloat16 compute)");
    assert.equal(headline(result("single_gpu.toml")), "single GPU: autocast (bfloat16 compute)");
    assert.equal(headline(result("ddp_tp_error.toml")), "DDP+TP on 8 GPUs: the launch fails");
    assert.equal(headline(result("bad_degrees.toml")), "FSDP+TP on 8 GPUs: the launch fails");
  });

  it("a whole-model cast says whether fp32 master weights exist", () => {
    const tt = result("yaml/torchtune/llama3_8b_full_bf16.yaml");
    assert.equal(tt.framework, "torchtune");
    assert.match(headline(tt)!, /: model cast to bfloat16, no fp32 master weights \(no autocast\)$/);
  });

  it("is absent for files that are not training configs, and so is the code lens", () => {
    const r = analyzeDocument("file:///p/pyproject.toml", `[project]\nname = "x"\n`);
    assert.equal(headline(r), undefined);
    assert.deepEqual(codeLenses(r), []);
  });
});
