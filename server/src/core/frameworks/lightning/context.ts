/**
 * Everything a Lightning rule reads, computed once per document version: where the Trainer arguments are,
 * the strategy, the precision as Lightning reads it, the devices, the linked DeepSpeed config, the world size.
 */
import type { AnalysisEnv, AnalysisSettings, Sourced } from "../../analysis";
import type { ConfigDocument, ConfigEntry } from "../../model/document";
import type { Range } from "../../model/types";
import { type LinkedDs, loadDs } from "../deepspeed/linked";
import { settingWorldSize } from "../common/resolvedLayout";
import { View } from "../common/view";
import { CANONICAL, LEGACY } from "./data";
import { locate, type Where } from "./detect";
import { devicesOf, litgptStrategy, strategyOf, type Strategy } from "./strategy";
import { lightningVersion, type LightningVersion } from "./version";

export interface LightningContext {
  doc: ConfigDocument;
  settings: AnalysisSettings;
  env: AnalysisEnv;
  where: Where;
  /** View of the Trainer arguments. */
  t: View;
  /** The `precision` entry. */
  pe: ConfigEntry | undefined;
  pRange: Range | undefined;
  st: Strategy;
  lv: LightningVersion;
  accelerator: string | undefined;
  /** The canonical precision Lightning runs (legacy aliases mapped; `32-true` when unset or invalid). */
  precision: string;
  /**
   * The precision the run gets: `precision`, except `16-mixed` on `accelerator: cpu`, which Lightning
   * switches to bf16-mixed (CPU autocast has no fp16; lightning/fabric/connector.py
   * `_check_and_init_precision`, "You passed `Trainer(accelerator='cpu', precision='16-mixed')` but AMP
   * with fp16 is not supported on CPU. Using `precision='bf16-mixed'` instead."; issue #17 §5).
   */
  runs: string;
  /** False when Lightning rejects the `precision` value (unknown-precision). */
  valid: boolean;
  /** A TransformerEngine precision. */
  te: boolean;
  devices: number | undefined;
  nodes: number;
  /** The DeepSpeed strategy's `config` path, and the file when found. */
  cfgRel: string | undefined;
  ds: LinkedDs | undefined;
  worldSize: Sourced<number> | undefined;
}

export function lightningContext(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): LightningContext {
  const where = locate(doc) ?? { root: [], reason: "" };
  const t = new View(doc, where.root);
  const pe = t.entry("precision");
  const st = where.litgpt ? litgptStrategy(t) : strategyOf(t);
  const lv = lightningVersion(env);
  const accelerator = t.str("accelerator");

  // Precision value (unknown-precision when invalid, legacy-precision-alias for a warned legacy alias).
  let precision = "32-true";
  let valid = true;
  if (pe && pe.value.kind !== "null") {
    const raw = String(pe.value.value);
    if (CANONICAL.includes(raw)) precision = raw;
    else if (raw in LEGACY) precision = LEGACY[raw]!;
    else valid = false;
  }
  const pRange = pe?.value.range;
  const te = precision.startsWith("transformer-engine");
  const devices = devicesOf(t);
  const nodes = t.int("num_nodes") ?? 1;

  const cfgRel = st.family === "deepspeed" ? st.args?.str("config") : undefined;
  const ds = cfgRel ? loadDs(env, cfgRel) : undefined;

  let worldSize: Sourced<number> | undefined = settingWorldSize(settings.worldSize);
  if (!worldSize && devices !== undefined) worldSize = { value: devices * nodes, source: "devices", kind: "file", detail: `\`devices\` (${devices})${nodes > 1 ? ` × \`num_nodes\` (${nodes})` : ""}` };
  const runs = precision === "16-mixed" && accelerator === "cpu" ? "bf16-mixed" : precision;
  return { doc, settings, env, where, t, pe, pRange, st, lv, accelerator, precision, runs, valid, te, devices, nodes, cfgRel, ds, worldSize };
}
