/**
 * torchtitan's ParallelDims validation, reproduced check by check in torchtitan's own order
 * (spec torchtitan.md §3.2, v0.2.2; the EP divisibility asserts of v0.2.0 behind the date they existed).
 * Messages quote torchtitan's assertion texts so users can match them with launch logs.
 */
import type { ParallelLayout } from "../../analysis";
import { fitMessage } from "../../diagnostics/build";
import { MAX_DEGREE, MAX_WORLD_SIZE } from "../../model/limits";
import type { ConfigDocument, ConfigEntry } from "../../model/document";
import { findEntry, stringValue } from "../../model/document";
import { keyWindow } from "./schema";
import { table } from "../../model/table";

export type DimField = keyof ParallelLayout;

/** Config keys of each ParallelDims field (Trainer.init_distributed mapping), v0.1.0 … v0.2.2. */
export const DIM_KEYS: Readonly<Record<DimField, readonly [string, string]>> = table({
  dp_replicate: ["parallelism", "data_parallel_replicate_degree"],
  dp_shard: ["parallelism", "data_parallel_shard_degree"],
  cp: ["parallelism", "context_parallel_degree"],
  tp: ["parallelism", "tensor_parallel_degree"],
  pp: ["parallelism", "pipeline_parallel_degree"],
  ep: ["parallelism", "expert_parallel_degree"],
  etp: ["parallelism", "expert_tensor_parallel_degree"],
});

/**
 * Before `[parallelism]` existed (main before 2025-03-18) the degrees lived in `[training]` and
 * `[experimental]` (spec §0 and §4.3). Used only when the document has no `[parallelism]` table.
 */
export const LEGACY_DIM_KEYS: Readonly<Partial<Record<DimField, readonly [string, string]>>> = table({
  dp_replicate: ["training", "data_parallel_replicate_degree"],
  dp_shard: ["training", "data_parallel_shard_degree"],
  tp: ["training", "tensor_parallel_degree"],
  pp: ["experimental", "pipeline_parallel_degree"],
  cp: ["experimental", "context_parallel_degree"],
});

export const DIM_DEFAULTS: ParallelLayout = { dp_replicate: 1, dp_shard: -1, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1 };

export const DIM_FIELDS: readonly DimField[] = ["dp_replicate", "dp_shard", "cp", "tp", "pp", "ep", "etp"];

export interface DimsError {
  /** Stable sub-code: the diagnostic code is `parallel-dims-${kind}`. */
  kind: "degree" | "limit" | "type" | "dp-shard" | "resolved" | "product" | "etp" | "ep-divisibility";
  message: string;
  /** The long explanation, when the message is the short form of it. */
  detail?: string;
  /** The fields the error is about, most relevant first (the diagnostic goes on the first written one). */
  fields: DimField[];
  /**
   * The layout fails at every world size, not only at this one: an expert-parallel check whose operands do not
   * involve the world size (dp_shard written, or `ep % cp` / `ep % (cp*tp)`), and at any other world size
   * the degrees' product check fails instead. Such an error rests on no world size.
   */
  everyWorldSize?: boolean;
}

export interface DimsResolution {
  /** Degrees as configured (defaults filled in), before `-1` resolution. */
  configured: ParallelLayout;
  /** The config entry of each field, when written. */
  entries: Partial<Record<DimField, ConfigEntry>>;
  /** Resolved layout; undefined when validation failed. */
  resolved?: ParallelLayout;
  /** True when dp_shard was -1 and got resolved from the world size. */
  dpShardInferred: boolean;
  /** See DimsRead.legacyTables. */
  legacyTables: boolean;
  errors: DimsError[];
}

/** The degrees as written, before validation. Read once per document version. */
export interface DimsRead {
  configured: ParallelLayout;
  entries: Partial<Record<DimField, ConfigEntry>>;
  typeErrors: DimsError[];
  /** True when the file has no `[parallelism]` table and the degrees live in the pre-2025-03-18 tables. */
  legacyTables: boolean;
}

