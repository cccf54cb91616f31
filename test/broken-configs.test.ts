/**
 * Broken files (issue #14): a syntax error costs only what it touches. Each fixture is a variant of one
 * TP-only torchtitan config (the seed case of examples/tp_only_8gpu.toml, written out here) with one
 * break; the seed warning of the intact part stays, and the break gets exactly one syntax error at its
 * cause. Inline expectations as in test/frameworks-torchtitan.test.ts (`|` marks an empty range: a position
 * between characters, where taplo puts its caret).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseTOML } from "toml-eslint-parser";
import { analyzeDocument } from "../server/src/core/analyze";
import { MAX_TOML_PARSES, parseTomlDocument } from "../server/src/core/parse/toml";
import { FULL_RECOVERY_MAX_CHARS, unparsedKeys } from "../server/src/core/parse/partial";
import { analyzeFixture, checkDiagnostics, withoutMarkers } from "./support/fixture";

const BASE = `# A TP-only Llama 3 8B run on one 8-GPU node (fixture text for issue #14)
[job]
description = "broken-file fixture"

[model]
name = "llama3"
flavor = "8B"

[optimizer]
name = "AdamW"
lr = 3e-4

[training]
local_batch_size = 2
seq_len = 4096
steps = 100

[compile]
enable = false
components = ["model", "loss"]

[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 8
#^^^^^^^^^^^^^^^^^^^^^^^^^ warning[no-mixed-precision]: No mixed precision: TP-only on 8 GPUs trains in fp32

[activation_checkpoint]
mode = "selective"
`;

/** BASE with the first line equal to `line` replaced by `by` (which carries its own expectation). */
function edit(line: string, by: string): string {
  const lines = BASE.split("\n");
  const i = lines.indexOf(line);
  assert.ok(i >= 0, `no line ${line}`);
  lines[i] = by;
  return lines.join("\n");
}

/** Checks the fixture and that it is analysed as torchtitan with one syntax error. */
function check(text: string): ReturnType<typeof checkDiagnostics> {
  const r = checkDiagnostics(text);
  assert.equal(r.framework, "torchtitan");
  assert.equal(r.diagnostics.filter((d) => d.code === "toml-syntax").length, 1);
  return r;
}

