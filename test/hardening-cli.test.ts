/**
 * Issue #10, CLI side: a hostile repository or a careless user must never hang the checker, eat the
 * machine, or lose a byte. Special files are made in a temporary folder; a platform that cannot make
 * one (no mkfifo, no /dev/zero, no symlinks) skips that test with a message.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { type Stats, chmodSync, chownSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { FRAMEWORKS } from "../server/src/core/frameworks/index";
import type { FrameworkAnalyzer } from "../server/src/core/analysis";
import { collectConfigs, firstInvalidUtf8, readBounded } from "../server/src/host/files";
import { NODE_FS, replaceFileAtomically, type ReplaceFs } from "../server/src/host/replaceFile";
import { escapeControls } from "../server/src/host/terminal";
import { runCliCaptured } from "./support/cli";

const ROOT = resolve(__dirname, "..");
const CLI = join(ROOT, "dist/cli.js");
const FSDP = readFileSync(join(ROOT, "examples/fsdp_8gpu.toml"), "utf8");
/** A config with one safe fix (print_args moved to print_config in v0.2.2). */
const FIXABLE = `[job]\nprint_args = true\n\n[parallelism]\ndata_parallel_shard_degree = -1\n`;

function tmp(): string {
  return mkdtempSync(join(tmpdir(), "pl-hard-"));
}

/** The bundled CLI in a child process, killed after 30 s: a hang fails the test instead of the suite. */
function cli(args: string[], cwd: string): { code: number | null; out: string; err: string; signal: NodeJS.Signals | null } {
  const p = spawnSync(process.execPath, ["--max-old-space-size=512", CLI, ...args], { cwd, encoding: "utf8", timeout: 30_000 });
  return { code: p.status, out: p.stdout, err: p.stderr, signal: p.signal };
}

function json(out: string): { files: { path: string; framework: string | null; skipped?: string; fixes?: unknown; fixError?: string; diagnostics: { code: string; severity: string; message: string; range: { start: { line: number; character: number } } }[] }[] } {
  return JSON.parse(out);
}

describe("folder walk (items 1, 2, 3, 10)", () => {
  it("a symlink to /dev/zero in a walked folder is skipped, not read (item 1)", (t) => {
    if (!existsSync("/dev/zero")) return t.skip("no /dev/zero on this platform");
    const d = tmp();
    writeFileSync(join(d, "good.toml"), FSDP);
    symlinkSync("/dev/zero", join(d, "a.toml"));
    const r = cli(["check", "--verbose", "--format", "json", "."], d);
    assert.equal(r.signal, null, "finished");
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(json(r.out).files.map((f) => f.path), ["good.toml"]);
    assert.match(r.err, /a\.toml: skipped: a character device, not a regular file/);
    const explicit = cli(["check", "a.toml"], d);
    assert.equal(explicit.code, 2);
    assert.match(explicit.err, /a\.toml: is a character device, not a regular file/);
  });

  it("reads are capped in bytes whatever stat says (item 1)", (t) => {
    if (!existsSync("/proc/self/status")) return t.skip("no /proc on this platform");
    // /proc files are regular files whose stat size is 0: only the byte count can stop the read.
    assert.equal(statSync("/proc/self/status").size, 0);
    const r = readBounded("/proc/self/status", 16);
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.tooLarge, JSON.stringify(r));
    const d = tmp();
    writeFileSync(join(d, "x.toml"), "a".repeat(100));
    const small = readBounded(join(d, "x.toml"), 99);
    assert.ok(!small.ok && small.tooLarge);
    const ok = readBounded(join(d, "x.toml"), 100);
    assert.ok(ok.ok && ok.bytes.length === 100);
  });

  it("a FIFO in a walked folder is skipped; named explicitly it is an exit-2 error that says what it is (item 2)", (t) => {
    const d = tmp();
    writeFileSync(join(d, "good.toml"), FSDP);
    const mk = spawnSync("mkfifo", [join(d, "a.toml")]);
    if (mk.status !== 0) return t.skip("mkfifo is not available here");
    const r = cli(["check", "--verbose", "."], d);
    assert.equal(r.signal, null, "did not hang on the FIFO");
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^good\.toml: torchtitan/m);
    assert.match(r.err, /a\.toml: skipped: not a regular file/);
    const quiet = cli(["check", "."], d);
    assert.doesNotMatch(quiet.err, /a\.toml/, "skips are listed only with --verbose");
    const explicit = cli(["check", "a.toml"], d);
    assert.equal(explicit.signal, null);
    assert.equal(explicit.code, 2);
    assert.match(explicit.err, /a\.toml: is a FIFO \(named pipe\), not a regular file/);
  });

  it("symlink cycles: each real folder is walked once, each file checked once (item 3)", (t) => {
    const d = tmp();
    mkdirSync(join(d, "sub"));
    writeFileSync(join(d, "sub", "run.toml"), FSDP);
    try {
      symlinkSync(".", join(d, "sub", "self"));
      symlinkSync("..", join(d, "sub", "up"));
      symlinkSync("run.toml", join(d, "sub", "alias.toml"));
    } catch {
      return t.skip("symlinks are not available here");
    }
    const r = cli(["check", "--format", "json", "sub", "."], d);
    assert.equal(r.signal, null, "the walk ended");
    // One of the two names of the file (the link sorts first), once.
    assert.deepEqual(json(r.out).files.map((f) => f.path), ["sub/alias.toml"]);
  });

  it("the walk is one readdir per folder, and the analysis lists a folder once for all its configs (item 10)", () => {
    const d = tmp();
    for (let i = 0; i < 50; i++) writeFileSync(join(d, `c${String(i).padStart(2, "0")}.toml`), FSDP);
    writeFileSync(join(d, "notes.txt"), "x");
    const c = collectConfigs(".", d);
    assert.equal(c.files.length, 50);
    assert.deepEqual(c.errors, []);
    // The Node env hands out the same listing while the folder is unchanged, so the per-file pattern
    // filters (run scripts, pins) are computed once per folder, not once per file.
    const { nodeEnv } = require("../server/src/host/nodeEnv") as typeof import("../server/src/host/nodeEnv");
    const a = nodeEnv(join(d, "c00.toml"), [d]).listDir(d);
    const b = nodeEnv(join(d, "c01.toml"), [d]).listDir(d);
    assert.equal(a, b, "one listing per folder state");
    assert.ok(Object.isFrozen(a));
    writeFileSync(join(d, "new.toml"), FSDP);
    const after = nodeEnv(join(d, "c00.toml"), [d]).listDir(d);
    assert.ok(after.includes("new.toml"), "a changed folder is listed again");
  });
});

