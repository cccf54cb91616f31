/** TOML text edits (server/src/core/edit/toml.ts): before/after texts, comments and layout kept. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyEdits } from "../server/src/core/diagnostics/build";
import { deleteEntry, moveKey, renameKey, renameTable, setKey, tomlKey, tomlValue } from "../server/src/core/edit/toml";
import { findEntry, findSection } from "../server/src/core/model/document";
import { parseTomlDocument } from "../server/src/core/parse/toml";
import type { TextEdit } from "../server/src/core/model/types";

const parse = (t: string) => parseTomlDocument("file:///t.toml", t);
function run(text: string, f: (d: ReturnType<typeof parse>) => TextEdit[]): string {
  const d = parse(text);
  const out = applyEdits(d, f(d));
  assert.deepEqual(parse(out).syntaxErrors, [], `result must parse:\n${out}`);
  return out;
}

const BASE = `# header comment
[training]
steps = 10 # keep me
float8.x = 1

[model]
name = "llama3"
`;

describe("setKey", () => {
  it("replaces the value of an existing key, keeping its comment", () => {
    assert.equal(run(BASE, (d) => setKey(d, ["training"], "steps", "20")), BASE.replace("steps = 10", "steps = 20"));
  });
  it("replaces a key written as a dotted key in a parent table", () => {
    assert.equal(run(BASE, (d) => setKey(d, ["training", "float8"], "x", "2")), BASE.replace("float8.x = 1", "float8.x = 2"));
  });
  it("replaces a key inside an inline table", () => {
    const t = `[training]\ndataloader = { num_workers = 2 }\n`;
    assert.equal(run(t, (d) => setKey(d, ["training", "dataloader"], "num_workers", "4")), `[training]\ndataloader = { num_workers = 4 }\n`);
  });
  it("adds a key to an inline table", () => {
    const t = `[training]\ndataloader = { num_workers = 2 }\n`;
    assert.equal(run(t, (d) => setKey(d, ["training", "dataloader"], "pin_memory", "true")), `[training]\ndataloader = { num_workers = 2, pin_memory = true }\n`);
  });
  it("inserts after the last entry of the table", () => {
    assert.equal(run(BASE, (d) => setKey(d, ["training"], "dtype", '"bfloat16"')), BASE.replace("float8.x = 1\n", 'float8.x = 1\ndtype = "bfloat16"\n'));
  });
  it("inserts a dotted key next to the dotted keys of a sub-table", () => {
    assert.equal(run(BASE, (d) => setKey(d, ["training", "float8"], "y", "2")), BASE.replace("float8.x = 1\n", "float8.x = 1\nfloat8.y = 2\n"));
  });
  it("inserts right after the header of an empty table, with its indentation", () => {
    const t = `[compile]\n\n[model]\nname = "x"\n`;
    assert.equal(run(t, (d) => setKey(d, ["compile"], "enable", "true")), `[compile]\nenable = true\n\n[model]\nname = "x"\n`);
    const ind = `[a]\n  k = 1\n`;
    assert.equal(run(ind, (d) => setKey(d, ["a"], "j", "2")), `[a]\n  k = 1\n  j = 2\n`);
  });
  it("appends a new table at the end of the file when the table does not exist", () => {
    assert.equal(run(BASE, (d) => setKey(d, ["quantize", "linear", "float8"], "emulate", "true")), `${BASE}\n[quantize.linear.float8]\nemulate = true\n`);
    assert.equal(run(`[a]\nk = 1`, (d) => setKey(d, ["b"], "j", "2")), `[a]\nk = 1\n\n[b]\nj = 2\n`);
  });
  it("keeps CRLF line breaks", () => {
    const t = "[a]\r\nk = 1\r\n";
    assert.equal(run(t, (d) => setKey(d, ["a"], "j", "2")), "[a]\r\nk = 1\r\nj = 2\r\n");
    assert.equal(run(t, (d) => setKey(d, ["b"], "j", "2")), "[a]\r\nk = 1\r\n\r\n[b]\r\nj = 2\r\n");
  });
  it("puts a root key before the first table", () => {
    assert.equal(run(`[a]\nk = 1\n`, (d) => setKey(d, [], "top", "1")), `top = 1\n\n[a]\nk = 1\n`);
  });
  it("quotes keys that are not bare", () => {
    assert.equal(tomlKey("a.b"), '"a.b"');
    assert.equal(tomlValue(["x", 1, true]), '["x", 1, true]');
  });
});

describe("deleteEntry", () => {
  it("removes the whole line with its trailing comment", () => {
    assert.equal(run(BASE, (d) => deleteEntry(d, findEntry(d, "training", "steps")!)), BASE.replace("steps = 10 # keep me\n", ""));
  });
  it("removes every line of a multi-line array", () => {
    const t = `[a]\nk = [\n  "x",\n  "y",\n]\nj = 1\n`;
    assert.equal(run(t, (d) => deleteEntry(d, findEntry(d, "a", "k")!)), `[a]\nj = 1\n`);
  });
  it("removes the last line of a file without a final newline", () => {
    assert.equal(run(`[a]\nk = 1\nj = 2`, (d) => deleteEntry(d, findEntry(d, "a", "j")!)), `[a]\nk = 1`);
  });
  it("removes one entry of an inline table with its comma", () => {
    const t = `[a]\nt = { x = 1, y = 2 }\n`;
    const d = parse(t);
    const inline = findEntry(d, "a", "t")!;
    const x = inline.value.entries![0]!;
    assert.equal(applyEdits(d, deleteEntry(d, x)), `[a]\nt = { y = 2 }\n`);
  });
});

describe("renameKey / renameTable", () => {
  it("renames the last segment, keeping the dotted prefix as written", () => {
    assert.equal(run(BASE, (d) => renameKey(d, findEntry(d, "training", "float8", "x")!, "z")), BASE.replace("float8.x", "float8.z"));
    assert.equal(run(BASE, (d) => renameKey(d, findEntry(d, "training", "steps")!, "n_steps")), BASE.replace("steps = 10", "n_steps = 10"));
  });
  it("renames a table header, keeping its entries and comments", () => {
    const t = `[float8]  # old layout\nemulate = true\n`;
    assert.equal(run(t, (d) => renameTable(d, findSection(d, "float8")!, ["quantize", "linear", "float8"])), `[quantize.linear.float8]  # old layout\nemulate = true\n`);
  });
});

describe("moveKey", () => {
  it("moves a key to an existing table under a new name, with its trailing comment", () => {
    assert.equal(
      run(BASE, (d) => moveKey(d, findEntry(d, "training", "steps")!, ["model"], { newKey: "n" })),
      `# header comment\n[training]\nfloat8.x = 1\n\n[model]\nname = "llama3"\nn = 10 # keep me\n`,
    );
  });
  it("creates the target table when needed", () => {
    const t = `[training]\ncompile = true\nsteps = 1\n`;
    assert.equal(run(t, (d) => moveKey(d, findEntry(d, "training", "compile")!, ["compile"], { newKey: "enable" })), `[training]\nsteps = 1\n\n[compile]\nenable = true\n`);
  });
  it("replaces the value (inverted booleans)", () => {
    const t = `[training]\nenable_loss_parallel = true\n`;
    assert.equal(run(t, (d) => moveKey(d, findEntry(d, "training", "enable_loss_parallel")!, ["parallelism"], { newKey: "disable_loss_parallel", valueText: "false" })), `[training]\n\n[parallelism]\ndisable_loss_parallel = false\n`);
  });
  it("within the same table is a rename", () => {
    const t = `[checkpoint]\nenable_checkpoint = true\n`;
    assert.equal(run(t, (d) => moveKey(d, findEntry(d, "checkpoint", "enable_checkpoint")!, ["checkpoint"], { newKey: "enable" })), `[checkpoint]\nenable = true\n`);
  });
  it("with an existing target replaces its value, or keeps it", () => {
    const t = `[a]\nold = 1\n[b]\nnew = 2\n`;
    assert.equal(run(t, (d) => moveKey(d, findEntry(d, "a", "old")!, ["b"], { newKey: "new" })), `[a]\n[b]\nnew = 1\n`);
    assert.equal(run(t, (d) => moveKey(d, findEntry(d, "a", "old")!, ["b"], { newKey: "new", onExisting: "keep" })), `[a]\n[b]\nnew = 2\n`);
  });
});
