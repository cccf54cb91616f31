/**
 * Issue #18 bench (part of `npm run bench`; alone: `npm run bench:linear`): each critical input of
 * test/support/attacks.ts at 10, 50, 100, 250 and 500 kB, analysed through the real Node env (neighbour
 * files on disk), with the time and the time per kB. Linear growth shows as a flat ms/kB column; the
 * last column is the ratio of the 500 kB time to the 10 kB time (50 for linear, 2,500 for quadratic).
 * Prints; asserts nothing.
 *
 *   node --import tsx test/bench/linear.ts [--repeat N]
 */
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../../server/src/core/analyze";
import { nodeEnv, setNeighbourCacheBudget } from "../../server/src/host/nodeEnv";
import { ATTACKS, withAttackOnDisk } from "../support/attacks";

const SIZES = [10_000, 50_000, 100_000, 250_000, 500_000];
const r = process.argv.indexOf("--repeat");
const REPEAT = r > 0 ? Math.max(1, Number(process.argv[r + 1]) || 3) : 3;
const pad = (s: string, n: number): string => (s.length >= n ? s : s + " ".repeat(n - s.length));
const lpad = (s: string, n: number): string => (s.length >= n ? s : " ".repeat(n - s.length) + s);

function once(attack: (typeof ATTACKS)[number], size: number): { ms: number; kB: number; codes: string[] } {
  return withAttackOnDisk(attack, size, ({ path, dir, text, chars }) => {
    let best = Infinity;
    let codes: string[] = [];
    for (let i = 0; i < REPEAT; i++) {
      setNeighbourCacheBudget(); // every run reads its neighbour files from disk
      const t0 = performance.now();
      const res = analyzeDocument(pathToFileURL(path).href, text, {}, nodeEnv(path, [dir]));
      best = Math.min(best, performance.now() - t0);
      codes = res.diagnostics.map((d) => d.code);
    }
    return { ms: best, kB: chars / 1000, codes };
  });
}

console.log(`\nLinear scanning (issue #18): best of ${REPEAT} per size; ms/kB flat = linear`);
console.log(`${pad("input", 58)}${SIZES.map((s) => lpad(`${s / 1000} kB`, 20)).join("")}  500/10`);
for (const a of ATTACKS) {
  once(a, 2000); // warm-up (JIT)
  const row = SIZES.map((s) => once(a, s));
  const cells = row.map((x) => lpad(`${x.ms.toFixed(1)} ms ${(x.ms / x.kB).toFixed(3)}/kB`, 20));
  console.log(`${pad(a.name, 58)}${cells.join("")}  ${lpad((row.at(-1)!.ms / row[0]!.ms).toFixed(0), 6)}`);
}