describe("--fix writes atomically (items 4, 5, 13)", () => {
  const failingWrite = (code: string): ReplaceFs => ({
    ...NODE_FS,
    writeSync: () => {
      const e = new Error(`${code}: no space left on device, write`) as NodeJS.ErrnoException;
      e.code = code;
      throw e;
    },
  });

  function fresh(text = FIXABLE): { d: string; f: string; bytes: Buffer; st: Stats } {
    const d = tmp();
    const f = join(d, "run.toml");
    writeFileSync(f, text);
    return { d, f, bytes: readFileSync(f), st: statSync(f) };
  }

  it("a failing write (ENOSPC, injected) leaves the original untouched and no temporary file (item 4)", () => {
    // A real full disk cannot be made in a test: the write is injected to fail like one (dependency injection).
    const { d, f, bytes, st } = fresh();
    const r = replaceFileAtomically(f, Buffer.from("new text"), { bytes, mtimeMs: st.mtimeMs, size: st.size }, failingWrite("ENOSPC"));
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.error : "", /ENOSPC.*the original is untouched/);
    assert.deepEqual(readFileSync(f), bytes);
    assert.deepEqual(readdirSync(d), ["run.toml"], "the temporary file is removed");
  });

  it("success keeps mode, the symlink and its target, and CRLF", (t) => {
    const { d, f } = fresh(FIXABLE.replace(/\n/g, "\r\n"));
    chmodSync(f, 0o640);
    try {
      symlinkSync("run.toml", join(d, "link.toml"));
    } catch {
      return t.skip("symlinks are not available here");
    }
    const r = runCliCaptured(["check", "--fix", "--torchtitan-version", "v0.2.2", "link.toml"], d);
    assert.match(r.out, /fixed \[moved-key\]/, r.out + r.err);
    assert.ok(lstatSync(join(d, "link.toml")).isSymbolicLink(), "the link is still a link");
    assert.equal(readlinkSync(join(d, "link.toml")), "run.toml");
    assert.equal(statSync(f).mode & 0o777, 0o640);
    const text = readFileSync(f, "utf8");
    assert.ok(text.startsWith("[job]\r\nprint_config = true\r\n"), JSON.stringify(text));
    assert.deepEqual(readdirSync(d).sort(), ["link.toml", "run.toml"]);
  });

  it("the owner is kept (run as root; skipped otherwise)", (t) => {
    if (typeof process.getuid !== "function" || process.getuid() !== 0) return t.skip("changing a file's owner needs root");
    const { d, f } = fresh();
    chownSync(f, 4321, 4322);
    const r = runCliCaptured(["check", "--fix", "--torchtitan-version", "v0.2.2", "run.toml"], d);
    assert.match(r.out, /fixed \[moved-key\]/, r.out + r.err);
    const st = statSync(f);
    assert.deepEqual([st.uid, st.gid], [4321, 4322]);
    assert.match(readFileSync(f, "utf8"), /print_config = true/);
  });

  it("a file with several hard links is not replaced (a rename would split them)", () => {
    const { d, f } = fresh();
    linkSync(f, join(d, "other.toml"));
    const r = runCliCaptured(["check", "--fix", "--format", "json", "--torchtitan-version", "v0.2.2", "run.toml"], d);
    assert.equal(readFileSync(f, "utf8"), FIXABLE);
    assert.equal(r.code, 2);
    assert.match(json(r.out).files[0]!.fixError!, /2 hard links/);
  });

  it("a file changed while --fix ran is not overwritten (item 13)", () => {
    const { f, bytes, st } = fresh();
    writeFileSync(f, FIXABLE + "# edited by someone else\n");
    const r = replaceFileAtomically(f, Buffer.from("fixed"), { bytes, mtimeMs: st.mtimeMs, size: st.size });
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.changed);
    assert.match(!r.ok ? r.error : "", /changed while precision-lens was checking it/);
    assert.equal(readFileSync(f, "utf8"), FIXABLE + "# edited by someone else\n");
  });

  it("invalid UTF-8 is reported and never rewritten (item 5)", () => {
    const d = tmp();
    const f = join(d, "run.toml");
    const bytes = Buffer.concat([Buffer.from(FIXABLE.replace("[parallelism]", "# caf\u00e9 ")), Buffer.from([0xff, 0x0a]), Buffer.from("[parallelism]\n")]);
    writeFileSync(f, bytes);
    assert.equal(firstInvalidUtf8(bytes), bytes.indexOf(0xff));
    const r = runCliCaptured(["check", "--fix", "--format", "json", "--torchtitan-version", "v0.2.2", "run.toml"], d);
    assert.deepEqual(readFileSync(f), bytes, "not a byte changed");
    const file = json(r.out).files[0]!;
    const bad = file.diagnostics.find((x) => x.code === "invalid-utf8");
    assert.ok(bad, JSON.stringify(file.diagnostics));
    assert.equal(bad.severity, "error");
    assert.equal(bad.range.start.line, 5);
    assert.match(bad.message, /not valid UTF-8 \(byte 0xff at offset \d+\): torchtitan's tomllib rejects it/);
    assert.equal(r.code, 1);
  });

  it("the JSON output of --fix carries the fixes field of the documented contract (docs/cli.md)", () => {
    const { d } = fresh();
    const r = runCliCaptured(["check", "--fix", "--format", "json", "--torchtitan-version", "v0.2.2", "run.toml"], d);
    assert.deepEqual(json(r.out).files[0]!.fixes, { applied: [{ code: "moved-key", title: (json(r.out).files[0]!.fixes as { applied: { title: string }[] }).applied[0]!.title, line: 2 }], needsChoice: [] });
    const doc = readFileSync(join(ROOT, "docs/cli.md"), "utf8");
    assert.match(doc, /`fixes`: \{ `applied`/);
  });
});

