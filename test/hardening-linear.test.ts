/**
 * Issue #18, critical inputs: each attack of test/support/attacks.ts at 300 kB runs through the analysis in
 * a child process with a time and heap bound. The bounds are liveness bounds (the quadratic and cubic
 * versions took minutes to hours, or ran out of memory), not speed assertions: `npm run bench` prints the
 * figures and their scaling.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { ATTACKS } from "./support/attacks";

const ROOT = resolve(__dirname, "..");
const CHILD = join(ROOT, "test/support/attackChild.ts");
const SIZE = 300_000;
const TIMEOUT_MS = 30_000;
const HEAP_MB = 384;

describe("critical inputs finish within a time and heap bound (issue #18)", () => {
  ATTACKS.forEach((a, i) => {
    it(`${a.name}, ${SIZE / 1000} kB`, () => {
      const p = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, "--import", "tsx", CHILD, String(i), String(SIZE)], { cwd: ROOT, encoding: "utf8", timeout: TIMEOUT_MS });
      assert.equal(p.signal, null, `${a.name}: killed (${p.signal}): over ${TIMEOUT_MS} ms or out of memory`);
      assert.equal(p.status, 0, p.stderr.slice(0, 2000));
      const r = JSON.parse(p.stdout) as { codes: string[] };
      assert.ok(!r.codes.includes("internal-error"), JSON.stringify(r.codes));
    });
  });
});
