/** The CLI front end: in-process for the contract, and the bundled dist/cli.js once for exit codes. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { runCliCaptured } from "./support/cli";

const ROOT = resolve(__dirname, "..");

function run(args: string[], cwd = ROOT): { code: number; out: string; err: string } {
  return runCliCaptured(args, cwd);
}

interface JsonFile {
  path: string;
  framework: string | null;
  worldSize: { value: number; source: string } | null;
  parallel: Record<string, number> | null;
  mechanism: string | null;
  precision: { paramStorage: string; compute: string; gradReduce: string } | null;
  diagnostics: { code: string; severity: string; message: string; range: { start: { line: number; character: number }; end: { line: number; character: number } } }[];
}

describe("precision-lens check", () => {
  it("JSON contract on the TP-only example", () => {
    const { code, out } = run(["check", "--format", "json", "examples/tp_only_8gpu.toml"]);
    assert.equal(code, 0, "a warning alone exits 0");
    const j = JSON.parse(out) as { version: number; files: JsonFile[] };
    assert.equal(j.version, 1);
    assert.equal(j.files.length, 1);
    const f = j.files[0]!;
    assert.equal(f.path, "examples/tp_only_8gpu.toml");
    assert.equal(f.framework, "torchtitan");
    assert.deepEqual(f.worldSize, { value: 8, source: "default", kind: "default" });
    assert.deepEqual(f.parallel, { dp_replicate: 1, dp_shard: 1, cp: 1, tp: 8, pp: 1, ep: 1, etp: 1 });
    assert.equal(f.mechanism, "none");
    assert.deepEqual(f.precision, { paramStorage: "float32", compute: "float32", gradReduce: "float32" });
    assert.deepEqual(f.diagnostics.map((d) => [d.code, d.severity, d.range.start.line, d.range.start.character]), [["no-mixed-precision", "warning", 25, 0]]);
  });

  it("--world-size changes the resolution", () => {
    const j = JSON.parse(run(["check", "--format", "json", "--world-size", "64", "examples/tp_only_8gpu.toml"]).out) as { files: JsonFile[] };
    assert.deepEqual([j.files[0]!.mechanism, j.files[0]!.parallel!.dp_shard, j.files[0]!.worldSize!.source], ["fully_shard", 8, "setting"]);
  });

  it("a folder: every example, errors exit 1, text summary line", () => {
    const { code, out } = run(["check", "examples"]);
    assert.equal(code, 1);
    assert.match(out, /examples\/ddp_tp_error\.toml:\d+:1: error \[ddp-with-other-parallelism\]/);
    const summary = /^(\d+) training configs? checked: (\d+) errors?, (\d+) warnings?$/m.exec(out);
    assert.ok(summary, out);
    const j = JSON.parse(run(["check", "--format", "json", "examples"]).out) as { files: JsonFile[] };
    const titan = j.files.filter((f) => f.framework === "torchtitan").map((f) => f.path).sort();
    assert.deepEqual(titan, readdirSync(join(ROOT, "examples")).filter((f) => f.endsWith(".toml")).map((f) => `examples/${f}`).sort());
    assert.equal(Number(summary[1]), j.files.filter((f) => f.framework !== null).length);
    assert.equal(Number(summary[2]), j.files.flatMap((f) => f.diagnostics).filter((d) => d.severity === "error").length);
  });

  it("--fix rewrites moved keys in place, keeps comments, and lists what needs a choice", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-fix-"));
    const file = join(dir, "old.toml");
    const before = `# my run\n[job]\nprint_args = true # log it\n\n[training]\nsteps = 10\nmixed_precision_param = "bf16"\n\n[parallelism]\ndata_parallel_shard_degree = -1\n`;
    writeFileSync(file, before);
    const { code, out } = run(["check", "--fix", "--torchtitan-version", "v0.2.2", "old.toml"], dir);
    const after = readFileSync(file, "utf8");
    assert.equal(after, before.replace("print_args = true # log it", "print_config = true # log it"));
    assert.match(out, /old\.toml:3: fixed \[moved-key\]/);
    assert.match(out, /old\.toml:7: needs a choice \[unknown-dtype\]/);
    assert.equal(code, 1, "the unknown dtype still fails");
  });

  it("schema prints a JSON Schema of the release", () => {
    const { code, out } = run(["schema", "--torchtitan-version", "v0.2.2"]);
    assert.equal(code, 0);
    const j = JSON.parse(out) as { $schema: string; properties: Record<string, { properties: Record<string, { default?: unknown }> }>; additionalProperties: boolean };
    assert.match(j.$schema, /json-schema\.org/);
    assert.equal(j.properties.training!.properties.mixed_precision_param!.default, "bfloat16");
    assert.equal(j.additionalProperties, false);
    assert.equal(run(["schema", "--torchtitan-version", "v7"]).code, 2);
  });

  it("mechanism error for a layout that fails validation; unrelated files have framework null", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-cli-"));
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", "pyproject.toml"), `[project]\nname = "x"\n`);
    // A known world size (the directive): with none, TP 16 would make the world 16 (issue #17).
    writeFileSync(join(dir, "train.toml"), `# precision-lens: world-size=8\n[training]\nsteps = 1\n[parallelism]\ntensor_parallel_degree = 16\n`);
    const { code, out } = run(["check", "--format", "json", dir], dir);
    const j = JSON.parse(out) as { files: JsonFile[] };
    const byPath = Object.fromEntries(j.files.map((f) => [f.path, f]));
    assert.equal(byPath["train.toml"]!.mechanism, "error");
    assert.equal(byPath["train.toml"]!.precision, null);
    assert.deepEqual(byPath["train.toml"]!.diagnostics.map((d) => d.code), ["parallel-dims-resolved"]);
    assert.deepEqual([byPath[join("sub", "pyproject.toml")]!.framework, byPath[join("sub", "pyproject.toml")]!.diagnostics], [null, []]);
    assert.equal(code, 1);
  });

  it("usage errors and unreadable input exit 2 with a message", () => {
    assert.equal(run(["check"]).code, 2);
    const bad = run(["check", "--world-size", "zero", "examples"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--world-size must be a positive integer, got "zero"/);
    assert.match(run(["check", "--torchtitan-version", "v9", "examples"]).err, /unknown version "v9"/);
    const missing = run(["check", "no/such/file.toml"]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /no\/such\/file\.toml: no such file or folder/);
    assert.equal(run(["frobnicate"]).code, 2);
  });

  it("the bundled dist/cli.js exits 1 on an error and prints the diagnostic", () => {
    const p = spawnSync(process.execPath, [join(ROOT, "dist/cli.js"), "check", "examples/ddp_tp_error.toml"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(p.status, 1, p.stderr);
    assert.match(p.stdout, /error \[ddp-with-other-parallelism\] DDP \(replicate 2, shard 1\) cannot be combined with TP: torchtitan raises RuntimeError at launch/);
  });
});
