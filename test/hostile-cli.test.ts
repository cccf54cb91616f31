/**
 * Issue #18, the CLI and host side: a repository a CI job checks may be hostile. The folder walk stays in
 * the tree it was given (item 1), every string from the repository is escaped for the channel it is printed
 * on (item 3), odd encodings are reported, not skipped (item 4), and impossible arguments are usage errors
 * (item 5). Each test failed before its fix.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../server/src/cliMain";
import { escapeData, escapeProperty, githubLines } from "../server/src/cli/github";
import { logLine } from "../server/src/host/terminal";
import { runCliCaptured } from "./support/cli";

const ROOT = resolve(__dirname, "..");
const FSDP = readFileSync(join(ROOT, "examples/fsdp_8gpu.toml"), "utf8");

function tmp(): string {
  return mkdtempSync(join(tmpdir(), "pl-hostile-"));
}

type JsonOut = { files: { path: string; framework: string | null; skipped?: string; diagnostics: { code: string; severity: string; message: string }[] }[] };
const json = (s: string): JsonOut => JSON.parse(s) as JsonOut;

/** A line a GitHub Actions runner would read as a workflow command (ActionCommand.cs@258d6c857:62-63, 132). */
function isWorkflowCommand(line: string): boolean {
  return /^\s*::/.test(line) || line.includes("##[");
}

describe("argument validation (item 5)", () => {
  it("main@ dates before torchtitan's first commit (2023-12-13) are usage errors", () => {
    for (const v of ["main@0000-01-01", "main@1999-12-31", "main@2023-12-12"]) {
      const r = runCliCaptured(["check", "--torchtitan-version", v, "examples/fsdp_8gpu.toml"], ROOT);
      assert.equal(r.code, 2, v);
      assert.match(r.err, new RegExp(`--torchtitan-version: unknown version "${v}" \\(.*a real date from 2023-12-13 to 2026-02-23[;)]`));
      assert.equal(runCliCaptured(["schema", "--torchtitan-version", v], ROOT).code, 2, `schema ${v}`);
    }
    assert.equal(runCliCaptured(["check", "--torchtitan-version", "main@2023-12-13", "examples/fsdp_8gpu.toml"], ROOT).code, 0);
  });

  it("--stdin-filename '' (or blank) is a usage error", () => {
    for (const name of ["", "   "]) {
      let out = "";
      let err = "";
      const code = runCli(["check", "--stdin-filename", name, "-"], { stdout: (s) => (out += s), stderr: (s) => (err += s), cwd: ROOT, stdin: () => FSDP });
      assert.equal(code, 2, JSON.stringify(name));
      assert.match(err, /--stdin-filename needs a file name \(its extension picks TOML, YAML or JSON\)/);
      assert.equal(out, "");
    }
  });
});

