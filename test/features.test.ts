/** The one-line headline (code lens, CLI text, language status) for each kind of mechanism. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import { codeLenses, completionsAt, headline } from "../server/src/core/features/index";
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

describe("completion gate", () => {
  it("a torchtitan file that does not parse mid-edit still completes values", () => {
    const text = `[job]\ndescription = "x"\n[training]\nlocal_batch_size = 8\nmixed_precision_param = \n[parallelism]\ntensor_parallel_degree = 8\n`;
    const r = analyzeDocument("file:///a/train.toml", text);
    // The broken line is set aside and the rest analysed (issue #14), so the file is a torchtitan config.
    assert.equal(r.framework, "torchtitan");
    assert.deepEqual(completionsAt(r, { line: 4, character: 24 }).map((c) => c.label), ['"bfloat16"', '"float32"']);
  });

  it("a broken pyproject.toml gets no torchtitan completion; a new file with only comments does", () => {
    const broken = analyzeDocument("file:///p/pyproject.toml", `[project]\nname = \n[`);
    assert.equal(broken.likelyFramework, undefined);
    assert.deepEqual(completionsAt(broken, { line: 2, character: 1 }), []);
    const fresh = analyzeDocument("file:///a/new.toml", "# my new config\n[");
    const sections = completionsAt(fresh, { line: 1, character: 1 });
    assert.ok(sections.some((c) => c.label === "parallelism" && c.kind === "section"), sections.map((c) => c.label).join(" "));
  });
});
