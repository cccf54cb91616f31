/**
 * Issue #17, causes seen on a fresh held-back set of torchtitan forks' configs (minimal configs written here):
 *  1. A version only inferred from the keys never states upstream's strict behaviour as fact. Unknown keys raise
 *     at launch from 2025-08-28 (eadca4835, #1644: torchtitan/config/manager.py `_dict_to_dataclass` raises
 *     "Invalid field names in … data"); before, the same function kept the known fields only, so an unknown key
 *     was silently dropped (v0.1.0 too, ../shared/spec/torchtitan.md §4.1). A moved/unknown key on an inferred
 *     version goes through the provenance gate (a warning led by "Assuming torchtitan … (inferred from the keys)"),
 *     and when the keys also fit dates before 2025-08-28 the finding says it is silently ignored there.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { unknownKey, movedKey } from "../server/src/core/frameworks/torchtitan/rules/unknown-key";

const run = (text: string) => analyzeDocument("file:///w/fork.toml", text).diagnostics.filter((d) => d.code === "moved-key" || d.code === "unknown-key");

/** checkpoint.enable exists from 2025-08-22, job.use_for_integration_test until 2025-08-30: the keys fit [08-22, 08-30). */
const AROUND_STRICT = `[job]\nuse_for_integration_test = true\n[checkpoint]\nenable = true\n[training]\ncompile = true\n[float8]\nmoe_fqns = ["experts"]\n`;

describe("an inferred torchtitan version does not assert the strict schema (cause 1)", () => {
  it("the rules rest on the version, so the gate applies to them", () => {
    assert.deepEqual(unknownKey.restsOn, ["version"]);
    assert.deepEqual(movedKey.restsOn, ["version"]);
  });

  it("keys that fit dates on both sides of 2025-08-28: a warning naming the assumption and both behaviours", () => {
    const [moved, unknown] = run(AROUND_STRICT);
    assert.equal(moved?.code, "moved-key");
    assert.equal(moved.severity, "warning");
    assert.equal(moved.range.start.line, 5);
    assert.equal(moved.message, "Assuming torchtitan main@2025-08-29 (inferred): training.compile is now compile.enable: ignored or rejected, by version");
    assert.match(moved.detail ?? "", /^Assuming torchtitan main@2025-08-29 \(inferred from the keys\): training\.compile was renamed to compile\.enable on 2025-08-20/);
    assert.match(moved.detail ?? "", /rejects it at launch from 2025-08-28; a build before that \(the keys fit dates from 2025-08-22\) silently ignores it\.$/);
    assert.equal(moved.data?.facts?.assumed, "version");
    assert.equal(unknown?.code, "unknown-key");
    assert.equal(unknown.severity, "warning");
    assert.equal(unknown.range.start.line, 7);
    assert.match(unknown.message, /^Assuming torchtitan main@2025-08-29 \(inferred\): unknown key "moe_fqns" in \[float8\]: ignored or rejected, by version$/);
    assert.match(unknown.detail ?? "", /a build before that \(the keys fit dates from 2025-08-22\) silently ignores it/);
  });

  it("the same file with the version pinned by a directive: the strict error, stated as fact", () => {
    const ds = run(`# precision-lens: torchtitan-version=main@2025-08-29\n${AROUND_STRICT}`);
    assert.deepEqual(ds.map((d) => `${d.severity}[${d.code}]@${d.range.start.line}`), ["error[moved-key]@6", "error[unknown-key]@8"]);
    assert.equal(ds[0]!.message, "training.compile was renamed to compile.enable on 2025-08-20: upstream torchtitan main@2025-08-29 rejects it at launch");
    assert.doesNotMatch(ds[0]!.detail ?? "", /silently/);
  });

  it("keys that only fit strict dates (training.dtype, from 2025-09-16): the strict verdict, led by the assumption", () => {
    const ds = run(`[training]\ndtype = "bfloat16"\ncompile = true\n[float8]\nmoe_fqns = ["experts"]\n`);
    assert.deepEqual(ds.map((d) => `${d.severity}[${d.code}]@${d.range.start.line}`), ["warning[moved-key]@2", "warning[unknown-key]@4"]);
    assert.match(ds[0]!.message, /^Assuming torchtitan main@2025-09-25 \(inferred\): training\.compile was renamed to compile\.enable on 2025-08-20: upstream torchtitan main@2025-09-25 rejects it at launch$/);
    assert.match(ds[0]!.detail ?? "", /upstream torchtitan main@2025-09-25 rejects it at launch\.$/);
    assert.doesNotMatch(ds[0]!.detail ?? "", /silently/);
  });

  it("a version known to be before 2025-08-28 says the key is silently ignored (a warning, no launch failure)", () => {
    const ds = run(`# precision-lens: torchtitan-version=v0.1.0\n[float8]\nmoe_fqns = ["experts"]\n[checkpoint]\nmodel_weights_only = true\n`);
    assert.deepEqual(ds.map((d) => `${d.severity}[${d.code}]@${d.range.start.line}`), ["information[unknown-key]@2", "warning[moved-key]@4"]);
    assert.equal(ds[0]!.message, 'Unknown key "moe_fqns" in [float8]: upstream torchtitan v0.1.0 ignores it (a fork may define it)');
    for (const d of ds) assert.doesNotMatch(`${d.message} ${d.detail ?? ""}`, /rejects|Assuming/);
  });
});

