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
    assert.match(ds[0]!.message, /^Assuming torchtitan main@2025-09-25 \(inferred from the keys\): training\.compile was renamed to compile\.enable/);
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
