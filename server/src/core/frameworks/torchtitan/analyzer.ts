/**
 * The torchtitan analyser: detection (detect.ts), world size, version, parallel dims, mechanism, precision, rules
 * and hovers. Everything is computed once per document version into a TitanContext.
 */
import type { AnalysisEnv, AnalysisSettings, HoverTarget, FrameworkAnalysis, FrameworkAnalyzer, ParallelLayout, Sourced } from "../../analysis";
import { MAX_WORLD_SIZE } from "../../model/limits";
import { diag } from "../../diagnostics/build";
import { directiveValue, parseDirectives, type Directive } from "../../diagnostics/directives";
import { withModelStorage } from "./releaseRegistry";
import { findEntry, stringValue, type ConfigDocument, type ConfigEntry, type ConfigValue } from "../../model/document";
import type { Diagnostic } from "../../model/types";
import { gateDiagnostics, type Facts } from "../../provenance";
import type { TitanContext } from "./context";
import { reportMarkdown, summaryMarkdown, titanHovers, titanInlayHints } from "./hover";
import { keyHoverTargets } from "./schema/hover";
import { readKnobs } from "./knobs";
import { ddpChecksWorld, MESH_UNFLATTEN_DATE, modelDecideOptions, type DecideOptions } from "./eras";
import { layoutName, readDims, resolveDims, type DimsRead } from "./parallelDims";
import { hardwareInFolder, hardwareInFileName } from "./fileName";
import { resolvePrecision } from "./resolve";
import { TITAN_RULES } from "./rules/index";
import { detectTorchtitan } from "./detect";
import { DEFAULT_VERSION, FIRST_MAIN_DATE, LAST_TOML_DATE, parseVersion, type TitanVersion } from "./versions";
import { simulate, simulationInputFromConfig } from "../../engine";
import { inferVersion, inferWorldSize, versionForWindow, type VersionInference } from "../../workspace";
import { parallelizeNote, readForkCode, type ForkCode } from "../../workspace/forkCode";
import { scriptOverrides, type ScriptOverride } from "../../workspace/worldSize";
import { pickExplicit, versionFromSettings, worldSizeFromSettings, type Explicit } from "../../workspace/precedence";
import { resolveGpu, throughputAlternatives } from "./throughput";
import { torchtitanConfigSources } from "../../workspace/forkSchema";
import { forkEvidence } from "./fork";
import { defineLazy } from "../../model/lazy";
import { robustOverVersions } from "./robust";

/** run_train.sh's default NGPU (spec torchtitan.md §5.3). */
export const DEFAULT_WORLD_SIZE = 8;

export { detectTorchtitan };

export const torchtitanAnalyzer: FrameworkAnalyzer = {
  id: "torchtitan",
  formats: ["toml"],
  detect: detectTorchtitan,
  analyze: analyzeTorchtitan,
};

