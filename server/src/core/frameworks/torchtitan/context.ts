/**
 * Everything a torchtitan rule may read, computed once per document version by the analyser.
 * Rules are small functions `(ctx) => Diagnostic[]`, one concern each, named by their diagnostic code.
 */
import type { ScriptOverride } from "../../workspace/worldSize";
import type { ForkCode } from "../../workspace/forkCode";
import type { AnalysisEnv, AnalysisSettings, ParallelLayout, ResolvedPrecision, Sourced } from "../../analysis";
import type { Directive } from "../../diagnostics/directives";
import type { RestsOn } from "../../provenance";
import type { Simulation, SimulationInput } from "../../engine/types";
import type { GpuId } from "../../engine/gpus";
import type { ConfigDocument, ConfigEntry } from "../../model/document";
import type { Diagnostic, DType } from "../../model/types";
import type { DecideOptions, MechanismDecision } from "./eras";
import type { DimsResolution } from "./parallelDims";
import type { TitanVersion } from "./versions";
import type { ExtensionModule } from "./schema/data";
import type { ForkEvidence } from "./fork";

export interface TitanContext {
  doc: ConfigDocument;
  settings: AnalysisSettings;
  env: AnalysisEnv;
  directives: Directive[];
  /** decidedBy: inferred from the config's keys, the keys whose dates bound the version's window. */
  /** window: inferred from the keys, the date window they fit ([from, until)). */
  version: Sourced<TitanVersion> & { decidedBy?: string[]; window?: { from?: string; until?: string } };
  worldSize: Sourced<number>;
  /** The workspace's own torchtitan package, read (workspace/forkCode.ts); absent when there is none. */
  forkCode?: ForkCode;
  /** `--parallelism.*` flags of the script that runs this file, applied to the degrees (workspace/worldSize.ts). */
  scriptOverrides?: ScriptOverride[];
  dims: DimsResolution;
  /** The resolved layout (defaults where dims failed validation, so hovers still show something). */
  layout: ParallelLayout;
  layoutName: string;
  decision: MechanismDecision;
  /** The options the era's decide() was called with (model family), for re-deciding under other eras. */
  decideOptions: DecideOptions;
  /** The precision knobs as read (undefined when not set or not a valid dtype string). */
  knobs: PrecisionKnobs;
  precision: ResolvedPrecision | undefined;
  /** `[model] name`, when set. */
  modelName?: string;
  /** GPU type for the throughput / capacity estimates, with where it came from. */
  gpu: Sourced<GpuId>;
  /** What the simulation was run with (for what-if re-simulations: other GPUs, assumptions, layouts). */
  simulationInput?: SimulationInput;
  /** The simulated training step; undefined when the launch fails or a dtype knob is invalid. */
  simulation?: Simulation;
  /** torchtitan config sources found in the workspace (a fork's job_config.py, a custom module's file). */
  workspaceSchema?: ExtensionModule[];
  /** Names upstream never had, when no fork config source was found (fork.ts): left to the fork-config note. */
  fork?: ForkEvidence;
  /** The config source named by precisionLens.torchtitanConfigSource / --torchtitan-config-source, when it could not be read. */
  configSourceMissing?: string;
  /**
   * Settings the targeted version no longer has, where the key-schema rules do not see them (a Python config
   * function's keyword arguments and attributes: python/titanContext.ts); reported by removed-setting.
   */
  removedSettings?: { key: string; range: import("../../model/types").Range; since: string; by: string }[];
  /**
   * Launch flags of the run script that runs this config and that the launcher's parser rejects at this version
   * (tyro, for a Python config function: python/context.ts); reported by launch-flag-rejected.
   */
  rejectedFlags?: { key: string; raw: string; file: string; location: { uri: string; range: import("../../model/types").Range }; choices: readonly string[]; at: import("../../model/types").Range }[];
  /**
   * The launcher fact (core/provenance.ts `launcher`): read only with a run script's world size. `custom-entry`
   * when that script runs this config with a training script of its own (`train_ds_real.py`, `-m fork.train`),
   * not torchtitan's trainer: an inference about what runs, so findings of the trainer's checks rest on it.
   */
  launcher?: Sourced<string>;
  /** Set when the workspace pins a torchtitan that no longer reads TOML. */
  outsideTomlEra?: { pin: string; file: string };
}

export interface PrecisionKnobs {
  param: KnobValue;
  reduce: KnobValue;
  trainingDtype: KnobValue;
}

export interface KnobValue {
  /** The key path, e.g. "training.mixed_precision_param". */
  key: string;
  entry?: ConfigEntry;
  /** The dtype in effect: the valid value as written, or the default. Undefined when the written value is not a dtype torchtitan knows. */
  dtype?: DType;
  /** True when the key is absent and the default applies. */
  isDefault: boolean;
}

export interface TitanRule extends RestsOn {
  /** The diagnostic codes this rule emits (one concern; several codes only for severities of it). */
  codes: readonly string[];
  run(ctx: TitanContext): Diagnostic[];
}
