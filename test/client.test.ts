/** Client logic that needs no VS Code: directive edits, setting parsing, status texts. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyLineEdit, directiveEdit, supportsDirectiveComments } from "../client/src/directiveEdit";
import { parseWorldSize } from "../client/src/settings";
import { sourceLabel, STATUS_LINKS, STATUS_ROW_CHARS, statusTexts, summaryAt } from "../client/src/statusText";

const apply = (text: string, key: "world-size" | "torchtitan-version", value: string | null) => {
  const e = directiveEdit(text, key, value);
  return e ? applyLineEdit(text, e) : null;
};

test("directive: inserted at the top when absent", () => {
  assert.equal(apply("[job]\ndump_folder = \"./out\"\n", "world-size", "16"), "# precision-lens: world-size=16\n[job]\ndump_folder = \"./out\"\n");
  assert.equal(apply("[job]\r\nx = 1\r\n", "torchtitan-version", "v0.2.2"), "# precision-lens: torchtitan-version=v0.2.2\r\n[job]\r\nx = 1\r\n");
  assert.equal(apply("", "world-size", "8"), "# precision-lens: world-size=8\n");
});

test("directive: an existing value is replaced in place, other keys kept", () => {
  const t = "# header\n# precision-lens: world-size=8 torchtitan-version=v0.2.1\n[job]\n";
  assert.equal(apply(t, "world-size", "16"), "# header\n# precision-lens: world-size=16 torchtitan-version=v0.2.1\n[job]\n");
  assert.equal(apply(t, "torchtitan-version", "main@2026-01-15"), "# header\n# precision-lens: world-size=8 torchtitan-version=main@2026-01-15\n[job]\n");
  assert.equal(directiveEdit(t, "world-size", "8"), null, "same value: no edit");
  assert.equal(apply("#precision-lens:world-size = 4\n", "world-size", "2"), "#precision-lens:world-size = 2\n");
});

test("directive: removal deletes the pair, or the whole line when it was the only one", () => {
  assert.equal(apply("# precision-lens: world-size=8\n[job]\n", "world-size", null), "[job]\n");
  assert.equal(apply("[job]\n# precision-lens: world-size=8", "world-size", null), "[job]");
  assert.equal(apply("# precision-lens: world-size=8 torchtitan-version=v0.2.1\n", "world-size", null), "# precision-lens: torchtitan-version=v0.2.1\n");
  assert.equal(apply("# precision-lens: torchtitan-version=v0.2.1 world-size=8\n", "world-size", null), "# precision-lens: torchtitan-version=v0.2.1\n");
  assert.equal(directiveEdit("[job]\n", "world-size", null), null);
});

test("directive: only whole-line precision-lens comments are edited", () => {
  const t = 'x = "# precision-lens: world-size=8"\n';
  assert.equal(apply(t, "world-size", "4"), "# precision-lens: world-size=4\n" + t);
});

test("directive comments only for formats with # comments", () => {
  assert.equal(supportsDirectiveComments("toml", "/a/b.toml"), true);
  assert.equal(supportsDirectiveComments("yaml", "/a/b.yml"), true);
  assert.equal(supportsDirectiveComments("json", "/a/ds_config.json"), false);
  assert.equal(supportsDirectiveComments("python", "/a/config_registry.py"), true);
});

test("world size input", () => {
  assert.equal(parseWorldSize(" 16 "), 16);
  assert.equal(parseWorldSize("0"), undefined);
  assert.equal(parseWorldSize("-8"), undefined);
  assert.equal(parseWorldSize("8.5"), undefined);
  assert.equal(parseWorldSize(""), undefined);
});

test("language status texts name framework, layout, version and world size with their sources", () => {
  const t = statusTexts({
    framework: "torchtitan",
    frameworkReason: "torchtitan tables [job] [parallelism]",
    layoutName: "TP-only",
    headline: "TP-only on 8 GPUs: no mixed precision (float32 compute)",
    version: { value: "v0.2.2", source: "default", detail: "no version evidence found" },
    worldSize: { value: 16, source: "directive", detail: "world-size=16" },
  });
  assert.equal(t.framework.text, "$(symbol-numeric) torchtitan · TP-only");
  // The layout is in the text and the world size has its own row: the verdict is the detail.
  assert.deepEqual(t.framework, { text: "$(symbol-numeric) torchtitan · TP-only", detail: "no mixed precision (float32 compute)", full: "TP-only on 8 GPUs: no mixed precision (float32 compute)" });
  assert.deepEqual(t.version, { text: "torchtitan v0.2.2", detail: "default: no version evidence found", full: "default: no version evidence found" });
  assert.deepEqual(t.worldSize, { text: "world size 16", detail: "# precision-lens comment: world-size=16", full: "# precision-lens comment: world-size=16" });
  const other = statusTexts({ framework: "torchtune", frameworkReason: "recipe keys" });
  assert.equal(other.framework.text, "$(symbol-numeric) torchtune");
  assert.equal(other.framework.detail, "recipe keys");
  assert.equal(other.version, undefined);
  assert.equal(sourceLabel("workspace-pin"), "pinned in the workspace");
  assert.equal(sourceLabel("something-new"), "something-new");
});

test("language status rows fit the popup: every row's text, detail and link within STATUS_ROW_CHARS (issue #20)", () => {
  const row = (x: { text: string; detail: string }, link: string) => `${x.text.replace(/\$\([^)]*\)\s*/g, "")} – ${x.detail}${link}`.length;
  // The seed case, whose version row was 100 characters and ran off the window at 1400 px.
  const seed = statusTexts({
    framework: "torchtitan",
    frameworkReason: "torchtitan tables",
    layoutName: "TP-only",
    headline: "TP-only on 8 GPUs: no mixed precision (float32 compute)",
    version: { value: "v0.2.2", source: "workspace-pin", detail: "torchtitan 0.2.2 pinned in pyproject.toml" },
    worldSize: { value: 8, source: "default", detail: "run_train.sh default (NGPU=8)" },
  });
  assert.equal(seed.version!.detail, "pinned in pyproject.toml");
  assert.equal(seed.version!.full, "pinned in the workspace: torchtitan 0.2.2 pinned in pyproject.toml");
  assert.equal(seed.worldSize!.detail, "default: run_train.sh default (NGPU=8)");
  // Long texts are cut at a word, with the whole text kept for the tooltip.
  const long = statusTexts({
    framework: "deepspeed",
    frameworkReason: "zero_optimization",
    layoutName: "ZeRO-3 + offload",
    headline: "ZeRO-3 with optimizer and parameter offload to CPU and NVMe on 64 GPUs with a bf16 communication data type",
    worldSize: { value: 64, source: "linked-config", detail: "hostfile ../../cluster/hostfiles/a-very-long-name-of-a-hostfile-for-this-run lists 8 hosts of 8 slots" },
  });
  for (const [x, link] of [[seed.framework, STATUS_LINKS.framework], [seed.version!, STATUS_LINKS.version], [seed.worldSize!, STATUS_LINKS.worldSize], [long.framework, STATUS_LINKS.framework], [long.worldSize!, STATUS_LINKS.worldSize]] as const) {
    assert.ok(row(x, link) <= STATUS_ROW_CHARS, `${row(x, link)} characters: ${x.text} – ${x.detail}`);
  }
  assert.equal(long.framework.detail, "ZeRO-3 with optimizer and…");
  assert.equal(long.framework.full, "ZeRO-3 with optimizer and parameter offload to CPU and NVMe on 64 GPUs with a bf16 communication data type");
  // A detail too long for the row leaves the source's label, the whole of it in the tooltip.
  assert.equal(long.worldSize!.detail, "linked config");
  assert.match(long.worldSize!.full, /^linked config: hostfile .* lists 8 hosts of 8 slots$/);
});

test("report page messages: what-if cells and the Markdown link pass, anything else is dropped", async () => {
  const { parsePageMessage } = await import("../client/src/reportMessage");
  assert.deepEqual(parsePageMessage({ type: "whatIf", worldSize: 16, version: "v0.2.2+pr2213" }), { type: "whatIf", worldSize: 16, version: "v0.2.2+pr2213" });
  assert.deepEqual(parsePageMessage({ type: "whatIf", worldSize: 24, version: "main@2025-08-01", extra: 1 }), { type: "whatIf", worldSize: 24, version: "main@2025-08-01" });
  assert.deepEqual(parsePageMessage({ type: "openMarkdown" }), { type: "openMarkdown" });
  for (const bad of [null, "whatIf", { type: "whatIf", worldSize: 0, version: "v0.2.2" }, { type: "whatIf", worldSize: 1.5, version: "v0.2.2" }, { type: "whatIf", worldSize: 8, version: "v0.2.2\n# precision-lens: off" }, { type: "whatIf", worldSize: 8 }, { type: "run", command: "x" }]) {
    assert.equal(parsePageMessage(bad), undefined, JSON.stringify(bad));
  }
});

test("a registry's status item shows the config function under the cursor (issue #30)", () => {
  const file = {
    framework: "torchtitan",
    frameworkReason: "imports torchtitan",
    headline: "2 config functions: put the cursor in one for its precision",
    configFunctions: [
      { name: "small", startLine: 5, endLine: 7, headline: "TP-only on 8 GPUs: fp32 params, fp32 compute", worldSize: { value: 8, source: "directive", detail: "d" }, layoutName: "TP-only", mechanism: "none" },
      { name: "big", startLine: 10, endLine: 12, headline: "FSDP+TP on 64 GPUs: fp32 params, bf16 compute", worldSize: { value: 64, source: "directive", detail: "d" }, layoutName: "FSDP+TP", mechanism: "fully_shard" },
    ],
  };
  const inBig = summaryAt(file, 11);
  assert.equal(inBig.headline, "big(): FSDP+TP on 64 GPUs: fp32 params, bf16 compute");
  assert.deepEqual([inBig.worldSize?.value, inBig.layoutName], [64, "FSDP+TP"]);
  assert.equal(statusTexts(inBig).worldSize?.text, "world size 64");
  assert.equal(summaryAt(file, 6).layoutName, "TP-only");
  // Between functions, or with no cursor: the file's own summary.
  assert.equal(summaryAt(file, 8), file);
  assert.equal(summaryAt(file, undefined), file);
});

