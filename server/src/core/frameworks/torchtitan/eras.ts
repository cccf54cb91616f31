/**
 * The era seam: how torchtitan decided between FSDP's MixedPrecisionPolicy, torch.autocast and nothing,
 * per period of its history (../shared/spec/torchtitan.md §0, §1.2–1.5). Every other part of the
 * product asks `eraFor(version).decide(...)`; nothing else branches on versions for the mechanism.
 */
import type { Mechanism, ParallelLayout } from "../../analysis";
import type { SourceLocation } from "../../model/types";

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
  /** The diagnostic code that reports `error` (stable; the rule of that name owns the message). */
  errorCode?: "ddp-with-other-parallelism" | "ep-without-fsdp-mesh" | "ep-needs-tp-mesh";
  /** True when DDP (composable replicate) wraps the model. */
  ddp: boolean;
  /**
   * True when `error` is the DDP error on a model whose parallelize upstream torchtitan does not have (a fork's
   * or an experiment's): it is assumed to check like llama3's, so the error rests on the model as well.
   */
  modelAssumed?: boolean;
}

export interface Era {
  id: EraId;
  label: string;
  /** Inclusive start and exclusive end dates (YYYY-MM-DD) on torchtitan main. */
  from: string;
  until?: string;
  /** False for the Python-config eras: torchtitan no longer reads TOML then. */
  readsToml: boolean;
  /**
   * Dates inside the era where `decide` changes for some layouts (not the mechanism rule itself, e.g.
   * expert parallelism appearing on 2025-07-08 or the ParallelDims rewrite of 2025-12-17). The era
   * comparison splits the era's line where the outcome differs. The first period starts at `from`.
   */
  periods?: readonly EraPeriod[];
  /** What the era's label says after its version range, e.g. "maybe_enable_amp". */
  mechanismLabel?: string;
  decide(dims: ParallelLayout, worldSize: number, opts: DecideOptions): MechanismDecision;
}

export interface EraPeriod {
  from: string;
  /** How the period's first and last versions read in a label ("v0.2.1", "main 2025-07-07"). */
  first: string;
  last: string;
}

export interface DecideOptions {
  /** Model families whose apply_fsdp also runs when EP > 1 (llama4, deepseek_v3, gpt_oss; spec §1.4). */
  fsdpOnEp?: boolean;
  /**
   * The model's parallelize asks for the `fsdp` mesh by name in that branch (`parallel_dims.get_mesh`),
   * which raises when dp_shard * cp = 1 from the ParallelDims rewrite on (MESH_UNFLATTEN_DATE). True for
   * torchtitan's own llama4, deepseek_v3 and gpt_oss. Assumption: the experiments' variants
   * (simple_fsdp.*, autoparallel.*) are not modelled and keep the v0.2.0 prediction.
   */
  epNeedsFsdpMesh?: boolean;
  /**
   * The model's own parallelize asks for the `tp` mesh by name (`get_mesh("tp")`) in its MoE branch, taken when
   * EP > 1 even with TP = 1, between the ParallelDims rewrite (MESH_UNFLATTEN_DATE) and 62f5806ed
   * (EP_TP_MESH_OPTIONAL_DATE): true for torchtitan's own llama4 and qwen3 (v0.2.1 llama4/infra/parallelize.py:136-138,
   * qwen3/infra/parallelize.py:102-105). deepseek_v3 and gpt_oss already used `get_optional_mesh("tp")` there.
   */
  epNeedsTpMesh?: boolean;
  /**
   * The workspace's own parallelize for this model, read as text (workspace/forkCode.ts `epBranchTpMesh`): true when
   * its EP branch takes the tp mesh unguarded, false when guarded or optional. Outranks the dated upstream reading.
   */
  forkEpTpMesh?: { asks: boolean; file: string; location: SourceLocation };
  /** Main-branch date of the decision (YYYY-MM-DD); without it, the era's latest behaviour. */
  date?: string;
  /** `model.name` (absent: torchtitan's default, llama3). Decides whether DDP + TP/PP raises (ddpChecksWorld). */
  model?: string;
}

