/**
 * The era seam: how torchtitan decided between FSDP's MixedPrecisionPolicy, torch.autocast and nothing,
 * per period of its history (../shared/spec/torchtitan.md §0, §1.2–1.5). Every other part of the
 * product asks `eraFor(version).decide(...)`; nothing else branches on versions for the mechanism.
 */
import type { Mechanism, ParallelLayout } from "../analysis";

export type EraId =
  | "fsdp-dp-type" // 2024-05-20 … 2024-09-10: FSDP MP iff dp > 1 and data_parallel_type = "fsdp"
  | "fsdp-dp-shard" // 2024-09-10 … 2024-12-11: FSDP MP iff dp_shard > 1
  | "fsdp-dp-shard-or-cp" // 2024-12-11 … 2025-06-16: FSDP MP iff dp_shard > 1 or cp > 1
  | "maybe-enable-amp" // 2025-06-16 … 2026-02-23 (v0.1.0 … v0.2.2): FSDP MP, else autocast, else none for TP/PP
  | "pr2213" // unmerged PR #2213 as a what-if: FSDP MP, else autocast always
  | "python-replicate" // 2026-03-09 … 2026-04-09, Python configs only: FSDP or replicate MP, autocast single device
  | "python-always-fully-shard"; // 2026-04-09 …, Python configs only: fully_shard always

export interface LogLine {
  level: "info" | "warning";
  text: string;
}

export interface MechanismDecision {
  mechanism: Mechanism;
  /** Which code path the decision took, user-facing ("FSDP/HSDP/CP enabled", "TP or PP without FSDP"). */
  reason: string;
  /** What torchtitan logs at launch for this decision (quoted from its source, see spec §1.2). */
  logs: LogLine[];
  /** Launch-time error raised before mixed precision is considered, e.g. DDP combined with TP. */
  error?: string;
  /** True when DDP (composable replicate) wraps the model. */
  ddp: boolean;
}

export interface Era {
  id: EraId;
  label: string;
  /** Inclusive start and exclusive end dates (YYYY-MM-DD) on torchtitan main. */
  from: string;
  until?: string;
  /** False for the Python-config eras: torchtitan no longer reads TOML then. */
  readsToml: boolean;
  decide(dims: ParallelLayout, worldSize: number, opts: DecideOptions): MechanismDecision;
}

export interface DecideOptions {
  /** Model families whose apply_fsdp also runs when EP > 1 (llama4, deepseek_v3, gpt_oss; spec §1.4). */
  fsdpOnEp?: boolean;
}

export const WARN_TP_PP = "Mixed precision training with TP or PP is only supported when FSDP/HSDP/CP is enabled.";
export const WARN_TP_PP_PY = "Mixed precision training with TP or PP is only supported when FSDP/HSDP/CP/DDP is enabled.";
export const INFO_FSDP = "Mixed precision training is handled by fully_shard";
export const INFO_AMP = "Mixed precision training is handled by AMP";
export const INFO_DISABLED = "Mixed precision training is disabled";
export const DDP_ERROR = "DDP has not supported > 1D parallelism";

export function fsdpEnabled(d: ParallelLayout): boolean {
  return d.dp_shard > 1 || d.cp > 1;
}

/** torchtitan's DDP branch: replicate > 1 with neither shard nor CP. */
function ddpBranch(d: ParallelLayout, worldSize: number): { ddp: boolean; error?: string } {
  if (d.dp_replicate > 1 && !fsdpEnabled(d)) {
    return worldSize !== d.dp_replicate ? { ddp: true, error: DDP_ERROR } : { ddp: true };
  }
  return { ddp: false };
}

function failed(error: string): MechanismDecision {
  return { mechanism: "error", reason: "launch fails before training starts", logs: [], error, ddp: false };
}

/** The shape shared by the three pre-AMP eras: FSDP MP under a condition, otherwise silent fp32. */
function fsdpOnlyEra(id: EraId, label: string, from: string, until: string, cond: (d: ParallelLayout, o: DecideOptions) => boolean, condText: string): Era {
  return {
    id,
    label,
    from,
    until,
    readsToml: true,
    decide(d, w, o) {
      const ddp = ddpBranch(d, w);
      if (ddp.error) return failed(ddp.error);
      if (cond(d, o) || (o.fsdpOnEp && d.ep > 1)) {
        return { mechanism: "fully_shard", reason: condText, logs: [], ddp: false };
      }
      return { mechanism: "none", reason: `mixed precision exists only through FSDP in this era (${condText} is false); no warning is logged`, logs: [], ddp: ddp.ddp };
    },
  };
}

