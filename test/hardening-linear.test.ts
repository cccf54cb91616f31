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
import { keyPartsReason } from "../server/src/core/parse/guard";
import { parseTomlDocument } from "../server/src/core/parse/toml";
import { MAX_KEY_PARTS } from "../server/src/core/model/limits";
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

describe("dotted keys are counted before the TOML parser sees them (issue #18: the parser built a node per part)", () => {
  const parts = (n: number): string => Array.from({ length: n }, (_, i) => `a${i}`).join(".");
  const parse = (text: string) => parseTomlDocument("file:///x/train.toml", text);

  it(`${MAX_KEY_PARTS} parts are parsed; ${MAX_KEY_PARTS + 1} are refused at their line, as a key or a header`, () => {
    assert.equal(parse(`${parts(MAX_KEY_PARTS)} = 1\n`).skipped, undefined);
    assert.equal(parse(`[job]\n${parts(MAX_KEY_PARTS + 1)} = 1\n`).skipped, keyPartsReason(1));
    assert.equal(parse(`x = 1\n\n[${parts(MAX_KEY_PARTS + 1)}]\n`).skipped, keyPartsReason(2));
    assert.equal(parse(`t = { ${parts(MAX_KEY_PARTS + 1)} = 1 }\n`).skipped, keyPartsReason(0));
  });

  it("dots in values, strings and comments are not key parts", () => {
    const many = ".".repeat(MAX_KEY_PARTS + 5);
    const text = `a = "${many}"\nb = [${Array.from({ length: 100 }, () => "1.5").join(", ")}]\n# ${many}\nc = 'x${many}'\n"q${many}".r = 2\n`;
    const doc = parse(text);
    assert.equal(doc.skipped, undefined);
    assert.deepEqual(doc.entries.map((e) => e.path.join(".")), ["a", "b", "c", `q${many}.r`]);
  });
});
