// UI end-to-end test of the transformers three-file case in a real VS Code workbench (code-server 4.100.3 +
// Debian chromium via playwright-core): a TRL config launched by a run script with an accelerate config whose
// DeepSpeed JSON sets an explicit value the Trainer refuses. The TRL YAML shows transformers/deepspeed-value-mismatch with
// relatedInformation at the JSON; the hover shows each resolved dtype with the key that set it; an (unsaved)
// edit of the JSON in the editor updates the YAML's diagnostics (server.ts re-analyses dependents).
// Waits only on what the page shows (locators with timeouts), never on fixed sleeps. Skips with a message when
// chromium, e2e/node_modules or the packaged .vsix are missing, unless CI is set (then it fails).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, cleanup, prerequisiteTest, findExtensionLog, loadPlaywright, missingPrerequisite, startCodeServer } from "./harness.mjs";

const missing = missingPrerequisite();
prerequisiteTest(test, missing);
const skip = missing ? `E2E transformers suite skipped: ${missing}` : false;

const TIMEOUT = 30_000;
const DS = (gas) => `{\n  "zero_optimization": {"stage": 3},\n  "bf16": {"enabled": "auto"},\n  "gradient_accumulation_steps": ${gas},\n  "train_micro_batch_size_per_gpu": "auto"\n}\n`;
/** The three files (and the run script that ties them), written into the workspace before the workbench opens. */
const FILES = {
  "scripts/train.sh": "#!/bin/bash\naccelerate launch --config_file recipes/accelerate_configs/zero3.yaml scripts/sft.py --config recipes/sft/config.yaml\n",
  "recipes/accelerate_configs/zero3.yaml": "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: recipes/ds/zero3.json\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 8\n",
  "recipes/ds/zero3.json": DS("2"),
  "recipes/sft/config.yaml": "model_name_or_path: Qwen/Qwen2.5-0.5B\ndataset_name: trl-lib/Capybara\noutput_dir: out\nlearning_rate: 2.0e-5\nper_device_train_batch_size: 2\ntorch_dtype: bfloat16\nbf16: true\ngradient_accumulation_steps: 4\n",
};

