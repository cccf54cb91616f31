/**
 * The module graph of server/src has no import cycle (issue #13). The graph is read from the sources with a
 * small scanner over `import ... from "..."`, `export ... from "..."`, side-effect `import "..."` and dynamic
 * `import("...")` (type-only imports count: a type cycle is still a tangle of rooms). Only relative
 * specifiers are followed; packages and node: modules are leaves.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";

const ROOT = resolve(import.meta.dirname, "..");
const SRC = join(ROOT, "server", "src");

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.ts$/.test(name) && !/\.d\.ts$/.test(name)) out.push(p);
  }
  return out;
}

const SPECIFIER = /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

export function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  // Comments are blanked first so an example in a doc comment is not an edge.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  for (const m of code.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2]!;
    if (!spec.startsWith(".")) continue;
    const base = resolve(dirname(file), spec);
    const target = [`${base}.ts`, join(base, "index.ts"), base].find((p) => existsSync(p) && statSync(p).isFile());
    assert.ok(target, `${relative(ROOT, file)}: cannot resolve import "${spec}"`);
    out.push(target);
  }
  return out;
}

/** Every elementary cycle found by a DFS (each reported once, from its smallest member). */
export function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string): void => {
    state.set(n, "open");
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === "open") {
        const cyc = stack.slice(stack.indexOf(m));
        const min = cyc.reduce((a, b) => (a < b ? a : b));
        const rot = [...cyc.slice(cyc.indexOf(min)), ...cyc.slice(0, cyc.indexOf(min))];
        const key = rot.join(" -> ");
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(rot);
        }
      } else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, "done");
  };
  for (const n of [...graph.keys()].sort()) if (!state.has(n)) visit(n);
  return cycles;
}

describe("architecture", () => {
  it("the scanner sees every kind of import (so the cycle check can fail)", () => {
    const g = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    assert.deepEqual(findCycles(g), [["a", "b", "c"]]);
    const file = join(SRC, "core", "analysis.ts");
    const text = `import type { X } from "./model/types";\nexport { y } from "./model/document";\nimport "./model/lineIndex";\n// import { z } from "./nope";\nconst m = await import("./features/fixAll");\n`;
    assert.deepEqual(importsOf(file, text).map((p) => relative(SRC, p)), ["core/model/types.ts", "core/model/document.ts", "core/model/lineIndex.ts", "core/features/fixAll.ts"]);
  });

  it("server/src has no import cycle", () => {
    const files = sourceFiles(SRC);
    assert.ok(files.length > 50, `found only ${files.length} source files under ${SRC}`);
    const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(f, "utf8"))]));
    const cycles = findCycles(graph).map((c) => [...c, c[0]!].map((p) => relative(SRC, p)).join(" -> "));
    assert.deepEqual(cycles, [], `import cycles in server/src:\n  ${cycles.join("\n  ")}`);
  });

  it("every rule file of every framework is in its rules/index.ts (a new rule is one file plus one line)", () => {
    const fw = join(SRC, "core", "frameworks");
    const ids = readdirSync(fw).filter((n) => existsSync(join(fw, n, "rules", "index.ts")));
    assert.deepEqual(ids.sort(), ["accelerate", "automodel", "axolotl", "deepspeed", "lightning", "megatron", "torchtitan", "torchtune", "transformers", "verl"]);
    for (const id of ids) {
      const dir = join(fw, id, "rules");
      const index = join(dir, "index.ts");
      // Listed directly, or through a registry index.ts imports (torchtitan's schema/rules.ts).
      const listed = new Set<string>();
      const queue = [index];
      while (queue.length) {
        const f = queue.pop()!;
        for (const t of importsOf(f, readFileSync(f, "utf8"))) {
          if (listed.has(t) || !t.startsWith(join(fw, id))) continue;
          listed.add(t);
          queue.push(t);
        }
      }
      const files = readdirSync(dir).filter((n) => n.endsWith(".ts") && n !== "index.ts");
      assert.ok(files.length > 0, `${id}: no rule files`);
      for (const f of files) assert.ok(listed.has(join(dir, f)), `${id}/rules/${f} is not reachable from ${id}/rules/index.ts`);
    }
  });
});

/**
 * The rooms of server/src/core (issue #20): the folder names show the data flow of docs/ARCHITECTURE.md.
 * Text → parse → model; workspace and frameworks resolve the context; engine simulates; diagnostics, features
 * and report turn the result into plain data; analyze.ts is the one entry. Each room may import only the rooms
 * listed here: a new edge is a decision, made in this table and in ARCHITECTURE.md, not by accident.
 */
const ROOMS: Record<string, string[]> = {
  model: [],
  parse: ["model"],
  edit: ["model"],
  diagnostics: ["model"],
  engine: ["model"],
  "provenance.ts": ["model", "diagnostics"],
  "analysis.ts": ["model", "engine", "frameworks", "provenance.ts"],
  workspace: ["model", "parse", "analysis.ts", "frameworks"],
  // features: only the type of a completion item, which a framework's own completion returns.
  frameworks: ["model", "parse", "edit", "diagnostics", "engine", "provenance.ts", "analysis.ts", "workspace", "features"],
  features: ["model", "edit", "diagnostics", "engine", "frameworks", "analysis.ts", "analyze.ts"],
  report: ["model", "engine", "features", "frameworks", "analysis.ts"],
  "analyze.ts": ["model", "parse", "diagnostics", "features", "frameworks", "workspace", "analysis.ts"],
};

function roomOf(file: string): string {
  const r = relative(join(SRC, "core"), file);
  return r.includes("/") ? r.split("/")[0]! : r;
}

describe("architecture: the rooms of core/", () => {
  const CORE = join(SRC, "core");
  it("core/ holds its rooms and three files: the entry (analyze.ts), its result (analysis.ts) and the severity gate (provenance.ts)", () => {
    const entries = readdirSync(CORE).sort();
    const files = entries.filter((n) => statSync(join(CORE, n)).isFile());
    const dirs = entries.filter((n) => statSync(join(CORE, n)).isDirectory());
    assert.deepEqual(files, ["analysis.ts", "analyze.ts", "provenance.ts"], "a loose file in core/ belongs in a room");
    assert.deepEqual(dirs, Object.keys(ROOMS).filter((r) => !r.endsWith(".ts")).sort());
  });

  it("each room imports only the rooms its row allows (model imports no room; parse, edit, diagnostics and engine only model)", () => {
    const bad: string[] = [];
    for (const f of sourceFiles(CORE)) {
      const from = roomOf(f);
      const allowed = ROOMS[from];
      assert.ok(allowed, `${relative(ROOT, f)} is in no room of the table`);
      for (const t of importsOf(f, readFileSync(f, "utf8"))) {
        const rel = relative(CORE, t);
        assert.ok(!rel.startsWith(".."), `${relative(ROOT, f)} imports ${relative(ROOT, t)}, outside the pure core`);
        const to = roomOf(t);
        if (to !== from && !allowed.includes(to)) bad.push(`${relative(CORE, f)} (${from}) -> ${rel} (${to})`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it("the room check can fail: an import from model into features is reported", () => {
    const f = join(CORE, "model", "document.ts");
    const [t] = importsOf(f, `import { x } from "../features/completion";\n`);
    assert.equal(roomOf(f), "model");
    assert.equal(roomOf(t!), "features");
    assert.ok(!ROOMS.model!.includes(roomOf(t!)));
  });
});
