/**
 * The README is for users (issue #34): install first, three screenshots, what it catches, the settings
 * (every version the setting accepts), the two commands short; no developer jargon; it says the extension
 * activates on Python files too.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { TORCHTITAN_PY_VERSIONS, TORCHTITAN_VERSIONS } from "../client/src/settings";

const ROOT = resolve(__dirname, "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const prose = README.replace(/```[\s\S]*?```/g, "").replace(/\]\([^)]*\)/g, "]");

test("sections in a user's order: install, what it catches, settings, other editors and the CLI, the two commands", () => {
  const h2 = [...README.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.equal(h2[0], "Install");
  const at = (h: string) => h2.indexOf(h);
  for (const h of ["What it catches", "Settings", "Other editors and the CLI", "The two commands"]) assert.ok(at(h) > 0, h);
  assert.ok(at("What it catches") < at("Settings") && at("Settings") < at("The two commands"));
  const two = README.slice(README.indexOf("## The two commands"), README.indexOf("\n## ", README.indexOf("## The two commands") + 5));
  assert.ok(two.split("\n").length <= 14, "the two commands stay short");
  assert.ok(README.split(/\s+/).length < 1500, `${README.split(/\s+/).length} words`);
});

test("three screenshots, each a file in docs/images", () => {
  const images = [...README.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]!);
  assert.equal(images.length, 3);
  for (const i of images) assert.ok(existsSync(join(ROOT, i)), i);
});

test("no jargon: seed case, era, oracle, claims", () => {
  for (const w of [/seed case/i, /\beras?\b/i, /\boracle\b/i, /\bclaims?\b/i]) assert.doesNotMatch(prose, w);
});

test("it says the extension activates on Python files", () => {
  assert.match(README, /activates on TOML, YAML, JSON and Python files/);
});

test("the settings table names every version the setting accepts, Python releases and dates included", () => {
  const row = README.split("\n").find((l) => l.startsWith("| `precisionLens.torchtitanVersion`"))!;
  for (const v of [...TORCHTITAN_VERSIONS.filter((v) => v !== "auto"), ...TORCHTITAN_PY_VERSIONS]) assert.ok(row.includes(`\`${v}\``), v);
  assert.match(row, /Python config registries: `v0\.3\.0`, `v0\.4\.0` or `main@YYYY-MM-DD` from 2026-02-23 to today/);
});

test("developer material lives in docs/development.md", () => {
  const dev = readFileSync(join(ROOT, "docs/development.md"), "utf8");
  assert.match(dev, /^## The two commands, in detail$/m);
  assert.match(dev, /^## Checking the predictions against the frameworks' own code$/m);
  assert.doesNotMatch(README, /npm run test:oracle|apt-get install/);
});
