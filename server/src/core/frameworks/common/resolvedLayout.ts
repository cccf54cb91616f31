/** The resolved parallel layout and the world size from the user setting, as the YAML/JSON analysers build them. */
import type { ParallelLayout, Sourced } from "../../analysis";

/**
 * A layout with the sequence-parallel degree where a framework has one (accelerate ALST/Ulysses `sp_size`).
 * `sp` travels with `AnalysisResult.parallel` (and the CLI's JSON) as an extra field; absent means 1.
 */
export type FrameworkLayout = ParallelLayout & { sp?: number };

export function layout(p: Partial<ParallelLayout>): ParallelLayout {
  return { dp_replicate: 1, dp_shard: 1, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1, ...p };
}

/** World size given by the user setting (wins over everything). */
export function settingWorldSize(ws: number | null | undefined): Sourced<number> | undefined {
  return ws && ws > 0 ? { value: ws, source: "setting", kind: "setting", detail: "from the precisionLens.worldSize setting / --world-size" } : undefined;
}