describe("per-file failures and limits (items 6, 11, 12, 14)", () => {
  it("deep TOML nesting is not parsed: a clear not-analysed warning, the other files' results intact (item 6)", () => {
    const d = tmp();
    writeFileSync(join(d, "a_deep.toml"), FSDP + "\n[extra]\nzz = " + "[".repeat(2000) + "1" + "]".repeat(2000) + "\n");
    writeFileSync(join(d, "b_good.toml"), FSDP);
    const r = cli(["check", "--format", "json", "."], d);
    assert.equal(r.code, 0, r.err);
    const files = json(r.out).files;
    assert.deepEqual(files.map((f) => [f.path, f.framework]), [["a_deep.toml", null], ["b_good.toml", "torchtitan"]]);
    const line = (FSDP + "\n[extra]\n").split("\n").length;
    assert.match(files[0]!.skipped!, new RegExp(`nest more than 64 levels deep \\(at line ${line}\\)`));
    assert.deepEqual(files[0]!.diagnostics.map((x) => [x.code, x.severity]), [["not-analysed", "warning"]]);
  });

  it("a file the analysis fails on is an internal-error for that file only; exit 3, so `npm run examples` fails (item 6)", () => {
    const d = tmp();
    writeFileSync(join(d, "a_crash.toml"), FSDP + "# crash-me\n");
    writeFileSync(join(d, "b_good.toml"), FSDP);
    // A framework whose detection throws on one file stands in for any bug in a parser or analyser.
    const bomb: FrameworkAnalyzer = {
      id: "torchtitan",
      formats: ["toml"],
      detect(doc) {
        if (doc.text.includes("# crash-me")) throw new RangeError("Maximum call stack size exceeded");
        return undefined;
      },
      analyze: () => ({ diagnostics: [] }) as never,
    };
    const list = FRAMEWORKS as FrameworkAnalyzer[];
    list.unshift(bomb);
    try {
      const r = runCliCaptured(["check", "--format", "json", "."], d);
      assert.equal(r.code, 3);
      const files = json(r.out).files;
      assert.deepEqual(files.map((f) => [f.path, f.diagnostics.map((x) => x.code)]), [["a_crash.toml", ["internal-error"]], ["b_good.toml", []]]);
      assert.match(files[0]!.diagnostics[0]!.message, /failed to analyse this file \(Maximum call stack size exceeded\)/);
    } finally {
      list.shift();
    }
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    assert.match(pkg.scripts.examples!, /test \$\? -le 1/, "examples accepts 0 and 1 only, so exit 3 fails it");
  });

  it("files over the size limit get a line and a JSON field, not silence (item 12)", () => {
    const d = tmp();
    writeFileSync(join(d, "big.toml"), FSDP + "# " + "x".repeat(600_000) + "\n");
    const text = runCliCaptured(["check", "big.toml"], d);
    assert.equal(text.code, 0);
    assert.match(text.out, /^big\.toml: not analysed: Precision Lens did not analyse this file: it has \d+ characters, over the limit of 512000\.$/m);
    const j = json(runCliCaptured(["check", "--format", "json", "big.toml"], d).out);
    assert.match(j.files[0]!.skipped!, /over the limit of 512000/);
  });

  it("control characters and bidi overrides are escaped in text output (item 14)", () => {
    const d = tmp();
    writeFileSync(join(d, "run.toml"), FSDP.replace("[job]\n", '[job]\n"\\u001b[2J\\u202e" = 1\n'));
    const r = runCliCaptured(["check", "run.toml"], d);
    assert.doesNotMatch(r.out, /[\u001b\u202e]/);
    assert.match(r.out, /\\x1b\[2J\\u202e/);
    assert.equal(escapeControls("a\u0007b\tc\u2066"), "a\\x07b\tc\\u2066");
  });
});

describe("argument checking (item 15)", () => {
  const run = (args: string[], cwd = ROOT) => runCliCaptured(args, cwd);

  it("--world-size is bounded and shown as typed", () => {
    const big = run(["check", "--world-size", "99999999999999999999", "examples"]);
    assert.equal(big.code, 2);
    assert.match(big.err, /--world-size must be at most 1048576 \(2\^20\), got "99999999999999999999"/);
    assert.match(run(["check", "--world-size", "1e23", "examples"]).err, /must be a positive integer, got "1e23"/);
    assert.match(run(["check", "--world-size", "0", "examples"]).err, /must be a positive integer, got "0"/);
    assert.equal(run(["check", "--world-size", "1048576", "examples/fsdp_8gpu.toml"]).code, 0);
  });

  it("main@ dates must exist", () => {
    const r = run(["check", "--torchtitan-version", "main@2025-02-30", "examples"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown version "main@2025-02-30"/);
    assert.equal(run(["check", "--torchtitan-version", "main@2025-02-28", "examples/fsdp_8gpu.toml"]).code, 0);
    assert.equal(run(["schema", "--torchtitan-version", "main@2024-02-30"]).code, 2);
  });

  it('an empty path is an error, not "the current folder"', () => {
    const r = run(["check", ""]);
    assert.equal(r.code, 2);
    assert.match(r.err, /an empty path \(""\) is not a file or folder/);
  });

  it("-- ends the options: a file named like an option is a path", () => {
    const d = tmp();
    writeFileSync(join(d, "--weird.toml"), FSDP);
    assert.equal(run(["check", "--weird.toml"], d).code, 2);
    const r = run(["check", "--format", "json", "--", "--weird.toml"], d);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(json(r.out).files.map((f) => f.path), ["--weird.toml"]);
  });

  it("check --help and explain --help print the usage and exit 0", () => {
    for (const cmd of ["check", "explain"]) {
      const r = run([cmd, "--help"]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /^Usage:/);
    }
    assert.match(run(["check", "--fix=yes", "x"]).err, /--fix takes no value/);
  });

  it("explain applies the size cap and refuses special files", (t) => {
    const d = tmp();
    writeFileSync(join(d, "huge.toml"), "a".repeat(8 * 1024 * 1024 + 1));
    const r = run(["explain", "huge.toml"], d);
    assert.equal(r.code, 2);
    assert.match(r.err, /over the 8388608-byte limit/);
    if (!existsSync("/dev/zero")) return t.skip("no /dev/zero");
    symlinkSync("/dev/zero", join(d, "z.toml"));
    const z = cli(["explain", "z.toml"], d);
    assert.equal(z.signal, null);
    assert.equal(z.code, 2);
    assert.match(z.err, /is a character device/);
  });
});