const MAYBE_ENABLE_AMP: Era = {
  id: "maybe-enable-amp",
  label: "v0.1.0 … v0.2.2 (maybe_enable_amp)",
  from: "2025-06-16",
  until: "2026-02-23",
  readsToml: true,
  decide(d, w, o) {
    const ddp = ddpBranch(d, w);
    if (ddp.error) return failed(ddp.error);
    if (fsdpEnabled(d) || (o.fsdpOnEp && d.ep > 1)) {
      return { mechanism: "fully_shard", reason: "FSDP/HSDP/CP is enabled (dp_shard > 1 or cp > 1)", logs: [{ level: "info", text: INFO_FSDP }], ddp: false };
    }
    if (d.tp > 1 || d.pp > 1) {
      return {
        mechanism: "none",
        reason: "TP or PP without FSDP: maybe_enable_amp returns a null context",
        logs: [{ level: "warning", text: WARN_TP_PP }, { level: "info", text: INFO_DISABLED }],
        ddp: false,
      };
    }
    return { mechanism: "autocast", reason: ddp.ddp ? "pure DDP: autocast around forward and loss" : "single device: autocast around forward and loss", logs: [{ level: "info", text: INFO_AMP }], ddp: ddp.ddp };
  },
};

const PR_2213: Era = {
  id: "pr2213",
  label: "v0.2.2 with PR #2213 (unmerged what-if)",
  from: "2026-01-08",
  readsToml: true,
  decide(d, w, o) {
    const ddp = ddpBranch(d, w);
    if (ddp.error) return failed(ddp.error);
    if (fsdpEnabled(d) || (o.fsdpOnEp && d.ep > 1)) {
      return { mechanism: "fully_shard", reason: "FSDP/HSDP/CP is enabled (dp_shard > 1 or cp > 1)", logs: [{ level: "info", text: INFO_FSDP }], ddp: false };
    }
    if (d.pp > 1) {
      // The PR returns autocast, but the PP step never enters that context (spec §1.3).
      return { mechanism: "none", reason: "PP without FSDP: the pipeline step never runs under the autocast context", logs: [{ level: "info", text: INFO_AMP }], ddp: ddp.ddp };
    }
    return { mechanism: "autocast", reason: "no FSDP: PR #2213 returns autocast for every non-FSDP layout", logs: [{ level: "info", text: INFO_AMP }], ddp: ddp.ddp };
  },
};

const PY_REPLICATE: Era = {
  id: "python-replicate",
  label: "Python configs, 2026-03-09 … 2026-04-09 (replicate with MixedPrecisionPolicy)",
  from: "2026-03-09",
  until: "2026-04-09",
  readsToml: false,
  decide(d) {
    if (fsdpEnabled(d) || d.dp_replicate > 1) {
      return { mechanism: "fully_shard", reason: "fully_shard or replicate with MixedPrecisionPolicy", logs: [{ level: "info", text: "Mixed precision training is handled by fully_shard or replicate" }], ddp: d.dp_replicate > 1 && !fsdpEnabled(d) };
    }
    if (d.tp > 1 || d.pp > 1) {
      return { mechanism: "none", reason: "TP or PP without FSDP/DDP", logs: [{ level: "warning", text: WARN_TP_PP_PY }, { level: "info", text: INFO_DISABLED }], ddp: false };
    }
    return { mechanism: "autocast", reason: "single device", logs: [{ level: "info", text: INFO_AMP }], ddp: false };
  },
};

const PY_ALWAYS: Era = {
  id: "python-always-fully-shard",
  label: "Python configs, 2026-04-09 onward (fully_shard always)",
  from: "2026-04-09",
  readsToml: false,
  decide() {
    return { mechanism: "fully_shard", reason: "fully_shard is applied at every degree (a size-1 mesh still installs the policy)", logs: [], ddp: false };
  },
};

export const ERAS: readonly Era[] = [
  fsdpOnlyEra("fsdp-dp-type", "main 2024-05-20 … 2024-09-10 (FSDP when data_parallel_type = fsdp)", "2024-05-20", "2024-09-10", (d) => d.dp_shard > 1, "dp > 1 with data_parallel_type = \"fsdp\""),
  fsdpOnlyEra("fsdp-dp-shard", "main 2024-09-10 … 2024-12-11 (FSDP when dp_shard > 1)", "2024-09-10", "2024-12-11", (d) => d.dp_shard > 1, "dp_shard > 1"),
  fsdpOnlyEra("fsdp-dp-shard-or-cp", "main 2024-12-11 … 2025-06-16 (FSDP when dp_shard > 1 or cp > 1)", "2024-12-11", "2025-06-16", (d) => fsdpEnabled(d), "dp_shard > 1 or cp > 1"),
  MAYBE_ENABLE_AMP,
  PR_2213,
  PY_REPLICATE,
  PY_ALWAYS,
];

export function eraById(id: EraId): Era {
  const e = ERAS.find((x) => x.id === id);
  if (!e) throw new Error(`unknown era ${id}`);
  return e;
}

/** The era that governs a main-branch date (YYYY-MM-DD). Dates before 2024-05-20 fall into the first era. */
export function eraForDate(date: string): Era {
  const dated = ERAS.filter((e) => e.id !== "pr2213");
  for (let i = dated.length - 1; i >= 0; i--) if (date >= dated[i]!.from) return dated[i]!;
  return dated[0]!;
}
