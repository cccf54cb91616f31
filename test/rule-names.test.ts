/**
 * Codes a person can read (issue #34): every rule's code says what it checks (kebab-case, framework codes prefixed
 * by the framework id, as `deepspeed/no-batch-size` always was), its file is named after it, and the old opaque
 * codes (`transformers/HF6`) stay aliases: accepted in suppression comments, listed in the CLI's JSON (`aliases`) // rename-rule-codes: keep
 * and SARIF (`deprecatedIds`), from the one table server/src/core/diagnostics/renamed-codes.json, which
 * scripts/rename-rule-codes.mjs applies to text written against the old codes.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { describe, it } from "node:test";
import { diagnosticJson } from "../server/src/cli/diagnosticJson";
import { analyzeDocument } from "../server/src/core/analyze";
import { canonicalCode, codeAliases, codeInfo, DIAGNOSTIC_CODES, RENAMED_CODES } from "../server/src/core/diagnostics/codes";
import { AUTOMODEL_RULES } from "../server/src/core/frameworks/automodel/rules/index";
import { ACCELERATE_RULES } from "../server/src/core/frameworks/accelerate/rules/index";
import { AXOLOTL_RULES } from "../server/src/core/frameworks/axolotl/rules/index";
import { DEEPSPEED_RULES } from "../server/src/core/frameworks/deepspeed/rules/index";
import { LIGHTNING_RULES } from "../server/src/core/frameworks/lightning/rules/index";
import { MEGATRON_RULES } from "../server/src/core/frameworks/megatron/rules/index";
import { TORCHTUNE_RULES } from "../server/src/core/frameworks/torchtune/rules/index";
import { TRANSFORMERS_RULES } from "../server/src/core/frameworks/transformers/rules/index";
import { VERL_RULES } from "../server/src/core/frameworks/verl/rules/index";
import { renameCodes } from "../scripts/rename-rule-codes.mjs";
import { runCliCaptured } from "./support/cli";

const ROOT = resolve(__dirname, "..");
const FRAMEWORKS = join(ROOT, "server", "src", "core", "frameworks");

// An LLaMA-Factory file with one unknown key (line 5): transformers/unknown-key, formerly transformers/HF6. // rename-rule-codes: keep
const LF = "model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sft\nfinetuning_type: lora\nbf16: true\n";
const TYPO = "lora_rnk: 8\n";
const URI = "file:///w/llama3_lora_sft.yaml";
const codesOf = (text: string) => analyzeDocument(URI, text).diagnostics.map((d) => `${d.code}@${d.range.start.line}`);

describe("readable codes", () => {
  it("every code is kebab-case; framework codes are <framework>/<name>, none of them opaque", () => {
    for (const c of Object.keys(DIAGNOSTIC_CODES)) {
      assert.match(c, /^(?:[a-z]+\/)?[a-z0-9]+(?:[-.][a-z0-9]+)*$/, c);
      assert.doesNotMatch(c, /\/[A-Z]{2}\d+$/, c);
    }
  });

  it("the renames table: each old code names a registered code, no old code is still registered, no two old codes share a name", () => {
    const olds = Object.keys(RENAMED_CODES);
    assert.ok(olds.length >= 82, `${olds.length} renamed`);
    for (const [old, now] of Object.entries(RENAMED_CODES)) {
      assert.match(old, /^[a-z]+\/[A-Z]{2}\d{1,2}$/, old);
      assert.ok(codeInfo(now), `${old} → ${now} is not a registered code`);
      assert.equal(codeInfo(old), undefined, `${old} is still registered`);
      assert.equal(now.split("/")[0], old.split("/")[0], `${old} keeps its framework prefix`);
    }
    assert.equal(new Set(Object.values(RENAMED_CODES)).size, olds.length);
    assert.equal(canonicalCode("transformers/HF6"), "transformers/unknown-key"); // rename-rule-codes: keep
    assert.equal(canonicalCode("accelerate/AC4"), "accelerate/key-belongs-in-deepspeed-file"); // rename-rule-codes: keep
    assert.equal(canonicalCode("torchtune/TT3"), "torchtune/pure-bf16"); // rename-rule-codes: keep
    assert.equal(canonicalCode("no-mixed-precision"), "no-mixed-precision");
    assert.equal(canonicalCode("toString"), "toString", "no Object.prototype member is an alias");
    assert.deepEqual(codeAliases("transformers/unknown-key"), ["transformers/HF6"]); // rename-rule-codes: keep
    assert.deepEqual(codeAliases("no-mixed-precision"), []);
  });

  it("each framework rule's file is named after the code it reports (the DeepSpeed links, which report two, excepted)", () => {
    const sets = { automodel: AUTOMODEL_RULES, accelerate: ACCELERATE_RULES, axolotl: AXOLOTL_RULES, deepspeed: DEEPSPEED_RULES, lightning: LIGHTNING_RULES, megatron: MEGATRON_RULES, torchtune: TORCHTUNE_RULES, transformers: TRANSFORMERS_RULES, verl: VERL_RULES };
    for (const [fw, rules] of Object.entries(sets)) {
      const files = readdirSync(join(FRAMEWORKS, fw, "rules")).filter((n) => n.endsWith(".ts") && n !== "index.ts" && n !== "deepspeed-link.ts").map((n) => basename(n, ".ts")).sort();
      const own = rules.flatMap((r) => r.codes).filter((c) => c.startsWith(`${fw}/`)).map((c) => c.slice(fw.length + 1)).filter((c) => c !== "deepspeed-config-missing").sort();
      assert.deepEqual(files, own, fw);
    }
  });

  it("no framework source file still names an old code", () => {
    const seen: string[] = [];
    const walk = (d: string): void => {
      for (const n of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, n.name);
        if (n.isDirectory()) walk(p);
        else if (n.name.endsWith(".ts") && /\b[a-z]+\/[A-Z]{2}\d{1,2}\b/.test(readFileSync(p, "utf8"))) seen.push(p);
      }
    };
    walk(FRAMEWORKS);
    assert.deepEqual(seen, []);
  });
});

describe("old codes are aliases where a user names a code", () => {
  it("the finding carries the new code", () => {
    assert.deepEqual(codesOf(LF + TYPO), ["transformers/unknown-key@4"]);
  });

  for (const code of ["transformers/unknown-key", "transformers/HF6" /* rename-rule-codes: keep */]) {
    it(`a trailing disable=${code} suppresses it, with no unused-suppression hint`, () => {
      assert.deepEqual(codesOf(`${LF}lora_rnk: 8  # precision-lens: disable=${code}\n`), []);
    });
    it(`a disable=${code} on the line before suppresses it`, () => {
      assert.deepEqual(codesOf(`${LF}# precision-lens: disable=${code}\n${TYPO}`), []);
    });
    it(`a disable-file=${code} suppresses it`, () => {
      assert.deepEqual(codesOf(`# precision-lens: disable-file=${code}\n${LF}${TYPO}`), []);
    });
  }

  it("an old code of another rule suppresses nothing: the hint names the code as written", () => {
    const r = analyzeDocument(URI, `${LF}lora_rnk: 8  # precision-lens: disable=transformers/HF8\n`); // rename-rule-codes: keep
    assert.deepEqual(r.diagnostics.map((d) => d.code).sort(), ["transformers/unknown-key", "unused-suppression"]);
    assert.equal(r.diagnostics.find((d) => d.code === "unused-suppression")!.message, "This suppression is unused: no `transformers/HF8` diagnostic on line 5"); // rename-rule-codes: keep
  });

  it("old and new forms in one list: only the unused one is reported", () => {
    const r = analyzeDocument(URI, `${LF}lora_rnk: 8  # precision-lens: disable=transformers/HF6,accelerate/AC4\n`); // rename-rule-codes: keep
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.message]), [["unused-suppression", "This suppression is unused: no `accelerate/AC4` diagnostic on line 5"]]); // rename-rule-codes: keep
  });
});