/**
 * 183a0d2e7 (#1660), 2025-12-17, first in v0.2.1: ParallelDims builds its meshes with DeviceMesh
 * unflatten and `get_mesh` raises for a dimension of size 1 (torchtitan v0.2.1
 * torchtitan/distributed/parallel_dims.py:61-66 `_mesh_exist`, :252-276 `get_mesh`). Before it, v0.2.0
 * kept a size-1 `dp_shard_mod_ep` dimension whenever EP > 1 (v0.2.0 parallel_dims.py:101-103), so the
 * MoE models' FSDP wrapping ran on a size-1 mesh.
 */
export const MESH_UNFLATTEN_DATE = "2025-12-17";

/**
 * 62f5806ed (#2185, "make get tp mesh optional in llama4 parallelize"), 2025-12-29, after v0.2.1 (2025-12-26) and
 * in v0.2.2: llama4's and qwen3's MoE branch takes `get_optional_mesh("tp")`. From MESH_UNFLATTEN_DATE until then
 * they called `get_mesh("tp")` whenever EP > 1, which raises at TP = 1 (issue #2184).
 */
export const EP_TP_MESH_OPTIONAL_DATE = "2025-12-29";

/** `ParallelDims.get_mesh`'s ValueError for a single dimension name (v0.2.1 distributed/parallel_dims.py:252-276). */
export const TP_MESH_ERROR = "Mesh 'tp' is not available. Ensure the corresponding parallelism dimension is enabled (size > 1).";

/** 01f4e5022, 2025-07-08: ParallelDims gains `ep` (spec §3.1). Before it the key is ignored (EP = 1). */
export const EP_DATE = "2025-07-08";

export const WARN_TP_PP = "Mixed precision training with TP or PP is only supported when FSDP/HSDP/CP is enabled.";
export const WARN_TP_PP_PY = "Mixed precision training with TP or PP is only supported when FSDP/HSDP/CP/DDP is enabled.";
export const INFO_FSDP = "Mixed precision training is handled by fully_shard";
export const INFO_AMP = "Mixed precision training is handled by AMP";
export const INFO_DISABLED = "Mixed precision training is disabled";
export const DDP_ERROR = "DDP has not supported > 1D parallelism";
/**
 * 40a0873b3 (#685, 2024-12-11) … 6b03ffa32 (2024-12-26): parallelize_llama's FSDP branch (taken for cp > 1)
 * raised when dp_replicate > 1 and dp_shard = 1 (40a0873b3 torchtitan/parallelisms/parallelize_llama.py:83-85);
 * 6b03ffa32 removed the check and wraps HSDP over dp_replicate × cp.
 */
export const DDP_CP_ERROR = "Composability of DDP + CP is not supported.";
export const DDP_CP_FROM = "2024-12-11";
export const DDP_CP_UNTIL = "2024-12-26";

/** Upstream models whose DDP branch raises for DDP + TP/PP, by period (see ddpChecksWorld). */
const DDP_RAISES_UNTIL_MESH = new Set(["llama3", "llama4", "qwen3", "deepseek_v3", "vlm"]);
const DDP_RAISES_FROM_MESH = new Set(["llama3", "llama4", "transformers_modeling_backend"]);
const DDP_SILENT_FROM_MESH = new Set(["qwen3", "deepseek_v3", "gpt_oss", "vlm", "flux"]);

/**
 * Whether a model's DDP branch raises "DDP has not supported > 1D parallelism" when TP or PP sits beside DDP:
 *  - up to v0.2.0 every DDP branch tests `world_mesh.ndim > 1` (v0.2.0 llama3/infra/parallelize.py:139-141,
 *    llama4 :173-175, qwen3 :166-168, deepseek_v3 :166-168, experiments/vlm :103-105), so DDP + TP raises;
 *  - from the ParallelDims rewrite (183a0d2e7, 2025-12-17, so v0.2.1/v0.2.2) llama3, llama4 and
 *    transformers_modeling_backend test `world_size != dp_replicate` (v0.2.2 llama3 :148-151, llama4 :216-219,
 *    transformers_modeling_backend :115-118) and raise, while qwen3, deepseek_v3, gpt_oss and vlm test
 *    `dp_mesh.ndim > 1` on the 1-D dp_replicate mesh (v0.2.2 qwen3 :177-180, deepseek_v3 :197-200,
 *    gpt_oss :162-165, vlm :101-104) and never raise;
 *  - flux has no DDP branch at any release (v0.2.2 models/flux/infra/parallelize.py:25-60).
 * undefined: a model upstream does not have (a fork's, an experiment's): not known.
 */
