/**
 * The examples on the diagnostic pages (docs/diagnostics/<code>.md) stay true: every page with a config
 * example and a "Precision Lens reports:" list is analysed, and each listed diagnostic (line, severity,
 * message) must be what the current build reports for that example. Pages list only the diagnostics they
 * are about, so other findings on the same example are allowed.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";

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