describe("the folder walk stays in the tree it was given (item 1)", () => {
  it("links that leave the tree are skipped and named with --verbose; links inside are followed", (t) => {
    const d = tmp();
    mkdirSync(join(d, "repo", "sub"), { recursive: true });
    mkdirSync(join(d, "host"));
    writeFileSync(join(d, "host", "secret.toml"), FSDP);
    writeFileSync(join(d, "repo", "sub", "run.toml"), FSDP);
    try {
      symlinkSync(join(d, "host"), join(d, "repo", "rootfs"));
      symlinkSync(join(d, "host", "secret.toml"), join(d, "repo", "outside.toml"));
      symlinkSync("sub", join(d, "repo", "inside"));
      symlinkSync("../run.toml", join(d, "repo", "sub", "..run-link.toml"));
    } catch {
      return t.skip("symlinks are not available here");
    }
    const r = runCliCaptured(["check", "--verbose", "--format", "json", "."], join(d, "repo"));
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(json(r.out).files.map((f) => f.path), ["inside/run.toml"]);
    assert.doesNotMatch(r.out, /secret/);
    assert.match(r.err, /^precision-lens: rootfs: skipped: a symbolic link to a folder outside the tree being checked \(\.\)$/m);
    assert.match(r.err, /^precision-lens: outside\.toml: skipped: a symbolic link to a file outside the tree being checked \(\.\)$/m);
    const quiet = runCliCaptured(["check", "."], join(d, "repo"));
    assert.equal(quiet.err, "");
    // Named on the command line, the link is the user's choice: its target is checked.
    const named = runCliCaptured(["check", "--format", "json", "outside.toml", "rootfs"], join(d, "repo"));
    assert.equal(named.code, 0, named.err);
    assert.deepEqual(json(named.out).files.map((f) => f.path), ["outside.toml"]);
  });

  it("a folder named `out` is walked (litgpt writes its configs there); skipped folders are named with --verbose", () => {
    const d = tmp();
    mkdirSync(join(d, "out", "finetune"), { recursive: true });
    mkdirSync(join(d, "node_modules", "pkg"), { recursive: true });
    writeFileSync(join(d, "out", "finetune", "run.toml"), FSDP);
    writeFileSync(join(d, "node_modules", "pkg", "run.toml"), FSDP);
    const r = runCliCaptured(["check", "--verbose", "--format", "json", "."], d);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(json(r.out).files.map((f) => f.path), ["out/finetune/run.toml"]);
    assert.match(r.err, /^precision-lens: node_modules: skipped: a dependency, version-control, build or virtualenv folder$/m);
  });

  it("a path over the system's length limit is named and counted, not dropped silently", (t) => {
    const d = tmp();
    // Built with relative steps (mkdir -p of one long path would itself fail): about 5,000 bytes deep.
    const seg = "d".repeat(200);
    const script = `const fs = require("fs"); process.chdir(process.argv[1]); for (let i = 0; i < 25; i++) { fs.mkdirSync(${JSON.stringify(seg)}); process.chdir(${JSON.stringify(seg)}); } fs.writeFileSync("run.toml", fs.readFileSync(0));`;
    const sh = spawnSync(process.execPath, ["-e", script, d], { input: FSDP });
    if (sh.status !== 0) return t.skip(`cannot build a deep path here: ${sh.stderr}`);
    writeFileSync(join(d, "top.toml"), FSDP);
    const r = runCliCaptured(["check", "."], d);
    assert.equal(r.code, 2, r.out + r.err);
    assert.match(r.out, /^top\.toml: torchtitan/m);
    assert.match(r.err, /^precision-lens: (d{200}\/){19,}.*: path too long for this system \(ENAMETOOLONG\); not read$/m);
  });

  it("a config whose file name is not valid UTF-8 is analysed, shown with the bytes escaped", (t) => {
    const d = tmp();
    const sh = spawnSync("sh", ["-c", `cd "$1" && cp "$3" "$(printf 'bad\\377name.toml')" && cp "$2" "$(printf 'ok\\377.toml')"`, "sh", d, join(ROOT, "examples/fsdp_8gpu.toml"), join(ROOT, "examples/bad_degrees.toml")]);
    if (sh.status !== 0) return t.skip(`cannot make a non-UTF-8 file name here: ${sh.stderr}`);
    const r = runCliCaptured(["check", "--verbose", "."], d);
    assert.doesNotMatch(r.err, /broken symbolic link/);
    assert.match(r.out, /^bad\\xffname\.toml: torchtitan/m);
    assert.match(r.out, /^ok\\xff\.toml: torchtitan/m);
    assert.match(r.out, /^2 training configs checked: [1-9]/m);
    assert.equal(r.code, 1, r.out + r.err);
  });
});