export function buildTitanContext(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): { ctx: TitanContext; extra: Diagnostic[] } {
  const directives = parseDirectives(doc.comments);
  const extra: Diagnostic[] = [];
  const { version, outsideTomlEra } = resolveVersion(doc, settings, env, directives, extra);
  // `--parallelism.*` flags of the script that runs this file override its degrees at launch (issue #30 §3).
  const overrides = scriptOverrides(env, ["parallelism"]);
  const read = readDims(overrides.length ? withOverrides(doc, overrides) : doc, version.value.date);
  const dimsOptions = { epDivisibility: version.value.date >= "2025-07-08" && version.value.date < MESH_UNFLATTEN_DATE, epMesh: version.value.date >= MESH_UNFLATTEN_DATE };
  const named = hardwareInFileName(env.documentPath ?? doc.uri);
  // The run script's own training entry point, read with its world size (one reading of the scripts).
  const launch: { entry?: string; file?: string } = {};
  const worldSize = resolveWorldSize(doc, read, settings, env, directives, extra, (w) => resolveDims(read, w, dimsOptions).errors.length === 0, named?.count, launch);
  const dims = resolveDims(read, worldSize.value, dimsOptions);
  const layout: ParallelLayout = dims.resolved ?? { ...dims.configured, dp_shard: dims.configured.dp_shard < 0 ? 1 : dims.configured.dp_shard };
  const modelName = stringValue(findEntry(doc, "model", "name"));
  // The workspace's own parallelize for this model outranks the dated upstream reading (eras.ts epAsksTpMesh).
  const forkTp = modelName ? readForkCode(env)?.epBranchTpMesh.find((m) => m.model === modelName) : undefined;
  const decideOptions: DecideOptions = { ...modelDecideOptions(modelName, version.value.date), ...(forkTp ? { forkEpTpMesh: { asks: forkTp.asks, file: forkTp.file, location: forkTp.location } } : {}) };
  const decision = dims.resolved
    ? version.value.era.decide(dims.resolved, worldSize.value, decideOptions)
    : { mechanism: "error" as const, reason: "the parallel dims fail torchtitan's validation", logs: [], error: dims.errors[0]?.detail ?? dims.errors[0]?.message ?? "invalid parallel dims", ddp: false };
  const knobs = readKnobs(doc, version.value.date);
  const precision = withModelStorage(resolvePrecision(decision, knobs, layout), version.value, modelName);
  // A header copied from an upstream preset states upstream's GPUs, not this file's (copiedPresetComment).
  const stated = statedGpus(doc);
  const gpu = resolveGpu(settings, directives, extra, stated && !copiedPresetComment(doc, stated) ? stated : undefined, named?.gpu, hardwareInFolder(env.documentPath ?? doc.uri));
  const simInput =
    dims.resolved && decision.mechanism !== "error" && knobs.param.dtype && knobs.reduce.dtype && knobs.trainingDtype.dtype
      ? {
          ...simulationInputFromConfig(doc, {
            mechanism: decision.mechanism,
            layout: dims.resolved,
            ddp: decision.ddp,
            mechanismReason: decision.reason,
            paramDtype: knobs.param.dtype,
            reduceDtype: knobs.reduce.dtype,
            trainingDtype: knobs.trainingDtype.dtype,
            versionDate: version.value.date,
          }),
          gpu: gpu.value,
        }
      : undefined;
  const simulated = simInput ? simulate(simInput) : undefined;
  // simulate() is memoised (a result is shared by every analysis with the same input): this analysis's own
  // GPU provenance and lazy alternatives go on its own copy of the throughput, never on the shared object.
  const simulation = simulated?.throughput ? { ...simulated, throughput: { ...simulated.throughput, gpu: { value: gpu.value, source: gpu.source } } } : simulated;
  if (simInput && simulation?.throughput) {
    // Lazy (core/model/lazy.ts): re-simulates each alternative; only the report, the JSON output and hovers read it.
    const sim = simulation;
    defineLazy(simulation.throughput, "alternatives", () => throughputAlternatives(simInput, sim, worldSize.value));
  }
  const ctx: TitanContext = {
    doc,
    settings,
    env,
    directives,
    version,
    worldSize,
    ...(overrides.length ? { scriptOverrides: overrides } : {}),
    dims,
    layout,
    // A layout that fails validation is still named from its configured degrees (the error says why it fails).
    layoutName: layoutName(dims.resolved ?? layout),
    decision,
    decideOptions,
    knobs,
    precision,
    gpu,
    ...(modelName ? { modelName } : {}),
    ...(simulation ? { simulation } : {}),
    ...(simInput ? { simulationInput: simInput } : {}),
    ...(outsideTomlEra ? { outsideTomlEra } : {}),
  };
  const { schemas: workspace, missing } = torchtitanConfigSources(doc, env, settings);
  if (workspace.length) ctx.workspaceSchema = workspace;
  if (missing) ctx.configSourceMissing = missing;
  const fork = forkEvidence(doc, version.value.date, workspace);
  if (fork) ctx.fork = fork;
  const code = readForkCode(env);
  if (code) ctx.forkCode = code;
  // The script that gives the world size runs a training script of its own: ParallelDims' checks are not run as
  // torchtitan's trainer runs them (parallel-dims.ts leaves the world-size checks out).
  if (ctx.worldSize.source === "run-script" || ctx.worldSize.source === "slurm") {
    const script = launch.file ?? "the run script";
    ctx.launcher = launch.entry
      ? { value: launch.entry, source: "custom-entry", kind: "inferred", detail: `${script} runs ${launch.entry}, not torchtitan's trainer` }
      : { value: "torchtitan's trainer", source: "run-script", kind: "run-script", detail: `${script} runs torchtitan's trainer` };
  }
  return { ctx, extra };
}

