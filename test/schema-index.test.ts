/**
 * Issue #36: detection's per-key questions (`renamedEver`, `extensionsDefining`) answer from indexes built
 * once from the constant tables, not from a bounded memo that thrashed past 4,096 distinct keys. These
 * tests hold the indexes to the definitions they replace (every rename rule and extension key, their
 * prefixes, near misses), and detection's early exit to the full count.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { NO_ENV } from "../server/src/core/analysis";
import { EXTENSIONS, RENAMES, extensionsDefining, keysAt, renamedEver } from "../server/src/core/frameworks/torchtitan/schema/index";

/** The definitions before the indexes (matchRule over RENAMES; a filter over EXTENSIONS). */
const renamedByRule = (path: string): boolean => RENAMES.some((r) => (r.from.endsWith(".*") ? path.startsWith(r.from.slice(0, -1)) : r.from === path));
const definingByFilter = (prefix: string) => EXTENSIONS.filter((e) => e.keys.some((k) => k.path === prefix || k.path.startsWith(prefix + ".")));

function probes(): string[] {
  const out = new Set<string>(["", ".", "float8", "float8.", "float8.x", "model.name", "no_such_table.key", "training.mixed_precision_param"]);
  const add = (p: string) => {
    out.add(p);
    out.add(p + "x");
    out.add(p + ".x");
    out.add(p.slice(0, -1));
    const parts = p.split(".");
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join("."));
  };
  for (const r of RENAMES) add(r.from.replace(/\.\*$/, ""));
  for (const e of EXTENSIONS) for (const k of e.keys) add(k.path);
  for (const k of keysAt("v0.2.2").keys()) add(k);
  return [...out];
}

describe("schema indexes (issue #36)", () => {
  it("renamedEver answers as the rename map's rules do, for every rule, key, prefix and near miss", () => {
    const ps = probes();
    assert.ok(ps.length > 1000, `${ps.length} probes`);
    let renamed = 0;
    for (const p of ps) {
      assert.equal(renamedEver(p), renamedByRule(p), p);
      if (renamedByRule(p)) renamed++;
    }
    assert.ok(renamed > 20, `${renamed} renamed probes`);
  });

  it("extensionsDefining returns the same modules in the same order, as a fresh copy", () => {
    let hits = 0;
    for (const p of probes()) {
      const got = extensionsDefining(p);
      assert.deepEqual(got.map((e) => e.modules[0]), definingByFilter(p).map((e) => e.modules[0]), p);
      if (got.length) {
        hits++;
        got.pop(); // a caller's change must not reach the index
        assert.equal(extensionsDefining(p).length, definingByFilter(p).length, p);
      }
    }
    assert.ok(hits > 5, `${hits} prefixes with a defining module`);
  });

  it("detection counts known keys exactly around one half, past 4,096 distinct keys", () => {
    // [parallelism] + [training] make it torchtitan by its tables; then `known` upstream keys and
    // `unknown` keys of one's own: foreign when fewer than half of the leaves are known.
    const doc = (known: number, unknown: number): string => {
      const upstream = [...keysAt("v0.2.2").keys()].filter((k) => k.split(".").length === 2);
      const out: string[] = [];
      const byTable = new Map<string, string[]>();
      for (const k of upstream.slice(0, known)) {
        const [t, leaf] = k.split(".") as [string, string];
        byTable.set(t, [...(byTable.get(t) ?? []), leaf]);
      }
      for (const [t, leaves] of byTable) out.push(`[${t}]`, ...leaves.map((l) => `${l} = 1`));
      if (!byTable.has("parallelism")) out.push("[parallelism]");
      if (!byTable.has("training")) out.push("[training]");
      out.push("[own_table]", ...Array.from({ length: unknown }, (_, i) => `own_key_${i} = ${i}`));
      return out.join("\n") + "\n";
    };
    const n = Math.min(300, [...keysAt("v0.2.2").keys()].filter((k) => k.split(".").length === 2).length);
    for (const [known, unknown, titan] of [
      [n, n, true], // exactly half known: not foreign
      [n, n + 1, false],
      [n, 5000, false], // past the old memo's 4,096 entries
      [n, n - 1, true],
    ] as const) {
      const r = analyzeDocument("file:///t/train.toml", doc(known, unknown), {}, NO_ENV);
      assert.equal(r.framework === "torchtitan", titan, `${known} known, ${unknown} unknown: ${r.framework}`);
    }
  });
});
