/**
 * Developer check (not part of the product or the test suite): compares the dated torchtitan schema
 * (schema/index.ts keysAt) with torchtitan's own config source at every commit that changed it, in a
 * local clone of pytorch/torchtitan. Prints, per commit, the upstream keys our schema lacks at that date
 * (a false "unknown key" risk). Same-day commits around a rename show up too (dates have day precision).
 *
 *   node --import tsx scripts/schema-history.ts /path/to/torchtitan [--extra]
 */
import { execFileSync } from "node:child_process";
import { keysAt } from "../server/src/core/frameworks/torchtitan/schema/index";
import { scanJobConfig } from "../server/src/core/workspace/pyDataclass";

const repo = process.argv[2];
if (!repo) {
  console.error("usage: schema-history.ts <torchtitan clone> [--extra]");
  process.exit(2);
}
const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"] });
const log = git("log", "--format=%h %ad", "--date=short", "--since=2024-04-01", "--until=2026-02-23", "--", "torchtitan/config_manager.py", "torchtitan/config/job_config.py");
let problems = 0;
for (const line of log.trim().split("\n").reverse()) {
  const [commit, date] = line.split(" ") as [string, string];
  let text: string;
  try {
    text = git("show", `${commit}:torchtitan/config/job_config.py`);
  } catch {
    text = git("show", `${commit}:torchtitan/config_manager.py`);
  }
  const scanned = /@dataclass/.test(text) ? scanJobConfig(text) : undefined;
  const upstream = new Set(scanned ? scanned.keys.map((k) => k.path) : [...text.matchAll(/"--([a-z_0-9]+\.[a-z_0-9.]+)"/g)].map((m) => m[1]!));
  const ours = keysAt(date);
  const missing = [...upstream].filter((k) => !ours.has(k));
  if (missing.length) {
    problems++;
    console.log(`${date} ${commit} missing: ${missing.join(" ")}`);
  }
  if (process.argv.includes("--extra")) {
    const extra = [...ours.keys()].filter((k) => !upstream.has(k));
    if (extra.length) console.log(`${date} ${commit} extra: ${extra.join(" ")}`);
  }
}
console.log(`${problems} commits with upstream keys missing from the schema at their date`);
