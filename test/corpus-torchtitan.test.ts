/**
 * torchtitan's own v0.2.2 presets (read from ../shared/corpus) at world sizes 8 and 64: the mechanism
 * the spec predicts (torchtitan.md §1.4 and §5.2). The expected table is the oracle, written from the spec.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import { CORPUS, listFiles, corpusSkip } from "./support/corpus";

const V022 = join(CORPUS, "torchtitan/v0.2.2");

/** spec §5.2 "Precision consequence of the presets": TP=8 presets are TP-only on one node; 17bx128e needs 32 GPUs. */
const EXPECTED: Record<string, { 8: string; 64: string; layout8?: string }> = {
  "torchtitan/models/llama3/train_configs/llama3_70b.toml": { 8: "none", 64: "fully_shard", layout8: "TP-only" },
  "torchtitan/models/llama3/train_configs/llama3_405b.toml": { 8: "none", 64: "fully_shard", layout8: "TP-only" },
  "torchtitan/models/llama4/train_configs/llama4_17bx16e.toml": { 8: "none", 64: "fully_shard", layout8: "TP-only" },
  "torchtitan/models/llama4/train_configs/llama4_17bx128e.toml": { 8: "error", 64: "fully_shard" },
  // EP = 8 is not in the -1 divisor, so dp_shard still absorbs all 8 ranks (§3.2).
  "torchtitan/models/deepseek_v3/train_configs/deepseek_v3_16b.toml": { 8: "fully_shard", 64: "fully_shard", layout8: "FSDP+EP" },
};
/** Every other preset has dp_shard = -1 and no TP/PP: FSDP over all ranks. */
const DEFAULT = { 8: "fully_shard", 64: "fully_shard", layout8: "FSDP" } as const;

describe("torchtitan v0.2.2 presets from the corpus", { skip: corpusSkip("torchtitan/v0.2.2") }, () => {
  const files = listFiles(V022, [".toml"]);
  it("finds the presets", () => {
    assert.ok(files.length >= 20, `only ${files.length} TOML files under ${V022}`);
    for (const k of Object.keys(EXPECTED)) assert.ok(files.some((f) => f.endsWith(k)), `${k} missing from the corpus`);
  });
  for (const f of files) {
    const rel = relative(V022, f);
    const exp = EXPECTED[rel] ?? DEFAULT;
    it(`${rel}: ${exp[8]} on 8 GPUs, ${exp[64]} on 64`, () => {
      const text = readFileSync(f, "utf8");
      const r8 = analyzeDocument(pathToFileURL(f).href, text, { worldSize: 8, torchtitanVersion: "v0.2.2" });
      assert.equal(r8.framework, "torchtitan");
      assert.equal(r8.mechanism, exp[8]);
      if (exp.layout8) assert.equal(r8.layoutName, exp.layout8);
      if (exp[8] === "none") {
        const d = r8.diagnostics.find((x) => x.code === "no-mixed-precision" && x.severity === "warning");
        assert.ok(d);
        // llama4 is a MoE model: its routed experts still run grouped_mm in bf16 (spec §1.4)
        assert.equal(d.detail?.includes("routed experts of this MoE model still compute in bf16"), rel.includes("llama4"));
        assert.equal(d.message.includes("routed experts still bf16"), rel.includes("llama4"));
      }
      if (exp[8] === "error") assert.ok(r8.diagnostics.some((d) => d.code === "parallel-dims-resolved"));
      const r64 = analyzeDocument(pathToFileURL(f).href, text, { worldSize: 64, torchtitanVersion: "v0.2.2" });
      assert.equal(r64.mechanism, exp[64]);
      assert.equal(r64.precision?.compute.dtype, "bfloat16");
      assert.ok(!r64.diagnostics.some((d) => d.code === "no-mixed-precision"));
    });
  }
});
