/**
 * Broken variants of torchtitan's own presets (issue #14), read from ../shared/corpus at run time (skipped
 * with a message when absent). Two breaks a user makes while typing, on every preset:
 * - a half-typed `key =` on a blank line: every diagnostic of the intact file stays, plus one syntax error;
 * - a table header losing its `]`: every diagnostic stays except those on the header line itself, plus one
 *   syntax error at taplo's position (the end of the name), because the table keeps its keys.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import type { Diagnostic } from "../server/src/core/model/types";
import { CORPUS, corpusAvailable, listFiles, corpusSkip } from "./support/corpus";

const files = corpusAvailable("torchtitan") ? listFiles(`${CORPUS}/torchtitan`, [".toml"]) : [];
const key = (d: Diagnostic) => `${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${d.code}`;

describe("broken variants of the torchtitan presets keep their diagnostics", { skip: files.length ? false : corpusSkip("torchtitan") || "no .toml file under ../shared/corpus/torchtitan" }, () => {
  it("a half-typed key on a blank line costs nothing else", () => {
    let checked = 0;
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      const lines = text.split("\n");
      const blank = lines.findIndex((l, i) => i > 0 && l.trim() === "" && lines.slice(0, i).some((p) => /^\[/.test(p)));
      if (blank < 0) continue;
      const uri = `file:///corpus/${relative(CORPUS, f)}`;
      const intact = analyzeDocument(uri, text);
      if (intact.framework !== "torchtitan") continue;
      const broken = [...lines];
      broken[blank] = "half_typed =";
      const r = analyzeDocument(uri, broken.join("\n"));
      assert.equal(r.framework, "torchtitan", f);
      const syntax = r.diagnostics.filter((d) => d.code === "toml-syntax");
      assert.deepEqual(syntax.map((d) => [d.range.start.line, d.range.start.character]), [[blank, "half_typed =".length]], f);
      assert.deepEqual(r.diagnostics.filter((d) => d.code !== "toml-syntax").map(key), intact.diagnostics.map(key), f);
      assert.equal(r.layoutName, intact.layoutName, f);
      assert.deepEqual(r.precision, intact.precision, f);
      checked++;
    }
    assert.ok(checked >= 10, `${checked} presets checked`);
  });

  it("a table header without its ] keeps the table's keys", () => {
    let checked = 0;
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      const lines = text.split("\n");
      const uri = `file:///corpus/${relative(CORPUS, f)}`;
      const intact = analyzeDocument(uri, text);
      if (intact.framework !== "torchtitan") continue;
      for (const name of ["training", "parallelism"]) {
        const h = lines.findIndex((l) => l.trim() === `[${name}]`);
        if (h < 0) continue;
        const broken = [...lines];
        broken[h] = broken[h]!.replace(`[${name}]`, `[${name}`);
        const r = analyzeDocument(uri, broken.join("\n"));
        assert.equal(r.framework, "torchtitan", f);
        const syntax = r.diagnostics.filter((d) => d.code === "toml-syntax");
        assert.deepEqual(syntax.map((d) => [d.range.start.line, d.range.start.character]), [[h, broken[h]!.indexOf("[") + name.length + 1]], `${f} [${name}`);
        const off = (d: Diagnostic) => d.range.start.line !== h;
        assert.deepEqual(r.diagnostics.filter((d) => d.code !== "toml-syntax" && off(d)).map(key), intact.diagnostics.filter(off).map(key), `${f} [${name}`);
        assert.deepEqual(r.precision, intact.precision, `${f} [${name}`);
        checked++;
      }
    }
    assert.ok(checked >= 10, `${checked} headers checked`);
  });
});
