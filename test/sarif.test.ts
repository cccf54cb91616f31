/**
 * `check --format sarif` (SARIF 2.1.0) validated against the official OASIS schema (vendored in
 * test/fixtures, see its NOTICE), and `--format github` workflow-command annotations with their escaping.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import Ajv from "ajv";
import { escapeData, escapeProperty, toGithub } from "../server/src/cli/github";
import { helpUri } from "../server/src/cli/sarif";
import { runCli } from "../server/src/cliMain";
import { analyzeFixture } from "./support/fixture";
import { runCliCaptured } from "./support/cli";

const ROOT = resolve(__dirname, "..");

/** The vendored schema is draft-04; its keywords here mean the same in ajv's default draft, bar `id`. */
function sarifValidator() {
  const schema = JSON.parse(readFileSync(join(__dirname, "fixtures", "sarif-schema-2.1.0.json"), "utf8")) as Record<string, unknown>;
  assert.equal(schema.$schema, "http://json-schema.org/draft-04/schema#");
  delete schema.$schema;
  schema.$id = schema.id;
  delete schema.id;
  const isUri = (s: string): boolean => {
    try {
      new URL(s);
      return true;
    } catch {
      return false;
    }
  };
  const ajv = new Ajv({ allErrors: true, strict: false, formats: { uri: isUri, "uri-reference": true, "date-time": true } });
  return ajv.compile(schema);
}

interface SarifLog {
  version: string;
  runs: {
    tool: { driver: { name: string; rules: { id: string; helpUri: string; defaultConfiguration: { level: string } }[] } };
    originalUriBaseIds: Record<string, { uri: string }>;
    results: {
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region: { startLine: number; startColumn: number; endLine: number; endColumn: number } } }[];
      fixes?: { description: { text: string }; artifactChanges: { artifactLocation: { uri: string }; replacements: { deletedRegion: Record<string, number>; insertedContent: { text: string } }[] }[] }[];
    }[];
  }[];
}

