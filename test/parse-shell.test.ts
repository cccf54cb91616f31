import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findLaunchCommand } from "../server/src/core/frameworks/transformers/launchLine";
import { expandText, MAX_SHELL_CHARS, readShell } from "../server/src/core/parse/shell";

const words = (text: string) => readShell(text).commands.map((c) => c.words.map((w) => w.text));
const names = (t: string) => t === "a.yaml";

describe("parse/shell.ts: the one reader of shell text (launch scripts and launch lines)", () => {
  it("`${VAR:=x}` and `${VAR=x}` take their default; `:-`/`:=` also replace a variable set to the empty string, `-` does not", () => {
    assert.deepEqual(words("E=\ntorchrun --nproc_per_node ${N:=4} ${E:-2} x${E-3}y \"${E:=5}\"\n"), [["torchrun", "--nproc_per_node", "4", "2", "xy", "5"]]);
    assert.equal(expandText("${A:-x} ${A-y} ${B:=z} $C", new Map([["A", ""]])), "x  z $C");
  });

  it("a command's own `VAR=x` prefixes are its env and do not stay set; an assignment alone does", () => {
    const s = readShell("FORCE_TORCHRUN=1 NPROC=8 llamafactory-cli train a.yaml\nG=2\necho $NPROC $G\n");
    assert.deepEqual(s.commands.map((c) => c.words.map((w) => w.text)), [["llamafactory-cli", "train", "a.yaml"], ["echo", "${NPROC}", "2"]]);
    assert.deepEqual([...s.commands[0]!.env!].map(([k, v]) => [k, v.map((w) => w.text)]), [["FORCE_TORCHRUN", ["1"]], ["NPROC", ["8"]]]);
    assert.equal(s.commands[1]!.env, undefined);
  });

  it("a value grown by repeated expansion stays bounded (the word is kept as written past MAX_SHELL_CHARS)", () => {
    const text = `A=xxxxxxxx\n${'A="$A$A"\n'.repeat(40)}torchrun t.py $A a.yaml\n`;
    const w = readShell(text).commands[0]!.words;
    assert.equal(w[0]!.text, "torchrun");
    assert.ok(w[2]!.text.length <= MAX_SHELL_CHARS);
    assert.deepEqual(findLaunchCommand(text, "a.yaml", names), { kind: "torchrun", line: 41, script: "t.py" });
  });
});

describe("transformers launch lines read through parse/shell.ts: cases the old line reader missed", () => {
  it("a quoted value with blanks, `export A=1 B=2`, `--flag=\"a b\"`, a subshell, backslash escapes", () => {
    assert.deepEqual(findLaunchCommand('ARGS="--nproc_per_node 4 --nnodes 2"\ntorchrun $ARGS t.py a.yaml\n', "a.yaml", names), { kind: "torchrun", line: 1, numProcesses: 8 , script: "t.py" });
    assert.deepEqual(findLaunchCommand("export N=2 CFG=a.yaml\ntorchrun --nproc_per_node $N t.py $CFG\n", "a.yaml", names), { kind: "torchrun", line: 1, numProcesses: 2 , script: "t.py" });
    assert.deepEqual(findLaunchCommand('accelerate launch --config_file="my acc.yaml" t.py a.yaml\n', "a.yaml", names), { kind: "accelerate", line: 0, configFile: "my acc.yaml" , script: "t.py" });
    assert.deepEqual(findLaunchCommand("(cd x && torchrun --nproc_per_node 2 t.py a.yaml)\n", "a.yaml", names), { kind: "torchrun", line: 0, numProcesses: 2 , script: "t.py" });
    assert.deepEqual(findLaunchCommand("torchrun --nproc_per_node\\=2 t.py a\\.yaml\n", "a.yaml", names), { kind: "torchrun", line: 0, numProcesses: 2 , script: "t.py" });
  });

  it("a README's prose is read line by line: an apostrophe does not open a quote that swallows the next line", () => {
    assert.deepEqual(findLaunchCommand("Don't forget:\n$ FORCE_TORCHRUN=1 NPROC_PER_NODE=4 llamafactory-cli train a.yaml\nllamafactory-cli train a.yaml\n", "a.yaml", names), { kind: "llamafactory-cli", line: 1, forceTorchrun: true, numProcesses: 4 });
  });
});