describe("the old code is shown where a user searches", () => {
  it("the CLI's JSON lists it under aliases (none for a code that was never renamed)", () => {
    const d = analyzeDocument(URI, LF + TYPO).diagnostics[0]!;
    const j = diagnosticJson(d);
    assert.equal(j.code, "transformers/unknown-key");
    assert.deepEqual(j.aliases, ["transformers/HF6"]); // rename-rule-codes: keep
    assert.match(String(j.href), /\/docs\/diagnostics\/transformers\/unknown-key\.md$/);
    const seed = analyzeDocument("file:///w/no_dp.toml", '[model]\nname = "llama3"\nflavor = "8B"\n[parallelism]\ndata_parallel_shard_degree = -1\ntensor_parallel_degree = 8\n', { worldSize: 8 }).diagnostics.find((x) => x.code === "no-mixed-precision");
    assert.ok(seed);
    assert.equal("aliases" in diagnosticJson(seed), false);
  });

  it("check --format json and --format sarif carry it (aliases, deprecatedIds)", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-names-"));
    try {
      writeFileSync(join(dir, "llama3_lora_sft.yaml"), LF + TYPO);
      const j = runCliCaptured(["check", "--format", "json", "llama3_lora_sft.yaml"], dir);
      const diags = (JSON.parse(j.out) as { files: { diagnostics: { code: string; aliases?: string[] }[] }[] }).files[0]!.diagnostics;
      assert.deepEqual(diags.map((d) => [d.code, d.aliases]), [["transformers/unknown-key", ["transformers/HF6"]]]); // rename-rule-codes: keep
      const s = runCliCaptured(["check", "--format", "sarif", "llama3_lora_sft.yaml"], dir);
      const rules = (JSON.parse(s.out) as { runs: { tool: { driver: { rules: { id: string; deprecatedIds?: string[] }[] } } }[] }).runs[0]!.tool.driver.rules;
      assert.deepEqual(rules.map((r) => [r.id, r.deprecatedIds]), [["transformers/unknown-key", ["transformers/HF6"]]]); // rename-rule-codes: keep
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the text output and the hover show the new code", () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-names-"));
    try {
      writeFileSync(join(dir, "llama3_lora_sft.yaml"), LF + TYPO);
      const t = runCliCaptured(["check", "llama3_lora_sft.yaml"], dir);
      assert.match(t.out, /transformers\/unknown-key/);
      assert.doesNotMatch(t.out, /HF6/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("scripts/rename-rule-codes.mjs", () => {
  it("rewrites old full codes and page paths, never HF1 inside HF10, and keeps marked lines", () => {
    const src = [
      'assert.equal(d.code, "transformers/HF1");', // rename-rule-codes: keep
      'x.code === "transformers/HF10" && y === "deepspeed/DS9"', // rename-rule-codes: keep
      "see docs/diagnostics/accelerate/AC4.md", // rename-rule-codes: keep
      '"# precision-lens: disable=transformers/HF6" // rename-rule-codes: keep',
      "HF6 in prose", // rename-rule-codes: keep
    ].map((l) => l.replace(/ \/\/ rename-rule-codes: keep$/, "")).join("\n");
    const withKeep = `${src}\nmy "transformers/HF6" // rename-rule-codes: keep`;
    const r = renameCodes(withKeep);
    assert.equal(
      r.text,
      [
        'assert.equal(d.code, "transformers/pure-16-bit");',
        'x.code === "transformers/launch-config-missing" && y === "deepspeed/precision-mismatch"',
        "see docs/diagnostics/accelerate/key-belongs-in-deepspeed-file.md",
        '"# precision-lens: disable=transformers/unknown-key"',
        "HF6 in prose", // rename-rule-codes: keep
        'my "transformers/HF6" // rename-rule-codes: keep',
      ].join("\n"),
    );
    assert.equal(r.count, 5);
    assert.equal(renameCodes("HF6 and TT3, not xHF6", { bare: true }).text, "unknown-key and pure-bf16, not xHF6"); // rename-rule-codes: keep
    assert.equal(renameCodes("assert.match(t, /\\(transformers\\/HF3\\)/)").text, "assert.match(t, /\\(transformers\\/deepspeed-value-mismatch\\)/)"); // rename-rule-codes: keep
    assert.equal(renameCodes("accelerate/HF6 stays: no such old code").count, 0); // rename-rule-codes: keep
  });

  it("leaves nothing old in the repository's tests and docs but the lines marked to keep", () => {
    const walk = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((n) => {
        const p = join(d, n.name);
        return n.isDirectory() ? (n.name === "fixtures" || n.name === "node_modules" ? [] : walk(p)) : /\.(?:ts|mjs|cjs|md)$/.test(n.name) ? [p] : [];
      });
    const left = [...walk(join(ROOT, "test")), ...walk(join(ROOT, "e2e")), ...walk(join(ROOT, "docs"))].filter((f) => renameCodes(readFileSync(f, "utf8")).count > 0);
    assert.deepEqual(left, []);
  });
});
