/**
 * Issue #18 item 2: a name that Object.prototype has (`constructor`, `__proto__`, `toString`,
 * `hasOwnProperty`) written as a value, a key, a directive, a flag or a setting must behave exactly like any
 * other unknown name: never an internal-error, never exit 3, never a table entry that is not there.
 *
 * The class test: every string value and every key of every example config is replaced by each of those
 * names and by a plain unknown name; both runs must give the same diagnostic codes. A lint then keeps every
 * lookup table of server/src free of a prototype (core/model/table.ts).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, resolve } from "node:path";
import { describe, it } from "node:test";
import ts from "typescript";
import { analyzeDocument, formatOf } from "../server/src/core/analyze";
import { parseGpu } from "../server/src/core/engine";
import { parseVersion } from "../server/src/core/frameworks/torchtitan/versions";
import { own, table } from "../server/src/core/model/table";
import { runCliCaptured } from "./support/cli";

const ROOT = resolve(__dirname, "..");
const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"] as const;
/** A name no table holds, same shape (an identifier): the reference every prototype name must match. */
const PLAIN = "zzunknown";

function examples(dir = join(ROOT, "examples")): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...examples(p));
    else if ([".toml", ".yaml", ".yml", ".json"].includes(extname(n))) out.push(p);
  }
  return out;
}

const codes = (uri: string, text: string, settings = {}): string[] => analyzeDocument(uri, text, settings).diagnostics.map((d) => d.code).sort();

function quoted(format: string, name: string): string {
  return format === "yaml" ? name : JSON.stringify(name);
}

