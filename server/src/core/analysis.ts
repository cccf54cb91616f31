/**
 * The result of analysing one document, and the contract every framework analyser fulfils. Front ends
 * (server, CLI) only ever consume `AnalysisResult`; they never look inside a framework.
 */
import type { Simulation, SimulationInput } from "./engine/types";
import type { ExtensionModule } from "./frameworks/torchtitan/schema/data";
import type { ConfigDocument, ConfigFormat } from "./model/document";
import type { Diagnostic, DType, Position, SourceLocation } from "./model/types";
import type { Mechanism, ParallelLayout } from "./model/layout";
import type { FactKind } from "./provenance";

export type { Mechanism, ParallelLayout };

export type FrameworkId = "torchtitan" | "torchtune" | "accelerate" | "lightning" | "axolotl" | "deepspeed" | "transformers" | "verl" | "megatron" | "automodel";

/**
 * Where a resolved value came from. `detail` is the user-facing explanation, `source` the framework's own name
 * for the source (kept in the CLI's JSON), `kind` its provenance (core/provenance.ts, docs/provenance.md): an
 * error rests only on facts of a known kind.
 */
export interface Sourced<T> {
  value: T;
  source: string;
  kind: FactKind;
  detail: string;
  /** Explicit sources this one won over (a directive over the workspace setting, a CLI flag over a directive). */
  overrides?: { value: T; source: string; kind: FactKind; detail: string }[];
  /** Where in a file the value was read (the directive, the run script line, the pin), when it was read from one. */
  location?: SourceLocation;
}

export interface ResolvedDtype {
  /**
   * null where the file does not decide it: no gradient reduction at all (one device), or a dtype the
   * launcher fills in (a DeepSpeed `"auto"` precision). `knob` then says which; JSON shows null.
   */
  dtype: DType | null;
  /** The knob (config key or framework rule) that produced it, e.g. "training.mixed_precision_param". */
  knob: string;
  /**
   * When the launcher is unknown and the candidate launchers disagree on this row (transformers: a file no launch
   * line names): the dtype under each candidate ("single GPU/DDP", "DeepSpeed ZeRO-3", "FSDP2"), and `dtype` is null.
   */
  byLauncher?: Record<string, DType | null>;
}

export interface ResolvedPrecision {
  /** dtype the parameters are stored (and the optimizer updates them) in. */
  paramStorage: ResolvedDtype;
  /** dtype matmuls compute in. */
  compute: ResolvedDtype;
  /** dtype gradients are reduced across ranks in (or stored in, with no reduction). */
  gradReduce: ResolvedDtype;
  /**
   * Parameters the model's own code stores in another dtype than paramStorage (torchtitan gpt_oss builds its
   * TransformerBlocks in bfloat16 whatever training.dtype says); paramStorage then holds the rest of the model.
   */
  paramStorageParts?: { modules: string; dtype: DType; knob: string }[];
  /** Set when the precision is chosen outside this file (e.g. `"auto"` filled by HF Trainer/accelerate): by whom. */
  setBy?: string;
}

/**
 * One torchtitan Python config function, analysed as a config of its own (issue #30 §4): its layout, world size,
 * mechanism and precision, and its own diagnostics (the file's list merges findings functions share).
 */
export interface ConfigFunctionResult {
  name: string;
  range: { start: Position; end: Position };
  selectionRange: { start: Position; end: Position };
  /** The one-line headline (layout, GPUs, dtypes). */
  detail: string;
  worldSize?: Sourced<number>;
  layoutName?: string;
  mechanism?: Mechanism;
  parallel?: ParallelLayout;
  precision?: ResolvedPrecision;
  /** The run script that launches this config function and its `--section.option value` flags as written. */
  launch?: { script: string; flags: string[] };
  diagnostics?: Diagnostic[];
}

/** A hover target: a range in the document and the Markdown to show when the cursor is inside it. */
export interface HoverTarget {
  range: { start: Position; end: Position };
  markdown: string;
}

/**
 * A top-level key the framework's parser accepts at the versions in effect (transformers: TrainingArguments at the
 * pinned release, with TRL's or LLaMA-Factory's own fields), for completion.
 */
export interface KeyCompletion {
  key: string;
  /** One line: where the key comes from and the releases that have it. */
  detail: string;
  /** Markdown. */
  documentation: string;
}

export interface InlayHintData {
  position: Position;
  label: string;
  tooltip?: string;
}