export function ddpChecksWorld(model: string | undefined, date: string): boolean | undefined {
  const m = model ?? "llama3";
  if (m === "flux") return false;
  if (date >= MESH_UNFLATTEN_DATE) return DDP_RAISES_FROM_MESH.has(m) ? true : DDP_SILENT_FROM_MESH.has(m) ? false : undefined;
  return DDP_RAISES_UNTIL_MESH.has(m) ? true : undefined;
}

/**
 * The decide() options a model name gives (a TOML `model.name`, a Python registry's `model_registry` package):
 * llama4, deepseek_v3 and gpt_oss apply FSDP when EP > 1 even without dp_shard/cp (spec §1.4); their own
 * parallelize (not the experiments' variants) asks for the fsdp mesh by name (MESH_UNFLATTEN_DATE).
 */
export function modelDecideOptions(modelName: string | undefined, date: string): DecideOptions {
  return {
    fsdpOnEp: modelName !== undefined && /(^|\.)(llama4|deepseek_v3|gpt_oss)$/.test(modelName),
    epNeedsFsdpMesh: modelName !== undefined && /^(llama4|deepseek_v3|gpt_oss)$/.test(modelName),
    epNeedsTpMesh: modelName !== undefined && /^(llama4|qwen3)$/.test(modelName),
    date,
    ...(modelName !== undefined ? { model: modelName } : {}),
  };
}

export function fsdpEnabled(d: ParallelLayout): boolean {
  return d.dp_shard > 1 || d.cp > 1;
}

/**
 * torchtitan's DDP branch: replicate > 1 without FSDP (`fsdp`: the era's FSDP condition; from 2024-12-11
 * dp_shard > 1 or cp > 1). It raises when other dimensions sit beside it, on the models whose check sees them
 * (ddpChecksWorld); a model upstream does not have is assumed to check like llama3 (`modelAssumed`).
 */
function ddpBranch(d: ParallelLayout, worldSize: number, o: DecideOptions, latest: string, fsdp = fsdpEnabled(d)): { ddp: boolean; error?: string; modelAssumed?: boolean } {
  if (d.dp_replicate > 1 && !fsdp) {
    if (worldSize === d.dp_replicate) return { ddp: true };
    const raises = ddpChecksWorld(o.model, o.date ?? latest);
    if (raises === false) return { ddp: true };
    return { ddp: true, error: DDP_ERROR, ...(raises === undefined ? { modelAssumed: true } : {}) };
  }
  return { ddp: false };
}

function failed(error: string, errorCode?: MechanismDecision["errorCode"], modelAssumed?: boolean): MechanismDecision {
  return { mechanism: "error", reason: "launch fails before training starts", logs: [], error, ...(errorCode ? { errorCode } : {}), ddp: false, ...(modelAssumed ? { modelAssumed } : {}) };
}

/** torchtitan's ValueError text from `ParallelDims.get_mesh` for the list of mesh names MoE parallelize asks for. */
export function meshNotAvailable(d: ParallelLayout): string {
  const names = d.dp_replicate > 1 ? "['dp_replicate', 'fsdp']" : "['fsdp']";
  return `Mesh '${names}' is not available. Ensure the corresponding parallelism dimension is all enabled.`;
}

/**
 * MoE models (llama4, deepseek_v3, gpt_oss) enter their FSDP branch on `fsdp_enabled or ep_enabled`, before
 * the DDP branch. With EP > 1 but dp_shard * cp = 1 that branch has no real `fsdp` dimension: up to v0.2.0
 * it wrapped on the size-1 `dp_shard_cp` mesh (FSDP mixed precision still applies); from 2025-12-17 it
 * fails with ValueError (torchtitan v0.2.1 llama4/infra/parallelize.py:171-176, v0.2.2 :181-186,
 * deepseek_v3 v0.2.2 :162-167, gpt_oss v0.2.2 :125-130; qwen3 checks only `fsdp_enabled`, v0.2.2 :142).
 * Returns undefined when the layout is not this case.
 */