/**
 * The document as the launch reads it: each script flag replaces (or adds) its key, with an integer, boolean or
 * string value as argparse / the config manager would type it; the entry keeps the file's own range when the key
 * is written there (else the file's start), and its `overriddenBy` names the script.
 */
function withOverrides(doc: ConfigDocument, overrides: readonly ScriptOverride[]): ConfigDocument {
  const extra: ConfigEntry[] = overrides.map((o) => {
    const own = findEntry(doc, ...o.path);
    const range = own?.value.range ?? FILE_START;
    const value: ConfigValue = /^-?\d+$/.test(o.raw)
      ? { kind: "integer", value: Number(o.raw), range }
      : /^(true|false)$/i.test(o.raw)
        ? { kind: "boolean", value: /^true$/i.test(o.raw), range }
        : { kind: "string", value: o.raw, range };
    return { path: [...o.path], keyRange: own?.keyRange ?? FILE_START, range: own?.range ?? FILE_START, value };
  });
  return { ...doc, entries: [...doc.entries, ...extra] };
}

/** The facts torchtitan's rules rest on (core/provenance.ts): world size, version, GPU type, a fork's schema. */
export function titanFacts(ctx: TitanContext): Facts {
  const facts: Facts = { worldSize: ctx.worldSize, version: ctx.version, gpu: ctx.gpu };
  // The model decides launch checks that differ per model's parallelize (eras.ts ddpChecksWorld). A name upstream
  // has (or none: torchtitan's default llama3) is the file's; a fork's model is assumed to behave like llama3.
  const model = ctx.decideOptions.model;
  facts.model = ddpChecksWorld(model, ctx.version.value.date) === undefined
    ? { value: model ?? "llama3", kind: "inferred", detail: "not upstream, read as llama3" }
    : { value: model ?? "llama3", kind: "file", detail: model === undefined ? "torchtitan's default model.name" : "model.name" };
  if (ctx.launcher) facts.launcher = ctx.launcher;
  if (ctx.workspaceSchema?.length) facts.forkSchema = { value: ctx.workspaceSchema.map((m) => m.label).join(", "), kind: "file", detail: "config sources found in the workspace" };
  return facts;
}

function analyzeTorchtitan(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const { ctx, extra } = buildTitanContext(doc, settings, env);
  const diagnostics: Diagnostic[] = [...extra];
  const facts = titanFacts(ctx);
  for (const rule of TITAN_RULES) {
    // A launch failure at every candidate version rests on no guess about it (robust.ts, issue #30 §5).
    for (const d of gateDiagnostics(robustOverVersions(ctx, rule.run(ctx), rule), rule, facts)) diagnostics.push(d);
  }
  // The summary serves every precision hover and heads the report: render it once, when first asked for.
  let summary: string | undefined;
  const summaryOnce = (): string => (summary ??= summaryMarkdown(ctx));
  // Placeholders keep the key order; hovers, inlay hints and the report are lazy (core/model/lazy.ts).
  const out: FrameworkAnalysis = {
    worldSize: ctx.worldSize,
    layoutName: ctx.layoutName,
    mechanism: ctx.decision.mechanism,
    diagnostics,
    hovers: [],
    inlayHints: [],
    reportMarkdown: "",
    parallel: ctx.dims.resolved ?? ctx.dims.configured,
  };
  defineLazy(out, "hovers", () => mergeHovers(titanHovers(ctx, summaryOnce()), keyHoverTargets(doc, ctx.version.value.date, ctx.workspaceSchema)));
  defineLazy(out, "inlayHints", () => titanInlayHints(ctx));
  defineLazy(out, "reportMarkdown", () => reportMarkdown(ctx, summaryOnce()));
  if (ctx.precision) out.precision = ctx.precision;
  if (ctx.workspaceSchema) out.torchtitanSchemaSources = ctx.workspaceSchema;
  if (ctx.simulation) out.simulation = ctx.simulation;
  if (ctx.simulationInput) out.simulationInput = ctx.simulationInput;
  out.torchtitanVersion = { value: ctx.version.value.id, source: ctx.version.source, kind: ctx.version.kind, detail: ctx.version.detail, ...(ctx.version.decidedBy ? { decidedBy: ctx.version.decidedBy } : {}) };
  if (ctx.version.overrides) out.torchtitanVersion.overrides = ctx.version.overrides.map((o) => ({ value: o.value.id, source: o.source, kind: o.kind, detail: o.detail }));
  return out;
}