describe("prototype names behave like any unknown name (issue #18 item 2)", () => {
  it("every string value and every key of every example, replaced by each name", () => {
    let runs = 0;
    const failures: string[] = [];
    for (const file of examples()) {
      const text = readFileSync(file, "utf8");
      const uri = `file://${file}`;
      const doc = analyzeDocument(uri, text).doc;
      const lines = doc.lines;
      const edits: { what: string; start: number; end: number; format: (n: string) => string }[] = [];
      for (const e of doc.entries) {
        if (e.value.kind === "string") {
          const s = lines.offsetAt(e.value.range.start);
          edits.push({ what: `value of ${e.path.join(".")}`, start: s, end: lines.offsetAt(e.value.range.end), format: (n) => quoted(doc.format, n) });
        }
        const ks = lines.offsetAt(e.keyRange.start);
        const ke = lines.offsetAt(e.keyRange.end);
        const key = text.slice(ks, ke);
        const last = key.lastIndexOf(".");
        // The last part of a dotted TOML key; a quoted key stays quoted.
        if (/^[A-Za-z0-9_-]+$/.test(key.slice(last + 1))) edits.push({ what: `key ${e.path.join(".")}`, start: ks + last + 1, end: ke, format: (n) => (doc.format === "json" ? JSON.stringify(n) : n) });
        else if (doc.format === "json" && /^"[A-Za-z0-9_-]+"$/.test(key)) edits.push({ what: `key ${e.path.join(".")}`, start: ks, end: ke, format: (n) => JSON.stringify(n) });
      }
      for (const ed of edits) {
        const at = (n: string) => text.slice(0, ed.start) + ed.format(n) + text.slice(ed.end);
        const want = codes(uri, at(PLAIN));
        for (const name of NAMES) {
          runs++;
          const got = codes(uri, at(name));
          if (got.includes("internal-error") || got.join() !== want.join()) failures.push(`${file.slice(ROOT.length + 1)} ${ed.what} = ${name}: ${got.join(",")} (${PLAIN}: ${want.join(",")})`);
        }
      }
    }
    assert.ok(runs > 500, `only ${runs} variants`);
    assert.deepEqual(failures, []);
  });

  it("directives and settings: gpu, torchtitan-version, world-size, framework", () => {
    const fsdp = readFileSync(join(ROOT, "examples/fsdp_8gpu.toml"), "utf8");
    const uri = "file:///w/run.toml";
    for (const key of ["gpu", "torchtitan-version", "world-size", "framework"]) {
      const want = codes(uri, `# precision-lens: ${key}=${PLAIN}\n${fsdp}`);
      for (const name of NAMES) assert.deepEqual(codes(uri, `# precision-lens: ${key}=${name}\n${fsdp}`), want, `${key}=${name}`);
    }
    // LSP settings (server.ts passes these strings through as they come).
    for (const setting of ["gpu", "torchtitanVersion"] as const) {
      const want = codes(uri, fsdp, { [setting]: PLAIN });
      for (const name of NAMES) assert.deepEqual(codes(uri, fsdp, { [setting]: name }), want, `${setting}: ${name}`);
    }
    for (const name of NAMES) {
      assert.equal(parseGpu(name), undefined, name);
      assert.equal(parseVersion(name), undefined, name);
    }
  });

  it("the named cases of the attack run get the right diagnostic", () => {
    const tune = readFileSync(join(ROOT, "examples/yaml/torchtune/llama3_8b_full_bf16.yaml"), "utf8");
    const axo = readFileSync(join(ROOT, "examples/yaml/axolotl/lora_deepspeed.yaml"), "utf8");
    const light = readFileSync(join(ROOT, "examples/yaml/lightning/cli_fsdp.yaml"), "utf8");
    for (const name of NAMES) {
      // torchtune `dtype: __proto__` is not a dtype name: TT2, as for any unknown name.
      const tt = analyzeDocument("file:///w/tune.yaml", tune.replace(/^dtype: .*$/m, `dtype: ${name}`));
      const tt2 = tt.diagnostics.find((d) => d.code === "torchtune/unknown-dtype");
      assert.ok(tt2, `dtype: ${name}: ${tt.diagnostics.map((d) => d.code).join()}`);
      assert.match(tt2.message, new RegExp(`\`dtype: ${name}\` is not a torchtune dtype name`));
      // Axolotl `deepspeed: deepspeed_configs/NAME(.json)` is not a bundled file: nothing is assumed about it.
      for (const ds of [`deepspeed_configs/${name}`, `deepspeed_configs/${name}.json`]) {
        const r = analyzeDocument("file:///w/axo.yaml", axo.replace(/^deepspeed: .*$/m, `deepspeed: ${ds}`));
        assert.equal(r.framework, "axolotl");
        assert.ok(!r.diagnostics.some((d) => d.code === "internal-error"), `${ds}: ${r.diagnostics.map((d) => d.message).join()}`);
        assert.ok(!JSON.stringify(r.precision ?? {}).includes("bundled"), ds);
      }
      // Lightning `precision: NAME` is not a precision Lightning knows: the same codes as any unknown value.
      assert.match(light, /^\s+precision: /m);
      const at = (n: string) => light.replace(/^(\s+precision: ).*$/m, `$1${n}`);
      assert.deepEqual(codes("file:///w/l.yaml", at(name)), codes("file:///w/l.yaml", at(PLAIN)), `precision: ${name}`);
    }
  });

  it("flags: --gpu and --torchtitan-version NAME are usage errors (exit 2), schema too", () => {
    const d = mkdtempSync(join(tmpdir(), "pl-proto-"));
    writeFileSync(join(d, "run.toml"), readFileSync(join(ROOT, "examples/fsdp_8gpu.toml"), "utf8"));
    for (const name of NAMES) {
      const gpu = runCliCaptured(["check", "--gpu", name, "run.toml"], d);
      assert.equal(gpu.code, 2, `--gpu ${name}: ${gpu.err}`);
      assert.match(gpu.err, new RegExp(`--gpu: unknown GPU type "${name}"`));
      const ver = runCliCaptured(["check", `--torchtitan-version=${name}`, "run.toml"], d);
      assert.equal(ver.code, 2, `--torchtitan-version ${name}: ${ver.err}`);
      assert.match(ver.err, new RegExp(`--torchtitan-version: unknown version "${name}"`));
      const schema = runCliCaptured(["schema", "--torchtitan-version", name], d);
      assert.equal(schema.code, 2, `schema --torchtitan-version ${name}`);
      assert.equal(schema.out, "");
      assert.match(schema.err, new RegExp(`unknown version "${name}"`));
      // A file named after one walks and checks like any other.
      writeFileSync(join(d, `${name}.toml`), readFileSync(join(ROOT, "examples/fsdp_8gpu.toml"), "utf8"));
      const file = runCliCaptured(["check", `${name}.toml`], d);
      assert.equal(file.code, 0, file.err);
    }
  });

  it("table() has no prototype and own() reads only own entries", () => {
    const t = table({ a: 1 });
    for (const name of NAMES) {
      assert.equal(name in t, false, name);
      assert.equal((t as Record<string, number>)[name], undefined, name);
      assert.equal(own({ a: 1 } as Record<string, number>, name), undefined, name);
    }
    assert.equal(t.a, 1);
    assert.ok(Object.isFrozen(t));
  });
});