/**
 * True when the key is an upstream key outside the span of dates it existed (keyWindow): the targeted
 * release does not read it. v0.1.0's ConfigManager drops unknown keys below the top level silently
 * (config_manager.py:805-818 `_dict_to_dataclass` keeps only the dataclass's fields), so a
 * `[training] tensor_parallel_degree` or `[parallelism] expert_parallel_degree` there leaves the degree at
 * its default; later releases reject the key (reported by the schema rules). Found by the oracle
 * (docs/oracle.md): ParallelDims at v0.1.0 got tp 1 where the layout had read tp 8.
 */
function notReadAt(path: string, date: string | undefined): boolean {
  if (date === undefined) return false;
  const w = keyWindow(path);
  return w !== undefined && ((w.from !== undefined && date < w.from) || (w.until !== undefined && date >= w.until));
}

/** `date`: the targeted torchtitan date; degrees under keys that release does not read keep their default. */
export function readDims(doc: ConfigDocument, date?: string): DimsRead {
  const hasParallelism = doc.sections.some((s) => s.path[0] === "parallelism") || doc.entries.some((e) => e.path[0] === "parallelism");
  const configured: ParallelLayout = { ...DIM_DEFAULTS };
  const entries: Partial<Record<DimField, ConfigEntry>> = {};
  const typeErrors: DimsError[] = [];
  for (const f of DIM_FIELDS) {
    const key = hasParallelism ? DIM_KEYS[f] : (LEGACY_DIM_KEYS[f] ?? DIM_KEYS[f]);
    const e = findEntry(doc, ...key);
    if (!e || notReadAt(key.join("."), date)) continue;
    entries[f] = e;
    if (e.value.kind === "integer" && Math.abs(e.value.value as number) > MAX_DEGREE) {
      typeErrors.push({ kind: "limit", fields: [f], message: fitMessage(`${key.join(".")} = ${e.value.raw ?? String(e.value.value)} is above 2^20, the largest degree analysed: layout not resolved`), detail: `${key.join(".")} = ${e.value.raw ?? String(e.value.value)} is above ${MAX_DEGREE} (2^20), the largest degree Precision Lens analyses; the layout is not resolved.` });
    } else if (e.value.kind === "integer") configured[f] = e.value.value as number;
    else typeErrors.push({ kind: "type", fields: [f], message: `${key.join(".")} must be an integer, got ${e.value.raw ?? String(e.value.value)}; torchtitan would fail on it at launch.` });
  }
  if (!hasParallelism) readPreHsdp(doc, configured, entries, typeErrors);
  const product = configured.dp_replicate * Math.max(1, configured.dp_shard) * configured.cp * configured.tp * configured.pp;
  if (!typeErrors.length && product > MAX_WORLD_SIZE) {
    const big = (["tp", "pp", "cp", "dp_replicate", "dp_shard"] as const).filter((f) => entries[f] && configured[f] > 1).sort((a, b) => configured[b] - configured[a]);
    typeErrors.push({ kind: "limit", fields: big.length ? big : ["tp"], message: `The parallel degrees multiply to ${product} GPUs, above 2^20 (the largest analysed): layout not resolved`, detail: `the parallel degrees multiply to ${product} GPUs, above ${MAX_WORLD_SIZE} (2^20), the largest world size Precision Lens analyses; the layout is not resolved.` });
  }
  return { configured, entries, typeErrors, legacyTables: !hasParallelism };
}

/**
 * Before HSDP (main before 2024-09-10) one `training.data_parallel_degree` was either the FSDP degree or,
 * with `training.data_parallel_type = "ddp"`, the DDP degree (spec §0, §4.3). A `-1` absorbed
 * W // (tp * pp) like the shard degree later did, so it maps onto dp_shard first; `resolveDims` moves a
 * resolved DDP degree to dp_replicate.
 */