const at = (version: string, text: string) => analyzeDocument("file:///w/fork.toml", text, { torchtitanVersion: version, worldSize: 8 }).diagnostics;
const SCHEMA = ["unknown-key", "unknown-section", "invalid-value", "fork-config", "moved-key"];
const schema = (ds: ReturnType<typeof at>) => ds.filter((d) => SCHEMA.includes(d.code)).map((d) => `${d.range.start.line}:${d.severity}[${d.code}]`);
const forkNote = (ds: ReturnType<typeof at>) => ds.find((d) => d.code === "fork-config");

/** Upstream tables (enough for the file to be read as torchtitan's), then a table upstream never had. */
const BASE = `[job]\ndescription = "x"\n[model]\nname = "llama3"\nflavor = "8B"\n[training]\nseq_len = 2048\n[parallelism]\ndata_parallel_shard_degree = -1\n`;
const FORK_HEAD = `${BASE}[infra]\ncluster = "x"\n`;
/** Before 2025-02-xx torchtitan had no [parallelism] table (the degrees were in [training]). */
const OLD = (t: string) => t.replace("[parallelism]\ndata_parallel_shard_degree = -1\n", "");
/** The 0-based line of the first line starting with `start`. */
const line = (text: string, start: string) => text.split("\n").findIndex((l) => l.startsWith(start));

describe("a fork's own value for an enum-like field is unknown to upstream, not invalid (cause 2)", () => {
  it("compile.components = [\"model\", \"vae\"] in a fork's file: no invalid-value, the value is in the one fork note", () => {
    const t = `${FORK_HEAD}[compile]\nenable = true\ncomponents = ["model", "vae"]\n`;
    const ds = at("v0.2.2", t);
    assert.deepEqual(schema(ds), [`${line(t, "[infra]")}:information[fork-config]`]);
    assert.match(forkNote(ds)!.message, /^torchtitan fork config: 2 names unknown to upstream v0\.2\.2, not checked: \[infra\], compile\.components = "vae"$/);
  });

  it("the same value outside fork mode stays an invalid-value warning", () => {
    const t = `${BASE}[compile]\nenable = true\ncomponents = ["model", "vae"]\n`;
    const ds = at("v0.2.2", t);
    assert.deepEqual(schema(ds), [`${line(t, "components")}:warning[invalid-value]`]);
    assert.match(ds.find((d) => d.code === "invalid-value")!.message, /^compile\.components: "vae" is not one of "model", "loss"/);
  });

  it("a typo of an upstream choice in a fork's file keeps its own finding", () => {
    const t = `${FORK_HEAD}[compile]\nenable = true\ncomponents = ["modle"]\n`;
    const ds = at("v0.2.2", t);
    assert.deepEqual(schema(ds), [`${line(t, "[infra]")}:information[fork-config]`, `${line(t, "components")}:warning[invalid-value]`]);
    assert.match(forkNote(ds)!.message, /: 1 name upstream never had, not checked: \[infra\]$/);
  });
});

describe("at most one fork note per file (cause 3)", () => {
  const MODULE = `[job]\ncustom_config_module = "torchtitan.experiments.wan.job_config"\n[model]\nname = "llama3"\nflavor = "8B"\n[parallelism]\ndata_parallel_shard_degree = -1\n`;

  it("a custom module that is not found: its keys are listed in the one fork note, not one note per key", () => {
    const t = `${MODULE}[training]\nseq_len = 2048\nclip_length = 16\nnum_workers = 4\npin_memory = true\n`;
    const ds = at("v0.2.2", t);
    assert.deepEqual(schema(ds), [`${line(t, "clip_length")}:information[fork-config]`]);
    const note = forkNote(ds)!;
    assert.match(note.message, /^torchtitan fork config: 3 names unknown to upstream v0\.2\.2, not checked: training\.clip_length, (training\.num_workers, )?\+[12] more$/);
    assert.match(note.detail ?? "", /: training\.clip_length, training\.num_workers, training\.pin_memory\. /);
    assert.match(note.detail ?? "", /The custom config module torchtitan\.experiments\.wan\.job_config it names was not found in the workspace; it may define them\./);
  });

  it("a custom module that is not found and only keys named like upstream keys of other tables: still one fork note", () => {
    const t = `${MODULE}[training]\nseq_len = 2048\nnum_workers = 4\npin_memory = true\n`;
    const ds = at("v0.2.2", t);
    assert.deepEqual(schema(ds), [`${line(t, "num_workers")}:information[fork-config]`]);
    assert.match(forkNote(ds)!.message, /: 2 names unknown to upstream v0\.2\.2, not checked: training\.num_workers, training\.pin_memory$/);
  });

  it("a fork's file with a table upstream had only at other dates: listed in the fork note, no unknown-section note", () => {
    const t = OLD(`${FORK_HEAD}[data]\nroot = "/x"\n`);
    const ds = at("main@2025-02-14", t);
    assert.deepEqual(schema(ds), [`${line(t, "[infra]")}:information[fork-config]`]);
    assert.match(forkNote(ds)!.message, /^torchtitan fork config: 2 names unknown to upstream main@2025-02-14, not checked: \[infra\], \[data\]$/);
  });

  it("the same table without fork evidence keeps its unknown-section note", () => {
    const t = OLD(`${BASE}[data]\nroot = "/x"\n`);
    const ds = at("main@2025-02-14", t);
    assert.deepEqual(schema(ds), [`${line(t, "[data]")}:information[unknown-section]`]);
  });

  it("a typo-close key in a fork's file keeps its own finding", () => {
    const t = OLD(FORK_HEAD.replace("seq_len = 2048\n", "seq_len = 2048\nstepz = 10\n"));
    const ds = at("main@2025-02-14", t);
    assert.deepEqual(schema(ds), [`${line(t, "stepz")}:warning[unknown-key]`, `${line(t, "[infra]")}:information[fork-config]`]);
  });
});
