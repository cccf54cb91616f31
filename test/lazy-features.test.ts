/**
 * Issue #21: hovers, inlay hints and the report are computed only when read (core/lazy.ts). The CLI's
 * `check` never reads them, in any format; the editor features and `explain` still get the same content.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { runCli } from "../server/src/cliMain";
import { analyzeDocument } from "../server/src/core/analyze";
import { lazyComputations } from "../server/src/core/model/lazy";
import { corpusSkip } from "./support/corpus";
import { registry } from "./bench/python";

const ROOT = join(import.meta.dirname, "..");
const EXAMPLES = join(ROOT, "examples");
const snapshot = () => ({ hovers: lazyComputations.hovers ?? 0, inlayHints: lazyComputations.inlayHints ?? 0, reportMarkdown: lazyComputations.reportMarkdown ?? 0 });

for (const format of ["text", "json", "sarif", "github"]) {
  test(`check --format ${format} over examples/ builds no hover, inlay hint or report`, () => {
    const before = snapshot();
    let out = "";
    const code = runCli(["check", "--format", format, EXAMPLES], { stdout: (s) => void (out += s), stderr: () => undefined, cwd: ROOT });
    assert.equal(code, 1, "examples/ holds configs whose launch fails");
    assert.ok(out.length > 1000, "the check printed its results");
    assert.deepEqual(snapshot(), before);
  });
}

test("check --quiet keeps the features lazy (errorsOnly copies getters, not values)", () => {
  const before = snapshot();
  runCli(["check", "--quiet", EXAMPLES], { stdout: () => undefined, stderr: () => undefined, cwd: ROOT });
  assert.deepEqual(snapshot(), before);
});

test("reading hovers builds them once, on request, with the precision summary", () => {
  const f = join(EXAMPLES, "fsdp_8gpu.toml");
  const r = analyzeDocument(pathToFileURL(f).href, readFileSync(f, "utf8"));
  const before = snapshot();
  assert.equal(r.framework, "torchtitan");
  assert.ok(r.hovers.length > 0);
  assert.ok(r.hovers.some((h) => /\*\*Precision/.test(h.markdown) || /bfloat16|float32/.test(h.markdown)));
  void r.hovers;
  assert.equal(snapshot().hovers, before.hovers + 1);
  assert.equal(snapshot().reportMarkdown, before.reportMarkdown);
  assert.match(r.reportMarkdown ?? "", /bfloat16|float32/);
  assert.equal(snapshot().reportMarkdown, before.reportMarkdown + 1);
});

const CORPUS = join(ROOT, "..", "shared", "corpus");
test("check over the corpus (every framework, YAML and JSON included) builds no hover", { skip: corpusSkip() }, () => {
  const before = snapshot();
  let out = "";
  runCli(["check", "--format", "json", CORPUS], { stdout: (s) => void (out += s), stderr: () => undefined, cwd: ROOT });
  const frameworks = new Set((JSON.parse(out) as { files: { framework: string | null }[] }).files.map((f) => f.framework));
  for (const id of ["torchtitan", "torchtune", "accelerate", "lightning", "axolotl", "deepspeed"]) assert.ok(frameworks.has(id), `the corpus has a ${id} config`);
  assert.deepEqual(snapshot(), before);
});

test("a torchtitan Python registry's diagnostics build no hover, inlay hint, report or per-function Markdown (issue #36)", () => {
  const text = registry(71); // base() and 9 config functions
  const md = () => lazyComputations.markdown ?? 0;
  const before = { ...snapshot(), markdown: md() };
  const r = analyzeDocument("file:///lazy/config_registry.py", text);
  assert.equal(r.framework, "torchtitan");
  assert.equal(r.codeLenses?.length, 10);
  void r.diagnostics.length;
  void r.configFunctions?.map((f) => f.detail);
  assert.deepEqual({ ...snapshot(), markdown: md() }, before);
  // Hovers build every function's Markdown once; the report reuses it.
  const nameHover = r.hovers.find((h) => h.markdown.startsWith("### Precision Lens — `cfg_3()`"));
  assert.ok(nameHover, "the hover on cfg_3's name is its Markdown");
  assert.equal(md(), before.markdown + 10);
  assert.match(r.reportMarkdown ?? "", /### Precision Lens — `base\(\)`/);
  assert.equal(md(), before.markdown + 10);
  // No headline hint on the `def` line (the code lens says it, issue #34): reading the hints builds them once.
  assert.ok(Array.isArray(r.inlayHints));
  assert.equal(snapshot().inlayHints, before.inlayHints + 1);
});

// Issue #36: the no-mixed-precision fixes re-simulate the run for their memory estimates; `check --format json|text`
// never prints them, so they are a lazy value read only by code actions, SARIF and --fix.
const fixesComputed = () => lazyComputations.fixes ?? 0;

for (const format of ["json", "text"]) {
  test(`check --format ${format} over examples/ computes no no-mixed-precision fixes`, () => {
    const before = fixesComputed();
    let out = "";
    runCli(["check", "--format", format, EXAMPLES], { stdout: (s) => void (out += s), stderr: () => undefined, cwd: ROOT });
    assert.match(out, /no-mixed-precision/, "the rule fired");
    assert.equal(fixesComputed(), before);
  });
}

test("check --format sarif prints the no-mixed-precision fixes, computed once per diagnostic", () => {
  const before = fixesComputed();
  let out = "";
  runCli(["check", "--format", "sarif", join(EXAMPLES, "tp_pp_8gpu.toml")], { stdout: (s) => void (out += s), stderr: () => undefined, cwd: ROOT });
  assert.match(out, /Train fully in bf16: training\.dtype = \\"bfloat16\\" \(no fp32 master weights\) — does not fit: ≈ 109\.59 GiB per GPU/);
  assert.equal(fixesComputed(), before + 1);
});

test("reading a no-mixed-precision diagnostic's fixes computes them once, in their place before the facts", () => {
  const f = join(EXAMPLES, "pp_only_4gpu.toml");
  const d = analyzeDocument(pathToFileURL(f).href, readFileSync(f, "utf8")).diagnostics.find((x) => x.code === "no-mixed-precision");
  assert.ok(d?.data, "the rule fired with its data");
  const before = fixesComputed();
  assert.deepEqual(Object.keys(d.data), ["fixes", "facts"]);
  assert.equal(fixesComputed(), before, "listing the keys computes nothing");
  const titles = d.data.fixes?.map((x) => x.title);
  assert.equal(titles?.[0], "Lower pipeline_parallel_degree to 2 so FSDP shards over 2 GPUs (bf16 mixed precision) — does not fit: ≈ 94.50 GiB per GPU, over the H100 SXM 80GB's 74.51 GiB (estimate)");
  assert.equal(titles?.length, 3);
  assert.equal(d.data.fixes, d.data.fixes, "the same array on every read");
  assert.equal(fixesComputed(), before + 1);
});