describe("broken torchtitan configs keep the picture of the intact part", () => {
  it("the intact base has the seed warning only", () => {
    checkDiagnostics(BASE);
  });

  it("1. unclosed table header: expected ] where taplo puts it, the body keeps its table", () => {
    const r = check(
      edit(
        "[training]",
        `[training
#        | error[toml-syntax]: unclosed table header: expected "]" after [training`,
      ),
    );
    assert.equal(r.doc.entries.find((e) => e.path.join(".") === "training.steps")?.value.value, 100);
  });

  it("2. unclosed [parallelism: the degrees stay, so the seed warning stays", () => {
    check(
      edit(
        "[parallelism]",
        `[parallelism
#           | error[toml-syntax]: expected "]" after [parallelism`,
      ),
    );
  });

  it("3. unclosed header with a trailing comment: the position is after the name", () => {
    check(
      edit(
        "[model]",
        `[model   # the model
#     | error[toml-syntax]: expected "]" after [model`,
      ),
    );
  });

  it("4. missing value", () => {
    check(
      edit(
        "steps = 100",
        `steps = 
#       | error[toml-syntax]: missing value: \`steps =\` needs a value`,
      ),
    );
  });

  it("5. missing value before a comment", () => {
    check(
      edit(
        "steps = 100",
        `steps = # how many?
#       | error[toml-syntax]: missing value`,
      ),
    );
  });

  it("6. a key being typed, no = yet", () => {
    check(
      edit(
        "seq_len = 4096",
        `seq_le
#     | error[toml-syntax]: expected "=" and a value after the key \`seq_le\``,
      ),
    );
  });

  it('7. a key and a value without "="', () => {
    check(
      edit(
        "seq_len = 4096",
        `seq_len 4096
#       ^ error[toml-syntax]: expected "=" between the key \`seq_len\` and its value`,
      ),
    );
  });

  it("8. unterminated string", () => {
    check(
      edit(
        'name = "llama3"',
        `name = "llama3
#      ^^^^^^^ error[toml-syntax]: unterminated string: the closing " is missing`,
      ),
    );
  });

  it("9. unterminated literal string", () => {
    check(
      edit(
        'mode = "selective"',
        `mode = 'selective
#      ^^^^^^^^^^ error[toml-syntax]: unterminated string: the closing ' is missing`,
      ),
    );
  });

  it("10. unterminated multi-line string: the opener, and only its line is set aside", () => {
    const r = check(
      edit(
        'description = "broken-file fixture"',
        `description = """broken-file fixture
#             ^^^ error[toml-syntax]: unterminated multi-line string: the closing`,
      ),
    );
    assert.equal(r.doc.entries.find((e) => e.path.join(".") === "model.name")?.value.value, "llama3");
  });

  it("11. duplicate key: the second one, naming the first's line", () => {
    const r = check(
      edit(
        "steps = 100",
        `steps = 100
steps = 200
#^^^^ error[toml-syntax]: duplicate key \`steps\` (first defined on line 16; this one is ignored)`,
      ),
    );
    assert.equal(r.doc.entries.find((e) => e.path.join(".") === "training.steps")?.value.value, 100);
  });

  it("12. duplicate table", () => {
    check(
      edit(
        'mode = "selective"',
        `mode = "selective"

[optimizer]
 #^^^^^^^^ error[toml-syntax]: duplicate table [optimizer] (first defined on line 9)
lr = 1e-3`,
      ),
    );
  });

  it("13. invalid escape", () => {
    check(
      edit(
        'description = "broken-file fixture"',
        `description = "runs\\dump"
#                  ^^ error[toml-syntax]: invalid escape \`\\d\` in a string`,
      ),
    );
  });

  it("14. invalid unicode escape", () => {
    check(
      edit(
        'description = "broken-file fixture"',
        `description = "caf\\u00e"
#                 ^^^^^ error[toml-syntax]: invalid escape \`\\u00e\`: \\u needs 4 hexadecimal digits`,
      ),
    );
  });

  it("15. a bare word where a string belongs", () => {
    check(
      edit(
        'name = "AdamW"',
        `name = AdamW
#      ^^^^^ error[toml-syntax]: invalid value \`AdamW\`: a string needs quotes ("AdamW")`,
      ),
    );
  });

  it("16. two equals signs", () => {
    check(
      edit(
        "lr = 3e-4",
        `lr = = 3e-4
#    ^ error[toml-syntax]: unexpected "=": expected a value after \`lr =\``,
      ),
    );
  });

  it("17. two values on one line", () => {
    check(
      edit(
        "steps = 100",
        `steps = 100 200
#           ^^^ error[toml-syntax]: unexpected \`200\` after the value`,
      ),
    );
  });

  it("18. a malformed number", () => {
    check(
      edit(
        "lr = 3e-4",
        `lr = 3e-4_
#    ^^^^^ error[toml-syntax]: invalid value \`3e-4_\`: underscores in a number must stand between digits`,
      ),
    );
  });

  it("19. unclosed array on one line: expected ] at its end", () => {
    check(
      edit(
        'components = ["model", "loss"]',
        `components = ["model", "loss"
#                            | error[toml-syntax]: unclosed array: expected "]" (the array opens at line 20, column 14)`,
      ),
    );
  });

  it("20. unclosed array over several lines: the whole array is set aside, not the tables after it", () => {
    check(
      edit(
        'components = ["model", "loss"]',
        `components = [
  "model",
  "loss"
#       | error[toml-syntax]: unclosed array: expected "]"`,
      ),
    );
  });

  it("21. an array-of-tables header missing a bracket", () => {
    check(
      edit(
        "[job]",
        `[[job]
#     | error[toml-syntax]: unclosed table header: expected "]]" after [[job`,
      ),
    );
  });

  it("22. a new table header being typed at the end", () => {
    check(`${BASE}[
#| error[toml-syntax]: table header without a name`);
  });

  it("23. a half-typed key at the end of the file", () => {
    check(`${BASE}selective_ac
#           | error[toml-syntax]: expected "=" and a value after the key \`selective_ac\``);
  });

  it("24. another degree half-typed next to the seed line", () => {
    check(
      edit(
        "data_parallel_shard_degree = -1",
        `data_parallel_shard_degree = -1
pipeline_parallel_degree =
#                         | error[toml-syntax]: missing value`,
      ),
    );
  });

  it("25. a degree whose value does not parse counts as absent, and the hover says so", () => {
    const text = edit(
      "data_parallel_shard_degree = -1",
      `data_parallel_shard_degree = -
#                            ^ error[toml-syntax]: invalid value \`-\``,
    );
    const r = check(text);
    assert.deepEqual(unparsedKeys(r.doc).map((k) => k.path.join(".")), ["parallelism.data_parallel_shard_degree"]);
    const line = text.split("\n").indexOf("data_parallel_shard_degree = -");
    const onBroken = r.hovers.find((h) => h.range.start.line === line);
    assert.match(onBroken!.markdown, /`parallelism\.data_parallel_shard_degree` does not parse\*\*, so the analysis counts it as absent/);
    const onSeed = r.hovers.find((h) => h.range.start.line === line + 2 && /TP-only/.test(h.markdown));
    assert.equal(line + 1, 23);
    assert.match(r.reportMarkdown!, /^# Precision report: train\.toml\n\n> _Line 23 does not parse: this picture is of the rest of the file/);
    assert.match(onSeed!.markdown, /Line 23 does not parse: this picture is of the rest of the file; `parallelism\.data_parallel_shard_degree` counts as absent/);
  });

  it("breaking the seed line itself drops the seed warning: nothing is guessed", () => {
    const r = checkDiagnostics(
      edit(
        "tensor_parallel_degree = 8",
        `tensor_parallel_degree = 8a
#                        ^^ error[toml-syntax]: invalid value \`8a\``,
      ).replace(/\n#\^+ warning\[no-mixed-precision\][^\n]*/, ""),
    );
    assert.equal(r.framework, "torchtitan");
    assert.equal(r.layoutName, "FSDP");
  });

  it("directives in a broken file still apply (world size from the comment)", () => {
    const r = analyzeFixture(`# precision-lens: world-size=16\n${withoutMarkers(edit("steps = 100", "steps = "))}`);
    assert.equal(r.worldSize?.value, 16);
    assert.equal(r.worldSize?.source, "directive");
  });

  it("several breaks: one error each, in source order", () => {
    const text = withoutMarkers(BASE).replace("[training]", "[training").replace('name = "AdamW"', "name = AdamW").replace("steps = 100", "steps =");
    const r = analyzeDocument("file:///f/train.toml", text);
    assert.deepEqual(
      r.diagnostics.map((d) => [d.code, d.range.start.line]),
      [
        ["toml-syntax", 9],
        ["toml-syntax", 12],
        ["toml-syntax", 15],
        ["no-mixed-precision", 23],
      ],
    );
  });
});

describe("detection and bounds", () => {
  it("a small broken file with [parallelism] and [training] is still a torchtitan config", () => {
    const r = analyzeDocument("file:///f/train.toml", "[training]\nsteps = \n[parallelism]\ntensor_parallel_degree = 8\n");
    assert.equal(r.framework, "torchtitan");
    assert.deepEqual(r.diagnostics.map((d) => d.code), ["toml-syntax", "no-mixed-precision"]);
  });

  it("past the parse budget, the file is still recognised and each error found is reported", () => {
    const text = "[training]\n" + Array.from({ length: 12 }, (_, i) => `k${i} = \n`).join("") + "[parallelism]\ntensor_parallel_degree = 8\n";
    const doc = parseTomlDocument("file:///f/train.toml", text);
    assert.equal(doc.syntaxErrors.length, MAX_TOML_PARSES);
    const r = analyzeDocument("file:///f/train.toml", text);
    assert.equal(r.framework, null);
    assert.equal(r.likelyFramework, "torchtitan");
    assert.equal(r.diagnostics.length, MAX_TOML_PARSES);
  });

  it("a large broken file gets one recovery parse only", () => {
    const text = "[training]\nsteps = \n" + "# padding\n".repeat(7_000) + "seq_len = \n[parallelism]\ntensor_parallel_degree = \n";
    assert.ok(text.length > FULL_RECOVERY_MAX_CHARS);
    assert.equal(parseTomlDocument("file:///f/train.toml", text).syntaxErrors.length, 2);
  });

  it("a broken unrelated TOML file still gets nothing", () => {
    const r = analyzeDocument("file:///p/pyproject.toml", `[project\nname = "x"\n[tool.ruff]\nline-length = \n`);
    assert.equal(r.framework, null);
    assert.deepEqual(r.diagnostics, []);
  });

  it("offsets stay exact after recovery: every entry's range still holds its key", () => {
    const text = withoutMarkers(BASE).replace("[training]", "[training").replace("lr = 3e-4", "lr = = 3e-4");
    const doc = parseTomlDocument("file:///f/train.toml", text);
    const lines = text.split("\n");
    for (const e of doc.entries) {
      const line = lines[e.keyRange.start.line]!;
      assert.equal(line.slice(e.keyRange.start.character, e.keyRange.end.character), e.path.at(-1));
    }
  });
});

describe("recovery invariants over random one-character breaks", () => {
  it("never throws, keeps offsets exact, and reports an error exactly when the file does not parse", () => {
    const base = withoutMarkers(BASE);
    let seed = 14;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const chars = ['"', "'", "[", "]", "=", "{", "}", "#", "\n", ".", ",", "\\", " ", "x"];
    for (let i = 0; i < 300; i++) {
      const at = rand(base.length);
      const text = rand(2) ? base.slice(0, at) + chars[rand(chars.length)] + base.slice(at) : base.slice(0, at) + base.slice(at + 1);
      for (const t of [text, text.replace(/\n/g, "\r\n")]) {
        const doc = parseTomlDocument("file:///f/train.toml", t);
        let parses = true;
        try {
          parseTOML(t, { tomlVersion: "1.0" });
        } catch {
          parses = false;
        }
        assert.equal(doc.syntaxErrors.length > 0, !parses, JSON.stringify(t));
        const lines = t.split(/\r?\n/);
        for (const e of doc.entries) {
          const written = lines[e.keyRange.start.line]!.slice(e.keyRange.start.character, e.keyRange.end.character);
          assert.ok(written.includes(e.path.at(-1)!) || /["']/.test(written), `${written} vs ${e.path.join(".")} in ${JSON.stringify(t)}`);
        }
        for (const d of analyzeDocument("file:///f/train.toml", t).diagnostics) assert.ok(d.range.start.line < lines.length && d.range.end.line < lines.length);
      }
    }
  });
});

describe("broken YAML configs", () => {
  const ACCEL = `compute_environment: LOCAL_MACHINE
distributed_type: FSDP
mixed_precision: bf16
num_processes: 8
fsdp_config:
  fsdp_sharding_strategy: FULL_SHARD
  fsdp_offload_params: false
main_training_function: main
`;
  const intact = analyzeDocument("file:///a/accelerate.yaml", ACCEL);

  it("an unclosed quote on a later line keeps the precision picture, with the error at the quote", () => {
    const r = analyzeDocument("file:///a/accelerate.yaml", ACCEL.replace("main_training_function: main", "main_training_function: 'ma"));
    assert.equal(r.framework, "accelerate");
    assert.deepEqual(r.precision, intact.precision);
    const s = r.diagnostics.filter((d) => d.code === "yaml-syntax");
    assert.equal(s.length, 1);
    assert.deepEqual(s[0]!.range, { start: { line: 7, character: 24 }, end: { line: 7, character: 27 } });
    assert.deepEqual(
      r.diagnostics.filter((d) => d.code !== "yaml-syntax"),
      intact.diagnostics,
    );
  });

  it("a key without its colon is set aside alone", () => {
    const r = analyzeDocument("file:///a/accelerate.yaml", ACCEL.replace("num_processes: 8", "num_processes"));
    assert.equal(r.framework, "accelerate");
    assert.deepEqual(r.precision, intact.precision);
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "yaml-syntax").map((d) => d.range.start.line), [3]);
  });

  it("an over-indented key is the line set aside, not its table", () => {
    const r = analyzeDocument("file:///a/accelerate.yaml", ACCEL.replace("  fsdp_offload_params: false", "   fsdp_offload_params: false"));
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "yaml-syntax").map((d) => [d.range.start.line, d.range.start.character]), [[6, 3]]);
    assert.equal(r.doc.entries.find((e) => e.path.join(".") === "fsdp_config.fsdp_sharding_strategy")?.value.value, "FULL_SHARD");
  });
});