describe("every string from the repository is escaped for its channel (item 3)", () => {
  const KEY = '"x\\n::error::pwned\\r\\n::add-mask::y ##[error]v1" = 1\n';

  it("explain keeps no raw newline from a key name, and prints no workflow command", () => {
    const d = tmp();
    writeFileSync(join(d, "run.toml"), FSDP.replace("[training]\n", `[training]\n${KEY}`));
    writeFileSync(join(d, "l.json"), JSON.stringify({ train_batch_size: 8, bf16: { enabled: true }, "a\n::warning::w": 1, zero_optimization: { stage: 2 } }));
    for (const f of ["run.toml", "l.json"]) {
      const r = runCliCaptured(["explain", f], d);
      assert.ok(r.code === 0 || r.code === 1, r.err);
      const bad = r.out.split("\n").filter(isWorkflowCommand);
      assert.deepEqual(bad, [], f);
    }
    const r = runCliCaptured(["explain", "run.toml"], d);
    assert.match(r.out, /training\.x\\x0a::error::pwned\\x0d\\x0a::add-mask::y #\\x23\[error\]v1/);
  });

  it("check text: a file or key named like a workflow command is not one", () => {
    const d = tmp();
    writeFileSync(join(d, "::error::pwned.toml"), FSDP.replace("[training]\n", `[training]\n${KEY}`));
    const r = runCliCaptured(["check", "."], d);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.out.split("\n").filter(isWorkflowCommand), []);
    assert.match(r.out, /^\\x3a:error::pwned\.toml: torchtitan/m);
  });

  it("stderr: a read error, a --verbose skip and a failed --fix never print a raw file name", (t) => {
    const d = tmp();
    const evil = "a\n::error::pwned";
    // A name part over 255 bytes: Node's ENAMETOOLONG message quotes the raw path.
    const long = `${evil}${"x".repeat(260)}.toml`;
    const r = runCliCaptured(["check", long], d);
    assert.equal(r.code, 2);
    assert.deepEqual(r.err.split("\n").filter(isWorkflowCommand), []);
    assert.match(r.err, /^precision-lens: a\\x0a::error::pwnedx+\.toml: path too long for this system \(ENAMETOOLONG\); not read$/m);
    // A link whose target name is too long: the walk's stat fails with the link's raw path in the message.
    try {
      symlinkSync(long, join(d, `${evil}.toml`));
    } catch {
      return t.skip("symlinks are not available here");
    }
    const v = runCliCaptured(["check", "--verbose", "."], d);
    assert.deepEqual(v.err.split("\n").filter(isWorkflowCommand), []);
    assert.match(v.err, /^precision-lens: a\\x0a::error::pwned\.toml: skipped: a symbolic link whose target is a path too long for this system \(ENAMETOOLONG\)$/m);
    // --fix of a file whose name leaves no room for the temporary file's name (ENAMETOOLONG on open).
    const fixable = `${evil}${"y".repeat(225)}.toml`;
    writeFileSync(join(d, fixable), "[job]\nprint_args = true\n\n[parallelism]\ndata_parallel_shard_degree = -1\n");
    const f = runCliCaptured(["check", "--fix", "--torchtitan-version", "v0.2.2", fixable], d);
    assert.equal(f.code, 2, f.out + f.err);
    assert.deepEqual(f.err.split("\n").filter(isWorkflowCommand), []);
    assert.match(f.err, /^precision-lens: a\\x0a::error::pwnedy+\.toml: cannot write the fixed file \(ENAMETOOLONG: name too long, open '.*\.a\\x0a::error::pwnedy+\.toml\.precision-lens-.*\.tmp'\); the original is untouched$/m);
  });

  it("--format github escapes %, CR and LF (GitHub's rules), and ESC, bidi overrides and other controls", () => {
    const d = tmp();
    writeFileSync(join(d, "run.toml"), FSDP.replace("[training]\n", '[training]\n"p%\\u001b[31m\\u202e\\u0007\\r\\n::error::z" = 1\n'));
    const r = runCliCaptured(["check", "--format", "github", "run.toml"], d);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    const lines = r.out.trimEnd().split("\n");
    assert.ok(lines.every((l) => /^::(error|warning|notice) file=run\.toml,/.test(l)), r.out);
    // The line break of the key is already `\x0d\x0a` in the message (core/diagnostics/build.ts oneLine).
    assert.match(r.out, /training\.p%25\\x1b\[31m\\u202e\\x07\\x0d\\x0a::error::z/);
    assert.equal(escapeData("a%b\r\nc\u001b\u2066"), "a%25b%0D%0Ac\\x1b\\u2066");
    assert.equal(escapeProperty("a:b,c\u202e"), "a%3Ab%2Cc\\u202e");
    assert.equal(githubLines({ path: "x\u001b.toml", absPath: "/x", result: { diagnostics: [] } as never }).length, 0);
  });

  it("logLine: one line, nothing a runner reads as a command", () => {
    assert.equal(logLine("::error::x"), "\\x3a:error::x");
    assert.equal(logLine("  ::warning::x"), "  \\x3a:warning::x");
    assert.equal(logLine("a ##[error]b"), "a #\\x23[error]b");
    assert.equal(logLine("a\nb\u001b"), "a\\x0ab\\x1b");
    assert.equal(logLine("plain: a::b"), "plain: a::b");
  });
});

describe("input encodings (item 4)", () => {
  const run = (args: string[], cwd: string, stdin?: () => string | Buffer) => {
    let out = "";
    let err = "";
    const code = runCli(args, { stdout: (s) => (out += s), stderr: (s) => (err += s), cwd, stdin });
    return { code, out, err };
  };

  it("standard input gets invalid-utf8 like a file", () => {
    const bytes = Buffer.concat([Buffer.from(FSDP.replace("[training]\n", "[training]\n# caf")), Buffer.from([0xe9]), Buffer.from("\n")]);
    const d = tmp();
    writeFileSync(join(d, "file.toml"), bytes);
    const file = run(["check", "--format", "json", "file.toml"], d);
    const stdin = run(["check", "--format", "json", "--stdin-filename", "file.toml", "-"], d, () => bytes);
    assert.equal(stdin.code, 1, stdin.err);
    assert.equal(file.code, 1, file.err);
    const diag = (o: string) => json(o).files[0]!.diagnostics.filter((x) => x.code === "invalid-utf8");
    assert.equal(diag(stdin.out).length, 1);
    assert.deepEqual(diag(stdin.out), diag(file.out));
    assert.match(diag(stdin.out)[0]!.message, /not valid UTF-8 \(byte 0xe9 at offset \d+\)/);
  });

  it("a UTF-16 config (with BOM) is an error that says UTF-16, not a silent binary skip", () => {
    const d = tmp();
    writeFileSync(join(d, "le.toml"), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(FSDP, "utf16le")]));
    const be = Buffer.from(FSDP, "utf16le").swap16();
    writeFileSync(join(d, "be.toml"), Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
    writeFileSync(join(d, "notes.json"), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a": 1}', "utf16le")]));
    const r = run(["check", "--format", "json", "."], d);
    assert.equal(r.code, 1, r.out + r.err);
    const files = json(r.out).files;
    for (const f of ["be.toml", "le.toml"]) {
      const o = files.find((x) => x.path === f)!;
      assert.equal(o.framework, "torchtitan", f);
      const u = o.diagnostics.find((x) => x.code === "invalid-utf8");
      assert.ok(u, `${f}: ${o.diagnostics.map((x) => x.code).join()}`);
      assert.equal(u.severity, "error");
      assert.match(u.message, /This file is UTF-16 \((little|big)-endian, with a byte-order mark\), not UTF-8: torchtitan's tomllib rejects it/);
    }
    // Not a training config: no diagnostic, as for any other file.
    assert.deepEqual(files.find((x) => x.path === "notes.json")?.diagnostics ?? [], []);
    const text = run(["check", "."], d);
    assert.match(text.out, /^2 training configs checked: 2 errors/m);
  });

  it("a training config with NUL bytes is an error, an unrelated binary file stays silent", () => {
    const d = tmp();
    writeFileSync(join(d, "run.toml"), `\u0000\u0000${FSDP}`);
    writeFileSync(join(d, "tune.yaml"), `${readFileSync(join(ROOT, "examples/yaml/torchtune/llama3_8b_full_bf16.yaml"), "utf8")}\u0000`);
    writeFileSync(join(d, "blob.json"), "\u0000\u0001\u0002binary");
    const r = run(["check", "--format", "json", "."], d);
    assert.equal(r.code, 1, r.out + r.err);
    const files = json(r.out).files;
    for (const [f, fw, pos] of [["run.toml", "torchtitan", "line 1, column 1"], ["tune.yaml", "torchtune", "line \\d+, column \\d+"]] as const) {
      const o = files.find((x) => x.path === f)!;
      const n = o.diagnostics.find((x) => x.code === "nul-bytes");
      assert.ok(n, `${f}: ${JSON.stringify(o)}`);
      assert.equal(n.severity, "error");
      assert.match(n.message, new RegExp(`This ${fw} config contains NUL bytes \\(the first at ${pos}\\): Python's .* loader rejects it`));
    }
    assert.deepEqual(files.find((x) => x.path === "blob.json")?.diagnostics ?? [], []);
  });

  it("a DeepSpeed JSON whose syntax error comes before its markers still gets the error", () => {
    const d = tmp();
    writeFileSync(join(d, "ds_config.json"), '{"train_batch_size": 8,, "bf16": {"enabled": true}, "zero_optimization": {"stage": 2}}\n');
    writeFileSync(join(d, "package.json"), '{"name": "x",, "version": "1.0.0"}\n');
    const r = run(["check", "--format", "json", "."], d);
    assert.equal(r.code, 1, r.out + r.err);
    const ds = json(r.out).files.find((x) => x.path === "ds_config.json")!;
    assert.deepEqual(ds.diagnostics.map((x) => x.code), ["json-syntax"]);
    assert.deepEqual(json(r.out).files.find((x) => x.path === "package.json")?.diagnostics ?? [], []);
  });

  it("duplicate-key diagnostics are capped per file, with one that says how many more", () => {
    const d = tmp();
    const n = 500;
    writeFileSync(join(d, "ds.json"), `{"train_batch_size": 8, "bf16": {"enabled": true}, "zero_optimization": {"stage": 2}${', "steps_per_print": 1'.repeat(n + 1)}}`);
    const r = run(["check", "--format", "json", "ds.json"], d);
    assert.equal(r.code, 1, r.err);
    const dups = json(r.out).files[0]!.diagnostics.filter((x) => x.code === "deepspeed/duplicate-key");
    assert.equal(dups.length, 21);
    assert.match(dups[20]!.message, new RegExp(`^${n - 20} more keys are defined twice in this file \\(the first 20 are listed\\): DeepSpeed refuses the config$`));
  });
});
