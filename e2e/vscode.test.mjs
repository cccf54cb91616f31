// UI end-to-end test in a real VS Code workbench (code-server 4.100.3 + Debian chromium via playwright-core).
// Waits only on what the page shows (locators with timeouts), never on fixed sleeps.
// Skips with a message when chromium or e2e/node_modules are missing, unless CI is set (then it fails).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ARTIFACTS, REPO, CHROMIUM, CHROMIUM_ARGS, cleanup, prerequisiteTest, findExtensionLog, loadPlaywright, missingPrerequisite, startCodeServer } from "./harness.mjs";

const missing = missingPrerequisite();
// Counts in the runner's summary: skipped (with the reason) locally, failed on CI (CI=true), passed when ready.
prerequisiteTest(test, missing);
const skip = missing ? `E2E UI suite skipped: ${missing}` : false;

const TIMEOUT = 30_000;
const TP_FILE = "tp_only_8gpu.toml";

describe("Precision Lens in VS Code (code-server 4.100.3, chromium)", { skip }, () => {
  /** @type {Awaited<ReturnType<typeof startCodeServer>>} */
  let cs;
  let context;
  /** @type {import("playwright-core").Page} */
  let page;
  const t0 = Date.now();
  const timings = {};
  let shot = 0;

  const screenshot = async (name, docsClip) => {
    shot++;
    const file = join(ARTIFACTS, `${String(shot).padStart(2, "0")}-${name}.png`);
    await page.screenshot({ path: file });
    // Small cropped copies for the README (docs/images/); refreshed with E2E_UPDATE_DOCS_IMAGES=1.
    if (docsClip) {
      const docs = join(ARTIFACTS, "docs", `${name}.png`);
      await page.screenshot({ path: docs, clip: docsClip });
      if (process.env.E2E_UPDATE_DOCS_IMAGES === "1") {
        mkdirSync(join(REPO, "docs", "images"), { recursive: true });
        copyFileSync(docs, join(REPO, "docs", "images", `${name}.png`));
      }
    }
    return file;
  };
  /** Runs one step; on failure saves a screenshot and the logs, then rethrows. */
  const step = async (name, fn) => {
    try {
      await fn();
      timings[name] = Date.now() - t0;
    } catch (e) {
      try {
        if (page) await page.screenshot({ path: join(ARTIFACTS, `FAIL-${name}.png`) });
      } catch {
        /* page gone */
      }
      saveLogs();
      throw e;
    }
  };
  const saveLogs = () => {
    if (!cs) return;
    for (const f of findExtensionLog(cs.dirs["user-data"])) copyFileSync(f, join(ARTIFACTS, "precision-lens-output-ui.log"));
  };
  const editor = () => page.locator(".editor-group-container.active .monaco-editor").first();
  const openFile = async (name) => {
    await page.locator(`.explorer-folders-view [role="treeitem"][aria-label^="${name}"]`).first().click();
    await page.locator(`.tabs-container [role="tab"][aria-label^="${name}"].active`).waitFor({ timeout: TIMEOUT });
    await editor().locator(".view-lines").waitFor({ timeout: TIMEOUT });
  };
  /** The span that renders `text` as one token in the active editor. */
  const token = (text) => editor().locator(".view-line span > span", { hasText: new RegExp(`^${text}$`) }).first();
  const problems = () => page.locator(".markers-panel");
  /** Waits until an element's fade-in is over (opacity 1), so screenshots are not taken mid-animation. */
  const fullyShown = (locator) =>
    locator.evaluate(
      (el) =>
        new Promise((res) => {
          const check = () => (getComputedStyle(el).opacity === "1" ? res(undefined) : requestAnimationFrame(check));
          check();
        }),
    );

  before(async () => {
    // Drop this suite's screenshots from earlier runs (other suites' artifacts stay).
    mkdirSync(ARTIFACTS, { recursive: true });
    for (const f of readdirSync(ARTIFACTS)) if (/^(\d\d-.*|FAIL-(?!api).*)\.png$/.test(f)) rmSync(join(ARTIFACTS, f));
    mkdirSync(join(ARTIFACTS, "docs"), { recursive: true });
    cs = await startCodeServer("ui");
    timings.installVsixMs = cs.installMs;
    timings.codeServerReadyMs = cs.readyMs;
    const { chromium } = await loadPlaywright();
    context = await chromium.launchPersistentContext(join(cs.root, "chromium-profile"), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 800 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(TIMEOUT);
    await step("workbench", async () => {
      await page.goto(cs.url);
      await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
      await page.locator(`.explorer-folders-view [role="treeitem"][aria-label^="${TP_FILE}"]`).waitFor({ timeout: 60_000 });
    });
  });

  after(async () => {
    saveLogs();
    const log = findExtensionLog(cs?.dirs?.["user-data"] ?? "/nonexistent").map((f) => readFileSync(f, "utf8")).join("\n");
    const ready = /language client ready in (\d+) ms/.exec(log);
    const activate = /activate\(\) returned in ([\d.]+) ms/.exec(log);
    if (ready || activate) {
      timings.clientActivateMs = activate ? Number(activate[1]) : undefined;
      timings.clientReadyMs = ready ? Number(ready[1]) : undefined;
    }
    timings.totalMs = Date.now() - t0;
    writeFileSync(join(ARTIFACTS, "timings.json"), JSON.stringify(timings, null, 2));
    console.log(`e2e timings (ms since start): ${JSON.stringify(timings)}`);
    if (activate && ready) console.log(`client activation: activate() returned in ${activate[1]} ms; language client ready ${ready[1]} ms after activate()`);
    await context?.close();
    await cs?.stop();
    if (cs) cleanup(cs.root);
  });

  test("opens pyproject.toml first (a non-config TOML in the same workspace)", async () => {
    await step("pyproject-open", async () => {
      await openFile("pyproject.toml");
      await token("requires-python").waitFor();
    });
    // Proven after the TP-only file's warning appears (the server handles documents in order); see below.
  });

  test("the TP-only config shows the warning squiggle and a Problems entry with code no-mixed-precision", async () => {
    await step("squiggle", async () => {
      await openFile(TP_FILE);
      await editor().locator(".squiggly-warning").first().waitFor();
      await screenshot("tp-only-squiggle");
    });
    await step("problems", async () => {
      await page.keyboard.press("Control+Shift+M");
      const row = problems().locator(".monaco-list-row", { hasText: "no-mixed-precision" }).first();
      await row.waitFor();
      const text = await row.innerText();
      assert.match(text, /No mixed precision: TP-only on 8 GPUs trains in fp32/);
      assert.match(text, /precision-lens\s*\(?no-mixed-precision\)?/);
      // relatedInformation (issue #12): the -1 line and the pin that gave the version, as child rows.
      await problems().locator(".monaco-list-row", { hasText: "-1 resolves to 1 on 8 GPUs" }).first().waitFor();
      await problems().locator(".monaco-list-row", { hasText: "torchtitan 0.2.2 pinned in pyproject.toml" }).first().waitFor();
      assert.match(text, /\[Ln \d+, Col \d+\]/);
      await screenshot("problems-panel");
      // Clicking the entry reveals the warning's line in the editor (the panel leaves little room).
      await row.click();
      await token("tensor_parallel_degree").waitFor();
    });
  });

  test("pyproject.toml in the same workspace gets no diagnostics", async () => {
    await step("pyproject-clean", async () => {
      await problems().locator(".monaco-list-row", { hasText: TP_FILE }).first().waitFor();
      // The seed warning's relatedInformation names pyproject.toml's pin ("… pinned in pyproject.toml"); only a
      // file row of its own would mean diagnostics on pyproject.toml.
      const pyRows = problems().locator(".monaco-list-row", { hasText: "pyproject.toml" });
      assert.equal(await pyRows.filter({ hasNotText: "pinned in pyproject.toml" }).count(), 0, "pyproject.toml has diagnostics");
      await openFile("pyproject.toml");
      assert.equal(await editor().locator(".squiggly-warning, .squiggly-error, .squiggly-info").count(), 0, "pyproject.toml shows squiggles");
      await screenshot("pyproject-no-diagnostics");
      await openFile(TP_FILE);
    });
  });

  test("hovering tensor_parallel_degree shows the resolved precision mode (TP-only)", async () => {
    await step("hover", async () => {
      await page.keyboard.press("Escape");
      const key = token("tensor_parallel_degree");
      await key.hover();
      // The server's hover section, by its own header (the diagnostic's message, which VS Code shows first in
      // the same hover, also names "TP-only on 8 GPUs": waiting on that alone raced the server's answer).
      const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: "Precision Lens · torchtitan" }).first();
      await hover.waitFor();
      const text = await hover.innerText();
      assert.match(text, /Precision Lens · torchtitan v0\.2\.2/);
      assert.match(text, /TP-only on 8 GPUs/);
      await fullyShown(hover);
      await screenshot("hover-tp-only", { x: 348, y: 40, width: 932, height: 400 });
    });
  });

  test("the language status item names framework, torchtitan version and world size; its popup fits a 1400 px window", async () => {
    await step("language-status", async () => {
      // A full-HD-like window (issue #20: the popup ran off the right edge at 1400 px).
      const WIDTH = 1400;
      const HEIGHT = 800;
      await page.setViewportSize({ width: WIDTH, height: HEIGHT });
      await page.mouse.move(640, 10);
      const entry = page.locator('[id="status.languageStatus"]');
      await entry.waitFor();
      await entry.hover();
      const item = (text) => page.locator(".hover-language-status", { hasText: text }).first();
      await item("torchtitan").waitFor();
      await item("world size").waitFor();
      const all = (await page.locator(".hover-language-status").allInnerTexts()).join("\n");
      assert.match(all, /torchtitan · TP-only/, all);
      assert.match(all, /torchtitan v0\.2\.2/, all);
      assert.match(all, /world size 8/, all);
      // The popup (VS Code's hover box around the rows) lies inside the window, and nothing in it is clipped
      // (the box hides what overflows its 700 px maximum width).
      const popup = page.locator(".workbench-hover", { has: page.locator(".hover-language-status") }).first();
      await fullyShown(popup);
      const box = await popup.boundingBox();
      assert.ok(box, "the language status popup has a box");
      const inside = { left: box.x >= 0, right: box.x + box.width <= WIDTH, top: box.y >= 0, bottom: box.y + box.height <= HEIGHT };
      assert.deepEqual(inside, { left: true, right: true, top: true, bottom: true }, `popup ${JSON.stringify(box)} in a ${WIDTH}x${HEIGHT} window`);
      const clipped = await popup.evaluate((el) =>
        [el, ...el.querySelectorAll("*")].filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== "visible").map((e) => `${e.className}: ${e.scrollWidth} > ${e.clientWidth}`),
      );
      assert.deepEqual(clipped, [], "rows wider than the popup are cut");
      const rows = await page.locator(".hover-language-status").evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
      for (const right of rows) assert.ok(right <= box.x + box.width + 0.5, `a row ends at ${right}, past the popup's ${box.x + box.width}`);
      const clip = { x: Math.max(0, box.x - 8), y: Math.max(0, box.y - 8), width: Math.min(WIDTH, box.x + box.width + 8) - Math.max(0, box.x - 8), height: HEIGHT - Math.max(0, box.y - 8) };
      await screenshot("language-status", clip);
      await page.mouse.move(640, 10);
      await page.setViewportSize({ width: 1280, height: 800 });
    });
  });

  test("the quick fix invoked with Ctrl+. changes the file and the warning disappears", async () => {
    await step("quick-fix-menu", async () => {
      await token("tensor_parallel_degree").click();
      await page.keyboard.press("Escape");
      await page.keyboard.press("Control+.");
      // The preferred fix is pre-selected in the light-bulb menu; Enter applies it (the menu's own keyboard path).
      const fix = page.locator(".action-widget .monaco-list-row.action.focused", { hasText: "Lower tensor_parallel_degree to 4" }).first();
      await fix.waitFor();
      await screenshot("quick-fix-menu", { x: 348, y: 200, width: 932, height: 240 });
      await page.keyboard.press("Enter");
    });
    await step("quick-fix-applied", async () => {
      await editor().locator(".view-line", { hasText: /^tensor_parallel_degree\s*=\s*4$/ }).waitFor();
      await editor().locator(".squiggly-warning").first().waitFor({ state: "detached" });
      await problems().locator(".monaco-list-row", { hasText: "no-mixed-precision" }).first().waitFor({ state: "detached" });
      assert.equal(await editor().locator(".view-line", { hasText: /^tensor_parallel_degree\s*=\s*8$/ }).count(), 0);
      await screenshot("after-quick-fix");
      // Save with the editor's own shortcut and check the file on disk.
      await page.keyboard.press("Control+S");
      await page.locator(`.tabs-container [role="tab"][aria-label^="${TP_FILE}"]:not(.dirty)`).waitFor();
      assert.match(readFileSync(join(cs.ws, TP_FILE), "utf8"), /^tensor_parallel_degree = 4$/m);
    });
  });
});
