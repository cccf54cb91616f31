/** torchtitan detection (spec torchtitan.md): the top-level tables only torchtitan configs have. */
import type { ConfigDocument } from "../../model";

/** Top-level tables that only torchtitan configs have (any two, or one of the distinctive ones). */
export const TITAN_TABLES = ["job", "training", "parallelism", "model", "optimizer", "lr_scheduler", "checkpoint", "activation_checkpoint", "metrics", "profiling", "comm", "float8", "quantize", "compile", "validation", "experimental", "memory_estimation", "fault_tolerance"];
export const DISTINCTIVE = ["parallelism", "activation_checkpoint", "lr_scheduler", "quantize", "float8", "memory_estimation"];

export function detectTorchtitan(doc: ConfigDocument): string | undefined {
  const tops = new Set<string>();
  for (const s of doc.sections) tops.add(s.path[0]!);
  for (const e of doc.entries) if (e.path.length > 1) tops.add(e.path[0]!);
  const found = TITAN_TABLES.filter((t) => tops.has(t));
  const distinctive = found.filter((t) => DISTINCTIVE.includes(t));
  // pyproject.toml has [project]/[tool.*], Cargo.toml has [package]: neither has these tables.
  if (distinctive.length >= 1 && found.length >= 2) return `torchtitan config: has ${found.slice(0, 4).map((t) => `[${t}]`).join(", ")} tables`;
  if (found.length >= 3 && (tops.has("training") || tops.has("job"))) return `torchtitan config: has ${found.slice(0, 4).map((t) => `[${t}]`).join(", ")} tables`;
  return undefined;
}
