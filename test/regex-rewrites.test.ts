/**
 * Issue #18: the patterns the regex lint allowed as "not yet rewritten" are now linear. Each hand-written
 * replacement gives what the old regex gave on every short string of a small alphabet (random, seeded),
 * and costs time linear in a long hostile line (checked in a child process with a timeout elsewhere:
 * test/hardening-linear.test.ts; here only the answers).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { disableList } from "../server/src/core/diagnostics/suppress";
import { headerName, keyAssignment } from "../server/src/core/features/completion";
import { rng } from "./support/rng";

function* strings(alphabet: string[], n: number, maxLen: number, seed: number): Generator<string> {
  const r = rng(seed);
  for (let i = 0; i < n; i++) {
    const len = Math.floor(r() * (maxLen + 1));
    let s = "";
    for (let j = 0; j < len; j++) s += alphabet[Math.floor(r() * alphabet.length)];
    yield s;
  }
}

describe("linear rewrites give the old answers (issue #18)", () => {
  it("headerName = /^\\s*\\[\\[?\\s*([^\\]]*?)\\s*\\]\\]?\\s*(#.*)?$/ (and the +? variant), up to trimming", () => {
    const lazy = /^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$/;
    const plus = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
    for (const s of strings(["[", "]", " ", "a", ".", "#", "x", "\t"], 40_000, 9, 18)) {
      assert.equal(headerName(s, false), lazy.exec(s)?.[1]?.trim(), JSON.stringify(s));
      assert.equal(headerName(s, true), plus.exec(s)?.[1]?.trim(), JSON.stringify(s));
    }
  });

  it("keyAssignment = /^\\s*([A-Za-z0-9_.\"-]+(?:\\s*\\.\\s*[A-Za-z0-9_\"-]+)*)\\s*=\\s*(.*)$/", () => {
    const old = /^\s*([A-Za-z0-9_."-]+(?:\s*\.\s*[A-Za-z0-9_"-]+)*)\s*=\s*(.*)$/;
    for (const s of strings(["a", ".", " ", "=", '"', "-", "#", "1"], 40_000, 9, 19)) {
      const m = old.exec(s);
      const k = keyAssignment(s);
      assert.deepEqual(k && { key: k.key, value: k.value }, m ? { key: m[1]!, value: m[2]! } : undefined, JSON.stringify(s));
    }
  });

  it("disableList = the codes the old lazy-list-before-lookahead regex captured", () => {
    const old = /(disable(?:-file)?\s*=\s*)([^;=]*?)(?=\s+[a-z][a-z-]*\s*=|\s*;|\s*$)/i;
    const pieces = ["disable", "disable-file", "=", " ", ",", ";", "a", "b-c", "X1", "x="];
    for (const s of strings(pieces, 40_000, 7, 20)) {
      const m = old.exec(s);
      const l = disableList(s);
      const mine = l ? s.slice(l.start, l.end) : undefined;
      // The old regex could backtrack into the blanks after `=` and capture "": the same "no codes".
      assert.equal(mine || undefined, m?.[2] || undefined, JSON.stringify(s));
    }
  });

  it("a 200 kB hostile line takes one pass", () => {
    const line = `[${" ".repeat(200_000)}x`;
    assert.equal(headerName(line, false), undefined);
    assert.equal(keyAssignment(`a${" ".repeat(200_000)}.`), undefined);
    assert.equal(disableList(`disable=${" ".repeat(200_000)}x y`)?.start, 200_008);
  });
});
