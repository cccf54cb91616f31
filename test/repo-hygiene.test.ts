/**
 * What a fresh clone leaves behind: `npm pack`'s tarball is ignored, and `npm run setup:e2e` does not print
 * npm's 'Unknown env config "unsafe-perm"' warning (code-server's postinstall still gets the variable).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "..");

describe("repository hygiene", () => {
  it("npm pack's .tgz is git-ignored", () => {
    const r = spawnSync("git", ["check-ignore", "-q", "precision-lens-0.1.0.tgz"], { cwd: ROOT });
    assert.equal(r.status, 0, "precision-lens-0.1.0.tgz is not ignored by .gitignore");
  });
  it("setup:e2e filters npm's unsafe-perm warning from the npm it runs", () => {
    const sh = readFileSync(resolve(ROOT, "e2e/setup.sh"), "utf8");
    const npmLine = sh.split("\n").find((l) => /^npm /.test(l));
    assert.ok(npmLine, "setup.sh runs npm");
    assert.match(npmLine, /2> >\(grep -v 'config "unsafe-perm"' >&2\)/);
    assert.match(sh, /^export npm_config_unsafe_perm=true/m); // code-server's postinstall refuses root without it
  });
  it("setup:e2e run with an npm that warns about unsafe-perm prints every other line, not that warning", (t) => {
    if (spawnSync("rg", ["--version"]).status !== 0) return t.skip("ripgrep is not installed (apt-get install -y ripgrep); setup.sh needs it");
    if (spawnSync("test", ["-x", resolve(ROOT, "e2e/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg")]).status !== 0) return t.skip("e2e/node_modules is not installed (npm run setup:e2e)");
    const dir = mkdtempSync(join(tmpdir(), "pl-setup-e2e-"));
    try {
      // A stand-in npm: npm 10's warning on stderr, its other output and the variable code-server reads.
      const bin = join(dir, "bin");
      mkdirSync(bin);
      mkdirSync(join(dir, "tmp"));
      const npm = join(bin, "npm");
      writeFileSync(npm, `#!/bin/sh\necho 'npm warn Unknown env config "unsafe-perm". This will stop working in the next major version of npm.' >&2\necho "npm warn deprecated some-package@1.0.0" >&2\necho "npm $* unsafe_perm=$npm_config_unsafe_perm"\nexit \${FAKE_NPM_STATUS:-0}\n`);
      chmodSync(npm, 0o755);
      const run = (status: number) => spawnSync("bash", [resolve(ROOT, "e2e/setup.sh")], { encoding: "utf8", env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, TMPDIR: join(dir, "tmp"), FAKE_NPM_STATUS: String(status) }, timeout: 60_000 });
      const ok = run(0);
      assert.equal(ok.status, 0, ok.stderr);
      assert.doesNotMatch(ok.stdout + ok.stderr, /unsafe-perm/);
      assert.match(ok.stderr, /npm warn deprecated some-package@1\.0\.0/);
      assert.match(ok.stdout, /^npm ci --no-audit --no-fund unsafe_perm=true$/m);
      assert.match(ok.stdout, /^e2e harness ready: 4\.100\.3 code-server/m);
      // npm's failure is setup's failure.
      assert.notEqual(run(1).status, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