function resolveVersion(
  doc: ConfigDocument,
  settings: AnalysisSettings,
  env: AnalysisEnv,
  directives: Directive[],
  extra: Diagnostic[],
): { version: TitanContext["version"]; outsideTomlEra?: { pin: string; file: string } } {
  // Explicit sources first, by precedence (workspace/precedence.ts): CLI flag > directive > workspace setting.
  const d = directiveValue(directives, "torchtitan-version");
  let fromDirective: Explicit<TitanVersion> | undefined;
  if (d) {
    const v = parseVersion(d.value);
    if (v) fromDirective = { value: v, source: "directive", kind: "directive", detail: `set by \`# precision-lens: torchtitan-version=${d.value}\` on line ${d.line + 1}`, label: `\`# precision-lens: torchtitan-version=${d.value}\` (line ${d.line + 1})`, location: { uri: doc.uri, range: d.range } };
    else
      extra.push(
        diag("invalid-directive", "warning", d.range, `Unknown torchtitan version "${d.value.slice(0, 30)}" in the directive; it is ignored`, undefined, {
          detail: `Unknown torchtitan version "${d.value}" in the precision-lens directive; use v0.1.0, v0.2.0, v0.2.1, v0.2.2, v0.2.2+pr2213 or main@YYYY-MM-DD (from ${FIRST_MAIN_DATE} to ${LAST_TOML_DATE}). It is ignored.`,
        }),
      );
  }
  const explicit = pickExplicit(settings, versionFromSettings(settings, parseVersion), fromDirective);
  if (explicit) return { version: explicit };
  // auto: a pin in the workspace, then the keys the config uses, then the last TOML release.
  const inferred = inferVersion(doc, env);
  // The workspace's own torchtitan package (a TOML-era fork, a submodule) outranks a pin and the keys (issue #30 §2).
  const fromCode = tomlVersionFromCode(readForkCode(env), inferred);
  if (fromCode) return { version: fromCode };
  const v = parseVersion(inferred.value) ?? parseVersion(DEFAULT_VERSION)!;
  const out: { version: TitanContext["version"]; outsideTomlEra?: { pin: string; file: string } } = {
    version: { value: v, source: inferred.source, kind: inferred.kind, detail: inferred.detail, ...(inferred.decidedBy?.length ? { decidedBy: inferred.decidedBy } : {}), ...(inferred.window ? { window: inferred.window } : {}) },
  };
  if (inferred.location) out.version.location = inferred.location;
  if (inferred.outsideTomlEra) {
    out.outsideTomlEra = inferred.outsideTomlEra;
    extra.push(
      diag(
        "toml-not-read",
        "warning",
        FILE_START,
        `torchtitan ${inferred.outsideTomlEra.pin.slice(0, 30)} (pinned in the workspace) no longer reads TOML; analysed as ${DEFAULT_VERSION}`,
        undefined,
        {
          detail: `The workspace pins torchtitan ${inferred.outsideTomlEra.pin} (${inferred.outsideTomlEra.file}), which no longer reads TOML configs: from 2026-02-23 torchtitan is configured in Python and ignores this file. It is analysed as ${DEFAULT_VERSION}, the last release that reads TOML.`,
          ...(inferred.location ? { related: [{ location: inferred.location, message: `torchtitan ${inferred.outsideTomlEra.pin} pinned here` }] } : {}),
        },
      ),
    );
  }
  return out;
}

/**
 * The version a TOML-era fork's code dates it to (workspace/forkCode.ts), narrowed by the config's keys when their
 * window overlaps; undefined when the workspace holds no torchtitan package or its code dates it outside the TOML
 * era (a Python-era fork does not read this file; the pin/keys inference then stands).
 */
