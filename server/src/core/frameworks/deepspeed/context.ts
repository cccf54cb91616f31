/**
 * Everything a DeepSpeed rule reads, computed once per document version: the facts of the file, the YAML
 * configs nearby that use it (and the mode they request), the launcher script that runs it standalone,
 * and the world size.
 */
import type { AnalysisEnv, AnalysisSettings, Sourced } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { referrersOf, standaloneLauncher, type DsMode, type Referrer } from "../common/deepspeedLinks";
import { settingWorldSize } from "../common/resolvedLayout";
import { View } from "../common/view";
import { dsFacts, type DsFacts } from "./facts";

export interface DeepSpeedContext {
  doc: ConfigDocument;
  settings: AnalysisSettings;
  env: AnalysisEnv;
  v: View;
  f: DsFacts;
  /** The YAML configs (accelerate, Axolotl, Lightning) nearby that name this file. */
  referrers: Referrer[];
  /** The mode the first referrer that sets one requests. */
  requested: DsMode | undefined;
  /** A `deepspeed` launcher script that runs this file directly (only looked for with `"auto"` precision and no referrer). */
  launcher: string | undefined;
  worldSize: Sourced<number> | undefined;
}

export function deepSpeedContext(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): DeepSpeedContext {
  const v = new View(doc);
  const f = dsFacts(v);
  const referrers = referrersOf(env);
  const requested = referrers.find((r) => r.mode)?.mode;

  // World size: setting, a referencing launcher config, or the batch trio.
  let worldSize: Sourced<number> | undefined = settingWorldSize(settings.worldSize);
  const refWs = referrers.find((r) => r.worldSize);
  if (!worldSize && refWs?.worldSize) worldSize = { value: refWs.worldSize, source: "linked-config", kind: "file", detail: `${refWs.relPath} (${refWs.framework}), which uses this file` };
  if (!worldSize && f.trainBatch && f.micro && f.gas && f.trainBatch % (f.micro * f.gas) === 0) {
    worldSize = { value: f.trainBatch / (f.micro * f.gas), source: "batch-trio", kind: "inferred", detail: "from train_batch_size / (train_micro_batch_size_per_gpu × gradient_accumulation_steps)" };
  }
  const launcher = f.autoPrecision && !referrers.length ? standaloneLauncher(env) : undefined;
  return { doc, settings, env, v, f, referrers, requested, launcher, worldSize };
}