describe("--format sarif", () => {
  const validate = sarifValidator();

  it("the validator rejects what the schema forbids", () => {
    assert.equal(validate({ version: "2.0.0", runs: [] }), false);
    assert.equal(validate({ version: "2.1.0", runs: [{ tool: { driver: { name: "x", informationUri: "not a uri" } }, results: [] }] }), false);
    assert.equal(validate({ version: "2.1.0", runs: [{ tool: { driver: { name: "x" } }, results: [{ message: { text: "m" }, level: "info" }] }] }), false);
    assert.equal(validate({ version: "2.1.0", runs: [{ tool: { driver: { name: "x" } }, results: [{ message: { text: "m" }, level: "note" }] }] }), true);
  });

  it("the examples folder gives a log valid against the SARIF 2.1.0 schema", () => {
    const r = runCliCaptured(["check", "--format", "sarif", "examples"], ROOT);
    assert.equal(r.code, 1, r.err);
    const log = JSON.parse(r.out) as SarifLog;
    assert.ok(validate(log), JSON.stringify(validate.errors?.slice(0, 5), null, 2));
    assert.equal(log.version, "2.1.0");
    const run = log.runs[0]!;
    assert.equal(run.tool.driver.name, "precision-lens");
    // Every result points at its rule, and every rule has a help URI to its code's page.
    for (const res of run.results) assert.equal(run.tool.driver.rules[res.ruleIndex]!.id, res.ruleId);
    assert.deepEqual([...new Set(run.results.map((x) => x.ruleId))].sort(), run.tool.driver.rules.map((x) => x.id).sort());
    for (const rule of run.tool.driver.rules) assert.ok(rule.helpUri.endsWith(`/docs/diagnostics/${rule.id}.md`), rule.helpUri);
    assert.equal(run.originalUriBaseIds["%SRCROOT%"]!.uri, `file://${ROOT}/`);
  });

  it("the seed warning: rule, level, 1-based region and its three fixes as replacements", () => {
    const r = runCliCaptured(["check", "--format", "sarif", "examples/tp_only_8gpu.toml"], ROOT);
    const log = JSON.parse(r.out) as SarifLog;
    assert.ok(validate(log), JSON.stringify(validate.errors));
    const [res, ...rest] = log.runs[0]!.results;
    assert.equal(rest.length, 0);
    assert.deepEqual([res!.ruleId, res!.level], ["no-mixed-precision", "warning"]);
    assert.match(res!.message.text, /^No mixed precision: TP-only on 8 GPUs trains in fp32/);
    const loc = res!.locations[0]!.physicalLocation;
    assert.deepEqual(loc.artifactLocation, { uri: "examples/tp_only_8gpu.toml", uriBaseId: "%SRCROOT%" });
    // LSP line 25, characters 0..26 → SARIF line 26, columns 1..27 (end exclusive).
    assert.deepEqual(loc.region, { startLine: 26, startColumn: 1, endLine: 26, endColumn: 27 });
    assert.equal(res!.fixes?.length, 3);
    const lower = res!.fixes!.find((f) => /tensor_parallel_degree/.test(f.description.text) || /4/.test(f.description.text));
    assert.ok(lower, JSON.stringify(res!.fixes!.map((f) => f.description.text)));
    const seed = analyzeFixture(readFileSync(join(ROOT, "examples/tp_only_8gpu.toml"), "utf8"));
    const expected = seed.diagnostics[0]!.data!.fixes!.map((f) => ({ title: f.title, edits: f.edits.map((e) => ({ startLine: e.range.start.line + 1, startColumn: e.range.start.character + 1, text: e.newText })) }));
    assert.deepEqual(
      res!.fixes!.map((f) => ({ title: f.description.text, edits: f.artifactChanges[0]!.replacements.map((x) => ({ startLine: x.deletedRegion.startLine!, startColumn: x.deletedRegion.startColumn!, text: x.insertedContent.text })) })),
      expected,
    );
  });

  it("a rule id with a slash keeps it in the help path", () => {
    assert.ok(helpUri("torchtune/unknown-dtype").endsWith("/docs/diagnostics/torchtune/unknown-dtype.md"));
  });

  it("a file outside the working directory gets an absolute file URI", () => {
    const r = runCliCaptured(["check", "--format", "sarif", join(ROOT, "examples/tp_only_8gpu.toml")], join(ROOT, "server"));
    const log = JSON.parse(r.out) as SarifLog;
    assert.ok(validate(log), JSON.stringify(validate.errors));
    assert.deepEqual(log.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation, { uri: `file://${ROOT}/examples/tp_only_8gpu.toml` });
  });

  it("no findings: a valid log with no results", () => {
    const r = runCliCaptured(["check", "--format", "sarif", "examples/fsdp_8gpu.toml"], ROOT);
    const log = JSON.parse(r.out) as SarifLog;
    assert.ok(validate(log), JSON.stringify(validate.errors));
    assert.deepEqual(log.runs[0]!.results, []);
  });
});

