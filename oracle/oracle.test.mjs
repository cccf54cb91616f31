// The differential oracle as a node test (`npm run test:oracle`): runs oracle/run.py in .oracle-venv and
// fails on any undocumented disagreement (the run's exit code), printing the table. Skipped, with the reason,
// when the oracle environment is absent (create it with `bash oracle/setup.sh`; CI does).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const venv = process.env.ORACLE_VENV ?? join(root, ".oracle-venv");
const python = join(venv, "bin", "python");
const skip = !existsSync(python)
  ? `no oracle environment at ${venv} (run \`bash oracle/setup.sh\`, as .ci/run does)`
  : !existsSync(join(root, "dist", "cli.js"))
    ? "dist/cli.js is not built (npm run build)"
    : false;

test("the frameworks agree with Precision Lens on every config, or the difference is documented", { skip, timeout: 30 * 60_000 }, () => {
  const r = spawnSync(python, [join(root, "oracle", "run.py")], { cwd: root, encoding: "utf8", env: { ...process.env, ORACLE_VENV: venv }, maxBuffer: 64 << 20 });
  process.stdout.write(r.stdout.slice(-20000));
  process.stderr.write(r.stderr.slice(-8000));
  assert.equal(r.status, 0, "oracle/run.py found undocumented disagreements (or failed): see oracle/out/agreement.md");
  const report = JSON.parse(readFileSync(join(root, "oracle", "out", "agreement.json"), "utf8"));
  const corpus = process.env.PL_CORPUS ?? join(root, "..", "shared", "corpus");
  if (existsSync(corpus)) assert.ok(report.configs >= 150, `only ${report.configs} configs checked`);
  else console.log(`# no corpus at ${corpus}: only examples/ and test/fixtures/ were checked (${report.configs} configs)`);
  assert.equal(report.totals.undocumented, 0);
  assert.deepEqual(report.unused_documented, [], "documented differences no claim needs any more: remove them from oracle/known_differences.json");
});
