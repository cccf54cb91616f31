/**
 * Issue #20: `npm test` said "skipped 1" while nine corpus suites, the Neovim test and the real-editor suite
 * were skipped (node's spec reporter counts skipped tests, not skipped suites). scripts/skip-reporter.mjs
 * logs every skipped suite and test; scripts/skip-summary.mjs, the last step of `npm test`, counts and names
 * them by reason (which says what to install).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CORPUS_SKIP } from "./support/corpus";

const ROOT = join(import.meta.dirname, "..");
const REPORTER = join(ROOT, "scripts", "skip-reporter.mjs");
const SUMMARY = join(ROOT, "scripts", "skip-summary.mjs");
const dir = mkdtempSync(join(tmpdir(), "pl-skip-summary-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const FIXTURE = `import { describe, it, test } from "node:test";
describe("a corpus suite", { skip: "the corpus is absent: put it at ../shared/corpus" }, () => { it("inner", () => {}); });
describe("a suite that runs", () => {
  it("passes", () => {});
  it("skipped inside", { skip: "nvim is not installed (apt-get install -y neovim)" }, () => {});
});
test("skipped while running", (t) => { t.skip("the corpus is absent: put it at ../shared/corpus"); });
test("a plain pass", () => {});
`;

const NOT_RUN = "Not part of npm test: the differential oracle (bash oracle/setup.sh, then npm run test:oracle; docs/oracle.md) and the benchmarks (npm run bench).";

function run(args: string[], env: Record<string, string>) {
  // NODE_TEST_CONTEXT would make the inner `node --test` talk to this runner instead of its reporters.
  const { PRECISION_LENS_SKIP_LOG: _log, NODE_TEST_CONTEXT: _context, ...rest } = process.env;
  return spawnSync(process.execPath, args, { cwd: dir, encoding: "utf8", env: { ...rest, ...env }, timeout: 60_000 });
}

describe("the skip summary at the end of npm test", () => {
  const log = join(dir, "skips.jsonl");
  writeFileSync(join(dir, "fixture.test.mjs"), FIXTURE);

  it("names every skipped suite and test with its file, grouped by reason, and counts them", () => {
    const t = run(["--test", "--test-reporter=spec", "--test-reporter-destination=stdout", `--test-reporter=${REPORTER}`, "--test-reporter-destination=stdout", "fixture.test.mjs"], { PRECISION_LENS_SKIP_LOG: log });
    assert.equal(t.status, 0, t.stdout + t.stderr);
    // node's own count: 2 skipped tests, the skipped suite not among them (the reason for this summary).
    assert.match(t.stdout, /skipped 2\b/);
    const s = run([SUMMARY, "--exit", "0"], { PRECISION_LENS_SKIP_LOG: log });
    assert.equal(s.status, 0, s.stderr);
    assert.equal(
      s.stdout,
      [
        "",
        "Skipped: 3 (1 suite, 2 tests), by reason:",
        "- the corpus is absent: put it at ../shared/corpus (2)",
        '    fixture.test.mjs: suite "a corpus suite"',
        '    fixture.test.mjs: test "skipped while running"',
        "- nvim is not installed (apt-get install -y neovim) (1)",
        '    fixture.test.mjs: test "skipped inside"',
        'What each suite needs: docs/development.md, "What the tests need".',
        NOT_RUN,
        "",
      ].join("\n"),
    );
  });

  it("passes the tests' exit status through, and --reset empties the log", () => {
    assert.equal(run([SUMMARY, "--exit", "3"], { PRECISION_LENS_SKIP_LOG: log }).status, 3);
    assert.equal(run([SUMMARY, "--reset"], { PRECISION_LENS_SKIP_LOG: log }).status, 0);
    assert.equal(run([SUMMARY], { PRECISION_LENS_SKIP_LOG: log }).stdout, `\nSkipped: nothing (every suite ran).\n${NOT_RUN}\n`);
  });

  it("npm test resets the log first, logs the unit and E2E runs, and ends with the summary whatever their status", () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    const reporter = "--test-reporter=./scripts/skip-reporter.mjs";
    assert.match(scripts.test!, /^node scripts\/skip-summary\.mjs --reset && /);
    assert.match(scripts.test!, /; node scripts\/skip-summary\.mjs --exit \$\?$/);
    assert.ok(scripts.test!.includes(`${reporter} --test-reporter-destination=stdout test/*.test.ts`), scripts.test);
    assert.ok(scripts["test:e2e"]!.includes(reporter), scripts["test:e2e"]);
    assert.ok(scripts["test:oracle"]!.includes(reporter), scripts["test:oracle"]);
  });

  it("a corpus suite's reason says where the corpus goes and where to read what it is", () => {
    assert.match(CORPUS_SKIP, /^\.\.\/shared\/corpus is absent \(expected at \/.+\/shared\/corpus\): to run the corpus suites, put a folder of third-party training configs there \(docs\/development\.md, "What the tests need"\)$/);
  });
});