function moeEpWithoutFsdp(d: ParallelLayout, o: DecideOptions, latest: string): MechanismDecision | "size-1-fsdp" | undefined {
  const date = o.date ?? latest;
  if (!o.fsdpOnEp || d.ep <= 1 || fsdpEnabled(d) || date < EP_DATE) return undefined;
  if (date < MESH_UNFLATTEN_DATE) return "size-1-fsdp";
  if (!o.epNeedsFsdpMesh) return "size-1-fsdp";
  // Only a layout whose expert meshes can be built reaches parallelize; an efsdp that is not a positive
  // integer fails earlier in DeviceMesh unflatten, with another message (not modelled here).
  const efsdp = (d.dp_shard * d.cp * d.tp) / (d.etp * d.ep);
  if (!Number.isInteger(efsdp) || efsdp < 1) return undefined;
  return failed(meshNotAvailable(d), "ep-without-fsdp-mesh");
}

/**
 * The MoE branch of llama4's and qwen3's parallelize (`if tp_enabled or ep_enabled`) asks for the tp mesh by name
 * between MESH_UNFLATTEN_DATE and EP_TP_MESH_OPTIONAL_DATE, before the FSDP and DDP branches: with EP > 1 and TP = 1
 * the launch fails with TP_MESH_ERROR whatever the data-parallel degrees (v0.2.1 qwen3/infra/parallelize.py:102-105,
 * llama4/infra/parallelize.py:133-138). A fork's own parallelize (`forkEpTpMesh`) decides instead of the date.
 * Like moeEpWithoutFsdp, only a layout whose expert meshes can be built reaches parallelize.
 */
function epAsksTpMesh(d: ParallelLayout, o: DecideOptions, latest: string): MechanismDecision | undefined {
  const date = o.date ?? latest;
  if (d.ep <= 1 || d.tp > 1 || date < EP_DATE) return undefined;
  const asks = o.forkEpTpMesh ? o.forkEpTpMesh.asks : !!o.epNeedsTpMesh && date >= MESH_UNFLATTEN_DATE && date < EP_TP_MESH_OPTIONAL_DATE;
  if (!asks) return undefined;
  const efsdp = (d.dp_shard * d.cp * d.tp) / (d.etp * d.ep);
  if (!Number.isInteger(efsdp) || efsdp < 1) return undefined;
  return failed(TP_MESH_ERROR, "ep-needs-tp-mesh");
}

const SIZE1_REASON = "MoE model with expert parallelism: apply_fsdp wraps the model on a size-1 data-parallel mesh (dp_shard * cp = 1), which still installs the MixedPrecisionPolicy";