export interface AnalysisResult {
  uri: string;
  format: ConfigFormat;
  framework: FrameworkId | null;
  /** Why the framework was detected (or why not), user-facing. */
  frameworkReason: string;
  /** For a file that does not parse: the framework its table headers suggest (completion still helps). */
  likelyFramework?: FrameworkId;
  worldSize?: Sourced<number>;
  /** torchtitan only: the targeted version ("v0.2.2", "main@2025-03-01", "v0.2.2+pr2213"). */
  torchtitanVersion?: Sourced<string> & { decidedBy?: string[] };
  /**
   * transformers family only: the package versions the rules read (a workspace pin, else the newest release read,
   * inferred), e.g. { transformers: { value: "5.24.0", kind: "inferred" } }. The oracle runs the frameworks at them.
   */
  packageVersions?: Readonly<Record<string, { value: string; kind: string }>>;
  /** torchtitan only: config sources read from the workspace (a fork's job_config.py), for completion. */
  torchtitanSchemaSources?: readonly ExtensionModule[];
  parallel?: ParallelLayout;
  /** Short human name of the layout, e.g. "TP-only", "FSDP+TP", "HSDP". */
  layoutName?: string;
  mechanism?: Mechanism;
  precision?: ResolvedPrecision;
  diagnostics: Diagnostic[];
  hovers: HoverTarget[];
  /** Inline hints after values, e.g. the resolved value of `data_parallel_shard_degree = -1`. */
  inlayHints?: InlayHintData[];
  /** Markdown of the full precision report (the code lens and `explain` show it). */
  reportMarkdown?: string;
  /** The dtype-propagation simulation of one training step (torchtitan; absent when the launch fails). */
  simulation?: Simulation;
  /** The simulation's resolved input (torchtitan): what `precision-lens probe` reproduces and `--compare` re-simulates. */
  simulationInput?: SimulationInput;
  /** Code lenses of their own (one per torchtitan Python config function); without them, one at the top. */
  codeLenses?: { range: { start: Position; end: Position }; title: string; configFunction?: string }[];
  /** torchtitan Python registries: the config functions analysed (outline, CLI `FILE.py::function`). */
  configFunctions?: ConfigFunctionResult[];
  /** The parsed document, for editor features that need the model (completion, symbols). */
  /** Keys to complete at the top level of a YAML/JSON config (transformers), at the versions in effect; lazy. */
  keyCompletions?: KeyCompletion[];
  doc: ConfigDocument;
}

/** Settings every front end passes in; all optional, with documented defaults. */
export interface AnalysisSettings {
  /** precisionLens.worldSize / --world-size (when > 0). Precedence against directives: see `origin`. */
  worldSize?: number | null;
  /**
   * A torchtitan Python registry's world size per config function (precisionLens.worldSizeByFunction,
   * `--world-size FUNCTION=N`): wins over `worldSize` for that function, with the same precedence against directives.
   */
  worldSizeByFunction?: Record<string, number>;
  /** precisionLens.torchtitanVersion / --torchtitan-version: "auto" (default) or a version id. */
  torchtitanVersion?: string;
  /**
   * Where these settings came from: the editor's workspace settings (default; a directive in the file wins
   * over them) or the command line (wins over directives). See workspace/precedence.ts.
   */
  origin?: "setting" | "cli";
  /** precisionLens.gpu / --gpu: GPU type for the throughput and memory-capacity estimates (default H100 SXM). */
  gpu?: string;
  /**
   * precisionLens.torchtitanConfigSource / --torchtitan-config-source: a torchtitan fork's config source
   * (its job_config.py, config_manager.py or custom config module file, or the fork's root folder), read
   * before the upward search. A relative path is relative to the workspace root (the CLI makes it absolute).
   */
  torchtitanConfigSource?: string;
  /** torchtitan Python registries: analyse only this config function (CLI `FILE.py::function`). */
  configFunction?: string;
}

/**
 * A framework's analyser. `detect` is content-based and cheap; `analyze` runs only on detected documents.
 * Registered in frameworks.ts; the top-level `analyzeDocument` picks the first that detects.
 */
export interface FrameworkAnalyzer {
  id: FrameworkId;
  formats: readonly ConfigFormat[];
  /** Returns a user-facing reason ("has [parallelism] and [training] tables") or undefined. */
  detect(doc: ConfigDocument): string | undefined;
  analyze(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis;
  /**
   * Where the workspace's own code shows the file is another program's after all (a Megatron-DeepSpeed
   * checkout's `pretrain_gpt.py`): the reason, and the file is not claimed (no findings). Optional.
   */
  declines?(doc: ConfigDocument, env: AnalysisEnv): string | undefined;
  /** Top-level keys to complete in a file of this framework that does not parse yet (mid-edit); optional. */
  keyCompletions?(doc: ConfigDocument, env: AnalysisEnv): KeyCompletion[];
}

/** What a framework analyser returns; the top level adds uri, format, framework and reason. */
export type FrameworkAnalysis = Omit<AnalysisResult, "uri" | "format" | "framework" | "frameworkReason" | "doc">;

/**
 * Injected runtime: everything that touches the world outside the document. Tests pass fakes; the
 * server and CLI pass real file reads. Never does network access.
 */
export interface AnalysisEnv {
  /** Reads a file by absolute path; undefined when it does not exist or cannot be read. */
  readFile(path: string): string | undefined;
  /** Lists file names (not paths) in a directory; empty when absent. Read-only: hosts may cache (and freeze) it. */
  listDir(path: string): readonly string[];
  /** The document's absolute file path, when it has one (untitled documents have none). */
  documentPath?: string;
  /** Workspace folder roots (absolute paths) that contain the document, innermost last. */
  workspaceRoots?: string[];
  /**
   * Where the upward search for a fork's config source, pins and run scripts stops (issue #17 §3): the
   * repository root (the nearest folder above the document holding `.git`), else the filesystem root.
   * Hosts with a real file system set it; without it the search stops at the innermost workspace root.
   */
  searchRoot?: string;
  /**
   * The real path of `path` (symbolic links resolved), or undefined when it does not exist. Hosts with a
   * real file system set it, so that a link inside the workspace that points outside is not followed
   * (core/workspace/boundary.ts).
   */
  realPath?(path: string): string | undefined;
  /**
   * True once a read of this analysis was refused by the host's read budget (a file past it reads as absent):
   * what the analysis read then depends on the order of its reads, so results are not cached across edits
   * (torchtitan's per-function cache, issue #36).
   */
  readsRefused?(): boolean;
}

export const NO_ENV: AnalysisEnv = { readFile: () => undefined, listDir: () => [] };
