/**
 * The examples on the diagnostic pages (docs/diagnostics/<code>.md) stay true: every page with a config
 * example and a "Precision Lens reports:" list is analysed, and each listed diagnostic (line, severity,
 * message) must be what the current build reports for that example. Pages list only the diagnostics they
 * are about, so other findings on the same example are allowed. Each framework page's header (title, summary, old
 * code) and its index row are what scripts/rule-docs.mjs generates from the rule's doc comment (issue #34).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { codeInfo, DIAGNOSTIC_CODES } from "../server/src/core/diagnostics/codes";
import { TITAN_RULES } from "../server/src/core/frameworks/torchtitan/rules/index";
import { docParagraphs, generatedDocs, pageHeader, ruleSummaries } from "../scripts/rule-docs.mjs";

const ROOT = resolve(__dirname, "..", "docs", "diagnostics");
const EXAMPLE = /\n`([^`\n]+)`:\n\n```\w+\n([\s\S]*?)\n```\n\nPrecision Lens reports:\n\n((?:- [^\n]*\n(?: {2}[^\n]*\n)*)+)/;

function pages(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? pages(p) : n.endsWith(".md") && n !== "README.md" ? [p] : [];
  });
}

const examples = pages(ROOT).flatMap((p) => {
  const m = EXAMPLE.exec(readFileSync(p, "utf8"));
  return m ? [{ page: relative(ROOT, p), file: m[1]!, text: `${m[2]!}\n`, reported: m[3]!.split("\n").filter((l) => l.startsWith("- line ")).map((l) => l.slice(2)) }] : [];
});

describe("diagnostic pages: their examples are what the build reports", () => {
  it("most pages carry a checked example", () => assert.ok(examples.length >= 40, `${examples.length} pages with an example`));
  for (const ex of examples) {
    it(ex.page, () => {
      const r = analyzeDocument(`file:///docs/${ex.file}`, ex.text);
      const actual = r.diagnostics.map((d) => `line ${d.range.start.line + 1}, ${d.severity}: ${d.message}`);
      assert.ok(ex.reported.length > 0);
      for (const line of ex.reported) assert.ok(actual.includes(line), `${ex.page} says "${line}", the build reports:\n${actual.join("\n")}`);
    });
  }
});

describe("diagnostic pages: the header is generated from the rule's doc comment (scripts/rule-docs.mjs)", () => {
  const summaries = ruleSummaries();

  it("every code a rule reports (torchtitan's and every framework's) has a `<code>: <summary>` paragraph in its rule's doc comment", () => {
    const ruled = new Set([...TITAN_RULES.flatMap((r) => r.codes), ...Object.keys(DIAGNOSTIC_CODES).filter((c) => c.includes("/"))]);
    assert.ok(ruled.size >= 137, `${ruled.size} codes`);
    assert.deepEqual([...ruled].filter((c) => !summaries.has(c)), []);
    // The codes no rule reports (syntax, suppression, directives, the host's notes) keep hand-written pages.
    assert.deepEqual([...summaries.keys()].filter((c) => !ruled.has(c)), []);
  });

  it("a generated header carries the editor tag of a tagged code", () => {
    const h = pageHeader("no-effect", summaries.get("no-effect")!);
    assert.ok(h.endsWith("A setting that only FSDP reads, in a layout without FSDP.\n\nEditor tag: `Unnecessary` (shown faded).\n\n"), h);
    assert.equal(summaries.get("torchtune/cpu-offload-key-ignored")?.tag, "Unnecessary");
    assert.equal(summaries.get("lightning/legacy-precision-alias")?.tag, "Deprecated");
    assert.equal(summaries.get("no-mixed-precision")?.tag, undefined);
  });

  it("the doc comment's summary is the registry's (codes.ts: SARIF's shortDescription, the index)", () => {
    for (const [code, { summary, file }] of summaries) assert.equal(summary, codeInfo(code)?.summary, `${code} (${file})`);
  });

  it("every page and the index read as generated: run `node scripts/rule-docs.mjs` after editing a rule's doc comment", () => {
    const stale = [...generatedDocs()].filter(([path, want]) => readFileSync(path, "utf8") !== want).map(([path]) => relative(ROOT, path));
    assert.deepEqual(stale, []);
  });

  it("the header names the code, the summary, the old code and the rule file; a changed summary changes it", () => {
    const info = summaries.get("transformers/unknown-key")!;
    assert.equal(info.file, "server/src/core/frameworks/transformers/rules/unknown-key.ts");
    const h = pageHeader("transformers/unknown-key", info);
    assert.ok(h.startsWith("# `transformers/unknown-key`\n"));
    assert.ok(h.includes(`\n\n${info.summary}\n\nFormerly \`transformers/HF6\``)); // rename-rule-codes: keep
    assert.ok(h.includes(info.file));
    assert.notEqual(pageHeader("transformers/unknown-key", { ...info, summary: "Something else." }), h);
    const page = readFileSync(join(ROOT, "transformers", "unknown-key.md"), "utf8");
    assert.ok(page.startsWith(h), "the page starts with its generated header");
    assert.match(readFileSync(join(ROOT, "README.md"), "utf8"), /^\| \[`transformers\/unknown-key`\]\(transformers\/unknown-key\.md\) \(was `HF6`\) \| A key the argument parser/m); // rename-rule-codes: keep
  });

  it("a doc comment's paragraphs: lines joined, blank lines split", () => {
    assert.deepEqual(docParagraphs("/**\n * a/b: One\n * two.\n *\n * Rest.\n */\nconst x = 1;\n"), ["a/b: One two.", "Rest."]);
    assert.deepEqual(docParagraphs("/** a/b: One. */\n"), ["a/b: One."]);
  });
});
