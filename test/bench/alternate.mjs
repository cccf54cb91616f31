// Alternating runs of shell commands (issue #21 startup figures): each command in turn, RUNS rounds; prints the
// median and min wall time and user+sys CPU of the children (bash `times`), the steadier figure on a shared machine.
//   node test/bench/alternate.mjs RUNS -- LABEL1 "CMD1" LABEL2 "CMD2" ...
import { spawnSync } from "node:child_process";
const runs = Number(process.argv[2]);
const pairs = [];
for (let i = 4; i < process.argv.length; i += 2) pairs.push([process.argv[i], process.argv[i + 1]]);
const s = pairs.map(() => []), c = pairs.map(() => []);
const toS = (x) => { const m = /(\d+)m([\d.]+)s/.exec(x); return Number(m[1]) * 60 + Number(m[2]); };
for (let r = 0; r < runs; r++) pairs.forEach(([, cmd], j) => {
  const t = process.hrtime.bigint();
  const out = spawnSync("bash", ["-c", `{ ${cmd} ; } >/dev/null 2>&1; times`], { encoding: "utf8" }).stdout.trim().split("\n");
  s[j].push(Number(process.hrtime.bigint() - t) / 1e6);
  const [u, sy] = out[1].split(/\s+/); c[j].push((toS(u) + toS(sy)) * 1000);
});
const med = (x) => { const a = [...x].sort((p, q) => p - q); return a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2; };
pairs.forEach(([l], j) => console.log(`${l.padEnd(14)} wall median ${med(s[j]).toFixed(0).padStart(4)} ms (min ${Math.min(...s[j]).toFixed(0)})   cpu median ${med(c[j]).toFixed(0).padStart(4)} ms (min ${Math.min(...c[j]).toFixed(0)})`));
