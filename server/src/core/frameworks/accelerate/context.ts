/**
 * Everything an accelerate rule reads, computed once per document version: `distributed_type` and
 * `mixed_precision` as accelerate reads them, the FSDP version, `parallelism_config`, the linked DeepSpeed
 * file and the world size.
 */
import type { FactValue } from "../../provenance";
import { packagePin, versionAtLeast } from "../../workspace/packagePin";
import type { AnalysisEnv, AnalysisSettings, Sourced } from "../../analysis";
import type { ConfigDocument, ConfigEntry } from "../../model/document";
import { settingWorldSize } from "../common/resolvedLayout";
import { View } from "../common/view";
import { loadDs, type LinkedDs } from "../deepspeed/linked";
import { MIXED, PAR_OTHER, PAR_SIZES } from "./data";

export interface Par {
  sizes: Record<string, number>;
  explicit: boolean;
}

export interface AccelerateContext {
  doc: ConfigDocument;
  settings: AnalysisSettings;
  env: AnalysisEnv;
  v: View;
  distEntry: ConfigEntry | undefined;
  mixedEntry: ConfigEntry | undefined;
  /** `distributed_type`, upper-cased (`NO` for a YAML 1.1 false). */
  distType?: string;
  /** `mixed_precision` when accelerate accepts it (`no` for a YAML 1.1 false). */
  mixed?: string;
  /** True when mixed_precision will not load (bare-no-boolean, unknown-mixed-precision); a boolean distributed_type loads and runs one process. */
  broken: boolean;
  fsdpVersion: number;
  /** The sizes `parallelism_config` sets with the `parallelism_config_` prefix (others stay 1). */
  par: Par;
  worldSize: Sourced<number> | undefined;
  /** With `distributed_type: DEEPSPEED`: `deepspeed_config.deepspeed_config_file`, and the file when found. */
  dsFileEntry: ConfigEntry | undefined;
  dsRel: string | undefined;
  ds: LinkedDs | undefined;
  /** The accelerate version pinned in the workspace (requirements, setup.py, …), as a fact; inferred (the newest read) without a pin. */
  version: FactValue;
  /** `mixed_precision: false` (YAML 1.1 `no`/`off`) that the pinned accelerate converts to "no" (before 0.34.0). */
  falseIsNo: boolean;
}

/**
 * accelerate before 0.34.0 turns a boolean False `mixed_precision` into "no" when it loads a YAML config
 * (commands/config/config_args.py `from_yaml_file`, the `isinstance(..., bool)` branch, present at v0.26.0–v0.33.0);
 * 0.34.0 moved the defaults into `process_config` without it (config_args.py:113@v0.34.0), so the bool reaches
 * `args.mixed_precision.lower()` (utils/launch.py:150@v0.34.0, :169@v1.14.0) and the launch crashes.
 */
export const ACCELERATE_BOOL_MIXED_CRASH_SINCE = "0.34.0";
export const ACCELERATE_NEWEST = "1.14.0";

export function accelerateContext(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): AccelerateContext {
  const v = new View(doc);
  const distEntry = v.entry("distributed_type");
  const mixedEntry = v.entry("mixed_precision");
  let broken = false;
  let distType: string | undefined;
  let mixed: string | undefined;
  // A boolean mixed_precision crashes the launcher (`.lower()` on a bool). A boolean distributed_type does
  // not: config_args.py L169-173 (accelerate 16cb6eb) converts only a str to DistributedType, and launch.py
  // L1222-1240 compares it with each multi-process type, so a bool launches one process (issue #17 §5).
  const pin = packagePin(env, "accelerate");
  const version: FactValue = pin ? { value: `accelerate ${pin.version}`, kind: "workspace-pin", detail: pin.where } : { value: `accelerate ${ACCELERATE_NEWEST}`, kind: "inferred", detail: "unpinned, newest read" };
  const falseIsNo = !!pin && !versionAtLeast(pin.version, ACCELERATE_BOOL_MIXED_CRASH_SINCE) && mixedEntry?.value.kind === "boolean" && mixedEntry.value.value === false;
  if (mixedEntry && mixedEntry.value.kind === "boolean" && !falseIsNo) broken = true;
  if (distEntry && distEntry.value.kind === "string") distType = (distEntry.value.value as string).toUpperCase();
  else if (distEntry?.value.kind === "boolean") distType = "NO";
  if (mixedEntry && mixedEntry.value.kind === "string") {
    const m = (mixedEntry.value.value as string).toLowerCase();
    if (MIXED.includes(m)) mixed = m;
    else broken = true;
  } else if (mixedEntry && mixedEntry.value.kind === "null") mixed = undefined;
  else if (mixedEntry?.value.kind === "boolean" && mixedEntry.value.value === false) mixed = "no";

  let dsFileEntry: ConfigEntry | undefined;
  let dsRel: string | undefined;
  let ds: LinkedDs | undefined;
  if (distType === "DEEPSPEED") {
    dsFileEntry = v.entry("deepspeed_config", "deepspeed_config_file");
    dsRel = v.str("deepspeed_config", "deepspeed_config_file");
    if (dsFileEntry && dsRel) ds = loadDs(env, dsRel);
  }
  const out: AccelerateContext = { doc, settings, env, v, distEntry, mixedEntry, broken, fsdpVersion: fsdpVersionOf(v), par: parallelismSizes(v), worldSize: worldSizeOf(v, settings), dsFileEntry, dsRel, ds, version, falseIsNo };
  if (distType !== undefined) out.distType = distType;
  if (mixed !== undefined) out.mixed = mixed;
  return out;
}

function fsdpVersionOf(v: View): number {
  const s = v.scalar("fsdp_config", "fsdp_version");
  const n = typeof s === "string" ? Number(s) : typeof s === "number" ? s : 1;
  return n === 2 ? 2 : 1;
}

function worldSizeOf(v: View, settings: AnalysisSettings): Sourced<number> | undefined {
  const s = settingWorldSize(settings.worldSize);
  if (s) return s;
  const n = v.int("num_processes");
  if (n && n > 0) return { value: n, source: "num_processes", kind: "file", detail: "`num_processes` (total across machines)" };
  if (v.str("distributed_type")?.toUpperCase() === "NO" || v.entry("distributed_type")?.value.value === false) return { value: 1, source: "distributed_type", kind: "inferred", detail: "`distributed_type: NO` (one process)" };
  return undefined;
}

/** The sizes of `parallelism_config` (keys without the `parallelism_config_` prefix are ignored: parallelism-key-without-prefix). */
function parallelismSizes(v: View): Par {
  const p = v.at("parallelism_config");
  const sizes: Record<string, number> = { dp_replicate_size: 1, dp_shard_size: 1, tp_size: 1, cp_size: 1, sp_size: 1 };
  let explicit = false;
  for (const k of p.childKeys()) {
    const bare = k.replace(/^parallelism_config_/, "");
    if (k === bare && (PAR_SIZES.includes(k) || PAR_OTHER.includes(k))) continue;
    if (PAR_SIZES.includes(bare)) {
      const n = p.int(k);
      if (n !== undefined) {
        sizes[bare] = n;
        explicit = true;
      }
    }
  }
  return { sizes, explicit };
}
