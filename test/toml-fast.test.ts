/**
 * The TOML fast path (parse/tomlFast.ts, issue #21) against the toml-eslint-parser path it stands in for:
 * on every TOML file of ../shared/corpus, examples/ and test/fixtures the two models are identical
 * (entries, sections, comments, values, ranges, order); on mutations of those files, whenever the full
 * parser reports a syntax error the fast path has bailed out, and whenever the fast path reads a file its
 * model is the full parser's; and for each class of invalid TOML a minimal case makes it bail.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import type { ConfigDocument } from "../server/src/core/model/document";
import { LineIndex } from "../server/src/core/model/lineIndex";
import { parseTomlDocument, parseTomlDocumentSlow } from "../server/src/core/parse/toml";
import { parseTomlFast } from "../server/src/core/parse/tomlFast";
import { CORPUS, corpusAvailable, CORPUS_SKIP, listFiles } from "./support/corpus";

const ROOT = join(__dirname, "..");
const URI = "file:///w/train.toml";

/** The model as text: every field but the line index, with the numbers JSON cannot write spelled out. */
function serialise(doc: ConfigDocument): string {
  const { lines: _lines, ...rest } = doc;
  return JSON.stringify(rest, (_k, v: unknown) => (typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0)) ? `#num:${Object.is(v, -0) ? "-0" : String(v)}` : v));
}

const fastReads = (text: string) => parseTomlFast(text, new LineIndex(text)) !== undefined;

function assertSame(text: string, what: string): void {
  const slow = parseTomlDocumentSlow(URI, text);
  const fast = parseTomlDocument(URI, text);
  assert.equal(serialise(fast), serialise(slow), `${what}: the fast model differs from the full parser's`);
  assert.deepStrictEqual(fast, slow, what);
}

const corpusFiles = corpusAvailable() ? listFiles(CORPUS, [".toml"]) : [];
const repoFiles = [...listFiles(join(ROOT, "examples"), [".toml"]), ...listFiles(join(ROOT, "test", "fixtures"), [".toml"])];

describe("TOML fast path: same model as toml-eslint-parser on real files", () => {
  it("examples/ and test/fixtures: every file read by the fast path, same model", () => {
    assert.ok(repoFiles.length >= 10, `only ${repoFiles.length} TOML files in examples/ and test/fixtures`);
    let read = 0;
    for (const f of repoFiles) {
      const text = readFileSync(f, "utf8");
      assertSame(text, relative(ROOT, f));
      if (fastReads(text)) read++;
    }
    assert.equal(read, repoFiles.length, "the fast path bailed on a repository example");
  });

  it("../shared/corpus (all folders): same model; every valid torchtitan file read by the fast path", { skip: corpusAvailable() ? false : CORPUS_SKIP }, (t) => {
    let read = 0;
    let valid = 0;
    const bailedValidTorchtitan: string[] = [];
    for (const f of corpusFiles) {
      const text = readFileSync(f, "utf8");
      const rel = relative(CORPUS, f);
      assertSame(text, rel);
      const slow = parseTomlDocumentSlow(URI, text);
      const ok = !slow.syntaxErrors.length && !slow.skipped;
      if (ok) valid++;
      const fast = fastReads(text);
      if (fast) {
        read++;
        assert.ok(ok, `${rel}: the fast path read a file the full parser rejects`);
      } else if (ok && rel.includes("torchtitan")) bailedValidTorchtitan.push(rel);
    }
    t.diagnostic(`fast path read ${read} of ${corpusFiles.length} corpus TOML files (${valid} valid)`);
    assert.deepEqual(bailedValidTorchtitan, []);
    assert.ok(read >= 50, `fast path read only ${read} corpus files`);
  });
});

/** Valid TOML using every form the fast path reads (also mutation seeds, mutated at every position). */
const VALID = [
  '# top\n[a . "b"]  # h\nx . y = 1 # t\n\n[[t]]\nz=0x10\n[[t]]\nz = 0o17\n[e]\n',
  "a = [\n  1, # one\n  2,\n]\nb = { c = 1, d.e = 'x', f = [1, { g = true }] }\n",
  'k = "\\u00e9\\t\\"\\\\\\U0001F600"\nf = [-0.0, +inf, -inf, nan, +nan, 1e05, 3.14_15, 0e0, -0, +0, 1_000]\n',
  "a.b = 1\n[a.c]\nx = 1\n",
  "[a]\nb.c = 1\n[a.b.d]\n",
  "[[a]]\n[a.b]\nx = 1\n[[a]]\n[a.b]\nx = 2\n",
  "[a.b]\nx = 1\n[a]\ny = 2\n",
  "[[a]]\n[[a.b]]\nx = 1\n[[a]]\n[[a.b]]\nx = 2\n[a.b.c]\ny = 3\n",
  "a = 1 # c\r\nb = 2\r\n",
  "'q k' = 1\n\"\" = 2\n__proto__ = 3\nt = { __proto__ = 1 }\n",
  "n = [1E5, 6.626e-34, 5e+22, 224_617.445_991_228, 0xDEADBEEF, 0xdead_beef, 0b1_0, 0o7_7, 0x00, 1.0E+2, 999999999999999]\n3.14 = 1\n1234 = 1\ntrue = 2\n- = 3\n",
  "a = [\n  { b = 1 },\n  { b = [ { c = 2 } ] },\n]\n[[x.y]]\n[x]\n[x.z]\n",
];

