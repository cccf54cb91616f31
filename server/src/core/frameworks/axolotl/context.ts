/**
 * Everything an Axolotl rule reads, computed once per document version: the precision flags, the FSDP
 * version, the adapter, the linked (or inline, or bundled) DeepSpeed config, the world size.
 */
import type { AnalysisEnv, AnalysisSettings, Sourced } from "../../analysis";
import type { ConfigDocument, ConfigEntry } from "../../model/document";
import { parseJsonDocument } from "../../parse/json";
import { dsFacts } from "../deepspeed/facts";
import type { LinkedDs } from "../deepspeed/linked";
import { deepspeedLink } from "../common/deepspeedLinks";
import { settingWorldSize } from "../common/resolvedLayout";
import { View } from "../common/view";
import { AXOLOTL_BUNDLED_VERSION, axolotlBundledDs } from "./dsConfigs";
import { packagePin } from "../../workspace/packagePin";

export interface AxolotlContext {
  /**
   * The Axolotl release that reads the file: the workspace's pin, else the newest release whose behaviour is
   * modelled (AXOLOTL_BUNDLED_VERSION), an assumption. `pinned`: the pin's version number.
   */
  version: Sourced<string>;
  pinned?: string;
  doc: ConfigDocument;
  settings: AnalysisSettings;
  env: AnalysisEnv;
  v: View;
  bf16E: ConfigEntry | undefined;
  fp16E: ConfigEntry | undefined;
  adapter: string | undefined;
  fullFT: boolean;
  fsdpList: ConfigEntry | undefined;
  hasFsdpConfig: boolean;
  fsdpVersion: number | undefined;
  fsdpOn: boolean;
  fsdp2: boolean;
  dsRel: string | undefined;
  /** `deepspeed:` holds the DeepSpeed config itself as a mapping (schema: path or dict). */
  dsInline: boolean;
  dsOn: boolean;
  /** bf16 value: auto (default), true, false; "full" is documented but rejected by the schema. */
  bf16: "auto" | boolean | "invalid";
  fp16: boolean;
  /** The DeepSpeed config in effect: inline, read from the linked file, or stood in for a missing one. */
  ds: LinkedDs | undefined;
  /** How `ds` was found. */
  dsSource: "inline" | "file" | "missing" | undefined;
  worldSize: Sourced<number> | undefined;
  sizes: { dp_shard: number | undefined; dp_replicate: number | undefined; tp: number | undefined; cp: number | undefined };
}

export function axolotlContext(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): AxolotlContext {
  const v = new View(doc);
  const bf16E = v.entry("bf16");
  const fp16E = v.entry("fp16");
  const adapter = v.str("adapter");
  const fullFT = !adapter;
  const fsdpList = v.entry("fsdp");
  const hasFsdpConfig = v.isSection("fsdp_config") || (v.entry("fsdp_config") !== undefined && v.entry("fsdp_config")!.value.kind !== "null");
  const versionRaw = v.scalar("fsdp_version") ?? v.scalar("fsdp_config", "fsdp_version") ?? v.scalar("fsdp_config", "version");
  const fsdpVersion = versionRaw !== undefined ? Number(versionRaw) : undefined;
  const fsdpOn = (fsdpList !== undefined && fsdpList.value.kind !== "null") || hasFsdpConfig || fsdpVersion !== undefined;
  const fsdp2 = fsdpOn && fsdpVersion === 2;
  const dsRel = v.str("deepspeed");
  const dsInline = v.isSection("deepspeed");
  const dsOn = !!dsRel || dsInline;

  let bf16: "auto" | boolean | "invalid" = "auto";
  if (bf16E) {
    if (bf16E.value.kind === "boolean") bf16 = bf16E.value.value as boolean;
    else if (bf16E.value.kind === "string" && bf16E.value.value === "auto") bf16 = "auto";
    else if (bf16E.value.kind === "null") bf16 = "auto";
    else bf16 = "invalid";
  }
  const fp16 = v.bool("fp16") === true;
  // `fp16: true` skips the bf16 detection and turns `bf16: auto` (the default) off: the run is fp16
  // (axolotl src/axolotl/utils/config/__init__.py resolve_dtype, "if cfg.fp16 and cfg.bf16 == 'auto':
  // cfg.bf16 = False", at 00ce888; spec other-frameworks.md, 2026-12 review; issue #17 §5).
  if (fp16 && bf16 === "auto") bf16 = false;

  // The DeepSpeed link: inline, the file named, or (not on disk) the bundled table / an unknown stand-in; a templated path is no link.
  const { ds, dsSource } = deepspeedLink(v, doc, env, { missing: missingDs, isPath: (rel) => !rel.includes("${") && !/^\{/.test(rel) });

  let worldSize: Sourced<number> | undefined = settingWorldSize(settings.worldSize);
  const sizes = { dp_shard: v.int("dp_shard_size"), dp_replicate: v.int("dp_replicate_size"), tp: v.int("tensor_parallel_size"), cp: v.int("context_parallel_size") ?? v.int("sequence_parallel_degree") };
  const anySize = Object.values(sizes).some((x) => x !== undefined);
  if (!worldSize && anySize && sizes.dp_shard !== undefined && sizes.dp_shard > 0) {
    const w = (sizes.dp_shard ?? 1) * (sizes.dp_replicate ?? 1) * (sizes.tp ?? 1) * (sizes.cp ?? 1);
    worldSize = { value: w, source: "parallel-sizes", kind: "inferred", detail: "the product of dp_shard_size × dp_replicate_size × tensor_parallel_size × context_parallel_size" };
  }
  const pin = packagePin(env, "axolotl");
  const version: Sourced<string> = pin
    ? { value: `axolotl ${pin.version}`, source: "pin", kind: "workspace-pin", detail: pin.where }
    : { value: `axolotl ${AXOLOTL_BUNDLED_VERSION}`, source: "assumed", kind: "inferred", detail: `no axolotl pin found in the workspace; assuming the newest release read (${AXOLOTL_BUNDLED_VERSION})` };
  return { version, ...(pin ? { pinned: pin.version } : {}), doc, settings, env, v, bf16E, fp16E, adapter, fullFT, fsdpList, hasFsdpConfig, fsdpVersion, fsdpOn, fsdp2, dsRel, dsInline, dsOn, bf16, fp16, ds, dsSource, worldSize, sizes };
}

/**
 * A `deepspeed:` file that is not on disk still means DeepSpeed: the HF Trainer hands the path to DeepSpeed,
 * which keeps fp32 master weights in its ZeRO optimizer whatever the file says about fp16/bf16. A known
 * Axolotl bundled name is read from the table in dsConfigs.ts; any other file is taken as
 * `"auto"` precision with an unknown stage.
 */
function missingDs(rel: string): LinkedDs {
  const bundled = axolotlBundledDs(rel);
  const doc = bundled?.doc ?? parseJsonDocument("axolotl-missing:deepspeed.json", '{"zero_optimization": {"stage": "auto"}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}');
  const view = new View(doc);
  return { path: bundled ? `deepspeed_configs/${bundled.name}` : rel, doc, view, facts: dsFacts(view), missing: bundled ? "bundled" : "unknown" };
}