function tomlVersionFromCode(code: ForkCode | undefined, inferred: VersionInference): TitanContext["version"] | undefined {
  if (!code?.window || !code.decidedBy || code.window.from >= LAST_TOML_DATE) return undefined;
  let from = code.window.from < FIRST_MAIN_DATE ? FIRST_MAIN_DATE : code.window.from;
  let until = code.window.until && code.window.until < LAST_TOML_DATE ? code.window.until : undefined;
  const keys = inferred.source === "config-keys" ? inferred.window : undefined;
  const kf = keys?.from;
  const ku = keys?.until;
  const narrowed = !!keys && (kf === undefined || until === undefined || kf < until) && (ku === undefined || ku > from);
  if (narrowed) {
    if (kf !== undefined && kf > from) from = kf;
    if (ku !== undefined && (until === undefined || ku < until)) until = ku;
  }
  const v = parseVersion(versionForWindow(from, until));
  if (!v) return undefined;
  const differs = parallelizeNote(code);
  const pin = inferred.source === "workspace-pin" ? `; the pin (${inferred.detail}) is not what runs here` : "";
  return {
    value: v,
    source: "workspace-code",
    // The code dates the fork to a window of dates, not to one release: the key history (moved, removed,
    // deprecated keys) changes inside it, so the release picked for the window is a guess, and only what holds at
    // every date of the window (robust.ts) rests on no guess. The mechanism is the same across it by construction.
    kind: "inferred",
    detail: `dated by the workspace's torchtitan code, ${code.decidedBy.file} (${code.decidedBy.fn}): ${code.decidedBy.what}${narrowed ? ", narrowed by the config's keys" : ""}${differs}${pin}`,
    window: { from, ...(until ? { until } : {}) },
    location: code.decidedBy.location,
  };
}

const FILE_START = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/**
 * The world size, from the most explicit source: CLI flag / directive / setting, a run script, a comment
 * stating it, the product of explicit degrees, and last run_train.sh's default. A default never contradicts
 * the file (issue #17): when the explicit degrees need more GPUs than the default, the world size is the
 * smallest one consistent with them (`consistent`: ParallelDims validates on that many GPUs).
 */
