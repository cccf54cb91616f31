/**
 * Issue #20: the hover does not repeat what the editor already shows beside it (the diagnostic's message and
 * its related notes), and an estimate that does not fit the GPU says so wherever it is shown: the code lens,
 * the hover, the text report and the visual report. A config that fits gets no such hint.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import { codeLenses, hoverAt } from "../server/src/core/features/index";
import { buildReportView, renderReportHtml } from "../server/src/core/report";
import { nodeEnv } from "../server/src/host/nodeEnv";

const ROOT = resolve(__dirname, "..");
const analyse = (name: string) => {
  const f = join(ROOT, "examples", name);
  return analyzeDocument(pathToFileURL(f).href, readFileSync(f, "utf8"), {}, nodeEnv(f, [ROOT]));
};
const lineOf = (name: string, key: string) => readFileSync(join(ROOT, "examples", name), "utf8").split("\n").findIndex((l) => l.startsWith(key));

describe("the hover says each thing once", () => {
  it("over the seed warning: the explanation, not the message or the related note again", () => {
    const r = analyse("tp_only_8gpu.toml");
    const d = r.diagnostics.find((x) => x.code === "no-mixed-precision")!;
    assert.ok(d.detail && d.related?.length, "the seed warning has a detail and related notes");
    const h = hoverAt(r, d.range.start)!;
    assert.ok(!h.markdown.includes(d.message), "the message is repeated in the hover");
    for (const rel of d.related!) assert.ok(!h.markdown.includes(`- ${rel.message}`), `related note repeated: ${rel.message}`);
    assert.equal(h.markdown.split(d.detail).length - 1, 1);
    assert.match(h.markdown, /^\*\*\[no-mixed-precision\]\([^)]+\)\*\* \(warning\): This is a TP-only run on 8 GPUs/);
  });
  it("the report keeps the message and the related notes", () => {
    const r = analyse("tp_only_8gpu.toml");
    const d = r.diagnostics.find((x) => x.code === "no-mixed-precision")!;
    assert.ok(r.reportMarkdown!.includes(`(warning): ${d.message}`));
    assert.ok(r.reportMarkdown!.includes(`- ${d.related![0]!.message}`));
  });
});

describe("memory over the GPU's capacity is visible wherever the estimate is", () => {
  const r = analyse("tp_only_8gpu.toml"); // ≈ 77.5 GiB reserved on the default H100 SXM (74.5 GiB)
  it("code lens", () => {
    assert.match(codeLenses(r)[0]!.title, /≈77\.49 GiB peak per GPU \(estimate\) ⚠ over the GPU's 74\.51 GiB$/);
  });
  it("hover", () => {
    const h = hoverAt(r, { line: lineOf("tp_only_8gpu.toml", "tensor_parallel_degree"), character: 2 })!;
    assert.match(h.markdown, /≈ 77\.49 GiB peak per GPU \(estimate, reserved;[^\n]*: ⚠ over the 74\.51 GiB of an H100 SXM 80GB \(estimate\)/);
  });
  it("text report", () => {
    assert.match(r.reportMarkdown!, /⚠ \*\*Does not fit\*\*: 77\.49 GiB per GPU is over the 74\.51 GiB of an H100 SXM 80GB \(estimate\)\./);
  });
  it("visual report", () => {
    const html = renderReportHtml(buildReportView(r, { noWhatIf: true }), { nonce: "AAAAAAAAAAAAAAAA" });
    assert.match(html, /<p class="pl-warn" role="note">⚠ Does not fit: the estimated peak [\d.]+ GiB per GPU is over the 74\.5\d? GiB of an H100 SXM 80GB/);
  });
  it("a config that fits gets none of it", () => {
    const ok = analyse("fsdp_8gpu.toml");
    assert.ok(ok.simulation?.memory.perGpuBytes);
    assert.doesNotMatch(codeLenses(ok)[0]!.title, /⚠/);
    assert.doesNotMatch(ok.reportMarkdown!, /Does not fit/);
    assert.doesNotMatch(renderReportHtml(buildReportView(ok, { noWhatIf: true }), { nonce: "AAAAAAAAAAAAAAAA" }), /pl-warn" role/);
  });
});
