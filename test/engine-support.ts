/**
 * Shared inputs for the engine tests: the spec's modes (pytorch-dtypes.md §6.2 (a)–(d)) as
 * SimulationInputs. Expected answers stay in the test files, never here or in the product.
 */
import type { ParallelLayout } from "../server/src/core/analysis";
import { simulate } from "../server/src/core/engine";
import type { Simulation, SimulationInput } from "../server/src/core/engine/types";

export function layout(p: Partial<ParallelLayout> = {}): ParallelLayout {
  return { dp_replicate: 1, dp_shard: 1, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1, ...p };
}

const base = { paramDtype: "bfloat16", reduceDtype: "float32", trainingDtype: "float32", ddp: false, model: { name: "llama3", flavor: "8B" }, localBatchSize: 1, seqLen: 8192 } as const;

export type Mode = "a" | "b" | "c" | "d";

/** (a) FP32 no MP; (b) autocast bf16, fp32 params; (c) FSDP2 policy(bf16, fp32); (d) (c) + float8 rowwise. */
export function modeInput(mode: Mode, extra: Partial<SimulationInput> = {}): SimulationInput {
  switch (mode) {
    case "a":
      return { ...base, mechanism: "none", layout: layout(), ...extra };
    case "b":
      return { ...base, mechanism: "autocast", layout: layout(), ...extra };
    case "c":
      return { ...base, mechanism: "fully_shard", layout: layout({ dp_shard: 8 }), ...extra };
    case "d":
      return { ...base, mechanism: "fully_shard", layout: layout({ dp_shard: 8 }), float8: { recipe: "rowwise", filterFqns: ["output"] }, ...extra };
  }
}

export function sim(input: SimulationInput): Simulation {
  const s = simulate(input);
  if (!s) throw new Error("expected a simulation");
  return s;
}

export function fwd(s: Simulation, op: string): string {
  const r = s.forward.find((o) => o.op === op);
  if (!r) throw new Error(`no op ${op}`);
  return r.dtype;
}

export function collective(s: Simulation, name: string): string | undefined {
  return s.collectives.find((c) => c.name === name)?.dtype;
}

export const MODES: Mode[] = ["a", "b", "c", "d"];
