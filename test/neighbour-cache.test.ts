/**
 * Issue #18, host side of the files read beside a config (host/nodeEnv.ts): the cache is bounded in bytes,
 * and past its bound it does not re-read every file at each analysis; only the first MAX_NEIGHBOUR_READ_BYTES
 * of a file is read; a workspace root counts for a document only when the document is inside it by path
 * segments (`/ws/proj-x` is not inside `/ws/proj`).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { MAX_NEIGHBOUR_READ_BYTES, NEIGHBOUR_CACHE_BYTES, NEIGHBOUR_SCAN_CHARS_PER_ANALYSIS, isWithin, neighbourCacheStats, nodeEnv, setNeighbourCacheBudget } from "../server/src/host/nodeEnv";

describe("neighbour files (issue #18)", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "pl-neighbours-"));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    setNeighbourCacheBudget();
  });

  it("300 run scripts: the second analysis reads none of them again (a 256-entry FIFO re-read all 300)", () => {
    setNeighbourCacheBudget();
    const names = Array.from({ length: 300 }, (_, i) => join(dir, `run${i}.sh`));
    for (const n of names) writeFileSync(n, "torchrun --nproc_per_node 8 train.py\n");
    const pass = (): number => {
      const before = neighbourCacheStats.reads;
      const env = nodeEnv(join(dir, "train.toml"), [dir]);
      for (const n of names) assert.ok(env.readFile(n)?.startsWith("torchrun"));
      return neighbourCacheStats.reads - before;
    };
    assert.equal(pass(), 300);
    assert.equal(pass(), 0);
  });

  it("past the byte bound, the files that fit stay cached: only the rest is read again", () => {
    const budget = 1024 * 1024;
    setNeighbourCacheBudget(budget);
    const names = Array.from({ length: 20 }, (_, i) => join(dir, `big${i}.sh`));
    for (const n of names) writeFileSync(n, `# ${"x".repeat(100_000)}\n`);
    const pass = (): number => {
      const before = neighbourCacheStats.reads;
      const env = nodeEnv(join(dir, "train.toml"), [dir]);
      for (const n of names) assert.equal(env.readFile(n)?.length, 100_003);
      return neighbourCacheStats.reads - before;
    };
    assert.equal(pass(), 20);
    assert.ok(neighbourCacheStats.bytes <= budget, `${neighbourCacheStats.bytes} bytes cached, budget ${budget}`);
    const cached = neighbourCacheStats.entries;
    assert.ok(cached >= 4 && cached < 20, `${cached} files cached`);
    assert.equal(pass(), 20 - cached, "only the files that did not fit are read again");
    assert.equal(neighbourCacheStats.entries, cached);
  });

  it("one analysis scans at most its budget of neighbour text; the next analysis has its own", () => {
    setNeighbourCacheBudget(NEIGHBOUR_CACHE_BYTES, 4096, 250_000);
    const names = Array.from({ length: 5 }, (_, i) => join(dir, `budget${i}.sh`));
    for (const n of names) writeFileSync(n, "x".repeat(100_000));
    const read = (): (number | undefined)[] => {
      const env = nodeEnv(join(dir, "train.toml"), [dir]);
      return names.map((n) => env.readFile(n)?.length);
    };
    assert.deepEqual(read(), [100_000, 100_000, 100_000, undefined, undefined]);
    assert.deepEqual(read(), [100_000, 100_000, 100_000, undefined, undefined]);
    assert.equal(NEIGHBOUR_SCAN_CHARS_PER_ANALYSIS, 8 * 1024 * 1024);
  });

  it("only the first MAX_NEIGHBOUR_READ_BYTES of a neighbour file are read", () => {
    setNeighbourCacheBudget();
    const p = join(dir, "long.sh");
    writeFileSync(p, "a".repeat(3 * 1024 * 1024));
    assert.equal(nodeEnv(join(dir, "train.toml"), [dir]).readFile(p)?.length, MAX_NEIGHBOUR_READ_BYTES);
  });

  it("workspace roots by path segments: /ws/proj-x is not inside /ws/proj", () => {
    assert.equal(isWithin("/ws/proj-x/a.toml", "/ws/proj", "/"), false);
    assert.equal(isWithin("/ws/proj/a.toml", "/ws/proj", "/"), true);
    assert.equal(isWithin("/ws/proj", "/ws/proj/", "/"), true);
    assert.equal(isWithin("/ws/proj/a.toml", "/", "/"), true);
    assert.equal(isWithin("C:\\ws\\proj-x\\a.toml", "C:\\ws\\proj", "\\"), false);
    assert.equal(isWithin("C:\\ws\\proj\\a.toml", "C:\\ws\\proj", "\\"), true);
    const sibling = join(dir, "proj-x");
    const root = join(dir, "proj");
    mkdirSync(sibling, { recursive: true });
    mkdirSync(root, { recursive: true });
    // The sibling's document does not get the other folder as a workspace root (run scripts, linked files).
    assert.deepEqual(nodeEnv(join(sibling, "train.toml"), [root]).workspaceRoots, [sibling]);
    assert.deepEqual(nodeEnv(join(root, "train.toml"), [root]).workspaceRoots, [root]);
  });
});
