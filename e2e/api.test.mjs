// Extension-host API suite (e2e/suite/index.cjs) inside code-server's real Node extension host, loaded as a
// development extension from the repo through the workbench URL payload (the @vscode/test-electron way,
// without a desktop VS Code). The suite's exit code comes back through window.codeAutomationExit.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, REPO, E2E_DIR, cleanup, prerequisiteTest, loadPlaywright, missingPrerequisite, startCodeServer } from "./harness.mjs";

const missing = missingPrerequisite();
// Counts in the runner's summary: skipped (with the reason) locally, failed on CI (CI=true), passed when ready.
prerequisiteTest(test, missing);
const skip = missing ? `E2E extension-host suite skipped: ${missing}` : false;

describe("Precision Lens extension-host suite in code-server", { skip }, () => {
  let cs;
  let context;

  before(async () => {
    rmSync(join(ARTIFACTS, "FAIL-api.png"), { force: true });
    cs = await startCodeServer("api");
  });

  after(async () => {
    await context?.close();
    await cs?.stop();
    if (cs) cleanup(cs.root);
  });

  test("e2e/suite/index.cjs passes in the Node extension host (diagnostics, hover, settings, report, quick fix)", async () => {
    const { chromium } = await loadPlaywright();
    context = await chromium.launchPersistentContext(join(cs.root, "chromium-profile"), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const page = context.pages()[0] ?? (await context.newPage());
    const lines = [];
    const exit = new Promise((res) => {
      void page.exposeFunction("codeAutomationExit", (code) => res(code));
    });
    await page.exposeFunction("codeAutomationLog", (type, args) => {
      const line = `[exthost ${type}] ${(Array.isArray(args) ? args : [args]).map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ")}`;
      lines.push(line);
      if (/^\[exthost (log|info)\] (ok - |client timings|\d+ extension-host checks)/.test(line) || type === "error") console.log(line);
    });
    const origin = new URL(cs.url).host;
    const remote = (p) => `vscode-remote://${origin}${p}`;
    const payload = JSON.stringify([
      ["extensionDevelopmentPath", remote(REPO)],
      ["extensionTestsPath", remote(join(E2E_DIR, "suite", "index.cjs"))],
    ]);
    await page.goto(`${cs.url}&payload=${encodeURIComponent(payload)}`);
    let timer;
    const code = await Promise.race([
      exit,
      new Promise((_, rej) => {
        timer = setTimeout(() => rej(new Error(`suite did not finish within 90 s:\n${lines.join("\n")}`)), 90_000);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    if (code !== 0) await page.screenshot({ path: join(ARTIFACTS, "FAIL-api.png") }).catch(() => undefined);
    assert.equal(code, 0, `extension-host suite failed:\n${lines.join("\n")}`);
    // 7 checks, plus the YAML one when the workspace got the YAML examples and the Python registry one
    // when it got config_registry.py (see harness.mjs makeWorkspace).
    const expected = 7 + (existsSync(join(cs.ws, "accelerate_config.yaml")) ? 1 : 0) + (existsSync(join(cs.ws, "config_registry.py")) ? 1 : 0);
    assert.ok(lines.some((l) => new RegExp(`\\b${expected} extension-host checks passed`).test(l)), lines.join("\n"));
  });
});
