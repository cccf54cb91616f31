// The same extension-host suite (e2e/suite/index.cjs) in a desktop VS Code through @vscode/test-electron 2.x
// (3.x needs Node 22). CI machines cannot download VS Code, so this runs only where VSCODE_EXECUTABLE points
// at an installed VS Code binary (e.g. /usr/share/code/code; on a headless Linux box run under xvfb-run).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { E2E_DIR, REPO, cleanup, makeWorkspace } from "./harness.mjs";

const exe = process.env.VSCODE_EXECUTABLE;
const harness = join(E2E_DIR, "node_modules", "@vscode", "test-electron");
const skip = !exe
  ? "desktop VS Code suite skipped: set VSCODE_EXECUTABLE to a VS Code >= 1.100 binary to run it (none can be downloaded offline)"
  : !existsSync(harness)
    ? "desktop VS Code suite skipped: e2e/node_modules is not installed (npm run setup:e2e)"
    : false;

test("e2e/suite/index.cjs passes in desktop VS Code (@vscode/test-electron)", { skip, timeout: 180_000 }, async () => {
  assert.ok(existsSync(exe), `VSCODE_EXECUTABLE=${exe} does not exist`);
  assert.ok(existsSync(join(REPO, "dist", "client.js")), "dist/client.js missing: npm run build");
  const { runTests } = await import(join(harness, "out", "index.js"));
  const root = mkdtempSync(join(tmpdir(), "precision-lens-electron-"));
  try {
    const { ws } = makeWorkspace(root);
    for (const d of ["user-data", "extensions"]) mkdirSync(join(root, d));
    const code = await runTests({
      vscodeExecutablePath: exe,
      extensionDevelopmentPath: REPO,
      extensionTestsPath: join(E2E_DIR, "suite", "index.cjs"),
      launchArgs: [
        ws,
        "--disable-extensions",
        "--disable-workspace-trust",
        "--disable-telemetry",
        "--skip-welcome",
        "--skip-release-notes",
        `--user-data-dir=${join(root, "user-data")}`,
        `--extensions-dir=${join(root, "extensions")}`,
      ],
    });
    assert.equal(code, 0);
  } finally {
    cleanup(root);
  }
});
