// The visual precision report in a real VS Code workbench (code-server 4.100.3 + Debian chromium):
// Open Precision Report on the seed case shows the webview with the four SVG charts, styled under its
// content security policy; clicking a what-if cell offers a directive, and writing it re-renders the report.
// Waits only on what the page shows (locators with timeouts), never on fixed sleeps.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ARTIFACTS, REPO, CHROMIUM, CHROMIUM_ARGS, cleanup, findExtensionLog, loadPlaywright, missingPrerequisite, prerequisiteTest, startCodeServer } from "./harness.mjs";

const missing = missingPrerequisite();
prerequisiteTest(test, missing);
const skip = missing ? `E2E report suite skipped: ${missing}` : false;

const TIMEOUT = 30_000;
const TP_FILE = "tp_only_8gpu.toml";

describe("Precision report webview (code-server 4.100.3, chromium)", { skip }, () => {
  /** @type {Awaited<ReturnType<typeof startCodeServer>>} */
  let cs;
  let context;
  /** @type {import("playwright-core").Page} */
  let page;

  const fail = async (name, fn) => {
    try {
      await fn();
    } catch (e) {
      try {
        if (page) await page.screenshot({ path: join(ARTIFACTS, `FAIL-report-${name}.png`) });
      } catch {
        /* page gone */
      }
      saveLogs();
      throw e;
    }
  };
  const saveLogs = () => {
    if (!cs) return;
    for (const f of findExtensionLog(cs.dirs["user-data"])) copyFileSync(f, join(ARTIFACTS, "precision-lens-output-report.log"));
  };
  /** The report page inside the webview's two iframes (outer: VS Code's host frame, inner: our document). */
  const report = () => page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
  const runCommand = async (title) => {
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor();
    await input.fill(`>${title}`);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor();
    await page.keyboard.press("Enter");
  };

  before(async () => {
    mkdirSync(join(ARTIFACTS, "docs"), { recursive: true });
    cs = await startCodeServer("report");
    const { chromium } = await loadPlaywright();
    context = await chromium.launchPersistentContext(join(cs.root, "chromium-profile"), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1440, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(TIMEOUT);
    await fail("workbench", async () => {
      await page.goto(cs.url);
      await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
      const item = page.locator(`.explorer-folders-view [role="treeitem"][aria-label^="${TP_FILE}"]`).first();
      await item.waitFor({ timeout: 60_000 });
      await item.click();
      await page.locator(`.tabs-container [role="tab"][aria-label^="${TP_FILE}"].active`).waitFor();
      // The server has analysed the file once the warning squiggle shows.
      await page.locator(".editor-group-container.active .monaco-editor .squiggly-warning").first().waitFor();
    });
  });

  after(async () => {
    saveLogs();
    await context?.close();
    await cs?.stop();
    if (cs) cleanup(cs.root);
  });

  test("Open Precision Report shows the four charts, styled by the theme under the page's CSP", async () => {
    await fail("open", async () => {
      await runCommand("Precision Lens: Open Precision Report");
      await page.locator('.tabs-container [role="tab"][aria-label^="Precision: tp_only_8gpu.toml"]').waitFor();
      const r = report();
      await r.locator("svg.pl-matrix").waitFor();
      assert.match(await r.locator("h1").innerText(), /Precision report: tp_only_8gpu\.toml/);
      assert.match(await r.locator(".pl-headline").innerText(), /TP-only on 8 GPUs: no mixed precision/);
      for (const cls of ["pl-memory", "pl-throughput", "pl-strip", "pl-matrix"]) assert.equal(await r.locator(`svg.${cls}`).count(), 1, cls);
      assert.equal(await r.locator("svg.pl-matrix g.pl-cell").count(), 55);
      const current = r.locator("svg.pl-matrix g.pl-cell.pl-current");
      assert.equal(await current.count(), 1);
      assert.deepEqual([await current.getAttribute("data-world-size"), await current.getAttribute("data-version")], ["8", "v0.2.2"]);
      assert.ok((await r.locator("svg.pl-memory rect.pl-seg[data-term]").count()) >= 4, "memory terms drawn");
      assert.equal(await r.locator('svg.pl-strip g.pl-dtcell[data-row="forward"]').count(), 19);
      // The stylesheet ran (its nonce matched the CSP) and took VS Code's theme colours: a float32 cell is
      // filled with the theme's chart orange, not SVG's default black; the body uses the editor background.
      const fills = await r.locator('svg.pl-strip g.pl-dtcell[data-op="wq"] rect').first().evaluate((el) => {
        const css = getComputedStyle(el);
        const root = getComputedStyle(document.documentElement);
        return { fill: css.fill, orange: root.getPropertyValue("--vscode-charts-orange").trim(), bg: getComputedStyle(document.body).backgroundColor, editorBg: root.getPropertyValue("--vscode-editor-background").trim() };
      });
      assert.notEqual(fills.fill, "rgb(0, 0, 0)", "the report's stylesheet was blocked");
      assert.ok(fills.orange, "VS Code passes its theme colours to the webview");
      assert.notEqual(fills.bg, "rgba(0, 0, 0, 0)");
    });
  });

  test("screenshot of the report (README)", async () => {
    await fail("screenshot", async () => {
      // The report alone in the window: activate its editor group (it opened beside, keeping the focus in
      // the config), then maximise that group.
      await page.locator('.tabs-container [role="tab"][aria-label^="Precision: tp_only_8gpu.toml"]').click();
      await page.locator('.tabs-container [role="tab"][aria-label^="Precision: tp_only_8gpu.toml"].active').waitFor();
      await runCommand("View: Toggle Maximize Editor Group");
      // Tall enough for the whole report (charts and what-if matrix) on one screen.
      await page.setViewportSize({ width: 1440, height: 1480 });
      await report().locator("svg.pl-matrix").waitFor();
      const frame = page.locator("iframe.webview.ready").first();
      await frame.waitFor();
      const box = await frame.boundingBox();
      assert.ok(box && box.width > 900, `the webview is wide enough for the charts: ${JSON.stringify(box)}`);
      await page.screenshot({ path: join(ARTIFACTS, "report.png") });
      const docs = join(ARTIFACTS, "docs", "report.png");
      await page.screenshot({ path: docs, clip: { x: box.x, y: box.y, width: Math.min(box.width, 1200), height: Math.min(box.height, 1400) } });
      if (process.env.E2E_UPDATE_DOCS_IMAGES === "1") {
        mkdirSync(join(REPO, "docs", "images"), { recursive: true });
        copyFileSync(docs, join(REPO, "docs", "images", "report.png"));
      }
      await runCommand("View: Toggle Maximize Editor Group");
      await page.setViewportSize({ width: 1440, height: 900 });
    });
  });

  test("clicking a what-if cell offers the directive; writing it moves the highlighted cell", async () => {
    await fail("what-if", async () => {
      const cell = report().locator('svg.pl-matrix g.pl-cell[data-world-size="16"][data-version="v0.2.2"]');
      await cell.scrollIntoViewIfNeeded();
      await cell.click();
      // Same version as now: only the world size is offered.
      const row = page.locator(".quick-input-widget .quick-input-list .monaco-list-row", { hasText: "world-size=16" }).first();
      await row.waitFor();
      assert.equal(await page.locator(".quick-input-widget .quick-input-list .monaco-list-row", { hasText: "torchtitan-version" }).count(), 0);
      await page.keyboard.press("Enter");
      // The directive is an unsaved edit of the config; the server re-analyses and the report re-renders.
      await page.locator(`.tabs-container [role="tab"][aria-label^="${TP_FILE}"].dirty`).waitFor();
      await report().locator('svg.pl-matrix g.pl-cell.pl-current[data-world-size="16"][data-version="v0.2.2"]').waitFor();
      assert.match(await report().locator(".pl-headline").innerText(), /FSDP mixed precision/);
      assert.match(await report().locator(".pl-facts").innerText(), /world size 16 \(directive\)/);
      await page.screenshot({ path: join(ARTIFACTS, "report-after-what-if.png") });
      assert.doesNotMatch(readFileSync(join(cs.ws, TP_FILE), "utf8"), /precision-lens: world-size/, "not saved: the edit is undoable in the editor");
    });
  });
});
