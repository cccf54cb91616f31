/**
 * `precision-lens-language-server` started by hand (no transport, --help, --version) prints a usage line or
 * its version and exits 0/2, like the CLI, instead of loading the server (which dumped minified source and
 * "Connection input stream is not set" and exited 1). With --stdio it starts: test/npm-package.test.ts.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const BIN = resolve(__dirname, "../bin/precision-lens-language-server.js");
const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 20_000 });
const version = (JSON.parse(readFileSync(resolve(__dirname, "../package.json"), "utf8")) as { version: string }).version;

describe("precision-lens-language-server without a transport", () => {
  it("no argument: the usage on stderr, exit 2", () => {
    const r = run();
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^usage: precision-lens-language-server --stdio/);
    assert.ok(r.stderr.length < 600, `stderr is ${r.stderr.length} chars`);
    assert.equal(r.stdout, "");
  });
  it("--help: the usage on stdout, exit 0", () => {
    const r = run("--help");
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^usage: precision-lens-language-server --stdio \| --node-ipc/);
    assert.equal(r.stderr, "");
  });
  it("--version: the package version, exit 0", () => {
    const r = run("--version");
    assert.equal(r.status, 0);
    assert.equal(r.stdout, `${version}\n`);
  });
  it("an unknown argument: named, with the usage, exit 2", () => {
    const r = run("--stdoi");
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown argument --stdoi\nusage:/);
  });
});