/** Mutations of one text: characters deleted, doubled and inserted at spread-out positions (every position, every inserted character for the small seeds), a line doubled, brackets swapped. */
function* mutations(text: string, spread = 40): Generator<string> {
  const n = text.length;
  const step = Math.max(1, Math.floor(n / spread));
  const inserts = ['"', "'", "[", "]", "{", "}", "=", ".", ",", "#", "\\", "\n", "\r", "\t", " ", "0", "_", "+", "-", "e", "a", "\u0001", "\u007f", "é", "\u00a0"];
  for (let p = 0; p < n; p += step) {
    yield text.slice(0, p) + text.slice(p + 1);
    yield text.slice(0, p) + text[p] + text.slice(p);
    if (spread === Infinity) for (const c of inserts) yield text.slice(0, p) + c + text.slice(p);
    else {
      yield text.slice(0, p) + inserts[(p / step) % inserts.length] + text.slice(p);
      yield text.slice(0, p) + inserts[(p / step + 7) % inserts.length] + text.slice(p);
    }
  }
  const lines = text.split("\n");
  for (let l = 0; l < lines.length; l += Math.max(1, Math.floor(lines.length / 30))) {
    yield [...lines.slice(0, l + 1), lines[l]!, ...lines.slice(l + 1)].join("\n");
  }
  const swap = (a: string, b: string) => text.replace(a, b);
  for (const [a, b] of [["[", "]"], ["]", "["], ["[", "[["], ["]", "]]"], ["{", "["], ["}", "]"], ["=", ":"], ["\n", "\r\n"], ["\n", "\r"]] as const) {
    if (text.includes(a)) yield swap(a, b);
  }
}

describe("TOML fast path on mutated files", () => {
  it("bails whenever the full parser reports a syntax error; when it reads a file, same model", (t) => {
    const seeds = [...repoFiles, ...corpusFiles].map((f) => readFileSync(f, "utf8"));
    const small = new Set(VALID);
    seeds.push(...VALID);
    let total = 0;
    let errors = 0;
    let read = 0;
    for (const seed of seeds) {
      for (const m of mutations(seed, small.has(seed) ? Infinity : 40)) {
        total++;
        const slow = parseTomlDocumentSlow(URI, m);
        const fast = parseTomlFast(m, new LineIndex(m));
        if (slow.syntaxErrors.length) {
          errors++;
          assert.equal(fast, undefined, `fast path read a text the full parser rejects (${slow.syntaxErrors[0]!.message}):\n${m}`);
        }
        if (fast) {
          read++;
          assertSame(m, `mutation:\n${m}`);
        }
      }
    }
    t.diagnostic(`${total} mutations: ${errors} syntax errors (all bailed), ${read} read by the fast path (same model)`);
    assert.ok(total > 2000, `only ${total} mutations`);
    assert.ok(errors > total / 4, `only ${errors} of ${total} mutations were syntax errors`);
    assert.ok(read > total / 10, `the fast path read only ${read} of ${total} mutations`);
  });
});

