/**
 * The text report (`explain`, the code lens's Markdown) reads right for every framework (issue #20):
 * - figures come from one place: a framework whose model sizes are not known (every YAML/JSON framework;
 *   the engine only simulates a reference graph) shows no memory or throughput figure in the text, the
 *   Markdown or the HTML, and no torchtitan wording ("training.dtype", "divide factor");
 * - every report opens with the same title; "## Diagnostics" appears once; a Markdown table is not cut by a
 *   paragraph; the CLI headline does not repeat the framework.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import { buildReportView, renderReportHtml } from "../server/src/core/report";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { runCliCaptured } from "./support/cli";
import { CORPUS, listFiles, corpusSkip } from "./support/corpus";

const ROOT = resolve(__dirname, "..");
const EXTS = [".toml", ".yaml", ".yml", ".json"];
/** A size or a rate: what a report about an unknown model must not print. */
const FIGURE = /\d\s?(?:[KMGT]i?B|tokens\/s)\b|\bM params\b|params on this GPU|\bMFU\b|s per step/;
const TITAN_WORDING = /training\.dtype|mixed_precision_param|divide factor|torchtitan sets/;

function analyse(f: string) {
  return analyzeDocument(pathToFileURL(f).href, readFileSync(f, "utf8"), {}, nodeEnv(f, [ROOT]));
}

/** Problems in one file's reports when its framework is not torchtitan. */
function foreignProblems(f: string): string[] {
  const r = analyse(f);
  if (!r.framework || r.framework === "torchtitan" || !r.reportMarkdown) return [];
  const out: string[] = [];
  const md = r.reportMarkdown;
  const html = renderReportHtml(buildReportView(r, { noWhatIf: true }), { nonce: "AAAAAAAAAAAAAAAA" });
  // A transformers file naming a known Llama-3 checkpoint gets the engine's estimate, said as such (docs/transformers.md).
  const knownModel = /Memory estimate \(the engine's Llama-3 [\d.]+B from `model_name_or_path: /.test(md);
  const fig = knownModel ? null : FIGURE.exec(md);
  if (fig) out.push(`${f}: Markdown report prints a figure for an unknown model: "${md.slice(Math.max(0, fig.index - 40), fig.index + 30)}"`);
  const hfig = knownModel ? null : FIGURE.exec(html.replace(/<style[\s\S]*?<\/style>/g, ""));
  if (hfig) out.push(`${f}: HTML report prints a figure: "${html.slice(hfig.index - 40, hfig.index + 30)}"`);
  const w = TITAN_WORDING.exec(md);
  if (w) out.push(`${f}: torchtitan wording in a ${r.framework} report: "${w[0]}"`);
  return out;
}

/** A Markdown table is one block: from its header to its last row, no line that is not a row. */
function brokenTables(md: string): string[] {
  const lines = md.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\|.*\|$/.test(lines[i]!) || (i > 0 && lines[i - 1]!.startsWith("|"))) continue;
    let j = i;
    while (j < lines.length && lines[j]!.startsWith("|")) j++;
    // A table row again after one paragraph: the paragraph cut the table in two.
    if (lines[j] === "" && lines[j + 1] && !lines[j + 1]!.startsWith("|") && lines[j + 2] !== undefined && /^\| \*\*/.test(lines[j + 2]!)) out.push(`table at line ${i + 1} is cut by "${lines[j + 1]}"`);
    if (lines[j] !== undefined && lines[j] !== "" ) out.push(`table at line ${i + 1} runs into "${lines[j]}"`);
    i = j;
  }
  return out;
}

describe("the text report", () => {
  const examples = listFiles(join(ROOT, "examples"), EXTS);

  it("examples: a YAML/JSON framework's report has no memory/throughput figure and no torchtitan wording", () => {
    assert.ok(examples.length > 20);
    assert.deepEqual(examples.flatMap(foreignProblems), []);
  });

  it("the torchtune 8B LoRA config from the corpus: no figure for the reference model", { skip: corpusSkip("torchtune") }, () => {
    const f = join(CORPUS, "torchtune/recipes/configs/llama3_1/8B_lora.yaml");
    const { out, code } = runCliCaptured(["explain", f], ROOT);
    assert.equal(code, 0);
    assert.doesNotMatch(out, FIGURE);
    assert.doesNotMatch(out, TITAN_WORDING);
    assert.match(out, /No memory or throughput estimate: the model's sizes are not known\./);
  });

  it("the whole corpus: the same for every YAML/JSON framework", { skip: corpusSkip() }, () => {
    const files = listFiles(CORPUS, EXTS).filter((f) => !f.includes("/broken/"));
    assert.deepEqual(files.flatMap(foreignProblems).slice(0, 10), []);
  });

  it("torchtitan keeps its figures (its model is known) and its tables stay whole", () => {
    const r = analyse(join(ROOT, "examples/fsdp_8gpu.toml"));
    assert.match(r.reportMarkdown ?? "", /\| \*\*reserved\*\* \(allocator\) \| \| \*\*[\d.]+ GiB\*\*/);
    assert.match(r.reportMarkdown ?? "", /\| \*\*peak\*\* \| \| \*\*[\d.]+ GiB\*\* \| \|\n\| \*\*reserved\*\*/);
    assert.deepEqual(brokenTables(r.reportMarkdown ?? ""), []);
  });

  it("every framework's report opens with the title, and explain prints '## Diagnostics' once", () => {
    const seen = new Set<string>();
    for (const f of examples) {
      const r = analyse(f);
      if (!r.framework || !r.reportMarkdown) continue;
      seen.add(r.framework);
      assert.ok(r.reportMarkdown.startsWith(`# Precision report: ${basename(f)}\n\n`), `${f}: ${r.reportMarkdown.slice(0, 60)}`);
      if (!r.diagnostics.length) continue;
      const { out } = runCliCaptured(["explain", f], ROOT);
      assert.equal(out.split("\n").filter((l) => l === "## Diagnostics").length, 1, `${f}: ## Diagnostics count`);
    }
    assert.deepEqual([...seen].sort(), ["accelerate", "axolotl", "deepspeed", "lightning", "torchtitan", "torchtune"]);
  });

  it("check's headline does not repeat the framework (axolotl · axolotl: …)", () => {
    const { out } = runCliCaptured(["check", "examples/yaml"], ROOT);
    const heads = out.split("\n").filter((l) => /^\S.*: \w+ · /.test(l));
    assert.ok(heads.length > 10, out);
    for (const l of heads) {
      const fw = /: (\w+) · /.exec(l)![1]!;
      assert.ok(!l.includes(`${fw} · ${fw}:`), l);
    }
    assert.match(out, /fft_fsdp2\.yaml: axolotl · The launch fails/);
  });
});