function resolveWorldSize(doc: ConfigDocument, read: DimsRead, settings: AnalysisSettings, env: AnalysisEnv, directives: Directive[], extra: Diagnostic[], consistent: (w: number) => boolean, named?: number, launch: { entry?: string; file?: string } = {}): Sourced<number> {
  // Explicit sources first, by precedence (workspace/precedence.ts): CLI flag > directive > workspace setting.
  const d = directiveValue(directives, "world-size");
  let fromDirective: Explicit<number> | undefined;
  if (d) {
    const n = /^\d+$/.test(d.value) ? Number(d.value) : NaN;
    if (Number.isInteger(n) && n > MAX_WORLD_SIZE) extra.push(diag("invalid-directive", "warning", d.range, `world-size=${d.value.slice(0, 30)} in the precision-lens directive is above ${MAX_WORLD_SIZE} (2^20): it is ignored`, undefined, { detail: `world-size=${d.value.slice(0, 30)} in the precision-lens directive is above ${MAX_WORLD_SIZE} (2^20), the largest world size Precision Lens analyses; it is ignored.` }));
    else if (Number.isInteger(n) && n > 0) fromDirective = { value: n, source: "directive", kind: "directive", detail: `\`# precision-lens: world-size=${n}\` on line ${d.line + 1}`, label: `\`# precision-lens: world-size=${n}\` (line ${d.line + 1})`, location: { uri: doc.uri, range: d.range } };
    else extra.push(diag("invalid-directive", "warning", d.range, `world-size in the precision-lens directive must be a positive integer, got "${d.value.slice(0, 30)}"; it is ignored.`));
  }
  // A setting above MAX_WORLD_SIZE (2^20) is ignored, like a directive or run script above it.
  const bounded = settings.worldSize && settings.worldSize > MAX_WORLD_SIZE ? { ...settings, worldSize: null } : settings;
  const explicit = pickExplicit(settings, worldSizeFromSettings(bounded), fromDirective);
  if (explicit) return explicit;
  const script = inferWorldSize(env);
  // A stated size that the degrees contradict is stale (a fork's copy of an upstream preset's header): skipped.
  const stated = worldSizeFromComments(doc);
  if (script && script.value <= MAX_WORLD_SIZE) {
    const out: Sourced<number> = { value: script.value, source: script.source, kind: script.kind, detail: script.detail };
    if (script.entry) launch.entry = script.entry;
    launch.file = script.file;
    if (script.location) out.location = script.location;
    // Two sources that disagree are both named (issue #30 §3): the script runs the file, the comment only says.
    if (stated && stated.value !== script.value) {
      out.detail = `${script.detail}; the comment on line ${(stated.location?.range.start.line ?? 0) + 1} states ${stated.value} GPUs`;
      out.overrides = [{ value: stated.value, source: stated.source, kind: stated.kind, detail: stated.detail }];
    }
    return out;
  }
  if (stated && (read.typeErrors.length || consistent(stated.value))) return stated;
  const { configured, typeErrors } = read;
  if (!typeErrors.length && configured.dp_shard !== -1) {
    const product = configured.dp_replicate * configured.dp_shard * configured.cp * configured.tp * configured.pp;
    // Every degree written: the launch validates only on exactly this many GPUs, so it is the file's.
    if (product > 0) return { value: product, source: "degrees", kind: "file", detail: `product of the explicit parallel degrees (${product})` };
  }
  // The size a file's name states (`llama3_405b-16xgb300-8k.toml`, fileName.ts): an inference, kept only when
  // the degrees allow it, like a comment's.
  if (named !== undefined && named <= MAX_WORLD_SIZE && !typeErrors.length && consistent(named)) return { value: named, source: "file-name", kind: "inferred", detail: "the file name" };
  if (!typeErrors.length && !consistent(DEFAULT_WORLD_SIZE)) {
    const smallest = smallestConsistent(configured, consistent);
    if (smallest !== undefined) return { value: smallest, source: "degrees", kind: "inferred", detail: `the degrees, which need at least ${smallest} GPUs` };
  }
  return { value: DEFAULT_WORLD_SIZE, source: "default", kind: "default", detail: `run_train.sh default (NGPU=${DEFAULT_WORLD_SIZE})` };
}

/** Candidates are multiples of the fixed degrees (dp_shard -1 absorbs the rest); at most 4,096 are tried. */
function smallestConsistent(c: ParallelLayout, consistent: (w: number) => boolean): number | undefined {
  const rest = c.dp_replicate * Math.max(1, c.dp_shard) * c.cp * c.tp * c.pp;
  if (!(rest > 0)) return undefined;
  for (let k = 1; k <= 4096 && rest * k <= MAX_WORLD_SIZE; k++) if (consistent(rest * k)) return rest * k;
  return undefined;
}

/**
 * A comment that states the size the file is for, e.g. torchtitan's presets:
 * `# NOTE: this toml config is a preset for 64 A100 GPUs.` (torchtitan v0.2.2
 * torchtitan/models/llama3/train_configs/llama3_70b.toml:1). Evidence with its line; the GPU type it names is
 * read by `gpuFromComments`.
 */
export function statedGpus(doc: ConfigDocument): { count: number; gpu?: string; line: number; range: ConfigDocument["comments"][number]["range"] } | undefined {
  for (const c of doc.comments) {
    if (c.text.length > 300 || /precision-lens:/.test(c.text)) continue;
    const m = /\b(?:preset|config|configuration|recipe|setup)\s{1,3}(?:is\s{1,3})?for\s{1,3}(\d{1,7})\s{1,3}(?:x\s{1,3})?(?:([A-Za-z][A-Za-z0-9-]{0,15})\s{1,3})?GPUs?\b/i.exec(c.text);
    if (!m) continue;
    const count = Number(m[1]);
    if (!(count > 0 && count <= MAX_WORLD_SIZE)) continue;
    return { count, ...(m[2] ? { gpu: m[2] } : {}), line: c.line, range: c.range };
  }
  return undefined;
}

/**
 * The size comments of upstream's presets (v0.2.2 train_configs: `# NOTE: this toml config is a preset for N GPU
 * GPUs.` on line 1) and the models they were written for. A fork that copies one into a config of another model
 * keeps a header that is not about its file: that comment is no evidence (issue #30 §3). Named assumption: a
 * preset comment is about its own model only; a file without model.flavor is not that preset's.
 */