function readPreHsdp(doc: ConfigDocument, configured: ParallelLayout, entries: Partial<Record<DimField, ConfigEntry>>, typeErrors: DimsError[]): void {
  const e = findEntry(doc, "training", "data_parallel_degree");
  if (!e || entries.dp_shard || entries.dp_replicate) return;
  if (e.value.kind === "integer" && Math.abs(e.value.value as number) > MAX_DEGREE) {
    typeErrors.push({ kind: "limit", fields: ["dp_shard"], message: fitMessage(`training.data_parallel_degree = ${e.value.raw ?? String(e.value.value)} is above 2^20, the largest degree analysed: layout not resolved`), detail: `training.data_parallel_degree = ${e.value.raw ?? String(e.value.value)} is above ${MAX_DEGREE} (2^20), the largest degree Precision Lens analyses; the layout is not resolved.` });
    return;
  }
  if (e.value.kind !== "integer") {
    typeErrors.push({ kind: "type", fields: ["dp_shard"], message: `training.data_parallel_degree must be an integer, got ${e.value.raw ?? String(e.value.value)}; torchtitan would fail on it at launch.` });
    return;
  }
  const ddp = stringValue(findEntry(doc, "training", "data_parallel_type")) === "ddp";
  if (ddp && (e.value.value as number) >= 1) {
    configured.dp_replicate = e.value.value as number;
    configured.dp_shard = 1;
    entries.dp_replicate = e;
  } else {
    configured.dp_shard = e.value.value as number;
    entries.dp_shard = e;
    if (ddp) preHsdpDdpAbsorbs.add(e);
  }
}

/** Pre-HSDP `data_parallel_degree = -1` entries whose resolved value is a DDP (replicate) degree. */
const preHsdpDdpAbsorbs = new WeakSet<ConfigEntry>();

/**
 * Validates and resolves like ParallelDims._validate. `epDivisibility` turns on the EP asserts that
 * existed between 2025-07-08 and 2025-12-17 (v0.2.0); `epMesh` the expert-mesh factoring from 2025-12-17 on.
 */
