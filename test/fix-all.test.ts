/** `check --fix` (server/src/core/features/fixAll.ts): safe fixes applied, choices listed, comments and layout kept. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { fixAll, formatFixReport, isSafeFix } from "../server/src/core/features/fixAll";

const S = { torchtitanVersion: "v0.2.2", worldSize: 8 };
const URI = "file:///f/train.toml";

const BEFORE = `# My run (keep this comment)
[job]
dump_folder = "./outputs"
print_args = true            # log it
use_for_integration_test = true

[model]
name = "llama3"
converters = ["float8"]

[training]
local_batch_size = 8
seq_lenn = 2048
compile = true
enable_loss_parallel = false
steps = "100"

[parallelism]
data_parallel_shard_degree = -1

[checkpoint]
enable_checkpoint = true
keep_latest_k = 1

[float8]
enable_fsdp_float8_all_gather = true
`;

const AFTER = `# My run (keep this comment)
[job]
dump_folder = "./outputs"
print_config = true            # log it

[model]
name = "llama3"
converters = ["quantize.linear.float8"]

[training]
local_batch_size = 8
seq_len = 2048
steps = 100

[parallelism]
data_parallel_shard_degree = -1
disable_loss_parallel = true

[checkpoint]
enable = true
keep_latest_k = 1

[quantize.linear.float8]
enable_fsdp_float8_all_gather = true

[compile]
enable = true
`;

describe("fixAll", () => {
  it("applies every safe fix, re-analysing between them, and keeps comments and layout", () => {
    const r = fixAll(URI, BEFORE, S);
    assert.equal(r.text, AFTER);
    assert.ok(r.changed);
    assert.deepEqual(r.applied.map((a) => a.code).sort(), ["moved-key", "moved-key", "moved-key", "moved-key", "moved-key", "removed-key", "unknown-converter", "unknown-key", "wrong-type"].sort());
    for (const a of r.applied) assert.ok(a.line >= 1 && a.title.length > 0);
  });
  it("lists the fixes that need a choice without applying them", () => {
    const r = fixAll(URI, BEFORE, S);
    const k = r.needsChoice.find((n) => n.code === "keep-latest-k");
    assert.ok(k, JSON.stringify(r.needsChoice));
    assert.deepEqual(k.fixes, ["Change to 2", "Change to 0 (keep all)"]);
    assert.ok(!analyzeDocument(URI, r.text, S).diagnostics.some(isSafeFix));
    const lines = formatFixReport("train.toml", r);
    assert.ok(lines.some((l) => l.startsWith("train.toml:") && l.includes("fixed [moved-key]")));
    assert.ok(lines.some((l) => l.includes("needs a choice [keep-latest-k]")));
  });
  it("is idempotent and leaves a clean file unchanged", () => {
    const once = fixAll(URI, BEFORE, S).text;
    const twice = fixAll(URI, once, S);
    assert.equal(twice.text, once);
    assert.equal(twice.applied.length, 0);
    assert.equal(twice.changed, false);
  });
  it("does not touch a file that does not parse", () => {
    const broken = "[training\nsteps = 1\n";
    const r = fixAll(URI, broken, S);
    assert.equal(r.text, broken);
    assert.equal(r.applied.length, 0);
  });
  it("two keys moving into the same new table share one header", () => {
    const t = `[training]\nsteps = 1\nseed = 3\ndeterministic = true\n[parallelism]\ntensor_parallel_degree = 1\n`;
    const r = fixAll(URI, t, S);
    assert.equal(r.text, `[training]\nsteps = 1\n[parallelism]\ntensor_parallel_degree = 1\n\n[debug]\nseed = 3\ndeterministic = true\n`);
  });
  it("an ambiguous typo is not applied", () => {
    const t = `[training]\nsteps = 1\n[parallelism]\ntensor_parallel_degree = 1\n[checkpoint]\nintervall = 5\nfolder_ = "c"\n`;
    const r = fixAll(URI, t, S);
    // "intervall" has one clear suggestion; "folder_" too (distance 1) — both applied.
    assert.ok(r.text.includes("interval = 5"));
    assert.ok(r.text.includes('folder = "c"'));
    const amb = `[training]\nsteps = 1\n[parallelism]\ntensor_parallel_degree = 1\n[metrics]\nsave_tb = "x"\n`;
    const r2 = fixAll(URI, amb, S);
    assert.equal(r2.text, amb);
  });
});