describe("TOML fast path: invalid TOML bails, for each class", () => {
  const invalid: [string, string][] = [
    ["duplicate key", "a = 1\na = 2\n"],
    ["duplicate quoted key", 'a = 1\n"a" = 2\n'],
    ["duplicate dotted key", "a.b = 1\na.b = 2\n"],
    ["dotted key over a value", "a = 1\na.b = 2\n"],
    ["value over a dotted table", "a.b = 1\na = 2\n"],
    ["duplicate in inline table", "a = { b = 1, b = 2 }\n"],
    ["table redefined", "[a]\n[a]\n"],
    ["table redefined after a sub-table", "[a]\n[a.b]\n[a]\n"],
    ["table over a value", "a = 1\n[a]\n"],
    ["table under a value", "a = 1\n[a.b]\n"],
    ["table over an inline table", "a = {}\n[a]\n"],
    ["table into an inline table", "a = { b = 1 }\n[a.c]\n"],
    ["table over a dotted table", "[a]\nb.c = 1\n[a.b]\n"],
    ["dotted key into a header table", "[a.b]\n[a]\nb.c = 1\n"],
    ["array of tables over a table", "[a]\n[[a]]\n"],
    ["table over an array of tables", "[[a]]\n[a]\n"],
    ["array of tables over a static array", "a = [1]\n[[a]]\n"],
    ["array of tables over a value", "a = 1\n[[a]]\n"],
    ["leading zero", "a = 01\n"],
    ["leading zero in a float", "a = 00.1\n"],
    ["double underscore", "a = 1__0\n"],
    ["trailing underscore", "a = 1_\n"],
    ["underscore before exponent", "a = 1_e10\n"],
    ["signed hex", "a = -0x1\n"],
    ["signed hex zero", "a = -0x0\n"],
    ["capital hex prefix", "a = 0X10\n"],
    ["underscore after prefix", "a = 0x_1\n"],
    ["byte-order mark", "\ufeffa = 1\n"],
    ["bare dot float", "a = .1\n"],
    ["dot without fraction", "a = 1.\n"],
    ["exponent without digits", "a = 1e\n"],
    ["bad special float", "a = +nana\n"],
    ["capital inf", "a = Inf\n"],
    ["invalid escape \\e", 'a = "\\e"\n'],
    ["invalid escape \\x", 'a = "\\x41"\n'],
    ["surrogate escape", 'a = "\\uD800"\n'],
    ["escape past U+10FFFF", 'a = "\\U00110000"\n'],
    ["short \\u escape", 'a = "\\u12"\n'],
    ["control character in a string", 'a = "\u0001"\n'],
    ["DEL in a literal string", "a = '\u007f'\n"],
    ["control character in a comment", "# \u0001\na = 1\n"],
    ["newline in a string", 'a = "x\ny"\n'],
    ["lone carriage return", "a = 1\rb = 2\n"],
    ["carriage return in a key line", "a\r = 1\n"],
    ["mixed newline in a comment", "# x\ry\na = 1\n"],
    ["unterminated string", 'a = "x\n'],
    ["two values on a line", "a = 1 b = 2\n"],
    ["value on the next line", "a =\n1\n"],
    ["missing value", "a = \n"],
    ["trailing comma in inline table", "a = { b = 1, }\n"],
    ["newline in inline table", "a = { b = 1\n}\n"],
    ["missing comma in array", "a = [1 2]\n"],
    ["unclosed array", "a = [1, 2\n"],
    ["space inside [[", "[ [a]]\n"],
    ["space inside ]]", "[[a] ]\n"],
    ["empty header", "[]\n"],
    ["text after header", "[a] b = 1\n"],
    ["non-ASCII bare key", "é = 1\n"],
    ["no-break space", "a = 1\n\u00a0b = 2\n"],
    ["bare word value", "a = bf16\n"],
    ["truex", "a = truex\n"],
    ["key without value", "a\n"],
    ["unclosed header", "[a\nb = 1\n"],
  ];
  for (const [name, text] of invalid) {
    it(name, () => {
      assert.equal(fastReads(text), false, `fast path read: ${JSON.stringify(text)}`);
      // Same document either way (the full parser's recovery, messages and ranges).
      assertSame(text, name);
    });
  }

  it("left to the full parser: multi-line strings, dates, long integers, deep dotted keys into other tables", () => {
    for (const text of ['a = """\nx"""\n', "a = '''x'''\n", "d = 1979-05-27\n", "t = 07:32:00\n", "a = 12345678901234567\n", "[a.b.c]\n[a]\nb.d = 1\n"]) {
      assert.equal(fastReads(text), false, JSON.stringify(text));
      assertSame(text, JSON.stringify(text));
    }
  });

  it("key parts past MAX_KEY_PARTS: bails, and the document is skipped as before", () => {
    const head = Array.from({ length: 40 }, (_, i) => `t${i}`).join(".");
    const key = Array.from({ length: 30 }, (_, i) => `k${i}`).join(".");
    const text = `[${head}]\n${key} = 1\n`;
    assert.equal(fastReads(text), false);
    const doc = parseTomlDocument(URI, text);
    assert.match(doc.skipped ?? "", /more than 64 parts \(at line 2\)/);
    assertSame(text, "key parts");
  });

  it("long strings (parsed in pieces by guard.ts) go to the full parser, same model", () => {
    const text = `[job]\ndescription = "${"x\\u00e9".repeat(900)}"\nsteps = 10\n`;
    const doc = parseTomlDocument(URI, text);
    assert.equal(doc.entries[0]!.value.value, "xé".repeat(900));
    assertSame(text, "long string");
  });

  it("reads the valid forms it implements, same model", () => {
    for (const text of VALID) {
      assert.ok(fastReads(text), `fast path bailed on ${JSON.stringify(text)}`);
      assertSame(text, JSON.stringify(text));
    }
  });
});
