// The differential oracle as a node test (`npm run test:oracle`): runs oracle/run.py in .oracle-venv and
// fails on any undocumented disagreement (the run's exit code), printing the table. Skipped, with the reason,
// when the oracle environment is absent (create it with `bash oracle/setup.sh`; CI does).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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

// What each torchtitan release registers (models, flavors, modules, model-built dtypes) is generated from the
// installed releases (scripts/titan-releases.py, issue #32): the committed data file must be what they say.
test("releases.data.ts is what scripts/titan-releases.py reads from the installed torchtitan releases", { skip: existsSync(python) ? false : skip, timeout: 10 * 60_000 }, () => {
  const r = spawnSync(python, [join(root, "scripts", "titan-releases.py"), "--check"], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr.slice(-3000)}: rerun .oracle-venv/bin/python scripts/titan-releases.py`);
  assert.match(r.stdout, /matches the installed releases/);
});

// `run.py --files DIR`: anyone's folder of configs, with per-file arguments in a sidecar (issue #32 §5). The
// two DeepSpeed files: one with a key DeepSpeedFP16Config forbids (the product's unknown-precision-key and
// DeepSpeedConfig's ValidationError must agree), one accepted at the sidecar's world size 4 (at the default
// world size 1 its batch trio 32 = 2 × 4 × W would fail, so the claim shows the sidecar was read).
test("oracle/run.py --files DIR checks a folder of one's own configs, with a sidecar's arguments", { skip, timeout: 10 * 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "pl-oracle-files-"));
  const out = mkdtempSync(join(tmpdir(), "pl-oracle-out-"));
  writeFileSync(join(dir, "bad_fp16.json"), '{"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 2}, "fp16": {"enabled": true, "opt_level": "O2"}}\n');
  writeFileSync(join(dir, "good.json"), '{"train_batch_size": 32, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4, "zero_optimization": {"stage": 2}, "bf16": {"enabled": true}, "communication_data_type": "fp32"}\n');
  writeFileSync(join(dir, "good.json.precision-lens"), "precision-lens: world-size=4\n");
  const r = spawnSync(python, [join(root, "oracle", "run.py"), "--files", dir, "--only", "deepspeed", "--out", out], { cwd: root, encoding: "utf8", env: { ...process.env, ORACLE_VENV: venv } });
  assert.equal(r.status, 0, r.stderr.slice(-3000));
  const report = JSON.parse(readFileSync(join(out, "agreement.json"), "utf8"));
  assert.equal(report.configs, 2);
  const load = Object.fromEntries(report.claims.filter((c) => c.kind === "ds.load").map((c) => [c.path.split("/").pop(), c]));
  assert.deepEqual(load["bad_fp16.json"].product, ["deepspeed/unknown-precision-key"]);
  assert.match(load["bad_fp16.json"].oracle, /ValidationError.*DeepSpeedFP16Config/);
  assert.equal(load["bad_fp16.json"].agree, true);
  assert.equal(load["good.json"].oracle, "accepts");
  assert.equal(load["good.json"].note, "world size 4");
  assert.equal(report.totals.undocumented, 0);
});

// Mutation testing, CI's subset (the whole set: `npm run test:oracle:mutants`): `mutants.py --ci` runs the
// unmutated product first (it must agree everywhere), then one mutant of each kind that CI can afford: a launch
// error dropped, a dtype flipped (DeepSpeed and torchtitan's FSDP reduce dtype, read from the FSDPModule that
// torchtitan's own parallelize_llama returns), a mechanism swapped, the world size off by a factor. Each must
// make the oracle fail (issue #32 §3).
test("the oracle catches product mutants (CI subset: mutants.py --ci)", { skip, timeout: 30 * 60_000 }, () => {
  const r = spawnSync(python, [join(root, "oracle", "mutants.py"), "--ci"], { cwd: root, encoding: "utf8", env: { ...process.env, ORACLE_VENV: venv } });
  process.stdout.write(r.stdout.slice(-4000));
  assert.equal(r.status, 0, `a mutant survived, or the baseline disagreed: ${r.stdout.slice(-2000)}${r.stderr.slice(-2000)}`);
  const res = JSON.parse(readFileSync(join(root, "oracle", "out", "mutants.json"), "utf8"));
  assert.deepEqual(res.mutants.map((m) => [m.name, m.status]), [
    ["ds-compute-flip", "caught"],
    ["ds-error-dropped-unknown-precision-key", "caught"],
    ["pl-litgpt-ddp-as-fsdp", "caught"],
    ["titan-reduce-bf16", "caught"],
    ["titan-world-size-directive-x2", "caught"],
  ]);
  const reduce = res.mutants.find((m) => m.name === "titan-reduce-bf16");
  assert.ok(reduce.by.some((b) => b.startsWith("titan.reduce titan_fsdp_bf16.toml")), reduce.by.join(", "));
});