/** The shape shared by the three pre-AMP eras: FSDP MP under a condition, otherwise silent fp32. */
function fsdpOnlyEra(id: EraId, label: string, from: string, until: string, cond: (d: ParallelLayout, o: DecideOptions) => boolean, condText: string): Era {
  return {
    id,
    label,
    from,
    until,
    readsToml: true,
    decide(d, w, o) {
      // Between 2024-12-11 and 2024-12-26 the FSDP branch refused DDP + CP (DDP_CP_ERROR).
      const date = o.date ?? until;
      if (id === "fsdp-dp-shard-or-cp" && date >= DDP_CP_FROM && date < DDP_CP_UNTIL && d.dp_replicate > 1 && d.dp_shard <= 1 && d.cp > 1) {
        return failed(DDP_CP_ERROR, "ddp-with-other-parallelism");
      }
      // The era's own FSDP condition decides the DDP branch: before 2024-12-11 CP alone did not take the FSDP
      // branch, so DDP + CP fell into the DDP branch's `world_mesh.ndim > 1` check.
      const ddp = ddpBranch(d, w, o, until, id === "fsdp-dp-type" ? fsdpEnabled(d) : cond(d, o));
      if (ddp.error) return failed(ddp.error, "ddp-with-other-parallelism", ddp.modelAssumed);
      // No `(fsdpOnEp && ep > 1)` clause: expert parallelism appeared on 2025-07-08, after these eras.
      if (cond(d, o)) {
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
  mechanismLabel: "maybe_enable_amp",
  periods: [
    { from: "2025-06-16", first: "v0.1.0", last: "main 2025-07-07" },
    { from: EP_DATE, first: "main 2025-07-08", last: "v0.2.0" },
    { from: MESH_UNFLATTEN_DATE, first: "v0.2.1", last: "main 2025-12-28" },
    { from: EP_TP_MESH_OPTIONAL_DATE, first: "main 2025-12-29", last: "v0.2.2" },
  ],
  decide(d, w, o) {
    const tpMesh = epAsksTpMesh(d, o, "2026-02-23");
    if (tpMesh) return tpMesh;
    const moe = moeEpWithoutFsdp(d, o, "2026-02-23");
    if (moe === "size-1-fsdp") {
      // maybe_enable_amp still sees fsdp_enabled = False (v0.2.0 torchtitan/distributed/utils.py:218-228), so it logs
      // the TP/PP warning although the FSDP policy was installed.
      const logs: LogLine[] = d.tp > 1 || d.pp > 1 ? [{ level: "warning", text: WARN_TP_PP }, { level: "info", text: INFO_DISABLED }] : [{ level: "info", text: INFO_AMP }];
      return { mechanism: "fully_shard", reason: SIZE1_REASON, logs, ddp: false };
    }
    if (moe) return moe;
    const ddp = ddpBranch(d, w, o, "2026-02-23");
    if (ddp.error) return failed(ddp.error, "ddp-with-other-parallelism", ddp.modelAssumed);
    if (fsdpEnabled(d)) {
      return { mechanism: "fully_shard", reason: "FSDP/HSDP/CP is enabled (dp_shard > 1 or cp > 1)", logs: [{ level: "info", text: INFO_FSDP }], ddp: false };
    }
    if (d.tp > 1 || d.pp > 1) {
      // DDP beside TP/PP on a model whose DDP check does not see them (qwen3, deepseek_v3, gpt_oss at v0.2.1+):
      // replicate is applied, and maybe_enable_amp still returns a null context (what replicate then does over
      // the TP parameters is unverified; spec torchtitan.md §1.4).
      return {
        mechanism: "none",
        reason: ddp.ddp ? "DDP beside TP or PP without FSDP: maybe_enable_amp returns a null context" : "TP or PP without FSDP: maybe_enable_amp returns a null context",
        logs: [{ level: "warning", text: WARN_TP_PP }, { level: "info", text: INFO_DISABLED }],
        ddp: ddp.ddp,
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
    // The PR changes only maybe_enable_amp; parallelize is v0.2.2's, so the MoE mesh error stays.
    const tpMesh = epAsksTpMesh(d, { ...o, date: "2026-01-08" }, "2026-01-08");
    if (tpMesh) return tpMesh;
    const moe = moeEpWithoutFsdp(d, { ...o, date: "2026-01-08" }, "2026-01-08");
    if (moe === "size-1-fsdp") return { mechanism: "fully_shard", reason: SIZE1_REASON, logs: [{ level: "info", text: INFO_AMP }], ddp: false };
    if (moe) return moe;
    const ddp = ddpBranch(d, w, o, "2026-01-08");
    if (ddp.error) return failed(ddp.error, "ddp-with-other-parallelism", ddp.modelAssumed);
    if (fsdpEnabled(d)) {
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
  decide(d, _w, o) {
    // llama4/deepseek_v3 parallelize still asks for the fsdp mesh under `fsdp_enabled or ep_enabled`
    // (e1847f439 llama4/parallelize.py:204-209), and _mesh_exist("fsdp") is still `degree > 1`.
    const moe = moeEpWithoutFsdp(d, { ...o, date: "2026-03-09" }, "2026-03-09");
    if (moe && moe !== "size-1-fsdp") return moe;
    if (fsdpEnabled(d) || d.dp_replicate > 1 || moe === "size-1-fsdp") {
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