/**
 * The lint: a lookup table in server/src (an object literal typed `Record<…>`, anywhere) is built with
 * `table({...})`, so no name from input can reach Object.prototype through it. Objects built for output
 * (JSON fields) are not tables; they are listed here with why.
 */
const NOT_TABLES = new Set([
  "server/src/cli/diagnosticJson.ts out", // the JSON of one diagnostic, filled field by field
  "server/src/cli/stream.ts out", // the JSON of one file
  "server/src/cli/sarif.ts result", // one SARIF result
  "server/src/core/frameworks/accelerate/context.ts sizes", // counters filled from fixed key names
]);

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (n.endsWith(".ts")) out.push(p);
  }
  return out;
}

describe("lint: every Record literal in server/src is a prototype-free table (issue #18 item 2)", () => {
  it("no `Record<…> = { … }` without table(", () => {
    const bad: string[] = [];
    for (const file of sources(join(ROOT, "server/src"))) {
      const rel = file.slice(ROOT.length + 1);
      const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const visit = (n: ts.Node): void => {
        if (ts.isVariableDeclaration(n) && n.type && n.initializer && /\bRecord</.test(n.type.getText(sf))) {
          const init = n.initializer;
          const literal = ts.isObjectLiteralExpression(init) ? init : ts.isAsExpression(init) && ts.isObjectLiteralExpression(init.expression) ? init.expression : undefined;
          const name = n.name.getText(sf);
          if (literal && literal.properties.length > 0 && !NOT_TABLES.has(`${rel} ${name}`)) bad.push(`${rel}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1} ${name}`);
        }
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
    assert.deepEqual(bad, [], "wrap these in table({...}) from core/model/table.ts (or use a Map)");
  });
});

// formatOf is part of the API these tests lean on: a renamed export fails here, not silently.
assert.equal(formatOf("x.yaml"), "yaml");

describe("a key named __proto__ is an entry of the parsed value, not its prototype (issue #18 item 2)", () => {
  it("TOML inline table, YAML mapping, JSON object", () => {
    const cases: [string, string][] = [
      ["file:///w/a.toml", 'x = { __proto__ = { polluted = 1 }, b = 2 }\n'],
      ["file:///w/a.yaml", "y: 1\nx: {__proto__: {polluted: 1}, b: 2}\n"],
      // JSON flattens a nested object into entries; inside an array it stays one value.
      ["file:///w/a.json", '{"x": [{"__proto__": {"polluted": 1}, "b": 2}]}'],
    ];
    for (const [uri, text] of cases) {
      const doc = analyzeDocument(uri, text).doc;
      const x = doc.entries.find((e) => e.path.join(".") === "x");
      assert.ok(x, uri);
      const raw = x.value.value;
      const v = (Array.isArray(raw) ? raw[0] : raw) as Record<string, unknown>;
      assert.equal(Object.getPrototypeOf(v), Object.prototype, uri);
      assert.equal((v as { polluted?: number }).polluted, undefined, uri);
      assert.deepEqual(Object.keys(v), ["__proto__", "b"], uri);
    }
  });
});