const UPSTREAM_PRESET_COMMENTS: readonly { count: number; gpu: string; models: readonly string[]; files: readonly string[] }[] = [
  { count: 128, gpu: "H100", models: ["llama3:405B"], files: ["llama3_405b.toml"] },
  { count: 64, gpu: "A100", models: ["llama3:70B", "llama3:8B"], files: ["llama3_70b.toml", "llama3_8b.toml"] },
  { count: 64, gpu: "H100", models: ["llama4:17bx16e"], files: ["llama4_17bx16e.toml"] },
  { count: 8, gpu: "H100", models: ["qwen3:32B"], files: ["qwen3_32b.toml"] },
];

/**
 * True when the stated size is an upstream preset's comment in a file that is not that preset: another model, or
 * a file of another name (a fork's `logs/run1/config.toml` that kept the header of the llama3_8b.toml it was
 * copied from, with its own degrees and batch sizes: the header is upstream's, not this file's). Named
 * assumption: upstream's presets are the files named in UPSTREAM_PRESET_COMMENTS (v0.1.0 … v0.2.2).
 */
export function copiedPresetComment(doc: ConfigDocument, s: { count: number; gpu?: string; line: number }): boolean {
  const text = doc.comments.find((c) => c.line === s.line)?.text ?? "";
  if (!/NOTE: this toml config is a preset for/i.test(text)) return false;
  const preset = UPSTREAM_PRESET_COMMENTS.find((p) => p.count === s.count && p.gpu.toLowerCase() === (s.gpu ?? "").toLowerCase());
  if (!preset) return false;
  const model = `${stringValue(findEntry(doc, "model", "name")) ?? "llama3"}:${stringValue(findEntry(doc, "model", "flavor")) ?? ""}`;
  const file = decodeURIComponent(doc.uri.slice(doc.uri.lastIndexOf("/") + 1)).toLowerCase();
  return !preset.models.includes(model) || !preset.files.includes(file);
}

function worldSizeFromComments(doc: ConfigDocument): Sourced<number> | undefined {
  const s = statedGpus(doc);
  if (!s || copiedPresetComment(doc, s)) return undefined;
  return { value: s.count, source: "comment", kind: "comment", detail: `the comment on line ${s.line + 1}`, location: { uri: doc.uri, range: s.range } };
}

/**
 * Precision hovers first; a key's schema documentation is appended under the precision summary when both
 * target the same key, so neither hides the other.
 */
function mergeHovers(precision: HoverTarget[], keys: HoverTarget[]): HoverTarget[] {
  const id = (h: HoverTarget): string => `${h.range.start.line}:${h.range.start.character}:${h.range.end.line}:${h.range.end.character}`;
  const byRange = new Map(keys.map((k) => [id(k), k]));
  const out = precision.map((p) => {
    const k = byRange.get(id(p));
    if (!k) return p;
    byRange.delete(id(p));
    // The key's own documentation first, then a three-line summary (issue #34); the whole picture is the
    // report, one click away on the code lens at the top of the file.
    return { range: p.range, markdown: `${k.markdown}\n\n---\n\n${precisionSummary(p.markdown)}` };
  });
  return [...out, ...byRange.values()];
}

/**
 * A precision hover's title, then three paragraphs: the layout's headline, the mechanism, the memory estimate
 * (and the version's source when it overrides a setting: which source won stays in view).
 */
function precisionSummary(markdown: string): string {
  const paras = markdown.split("\n\n");
  const pick = [paras.find((x, i) => i > 0 && /^\*\*[^*]+\*\*/.test(x)), paras.find((x) => x.startsWith("Mechanism:")), paras.find((x) => /^≈ .* peak per GPU/.test(x)), paras.find((x) => x.startsWith("_Version:") && /overrides/.test(x))].filter((x): x is string => !!x);
  if (!pick.length) return markdown;
  return [paras[0]!, ...pick, "_The full precision report (per-op dtypes, memory, what-if matrix): the code lens at the top of the file, or the Open Precision Report command._"].join("\n\n");
}
