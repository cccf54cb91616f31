// A node:test reporter that writes nothing to the terminal: it appends every skipped suite and test (name,
// file, reason) as one JSON line to the skip log, for the summary that ends `npm test`
// (scripts/skip-summary.mjs). Used beside the spec reporter:
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./scripts/skip-reporter.mjs --test-reporter-destination=stdout test/*.test.ts
// The log is PRECISION_LENS_SKIP_LOG, else .test-skips.jsonl in the current folder (git-ignored).
import { appendFileSync } from "node:fs";
import { relative, resolve } from "node:path";

export const skipLogPath = () => resolve(process.env.PRECISION_LENS_SKIP_LOG || ".test-skips.jsonl");

export default async function* skipReporter(source) {
  const log = skipLogPath();
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { skip, name, file, details } = event.data;
    if (skip === undefined || skip === false) continue;
    const entry = {
      file: file ? relative(process.cwd(), file) : "",
      name,
      kind: details?.type === "suite" ? "suite" : "test",
      reason: typeof skip === "string" && skip ? skip : "(no reason given)",
    };
    appendFileSync(log, `${JSON.stringify(entry)}\n`);
  }
}
