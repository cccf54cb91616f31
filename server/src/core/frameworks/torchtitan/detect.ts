/** torchtitan detection (spec torchtitan.md): the top-level tables only torchtitan configs have. */
import type { ConfigDocument } from "../../model/document";
import { extensionsDefining, renamedEver, upstreamKeyEver } from "./schema/index";
import { leafEntries } from "./schema/view";

/** Top-level tables that only torchtitan configs have (any two, or one of the distinctive ones). */
export const TITAN_TABLES = ["job", "training", "parallelism", "model", "optimizer", "lr_scheduler", "checkpoint", "activation_checkpoint", "metrics", "profiling", "comm", "float8", "quantize", "compile", "validation", "experimental", "memory_estimation", "fault_tolerance"];
export const DISTINCTIVE = ["parallelism", "activation_checkpoint", "lr_scheduler", "quantize", "float8", "memory_estimation"];

/** Below this many keys a file says too little to outweigh its tables (a fixture, a stub). */
const MIN_KEYS_FOR_EVIDENCE = 8;

/**
 * Evidence against (issue #17 §4): the keys upstream torchtitan never had at any date, nor as an old name,
 * nor from an extension module's table. A TOML whose keys are mostly such is another framework's that
 * happens to share table names ([model], [training], [checkpoint] are common: NVIDIA cosmos-rl's configs,
 * KempnerForge's), not a torchtitan config; a fork keeps most of upstream's keys beside its own.
 */
function mostlyForeign(doc: ConfigDocument): boolean {
  const leaves = leafEntries(doc);
  if (leaves.length < MIN_KEYS_FOR_EVIDENCE) return false;
  // Stops as soon as the count decides: known * 2 < n can no longer hold, or can no longer fail.
  const n = leaves.length;
  let known = 0;
  for (let i = 0; i < n; i++) {
    if (knownPath(leaves[i]!.path)) known++;
    if (known * 2 >= n) return false;
    if ((known + n - i - 1) * 2 < n) return true;
  }
  return known * 2 < n;
}

/**
 * Whether a key path is one upstream torchtitan has (at any date, as an old name, or from an extension's
 * table). A pure function of the path; remembered per path array, which the incremental TOML read
 * (parse/tomlFast.ts) keeps across versions of a document for every key before the edit (issue #36).
 */
function knownPath(path: readonly string[]): boolean {
  let known = KNOWN.get(path);
  if (known === undefined) {
    const dotted = path.join(".");
    known = upstreamKeyEver(dotted) || renamedEver(dotted) || extensionsDefining(path[0]!).length > 0;
    KNOWN.set(path, known);
  }
  return known;
}
const KNOWN = new WeakMap<readonly string[], boolean>();

export function detectTorchtitan(doc: ConfigDocument): string | undefined {
  const reason = detectByTables(doc);
  return reason && !mostlyForeign(doc) ? reason : undefined;
}

function detectByTables(doc: ConfigDocument): string | undefined {
  const tops = new Set<string>();
  for (const s of doc.sections) tops.add(s.path[0]!);
  // Keys of one table share their first part (often the same string): added once per run of them.
  let last: string | undefined;
  for (const e of doc.entries) {
    const top = e.path[0]!;
    if (e.path.length > 1 && top !== last) {
      tops.add(top);
      last = top;
    }
  }
  const found = TITAN_TABLES.filter((t) => tops.has(t));
  const distinctive = found.filter((t) => DISTINCTIVE.includes(t));
  // pyproject.toml has [project]/[tool.*], Cargo.toml has [package]: neither has these tables.
  if (distinctive.length >= 1 && found.length >= 2) return `torchtitan config: has ${found.slice(0, 4).map((t) => `[${t}]`).join(", ")} tables`;
  if (found.length >= 3 && (tops.has("training") || tops.has("job"))) return `torchtitan config: has ${found.slice(0, 4).map((t) => `[${t}]`).join(", ")} tables`;
  return undefined;
}