describe("--format github", () => {
  it("one workflow command per diagnostic, with 1-based positions and the code as title", () => {
    const r = runCliCaptured(["check", "--format", "github", "examples/tp_only_8gpu.toml", "examples/bad_degrees.toml"], ROOT);
    assert.equal(r.code, 1);
    const lines = r.out.trimEnd().split("\n");
    assert.ok(lines.every((l) => /^::(error|warning|notice) file=[^,]+,line=\d+,endLine=\d+(,col=\d+,endColumn=\d+)?,title=precision-lens [^:,]+::[^\n]+$/.test(l)), r.out);
    assert.match(lines[0]!, /^::warning file=examples\/tp_only_8gpu\.toml,line=26,endLine=26,col=1,endColumn=27,title=precision-lens no-mixed-precision::No mixed precision: TP-only on 8 GPUs trains in fp32/);
    assert.ok(lines.some((l) => l.startsWith("::error file=examples/bad_degrees.toml,") && l.includes("title=precision-lens parallel-dims-product::")));
  });

  it("escapes %, CR and LF in messages, and also : and , in properties", () => {
    assert.equal(escapeData("50% a\r\nb: c, d"), "50%25 a%0D%0Ab: c, d");
    assert.equal(escapeProperty("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    const fake = analyzeFixture("[parallelism]\n[training]\n[job]\n");
    const out = toGithub([{ path: "dir,1/x:y.toml", absPath: "/x", result: { ...fake, diagnostics: [{ code: "x", severity: "information", source: "precision-lens", message: "line one\nline two 100%", range: { start: { line: 0, character: 0 }, end: { line: 1, character: 3 } } }] } }]);
    assert.equal(out, "::notice file=dir%2C1/x%3Ay.toml,line=1,endLine=2,title=precision-lens x::line one%0Aline two 100%25\n");
  });
});

describe("--quiet, --max-warnings, standard input", () => {
  const seed = readFileSync(join(ROOT, "examples/tp_only_8gpu.toml"), "utf8");
  const runStdin = (args: string[], text: string) => {
    let out = "";
    let err = "";
    const code = runCli(args, { stdout: (s) => (out += s), stderr: (s) => (err += s), cwd: ROOT, stdin: () => text });
    return { code, out, err };
  };

  it("--quiet drops warnings from the output; errors stay", () => {
    const loud = runCliCaptured(["check", "--format", "json", "examples/tp_only_8gpu.toml", "examples/bad_degrees.toml"], ROOT);
    const quiet = runCliCaptured(["check", "--format", "json", "--quiet", "examples/tp_only_8gpu.toml", "examples/bad_degrees.toml"], ROOT);
    type J = { files: { diagnostics: { severity: string; code: string }[] }[] };
    const sev = (o: string) => (JSON.parse(o) as J).files.flatMap((f) => f.diagnostics.map((d) => d.severity));
    assert.ok(sev(loud.out).includes("warning"));
    assert.deepEqual([...new Set(sev(quiet.out))], ["error"]);
    assert.equal(quiet.code, 1);
    assert.equal(runCliCaptured(["check", "--quiet", "examples/tp_only_8gpu.toml"], ROOT).out.includes("no-mixed-precision"), false);
  });

  it("--max-warnings N: exit 1 above N warnings, 0 at N", () => {
    const over = runCliCaptured(["check", "--max-warnings", "0", "examples/tp_only_8gpu.toml"], ROOT);
    assert.equal(over.code, 1);
    assert.match(over.err, /1 warning, more than --max-warnings 0/);
    assert.equal(runCliCaptured(["check", "--max-warnings", "1", "examples/tp_only_8gpu.toml"], ROOT).code, 0);
    assert.equal(runCliCaptured(["check", "--max-warnings=-1", "examples/tp_only_8gpu.toml"], ROOT).code, 2);
  });

  it("- with --stdin-filename analyses standard input as that file", () => {
    const r = runStdin(["check", "--format", "json", "--stdin-filename", "configs/train.toml", "-"], seed);
    assert.equal(r.code, 0, r.err);
    const f = (JSON.parse(r.out) as { files: { path: string; framework: string; diagnostics: { code: string; range: { start: { line: number } } }[] }[] }).files;
    assert.deepEqual(f.map((x) => [x.path, x.framework, x.diagnostics.map((d) => [d.code, d.range.start.line])]), [["configs/train.toml", "torchtitan", [["no-mixed-precision", 25]]]]);
    // The extension of NAME picks the parser: the same text named .yaml is not a training config.
    const asYaml = runStdin(["check", "--format", "json", "--stdin-filename", "train.yaml", "-"], "compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\n");
    assert.equal((JSON.parse(asYaml.out) as { files: { framework: string }[] }).files[0]!.framework, "accelerate");
  });

  it("usage errors: - without --stdin-filename, --stdin-filename without -, --fix with -", () => {
    assert.equal(runStdin(["check", "-"], seed).code, 2);
    assert.match(runStdin(["check", "-"], seed).err, /needs --stdin-filename NAME/);
    assert.equal(runStdin(["check", "--stdin-filename", "a.toml", "examples"], seed).code, 2);
    assert.equal(runStdin(["check", "--fix", "--stdin-filename", "a.toml", "-"], seed).code, 2);
  });
});
