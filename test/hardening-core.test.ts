/** Issue #10, analysis core: nesting and string bounds before parsing, degree bounds, hover on skipped files. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { parseTOML } from "toml-eslint-parser";
import { analyzeDocument } from "../server/src/core/analyze";
import { hoverAt } from "../server/src/core/features/index";
import { MAX_DEGREE } from "../server/src/core/model/limits";
import { parseTomlDocument } from "../server/src/core/parse/toml";
import { LONG_STRING_CHARS } from "../server/src/core/parse/guard";
import { lowerToEnableFsdp } from "../server/src/core/frameworks/torchtitan/rules/no-mixed-precision";
import type { ParallelLayout } from "../server/src/core/analysis";
import { clampPosition, clampRange } from "../server/src/host/positions";
import { TextDocument } from "vscode-languageserver-textdocument";

const ROOT = resolve(__dirname, "..");
const FSDP = readFileSync(join(ROOT, "examples/fsdp_8gpu.toml"), "utf8");
const TP_ONLY = readFileSync(join(ROOT, "examples/tp_only_8gpu.toml"), "utf8");

function stringValue(text: string, key: string): unknown {
  const doc = parseTomlDocument("file:///x.toml", text);
  assert.deepEqual(doc.syntaxErrors, []);
  return doc.entries.find((e) => e.path.join(".") === key)?.value;
}

describe("TOML strings and nesting (items 6, 11)", () => {
  it("a valid TOML with a 150,000-character string parses, with its value and range", () => {
    const s = "x".repeat(150_000);
    const text = FSDP.replace('[job]\n', `[job]\nnote = "${s}"\n`);
    const r = analyzeDocument("file:///w/run.toml", text);
    assert.equal(r.framework, "torchtitan");
    assert.ok(!r.diagnostics.some((d) => d.code === "toml-syntax" || d.code === "internal-error"), JSON.stringify(r.diagnostics.map((d) => d.code)));
    const v = stringValue(text, "job.note") as { value: string; raw: string; range: { start: { character: number }; end: { character: number } } };
    assert.equal(v.value, s);
    assert.equal(v.raw, `"${s}"`);
    assert.equal(v.range.end.character - v.range.start.character, s.length + 2);
  });

  it("long strings parsed in pieces equal the parser's own value (escapes, literal, multi-line, keys)", () => {
    const body = 'ab\\u00e9\\U0001F600 \\"q\\" \\\\ \\t'.repeat(Math.ceil((LONG_STRING_CHARS * 2) / 20));
    const ml = "line one\\\n   continued\nnext ''quoted'' \\u00e9\n".repeat(Math.ceil((LONG_STRING_CHARS * 2) / 40));
    const lit = "C:\\path\\to 'x".replace("'", "").repeat(Math.ceil((LONG_STRING_CHARS * 2) / 12));
    const key = "k".repeat(LONG_STRING_CHARS + 10);
    const text = `[job]\na = "${body}"\nb = """\n${ml}"""\nc = '${lit}'\nd = '''${lit}\n'''\n"${key}" = 1\n`;
    // The same text, parsed directly by toml-eslint-parser (small enough not to overflow the stack).
    const direct = parseTOML(text, { tomlVersion: "1.0" }).body[0].body[0] as unknown as { body: { key: { keys: { value?: string; name?: string }[] }; value: { value: unknown } }[] };
    const want = new Map(direct.body.map((kv) => [kv.key.keys.map((k) => k.value ?? k.name).join("."), kv.value.value]));
    const doc = parseTomlDocument("file:///x.toml", text);
    assert.deepEqual(doc.syntaxErrors, []);
    for (const [k, v] of want) assert.equal(doc.entries.find((e) => e.path.join(".") === `job.${k}`)?.value.value, v, `job.${k.slice(0, 20)}`);
    assert.equal(doc.entries.length, want.size);
  });

  it("two equal long keys are still a duplicate key", () => {
    const key = "k".repeat(LONG_STRING_CHARS + 10);
    const doc = parseTomlDocument("file:///x.toml", `[job]\n"${key}" = 1\n"${key}" = 2\n`);
    assert.equal(doc.syntaxErrors.length, 1);
  });

  it("nesting past 64 is not parsed: a config gets one not-analysed warning, another file nothing", () => {
    const deep = "zz = " + "[".repeat(2000) + "1" + "]".repeat(2000) + "\n";
    const r = analyzeDocument("file:///w/run.toml", FSDP + "\n[extra]\n" + deep);
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.severity]), [["not-analysed", "warning"]]);
    assert.match(r.diagnostics[0]!.message, /nest more than 64 levels deep/);
    const other = analyzeDocument("file:///w/pyproject.toml", `[project]\nname = "x"\n${deep}`);
    assert.deepEqual(other.diagnostics, []);
    assert.match(other.frameworkReason, /nest more than 64/);
    // Brackets inside strings and comments do not count.
    const fine = analyzeDocument("file:///w/run.toml", FSDP + `\n# ${"[".repeat(100)}\n[extra]\nzz = "${"{".repeat(100)}"\n`);
    assert.ok(!fine.diagnostics.some((d) => d.code === "not-analysed"));
  });

  it("a stack overflow in a parser is never a syntax error (YAML compact sequences, JSON depth)", () => {
    const yaml = readFileSync(join(ROOT, "examples/yaml/accelerate/fsdp2_bf16.yaml"), "utf8") + "zz:\n" + "- ".repeat(3000) + "1\n";
    const y = analyzeDocument("file:///w/a.yaml", yaml);
    assert.ok(!y.diagnostics.some((d) => d.code === "yaml-syntax"), JSON.stringify(y.diagnostics));
    assert.match(y.frameworkReason, /nest more than 64/);
    const flow = analyzeDocument("file:///w/a.yaml", "compute_environment: LOCAL_MACHINE\nzz: " + "[".repeat(5000) + "]".repeat(5000) + "\n");
    assert.ok(!flow.diagnostics.some((d) => d.code === "yaml-syntax"));
    const json = analyzeDocument("file:///w/ds.json", '{"zero_optimization": {"stage": 2}, "x": ' + "[".repeat(300) + "]".repeat(300) + "}");
    assert.ok(!json.diagnostics.some((d) => d.code === "json-syntax"), JSON.stringify(json.diagnostics));
    assert.match(json.frameworkReason, /nest more than 256/);
  });
});

describe("degrees and world sizes are bounded (item 7)", () => {
  it("a 10^10 world-size directive and TP degree are reported, not looped over", () => {
    const text = `# precision-lens: world-size=10000000000\n` + TP_ONLY.replace("tensor_parallel_degree = 8", "tensor_parallel_degree = 10000000000");
    const r = analyzeDocument("file:///w/run.toml", text);
    const codes = r.diagnostics.map((d) => [d.code, d.severity]);
    assert.deepEqual(codes.filter(([c]) => c === "parallel-dims-limit" || c === "invalid-directive"), [
      ["invalid-directive", "warning"],
      ["parallel-dims-limit", "information"],
    ]);
    assert.match(r.diagnostics.find((d) => d.code === "parallel-dims-limit")!.message, /tensor_parallel_degree = 10000000000 is above 2\^20, the largest degree analysed: layout not resolved$/);
    assert.match(r.diagnostics.find((d) => d.code === "parallel-dims-limit")!.detail ?? "", /tensor_parallel_degree = 10000000000 is above 1048576 \(2\^20\)/);
    assert.match(r.diagnostics.find((d) => d.code === "invalid-directive")!.message, /world-size=10000000000 .* above 1048576/);
    assert.ok(!r.diagnostics.some((d) => d.severity === "error"));
  });

  it("degrees that multiply past 2^20 are reported on the largest one", () => {
    const text = TP_ONLY.replace("tensor_parallel_degree = 8", "tensor_parallel_degree = 4096").replace("pipeline_parallel_degree = 1", "pipeline_parallel_degree = 1024");
    const r = analyzeDocument("file:///w/run.toml", text);
    const d = r.diagnostics.find((x) => x.code === "parallel-dims-limit");
    assert.ok(d, JSON.stringify(r.diagnostics.map((x) => x.code)));
    assert.match(d.message, /multiply to 4194304 GPUs/);
  });

  it("2^20 itself is analysed, and the FSDP fix search works on divisors", () => {
    const r = analyzeDocument("file:///w/run.toml", `# precision-lens: world-size=${MAX_DEGREE}\n` + TP_ONLY.replace("tensor_parallel_degree = 8", `tensor_parallel_degree = ${MAX_DEGREE}`));
    assert.ok(r.diagnostics.some((d) => d.code === "no-mixed-precision"), JSON.stringify(r.diagnostics.map((d) => d.code)));
    const base: ParallelLayout = { dp_replicate: 1, dp_shard: 1, cp: 1, tp: MAX_DEGREE, pp: 1, ep: 1, etp: 1 };
    assert.deepEqual(lowerToEnableFsdp(base, "tp", MAX_DEGREE), { degree: MAX_DEGREE / 2, dpShard: 2 });
  });

  it("the divisor search agrees with counting down, on every small layout", () => {
    const countDown = (d: ParallelLayout, f: "tp" | "pp" | "cp" | "dp_replicate", w: number) => {
      const rest = (d.dp_replicate * d.cp * d.tp * d.pp) / d[f];
      for (let v = d[f] - 1; v >= 1; v--) if (w % (rest * v) === 0 && w / (rest * v) > 1) return { degree: v, dpShard: w / (rest * v) };
      return undefined;
    };
    for (let w = 1; w <= 48; w++)
      for (const tp of [1, 2, 3, 4, 6, 8, 12, 16])
        for (const pp of [1, 2, 3, 4])
          for (const f of ["tp", "pp"] as const) {
            const d: ParallelLayout = { dp_replicate: 1, dp_shard: 1, cp: 1, tp, pp, ep: 1, etp: 1 };
            assert.deepEqual(lowerToEnableFsdp(d, f, w), countDown(d, f, w), `w=${w} tp=${tp} pp=${pp} ${f}`);
          }
  });
});

describe("editor requests (items 8, 12)", () => {
  it("positions are clamped to the document", () => {
    const doc = TextDocument.create("file:///x.toml", "toml", 1, "ab\r\ncdef\nxy");
    assert.deepEqual(clampPosition(doc, { line: 1e9, character: 5 }), { line: 2, character: 2 });
    assert.deepEqual(clampPosition(doc, { line: -1, character: -7 }), { line: 0, character: 0 });
    assert.deepEqual(clampPosition(doc, { line: 0, character: 99 }), { line: 0, character: 2 });
    assert.deepEqual(clampPosition(doc, { line: Number.NaN, character: 1.7 }), { line: 0, character: 1 });
    assert.deepEqual(clampPosition(doc, null), { line: 0, character: 0 });
    assert.deepEqual(clampRange(doc, { start: { line: 2, character: 0 }, end: { line: 0, character: 0 } }), { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } });
  });

  it("the hover of a file over the size limit says why it was not analysed", () => {
    const text = FSDP + "# padding padding padding\n".repeat(30_000);
    const r = analyzeDocument("file:///w/huge.toml", text);
    assert.equal(r.likelyFramework, "torchtitan");
    const h = hoverAt(r, { line: 5, character: 3 });
    assert.ok(h);
    assert.match(h.markdown, /did not analyse this file: it has \d+ characters, over the limit of 512000/);
    assert.deepEqual(r.diagnostics, [], "size alone adds no diagnostic");
    // A file that does not look like a config says it only on its first line.
    const other = analyzeDocument("file:///w/data.toml", "[data]\n" + "# padding padding padding\n".repeat(30_000));
    assert.equal(hoverAt(other, { line: 5, character: 3 }), undefined);
    assert.match(hoverAt(other, { line: 0, character: 1 })!.markdown, /over the limit of 512000/);
  });
});
