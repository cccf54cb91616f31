/**
 * The torchtitan schema at a main-branch date (issue #9 §1): derived from the dated keys and the
 * rename/move map (spec torchtitan.md §4.3), version inference from every dated key with the keys that
 * decided it, and did-you-mean from the rename map first.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NO_ENV } from "../server/src/core/analysis";
import { analyzeDocument } from "../server/src/core/analyze";
import { parseTomlDocument } from "../server/src/core/parse/toml";
import { computeSchemaKeys } from "../server/src/core/frameworks/torchtitan/rules/unknown-key";
import { keyHoverMarkdown } from "../server/src/core/frameworks/torchtitan/schema/hover";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { KEYS, keysAt, keyWindow, keyWindowTable, olderNameAt, sectionsOf, suggest } from "../server/src/core/frameworks/torchtitan/schema/index";
import { RELEASES } from "../server/src/core/frameworks/torchtitan/versions";
import { inferVersion } from "../server/src/core/workspace";

const doc = (text: string) => parseTomlDocument("file:///ws/train.toml", text);
const schemaDiags = (text: string, date: string, id = `main@${date}`) => computeSchemaKeys(doc(text), date, id);

describe("schema at a date", () => {
  it("before the 2025-03-18 move the parallel degrees are in [training] / [experimental], and [parallelism] does not exist", () => {
    const k = keysAt("2025-02-14");
    for (const p of ["training.data_parallel_shard_degree", "training.data_parallel_replicate_degree", "training.tensor_parallel_degree", "experimental.pipeline_parallel_degree", "experimental.context_parallel_degree"]) assert.ok(k.has(p), p);
    assert.ok(!sectionsOf("2025-02-14").includes("parallelism"));
    assert.ok(!k.has("parallelism.tensor_parallel_degree"));
    // The day of the move (785c34c99) they are at the new place.
    assert.ok(keysAt("2025-03-18").has("parallelism.tensor_parallel_degree"));
    assert.ok(!keysAt("2025-03-18").has("training.tensor_parallel_degree"));
  });

  it("old names exist before their rename date and the new ones after (batch_size 2025-06-05, warmup_steps 2025-03-11, rank_0_only 2025-03-19)", () => {
    assert.ok(keysAt("2025-06-04").has("training.batch_size"));
    assert.ok(!keysAt("2025-06-04").has("training.local_batch_size"));
    assert.ok(keysAt("2025-06-05").has("training.local_batch_size"));
    assert.ok(!keysAt("2025-06-05").has("training.batch_size"));
    assert.ok(keysAt("2025-03-10").has("training.warmup_steps"));
    assert.ok(keysAt("2025-03-11").has("lr_scheduler.warmup_steps"));
    assert.ok(keysAt("2025-03-18").has("metrics.rank_0_only"));
    assert.ok(keysAt("2025-03-19").has("metrics.save_for_all_ranks"));
  });

  it("removed keys exist until their removal: float8.scaling_type_* (2025-01-31), enable_float8_linear (2025-02-15), interval_type (2025-02-27), norm_type (2025-04-23)", () => {
    assert.ok(keysAt("2025-01-30").has("float8.scaling_type_input"));
    assert.ok(!keysAt("2025-01-31").has("float8.scaling_type_input"));
    // The [float8] table only exists from 2024-07-30 (40f79d79f): before it the scaling types did not exist.
    assert.ok(!keysAt("2024-07-01").has("float8.scaling_type_input"));
    assert.ok(keysAt("2024-07-20").has("training.enable_float8_linear"));
    assert.ok(keysAt("2024-07-01").has("training.fp8_linear"));
    assert.ok(keysAt("2025-02-14").has("float8.enable_float8_linear"));
    assert.ok(!keysAt("2025-02-15").has("float8.enable_float8_linear"));
    assert.ok(keysAt("2025-02-26").has("checkpoint.interval_type"));
    assert.ok(keysAt("2025-04-22").has("model.norm_type"));
    assert.ok(!keysAt("2025-04-23").has("model.norm_type"));
  });

  it("a chain of renames is undone step by step (data_parallel_degree → data_parallel_shard_degree → [parallelism])", () => {
    assert.ok(keysAt("2024-09-01").has("training.data_parallel_degree"));
    assert.ok(!keysAt("2024-09-01").has("training.data_parallel_shard_degree"));
    assert.ok(keysAt("2024-09-10").has("training.data_parallel_shard_degree"));
  });

  it("an old name's spec says where it went", () => {
    const s = keysAt("2025-02-14").get("training.batch_size")!;
    assert.equal(s.type, "int");
    assert.deepEqual(s.renamedTo, { path: "training.local_batch_size", date: "2025-06-05" });
    assert.equal(s.until, "2025-06-05");
    assert.match(keyHoverMarkdown("2025-02-14", "training.batch_size")!, /Renamed to `training\.local_batch_size` on 2025-06-05/);
    assert.match(keyHoverMarkdown("2025-02-14", "float8.enable_float8_linear")!, /torchtitan removed later, on 2025-02-15 \(57387af0e\)/);
    // A rename that converts the value keeps no type (optimizer.fused was a bool, implementation a str).
    assert.equal(keysAt("2025-02-01").get("optimizer.fused")!.type, "any");
  });

  it("at the last release nothing is derived: the schema is data.ts's v0.2.2 list", () => {
    const date = RELEASES["v0.2.2"].date;
    const direct = KEYS.filter((k) => (!k.since || k.since <= date) && (!k.until || date < k.until)).map((k) => k.path).sort();
    assert.deepEqual([...keysAt("v0.2.2").keys()].sort(), direct);
  });

  it("keys and tables do not exist before the first commit that defined them (scripts/schema-history.ts)", () => {
    // [lr_scheduler] came with 0da8901b1 (2025-03-11): a February 2025 typo is not offered it.
    assert.ok(!sectionsOf("2025-02-14").includes("lr_scheduler"));
    assert.ok(sectionsOf("2025-03-11").includes("lr_scheduler"));
    const [d] = schemaDiags("[lr_schedular]\nwarmup = 3\n", "2025-02-14");
    assert.doesNotMatch(d!.message, /\[lr_scheduler\]/);
    // torchtitan/config/job_config.py at v0.2.0, class ActivationCheckpoint (L587-635): mode,
    // selective_ac_option, per_op_sac_force_recompute_mm_shapes_by_fqns, early_stop, memory_budget,
    // visualize_memory_budget_pareto; preserve_rng_state came on 2025-10-29 (e61f2cce4), first in v0.2.1.
    assert.ok(keysAt("v0.2.0").has("activation_checkpoint.memory_budget"));
    assert.ok(!keysAt("v0.2.0").has("activation_checkpoint.preserve_rng_state"));
    assert.ok(keysAt("v0.2.1").has("activation_checkpoint.preserve_rng_state"));
  });

  it("keyWindow: the span of a key over the TOML era; undefined for keys of every date or of none", () => {
    assert.deepEqual(keyWindow("float8.scaling_type_weight"), { from: "2024-07-30", until: "2025-01-31" });
    assert.deepEqual(keyWindow("training.batch_size"), { until: "2025-06-05" });
    assert.deepEqual(keyWindow("training.dtype"), { from: "2025-09-16" });
    assert.equal(keyWindow("model.name"), undefined);
    assert.equal(keyWindow("grpo.kl_coef"), undefined);
  });

  it("keyWindowTable: every key upstream ever had with its window, as the build embeds it (issue #21)", (t) => {
    const table = keyWindowTable();
    const row = (p: string) => table.find((r) => r[0] === p);
    assert.deepEqual(row("float8.scaling_type_weight"), ["float8.scaling_type_weight", "2024-07-30", "2025-01-31"]);
    assert.deepEqual(row("training.batch_size"), ["training.batch_size", "", "2025-06-05"]);
    assert.deepEqual(row("model.name"), ["model.name", "", ""]);
    assert.equal(row("grpo.kl_coef"), undefined);
    assert.equal(new Set(table.map((r) => r[0])).size, table.length);
    const cli = join(import.meta.dirname, "..", "dist", "cli-main.js");
    if (!existsSync(cli)) return t.skip("dist/cli-main.js absent: run npm run build");
    // The CLI bundle carries the table derived from these sources (scripts/build.mjs), not a stale copy.
    assert.ok(readFileSync(cli, "utf8").includes(JSON.stringify(table)), "dist/cli-main.js embeds keyWindowTable()");
  });
});

describe("version inference from every dated key", () => {
  it("a removed key dates the file: float8.scaling_type_* → before 2025-01-31, and it is named as decisive", () => {
    const v = inferVersion(doc('[float8]\nenable_float8_linear = true\nscaling_type_input = "dynamic"\n[training]\ndata_parallel_shard_degree = -1\n'), NO_ENV);
    assert.equal(v.value, "main@2025-01-30");
    assert.equal(v.source, "config-keys");
    assert.ok(v.decidedBy?.includes("float8.scaling_type_input"), JSON.stringify(v.decidedBy));
    assert.match(v.detail, /float8\.scaling_type_input/);
  });

  it("keys the inference relied on are never reported unknown", () => {
    const text = '[model]\nname = "llama3"\nnorm_type = "rmsnorm"\n[training]\nbatch_size = 8\nwarmup_steps = 10\ntensor_parallel_degree = 2\ndata_parallel_shard_degree = -1\n[experimental]\npipeline_parallel_degree = 1\n[metrics]\nrank_0_only = true\n[checkpoint]\ninterval_type = "steps"\n';
    const r = analyzeDocument("file:///ws/old.toml", text, {}, NO_ENV);
    assert.equal(r.torchtitanVersion?.source, "config-keys");
    assert.ok(r.torchtitanVersion?.decidedBy?.length);
    const schema = r.diagnostics.filter((d) => ["unknown-key", "unknown-section", "moved-key", "removed-key"].includes(d.code));
    assert.deepEqual(schema, []);
    // The JSON/hover surface: the report's version line names them.
    assert.match(r.reportMarkdown ?? "", /Decided by: `/);
  });

  it("keys of different versions: the date most keys fit decides; the odd key is reported against it, and was not relied on", () => {
    const text = '[training]\nbatch_size = 8\ndtype = "bfloat16"\n[compile]\nenable = true\n[checkpoint]\nenable = true\n[parallelism]\ndata_parallel_shard_degree = -1\n';
    const v = inferVersion(doc(text), NO_ENV);
    assert.equal(v.value, "v0.2.2");
    assert.match(v.detail, /different torchtitan versions: \d+ of \d+ fit v0\.2\.2 .*training\.batch_size belongs to another version/);
    assert.ok(!v.decidedBy?.includes("training.batch_size"));
    const r = analyzeDocument("file:///ws/mixed.toml", text, {}, NO_ENV);
    const d = r.diagnostics.find((x) => x.range.start.line === 1)!;
    assert.equal(d.code, "moved-key");
    assert.match(d.message, /training\.batch_size was renamed to training\.local_batch_size/);
  });

  it("a setting or directive date is checked against that date's keys too", () => {
    const text = "# precision-lens: torchtitan-version=main@2025-02-01\n[training]\nbatch_size = 8\ntensor_parallel_degree = 1\n[float8]\nenable_float8_linear = false\n";
    const r = analyzeDocument("file:///ws/d.toml", text, {}, NO_ENV);
    assert.equal(r.torchtitanVersion?.value, "main@2025-02-01");
    assert.deepEqual(r.diagnostics.filter((d) => d.code.startsWith("unknown") || d.code.endsWith("-key")), []);
  });
});

describe("did-you-mean", () => {
  it("a later name at an earlier date points at the name of that date (local_batch_size → batch_size before 2025-06-05)", () => {
    const [d] = schemaDiags("[training]\nlocal_batch_size = 4\n", "2025-02-14");
    assert.equal(d!.code, "unknown-key");
    assert.equal(d!.severity, "warning");
    assert.match(d!.message, /; did you mean training\.batch_size\?$/);
    assert.match(d!.detail ?? "", /Did you mean training\.batch_size\? \(training\.batch_size became training\.local_batch_size on 2025-06-05\)/);
    assert.equal(d!.data?.fixes?.[0]?.title, "Rename to batch_size");
  });

  it("after the rename the old name moves to the new one, not to global_batch_size", () => {
    const [d] = schemaDiags("[training]\nbatch_size = 4\n", "2026-02-20", "v0.2.2");
    assert.equal(d!.code, "moved-key");
    assert.match(d!.message, /training\.batch_size was renamed to training\.local_batch_size/);
    assert.doesNotMatch(d!.message, /global_batch_size/);
  });

  it("a key written in a table that only exists later says where it is at that date, and suggests no later table", () => {
    const [d] = schemaDiags("[parallelism]\ntensor_parallel_degree = 2\n", "2025-02-14");
    assert.equal(d!.code, "unknown-section");
    assert.match(d!.message, /; here it is training\.tensor_parallel_degree$/);
    assert.match(d!.detail ?? "", /\[parallelism\] is newer: at main@2025-02-14 parallelism\.tensor_parallel_degree is training\.tensor_parallel_degree \(moved on 2025-03-18\)/);
    const [t] = schemaDiags("[paralelism]\ndegree = 2\n", "2025-02-14");
    assert.doesNotMatch(t!.message, /\[parallelism\]/);
    // In v0.2.2 the same typo does suggest it.
    const [t2] = schemaDiags("[paralelism]\ndegree = 2\n", "2026-02-20", "v0.2.2");
    assert.match(t2!.message, /did you mean \[parallelism\]\?/);
  });

  it("warmup_steps is not a misspelling of steps", () => {
    assert.deepEqual(suggest("warmup_steps", ["steps", "seq_len"]), []);
    const [d] = schemaDiags("[training]\nwarmup_stepz = 3\n", "2026-02-20", "v0.2.2");
    assert.doesNotMatch(`${d!.message} ${d!.detail ?? ""}`, /Did you mean steps|did you mean steps/);
  });

  it("olderNameAt follows table moves and chains back to the date", () => {
    assert.deepEqual(olderNameAt("parallelism.data_parallel_shard_degree", "2024-12-01")?.path, "training.data_parallel_shard_degree");
    assert.deepEqual(olderNameAt("quantize.linear.float8.filter_fqns", "2025-09-01")?.path, "float8.filter_fqns");
    assert.equal(olderNameAt("training.seq_len", "2025-01-01"), undefined);
  });
});

describe("unknown keys name the upstream version and hint at forks", () => {
  it("before 2025-08-28: upstream silently ignores it; information when no close name, with the fork hint", () => {
    const [d] = schemaDiags("[training]\nsum_loss = true\n", "2025-06-20");
    assert.equal(d!.severity, "information");
    assert.match(d!.message, /^Unknown key "sum_loss" in \[training\]: upstream torchtitan main@2025-06-20 ignores it \(a fork may define it\)$/);
    assert.match(d!.detail ?? "", /^Unknown key "sum_loss" in \[training\]: upstream torchtitan main@2025-06-20 silently ignores it\. A torchtitan fork may define it/);
  });

  it("a typo-close key before 2025-08-28 stays a warning", () => {
    const [d] = schemaDiags("[training]\nstepz = 3\n", "2025-06-20");
    assert.equal(d!.severity, "warning");
    assert.match(d!.message, /did you mean steps\?$/);
  });

  it("from 2025-08-28 upstream rejects it: an error that says so, never that the job fails", () => {
    const [d] = schemaDiags("[infra]\nnodes = 2\n", "2026-02-20", "v0.2.2");
    assert.equal(d!.severity, "error");
    assert.match(d!.message, /upstream torchtitan v0\.2\.2 rejects it at launch/);
    assert.doesNotMatch(d!.message, /job fails/);
  });
});
