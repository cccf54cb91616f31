// The last step of `npm test`: counts and names every suite and test that was skipped (from the log that
// scripts/skip-reporter.mjs appends to), grouped by the reason, which says what to install to run them.
//   node scripts/skip-summary.mjs --reset     empties the log (the first step of `npm test`)
//   node scripts/skip-summary.mjs --exit N    prints the summary, then exits with N (the tests' status)
import { existsSync, readFileSync, rmSync } from "node:fs";
import { skipLogPath } from "./skip-reporter.mjs";

const args = process.argv.slice(2);
const log = skipLogPath();
if (args.includes("--reset")) {
  rmSync(log, { force: true });
  process.exit(0);
}
const at = args.indexOf("--exit");
const status = at >= 0 ? Number(args[at + 1]) || 0 : 0;

const entries = [];
if (existsSync(log)) {
  for (const line of readFileSync(log, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      /* a line cut by a crashed run: not counted */
    }
  }
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const out = [];
if (entries.length === 0) {
  out.push("Skipped: nothing (every suite ran).");
} else {
  const suites = entries.filter((e) => e.kind === "suite").length;
  out.push(`Skipped: ${entries.length} (${plural(suites, "suite")}, ${plural(entries.length - suites, "test")}), by reason:`);
  const byReason = new Map();
  for (const e of entries) byReason.set(e.reason, [...(byReason.get(e.reason) ?? []), e]);
  for (const [reason, list] of byReason) {
    out.push(`- ${reason} (${list.length})`);
    for (const e of list) out.push(`    ${e.file || "?"}: ${e.kind} "${e.name}"`);
  }
  out.push("What each suite needs: docs/development.md, \"What the tests need\".");
}
// Suites npm test never starts (each skips, with its reason, when run without what it needs).
out.push("Not part of npm test: the differential oracle (bash oracle/setup.sh, then npm run test:oracle; docs/oracle.md) and the benchmarks (npm run bench).");
process.stdout.write(`\n${out.join("\n")}\n`);
process.exit(status);