export function resolveDims(read: DimsRead, worldSize: number, opts: { epDivisibility?: boolean; epMesh?: boolean } = {}): DimsResolution {
  const { configured, entries, typeErrors, legacyTables } = read;
  const res: DimsResolution = { configured, entries, legacyTables, dpShardInferred: false, errors: [...typeErrors] };
  if (typeErrors.length) return res;
  const { dp_replicate: R, cp: C, tp: T, pp: P, ep: E, etp: ETP } = configured;
  let S = configured.dp_shard;

  const below = (["dp_replicate", "cp", "tp", "pp", "ep", "etp"] as const).filter((f) => configured[f] < 1);
  if (below.length) {
    for (const f of below) res.errors.push({ kind: "degree", fields: [f], message: `Parallelism degree should be >= 1, except for dp_shard (${DIM_KEYS[f][1]} = ${configured[f]}).` });
    return res;
  }
  if (!(S === -1 || S >= 1)) {
    res.errors.push({ kind: "dp-shard", fields: ["dp_shard"], message: `dp_shard must -1 or >=1. (data_parallel_shard_degree = ${S})` });
    return res;
  }
  if (S < 0) {
    S = Math.floor(worldSize / (R * C * T * P));
    res.dpShardInferred = true;
    if (S < 1) {
      const big = (["tp", "pp", "cp", "dp_replicate"] as const).filter((f) => configured[f] > 1).sort((a, b) => configured[b] - configured[a]);
      res.errors.push({
        kind: "resolved",
        fields: [...big, "dp_shard"],
        message: `data_parallel_shard_degree = -1 resolves to ${worldSize} // (${R}*${C}*${T}*${P}) = ${S} on ${worldSize} GPUs, and torchtitan's bare \`assert dp_shard >= 1\` fails at launch: the other degrees need ${R * C * T * P} GPUs.`,
      });
      return res;
    }
  }
  if (R * S * C * T * P !== worldSize) {
    // With -1 the shard degree was computed, so the written degree that does not fit is the culprit.
    const written = (["dp_shard", "tp", "pp", "cp", "dp_replicate"] as const).filter((f) => entries[f] && configured[f] !== 1 && configured[f] !== -1);
    res.errors.push({
      kind: "product",
      fields: written.length ? written : ["dp_shard"],
      message: `Invalid parallel dims: dp_replicate(${R}) * dp_shard(${S}) * cp(${C}) * tp(${T}) * pp(${P}) != WORLD_SIZE(${worldSize})`,
    });
    return res;
  }
  if (E > 1 && !(ETP === T || ETP === 1)) {
    res.errors.push({ kind: "etp", fields: ["etp", "ep"], message: `Currently we only support ETP=TP or ETP=1 (expert_tensor_parallel_degree = ${ETP}, tensor_parallel_degree = ${T}).` });
    return res;
  }
  if (opts.epDivisibility && E > 1) {
    const ok = ETP === T ? E % C === 0 && (S * C) % E === 0 : E % (C * T) === 0 && (S * C * T) % E === 0;
    if (!ok) {
      const rule = ETP === T ? `ep % cp == 0 and (dp_shard*cp) % ep == 0` : `ep % (cp*tp) == 0 and (dp_shard*cp*tp) % ep == 0`;
      const fixedPart = ETP === T ? E % C === 0 : E % (C * T) === 0;
      res.errors.push({ kind: "ep-divisibility", fields: ["ep"], message: `expert_parallel_degree = ${E} fails torchtitan's assertion ${rule} (dp_shard=${S}, cp=${C}, tp=${T}); the launch stops with a bare AssertionError.`, ...(!fixedPart || !res.dpShardInferred ? { everyWorldSize: true } : {}) });
      return res;
    }
  }
  // From 2025-12-17 (183a0d2e7, so v0.2.1/v0.2.2) the expert mesh unflattens the world into
  // pp × dp_replicate × efsdp × ep × etp with efsdp = dp_shard·cp·tp // (etp·ep) (v0.2.2
  // distributed/parallel_dims.py:136-158): when etp·ep does not divide dp_shard·cp·tp the product is not the world
  // size and DeviceMesh._unflatten raises ValueError at launch (EP 3 on 8 GPUs; EP 12 beside DDP).
  if (opts.epMesh && E > 1 && (S * C * T) % (ETP * E) !== 0) {
    res.errors.push({
      kind: "ep-divisibility",
      fields: ["ep"],
      message: `expert_parallel_degree = ${E}${ETP > 1 ? ` × expert_tensor_parallel_degree = ${ETP}` : ""} does not divide dp_shard·cp·tp = ${S * C * T} (dp_shard=${S}, cp=${C}, tp=${T}): the expert mesh pp × dp_replicate × efsdp × ep × etp is not the world, and DeviceMesh._unflatten raises ValueError at launch.`,
      ...(!res.dpShardInferred ? { everyWorldSize: true } : {}),
    });
    return res;
  }
  res.resolved = { dp_replicate: R, dp_shard: S, cp: C, tp: T, pp: P, ep: E, etp: ETP };
  if (entries.dp_shard && preHsdpDdpAbsorbs.has(entries.dp_shard)) res.resolved = { ...res.resolved, dp_replicate: S, dp_shard: 1 };
  return res;
}

/** Short human name of a resolved layout: "single GPU", "DDP", "FSDP", "HSDP", "CP-only", "TP-only", "FSDP+TP", ... */
export function layoutName(d: ParallelLayout): string {
  const parts: string[] = [];
  const fsdp = d.dp_shard > 1;
  if (d.dp_replicate > 1 && fsdp) parts.push("HSDP");
  else if (fsdp) parts.push("FSDP");
  else if (d.dp_replicate > 1) parts.push("DDP");
  if (d.cp > 1) parts.push("CP");
  if (d.tp > 1) parts.push("TP");
  if (d.pp > 1) parts.push("PP");
  if (d.ep > 1) parts.push("EP");
  if (parts.length === 0) return "single GPU";
  if (parts.length === 1 && !["FSDP", "HSDP", "DDP"].includes(parts[0]!)) return `${parts[0]}-only`;
  return parts.join("+");
}
