/**
 * Issue #18: docs/limits.md "What is bounded" says exactly what holds. Every bullet is pinned: each figure
 * written as `N unit (`CONSTANT`)` must equal that constant, and each `<!-- pin: FILE "TITLE" -->` must
 * name a test file that has a test of that title, so neither the doc nor the code can drift alone.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { MAX_DEGREE, MAX_KEY_PARTS, MAX_NESTING, MAX_REPEATED_DIAGNOSTICS } from "../server/src/core/model/limits";
import { MAX_ANALYSED_CHARS } from "../server/src/core/parse/guard";
import { MAX_DEPTH } from "../server/src/core/parse/json";
import { MAX_ALIAS_EXPANSION } from "../server/src/core/parse/yaml";
import { MAX_NEIGHBOUR_SCAN_CHARS, MAX_SCANNED_LINE_CHARS } from "../server/src/core/workspace/scan";
import { MAX_EXPLAINED } from "../server/src/core/frameworks/torchtitan/rules/unknown-key";
import { MAX_ANALYSIS_STEPS, MAX_EVAL_STEPS, MAX_MODULE_MEMO, MAX_MODULES } from "../server/src/core/frameworks/torchtitan/python/evaluate";
import { MAX_PY_NESTING } from "../server/src/core/parse/guard";
import { PY_MODULE_CACHE_CHARS, PY_MODULE_CACHE_ENTRIES } from "../server/src/core/parse/pyModuleCache";
import { MAX_FILE_BYTES } from "../server/src/host/files";
import { MAX_FRAME_BODY_BYTES, MAX_FRAME_HEADER_BYTES } from "../server/src/host/frameGuard";
import { MAX_NEIGHBOUR_BYTES, MAX_NEIGHBOUR_READ_BYTES, NEIGHBOUR_CACHE_BYTES, NEIGHBOUR_CACHE_ENTRIES, NEIGHBOUR_FILES_PER_ANALYSIS, NEIGHBOUR_SCAN_CHARS_PER_ANALYSIS } from "../server/src/host/nodeEnv";
import { SETTINGS_TIMEOUT_MS } from "../server/src/host/workQueue";
import { MAX_DEBOUNCE_MS } from "../server/src/latency";

const ROOT = resolve(__dirname, "..");
const CONSTANTS: Record<string, number> = {
  MAX_FILE_BYTES,
  MAX_ANALYSED_CHARS,
  MAX_NESTING,
  MAX_DEPTH,
  MAX_KEY_PARTS,
  MAX_DEGREE,
  MAX_NEIGHBOUR_BYTES,
  MAX_NEIGHBOUR_READ_BYTES,
  MAX_NEIGHBOUR_SCAN_CHARS,
  MAX_SCANNED_LINE_CHARS,
  NEIGHBOUR_SCAN_CHARS_PER_ANALYSIS,
  NEIGHBOUR_FILES_PER_ANALYSIS,
  NEIGHBOUR_CACHE_BYTES,
  NEIGHBOUR_CACHE_ENTRIES,
  MAX_EXPLAINED,
  MAX_REPEATED_DIAGNOSTICS,
  MAX_ALIAS_EXPANSION,
  MAX_FRAME_HEADER_BYTES,
  MAX_FRAME_BODY_BYTES,
  SETTINGS_TIMEOUT_MS,
  MAX_DEBOUNCE_MS,
  MAX_EVAL_STEPS,
  MAX_MODULES,
  MAX_MODULE_MEMO,
  MAX_ANALYSIS_STEPS,
  MAX_PY_NESTING,
  PY_MODULE_CACHE_ENTRIES,
  PY_MODULE_CACHE_CHARS,
};
const UNITS: Record<string, number> = { KiB: 1024, MiB: 1024 * 1024, GiB: 1024 ** 3 };

/** The bullets of the "What is bounded" list, each as one line of text (its wrapped lines joined). */
function bullets(): string[] {
  const text = readFileSync(join(ROOT, "docs/limits.md"), "utf8");
  const start = text.indexOf("What is bounded");
  const end = text.indexOf("What `check --fix` guarantees");
  assert.ok(start >= 0 && end > start, "docs/limits.md has its two lists");
  const out: string[] = [];
  for (const line of text.slice(start, end).split("\n")) {
    if (line.startsWith("- ")) out.push(line.slice(2));
    else if (line.startsWith("  ") && out.length) out[out.length - 1] += " " + line.trim();
  }
  return out;
}

/** The figure written just before `at` in `s` ("8 MiB", "1,048,576", "2,000 ms"), as a number. */
function figureBefore(s: string, at: number): number | undefined {
  const m = /(\d[\d,]*)(?:\s+(KiB|MiB|GiB))?\s+[^\d]*$/.exec(s.slice(Math.max(0, at - 60), at));
  if (!m) return undefined;
  return Number(m[1]!.replace(/,/g, "")) * (m[2] ? UNITS[m[2]]! : 1);
}

describe("docs/limits.md pins each line (issue #18)", () => {
  const list = bullets();

  it("the list is there", () => {
    assert.ok(list.length >= 10, `${list.length} bullets`);
  });

  it("every figure equals the constant named after it", () => {
    const seen = new Set<string>();
    for (const b of list) {
      for (const m of b.matchAll(/\(`([A-Z][A-Z0-9_]+)`/g)) {
        const name = m[1]!;
        assert.ok(name in CONSTANTS, `docs/limits.md names ${name}: add it to this test's table`);
        const figure = figureBefore(b, m.index!);
        assert.equal(figure, CONSTANTS[name], `${name}: the doc says ${figure}, the code ${CONSTANTS[name]} (${b.slice(0, 80)}…)`);
        seen.add(name);
      }
    }
    assert.deepEqual(Object.keys(CONSTANTS).filter((k) => !seen.has(k)), [], "every constant of the table is in the doc");
  });

  it("every bullet names the test that shows its behaviour, and that test exists", () => {
    for (const b of list) {
      const pins = [...b.matchAll(/<!-- pin: ([\w.-]+\.test\.ts) "([^"]+)" -->/g)];
      assert.ok(pins.length > 0, `no pin: ${b.slice(0, 100)}…`);
      for (const [, file, title] of pins) {
        const path = join(ROOT, "test", file!);
        assert.ok(existsSync(path), `${file} exists`);
        assert.ok(readFileSync(path, "utf8").includes(title!), `${file} has a test "${title}"`);
      }
    }
  });

  it("a figure that drifts is caught (the check itself can fail)", () => {
    const b = "reads at most 4 MiB (`MAX_FILE_BYTES`) of a file";
    assert.notEqual(figureBefore(b, b.indexOf("(`")), MAX_FILE_BYTES);
    assert.equal(figureBefore("over 512,000 characters (`X`)", 27), 512_000);
  });
});