describe("transformers three-file case in VS Code (code-server 4.100.3, chromium)", { skip }, () => {
  /** @type {Awaited<ReturnType<typeof startCodeServer>>} */
  let cs;
  let context;
  /** @type {import("playwright-core").Page} */
  let page;

  const step = async (name, fn) => {
    try {
      await fn();
    } catch (e) {
      try {
        if (page) await page.screenshot({ path: join(ARTIFACTS, `FAIL-transformers-${name}.png`) });
      } catch {
        /* page gone */
      }
      saveLogs();
      throw e;
    }
  };
  const saveLogs = () => {
    if (!cs) return;
    for (const f of findExtensionLog(cs.dirs["user-data"])) copyFileSync(f, join(ARTIFACTS, "precision-lens-output-transformers.log"));
  };
  const editor = () => page.locator(".editor-group-container.active .monaco-editor").first();
  const treeItem = (name) => page.locator(`.explorer-folders-view [role="treeitem"][aria-label^="${name}"]`).first();
  /** Opens a file by clicking through the explorer (folders expand on click). */
  const openPath = async (rel) => {
    const parts = rel.split("/");
    for (const folder of parts.slice(0, -1)) {
      const item = treeItem(folder);
      await item.waitFor({ timeout: TIMEOUT });
      if ((await item.getAttribute("aria-expanded")) !== "true") await item.click();
    }
    const name = parts.at(-1);
    await treeItem(name).click();
    await page.locator(`.tabs-container [role="tab"][aria-label^="${name}"].active`).waitFor({ timeout: TIMEOUT });
    await editor().locator(".view-lines").waitFor({ timeout: TIMEOUT });
  };
  const token = (text) => editor().locator(".view-line span > span", { hasText: new RegExp(`^${text}$`) }).first();
  const problems = () => page.locator(".markers-panel");
  const hf3Row = () => problems().locator(".monaco-list-row", { hasText: "sets `gradient_accumulation_steps: 2`" }).first();

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    for (const f of readdirSync(ARTIFACTS)) if (/^(transformers-.*|FAIL-transformers-.*)\.png$/.test(f)) rmSync(join(ARTIFACTS, f));
    cs = await startCodeServer("transformers");
    for (const [rel, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(cs.ws, rel)), { recursive: true });
      writeFileSync(join(cs.ws, rel), text);
    }
    const { chromium } = await loadPlaywright();
    context = await chromium.launchPersistentContext(join(cs.root, "chromium-profile"), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 800 } });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(TIMEOUT);
    await step("workbench", async () => {
      await page.goto(cs.url);
      await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
      await treeItem("recipes").waitFor({ timeout: 60_000 });
    });
  });

  after(async () => {
    saveLogs();
    await context?.close();
    await cs?.stop();
    if (cs) cleanup(cs.root);
  });

  test("the TRL YAML shows transformers/deepspeed-value-mismatch (error) with relatedInformation at the DeepSpeed JSON", async () => {
    await step("hf3", async () => {
      await openPath("recipes/sft/config.yaml");
      await editor().locator(".squiggly-error").first().waitFor();
      await page.keyboard.press("Control+Shift+M");
      const row = hf3Row();
      await row.waitFor();
      const text = await row.innerText();
      // The panel cuts the message at its width; the full one is the diagnostic's.
      assert.match(text, /recipes\/ds\/zero3\.json sets `gradient_accumulation_steps: 2` but `gradient_accumulation_steps: 4` here: the Trainer rais/);
      assert.match(text, /\[Ln 8, Col 30\]/);
      assert.match(text, /precision-lens\s*\(?transformers\/deepspeed-value-mismatch\)?/);
      // relatedInformation: a child row naming the JSON and the line of its value.
      const related = problems().locator(".monaco-list-row", { hasText: "gradient_accumulation_steps is set here" }).first();
      await related.waitFor();
      assert.match(await related.innerText(), /zero3\.json\s*\[Ln 4, Col 3\]/);
      await page.screenshot({ path: join(ARTIFACTS, "transformers-hf3-related.png") });
    });
  });

  test("hovering `bf16` shows the resolved dtypes, each with the key or file that set it", async () => {
    await step("hover", async () => {
      await page.keyboard.press("Escape");
      await token("bf16").hover();
      const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: "DeepSpeed ZeRO-3 on 8 GPUs" }).first();
      await hover.waitFor();
      const text = await hover.innerText();
      assert.match(text, /Precision Lens · transformers \(TRL\)/);
      assert.match(text, /parameter storage\s+float32\s+ZeRO-3 master weights/);
      assert.match(text, /compute \(matmuls\)\s+bfloat16\s+module cast by "auto" filled with bf16 from bf16: true in this file/);
      assert.match(text, /optimizer state\s+float32\s+ZeRO-3 optimizer/);
      assert.match(text, /num_processes: 8 in the accelerate config recipes\/accelerate_configs\/zero3\.yaml \(scripts\/train\.sh line 2\)/);
      await page.screenshot({ path: join(ARTIFACTS, "transformers-hover.png") });
      await page.mouse.move(640, 10);
    });
  });

  test("editing the JSON's value to \"auto\" in the editor (unsaved) clears the YAML's HF3", async () => {
    await step("edit-json", async () => {
      await openPath("recipes/ds/zero3.json");
      await token("2").dblclick();
      // The editor auto-closes the typed quote (the default editor.autoClosingQuotes): `"` gives `""`, then the word goes inside.
      await page.keyboard.press("Backspace");
      await page.keyboard.press('"');
      await page.keyboard.insertText("auto");
      await editor().locator(".view-line", { hasText: /^\s*"gradient_accumulation_steps":\s*"auto",$/ }).waitFor();
      await page.locator('.tabs-container [role="tab"][aria-label^="zero3.json"].dirty').waitFor();
      await hf3Row().waitFor({ state: "detached" });
      // The disk still has the explicit 2: the server read the editor's buffer.
      assert.match(readFileSync(join(cs.ws, "recipes/ds/zero3.json"), "utf8"), /"gradient_accumulation_steps": 2,/);
      await page.screenshot({ path: join(ARTIFACTS, "transformers-after-edit.png") });
    });
  });
});
