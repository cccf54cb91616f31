/**
 * .pre-commit-hooks.yaml: its hook runs the way pre-commit runs a hook (pre_commit/languages/node.py +
 * helpers.run_xargs): the package's bin on PATH, `entry` split like a shell word list, the hook's `args`,
 * then the staged files that `files` matches appended; a non-zero exit fails the commit.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { parse } from "yaml";

const ROOT = resolve(__dirname, "..");

interface HookDef {
  id: string;
  name: string;
  entry: string;
  language: string;
  files?: string;
  exclude?: string;
  args?: string[];
  types?: string[];
}

const hooks = parse(readFileSync(join(ROOT, ".pre-commit-hooks.yaml"), "utf8")) as HookDef[];

describe(".pre-commit-hooks.yaml", () => {
  // What `npm install -g <packed tarball>` puts on PATH: a `precision-lens` command running dist/cli.js.
  const bin = mkdtempSync(join(tmpdir(), "pl-precommit-"));
  writeFileSync(join(bin, "precision-lens"), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "dist", "cli.js")}" "$@"\n`);
  chmodSync(join(bin, "precision-lens"), 0o755);
  after(() => rmSync(bin, { recursive: true, force: true }));

  const hook = hooks.find((h) => h.id === "precision-lens")!;

  /** pre-commit's file selection (re.search on the path) and command line (shlex.split(entry) + args + files). */
  function runHook(staged: string[], extraArgs: string[] = []): { status: number | null; stdout: string; stderr: string; files: string[] } {
    const files = staged.filter((f) => (!hook.files || new RegExp(hook.files).test(f)) && (!hook.exclude || !new RegExp(hook.exclude).test(f)));
    assert.match(hook.entry, /^[\w.\s-]+$/, "entry is a plain word list (shlex.split == split on spaces)");
    const [cmd, ...entryArgs] = hook.entry.trim().split(/\s+/);
    const r = spawnSync(cmd!, [...entryArgs, ...(hook.args ?? []), ...extraArgs, ...files], { cwd: ROOT, encoding: "utf8", env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ""}` } });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, files };
  }

  it("defines one node hook named precision-lens over TOML, YAML and JSON files", () => {
    assert.deepEqual(hooks.map((h) => [h.id, h.language, h.entry]), [["precision-lens", "node", "precision-lens check"]]);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
    assert.ok(pkg.bin[hook.entry.split(/\s+/)[0]!], "entry's command is a bin of the package pre-commit installs");
  });

  it("passes a commit whose configs have warnings only; skips files it does not match", () => {
    const r = runHook(["README.md", "examples/tp_only_8gpu.toml", "examples/fsdp_8gpu.toml", "server/src/server.ts"]);
    assert.deepEqual(r.files, ["examples/tp_only_8gpu.toml", "examples/fsdp_8gpu.toml"]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /examples\/tp_only_8gpu\.toml:26:1: warning \[no-mixed-precision\]/);
    assert.match(r.stdout, /2 training configs checked: 0 errors, 1 warning/);
  });

  it("fails a commit with an error-level diagnostic", () => {
    const r = runHook(["examples/bad_degrees.toml", "examples/yaml/accelerate/fsdp2_bf16.yaml"]);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /examples\/bad_degrees\.toml:\d+:\d+: error \[parallel-dims-product\]/);
  });

  it("args: [--max-warnings, \"0\"] makes warnings fail the commit", () => {
    const r = runHook(["examples/tp_only_8gpu.toml"], ["--max-warnings", "0"]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /1 warning, more than --max-warnings 0/);
  });
});
