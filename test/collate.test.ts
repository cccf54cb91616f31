/**
 * `compareNames` (server/src/core/model/collate.ts) gives the order `localeCompare` gives, without loading
 * ICU; and a CLI run loads no ICU service at all (issue #36: the first `localeCompare` or `toLocaleString` of
 * a process costs 12–16 ms of CPU each, about a quarter of the CLI's start beyond `node -e 0`). The CLI half
 * spawns the built bundle (npm run build first).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { compareNames } from "../server/src/core/model/collate";
import { ASSUMPTIONS } from "../server/src/core/engine/assumptions";
import { DIAGNOSTIC_CODES, codeSortKey } from "../server/src/core/diagnostics/codes";
import { KEYS, RENAMES } from "../server/src/core/frameworks/torchtitan/schema/data";
import { registryWithFunctions } from "./bench/python";
import { CORPUS, corpusAvailable } from "./support/corpus";

const sign = (a: string, b: string) => Math.sign(a.localeCompare(b));

describe("compareNames: localeCompare's order without ICU", () => {
  it("agrees with localeCompare over every pair of the tables it sorts", () => {
    const tables: [string, string[]][] = [
      ["assumption names", Object.keys(ASSUMPTIONS)],
      ["diagnostic codes and their sort keys", [...new Set([...Object.keys(DIAGNOSTIC_CODES), ...Object.keys(DIAGNOSTIC_CODES).map(codeSortKey)])]],
      ["rename dates", [...new Set(RENAMES.map((r) => r.date))]],
      ["schema key paths (did-you-mean candidates)", [...new Set(KEYS.map((k) => k.path))]],
    ];
    for (const [what, names] of tables) {
      assert.ok(names.length > 5, what);
      for (const a of names) for (const b of names) if (compareNames(a, b) !== sign(a, b)) assert.fail(`${what}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}: ${compareNames(a, b)}, localeCompare ${sign(a, b)}`);
    }
  });

  it("agrees with localeCompare on random strings of the characters it handles, and hands others to it", () => {
    let seed = 0x2545f491;
    const rnd = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const alphabet = "_-:./0123456789abcmxyzABCMXYZ";
    const word = () => Array.from({ length: 1 + rnd(6) }, () => alphabet[rnd(alphabet.length)]).join("");
    for (let i = 0; i < 20_000; i++) {
      const a = word();
      const b = [word(), a.toUpperCase(), a + word(), a.slice(0, rnd(a.length + 1)) + word()][rnd(4)]!;
      assert.equal(compareNames(a, b), sign(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    }
    // Characters outside the table (a space, an accent, a bracket) are compared by localeCompare itself.
    for (const [a, b] of [["a b", "ab"], ["é", "f"], ["a[0]", "a0"], ["Z é", "z e"]] as const) assert.equal(compareNames(a, b), sign(a, b), `${a} vs ${b}`);
  });

  it("orders punctuation, digits, letters and case as ICU's root collation does", () => {
    assert.equal(compareNames("a_b", "a-b"), -1);
    assert.equal(compareNames("a-b", "a:b"), -1);
    assert.equal(compareNames("a:b", "a.b"), -1);
    assert.equal(compareNames("a.b", "a/b"), -1);
    assert.equal(compareNames("a/b", "a0"), -1);
    assert.equal(compareNames("a9", "aa"), -1);
    assert.equal(compareNames("ab", "AB"), -1);
    assert.equal(compareNames("AB", "ac"), -1);
    assert.equal(compareNames("a", "a_"), -1);
    assert.equal(compareNames("2025-03-18", "2024-09-10"), 1);
    assert.equal(compareNames("x", "x"), 0);
  });
});

const ROOT = join(import.meta.dirname, "..");
const CLI = join(ROOT, "dist", "cli.js");
const have = existsSync(CLI) && existsSync(join(ROOT, "dist", "cli-main.js"));

describe("the CLI loads no ICU service", { skip: have ? false : "dist/cli.js or dist/cli-main.js absent: run npm run build" }, () => {
  const tmp = mkdtempSync(join(tmpdir(), "pl-collate-"));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  // A preload that counts every call of the locale-sensitive built-ins and prints the counts at exit.
  const trap = join(tmp, "trap.cjs");
  writeFileSync(
    trap,
    `const hits = {};
const count = (k) => { hits[k] = (hits[k] ?? 0) + 1; };
for (const [o, n, k] of [[String.prototype, "localeCompare", "localeCompare"], [Number.prototype, "toLocaleString", "Number.toLocaleString"], [BigInt.prototype, "toLocaleString", "BigInt.toLocaleString"], [Date.prototype, "toLocaleString", "Date.toLocaleString"], [Date.prototype, "toLocaleDateString", "Date.toLocaleDateString"], [String.prototype, "toLocaleLowerCase", "toLocaleLowerCase"], [String.prototype, "toLocaleUpperCase", "toLocaleUpperCase"], [Array.prototype, "toLocaleString", "Array.toLocaleString"]]) {
  const f = o[n]; o[n] = function (...a) { count(k); return f.apply(this, a); };
}
for (const k of ["Collator", "NumberFormat", "DateTimeFormat", "PluralRules", "Segmenter", "ListFormat", "RelativeTimeFormat"]) {
  const C = Intl[k]; Intl[k] = function (...a) { count("Intl." + k); return new C(...a); };
}
process.on("exit", () => process.stderr.write("ICU-CALLS " + JSON.stringify(hits) + "\\n"));
`,
  );
  const calls = (args: string[]) => {
    const r = spawnSync(process.execPath, ["-r", trap, ...args], { cwd: ROOT, encoding: "utf8", env: { PATH: process.env.PATH ?? "", PRECISION_LENS_NO_CODE_CACHE: "1" }, maxBuffer: 64 << 20 });
    const line = r.stderr.split("\n").find((l) => l.startsWith("ICU-CALLS "));
    assert.ok(line, `no count printed: ${r.stderr.slice(0, 400)}`);
    return { code: r.status, out: r.stdout, hits: JSON.parse(line.slice("ICU-CALLS ".length)) as Record<string, number> };
  };

  it("the trap counts a locale comparison (so the runs below can fail)", () => {
    assert.deepEqual(calls(["-e", `"a".localeCompare("b"); (1e4).toLocaleString("en-US")`]).hits, { localeCompare: 1, "Number.toLocaleString": 1 });
  });

  it("check over examples/ (every framework), a 200-function registry and the corpus's torchtitan TOMLs: no call", () => {
    const py = join(tmp, "torchtitan", "models", "bench");
    mkdirSync(py, { recursive: true });
    writeFileSync(join(py, "config_registry.py"), registryWithFunctions(200));
    const targets = [join(ROOT, "examples"), join(py, "config_registry.py"), ...(corpusAvailable("torchtitan") ? [join(CORPUS, "torchtitan")] : [])];
    // JSON over everything; the text format (its own formatting code) over examples/ and the registry.
    for (const [format, files] of [["json", targets], ["text", targets.slice(0, 2)]] as const) {
      const r = calls([CLI, "check", "--format", format, ...files]);
      assert.ok(r.code === 0 || r.code === 1, `exit ${r.code}`);
      assert.match(r.out, /tp_only_8gpu\.toml/);
      assert.match(r.out, /config_registry\.py/);
      assert.deepEqual(r.hits, {}, `--format ${format}`);
    }
    assert.deepEqual(calls([CLI, "--version"]).hits, {});
  });
});
