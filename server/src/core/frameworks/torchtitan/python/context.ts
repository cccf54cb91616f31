/**
 * Resolution of one torchtitan config function into the shared precision model, reusing the TOML rooms:
 * the evaluated fields become a view (`ConfigDocument` entries anchored in the Python source), read by
 * parallelDims.ts, knobs.ts, eras.ts and resolve.ts exactly as a TOML file is. Every fact keeps its source.
 */
import { hardwareInFolder } from "../fileName";
import type { AnalysisEnv, AnalysisSettings, ParallelLayout, ResolvedPrecision, Sourced } from "../../../analysis";
import type { Directive } from "../../../diagnostics/directives";
import { directiveValue } from "../../../diagnostics/directives";
import { MAX_WORLD_SIZE } from "../../../model/limits";
import type { ConfigDocument, ConfigEntry, ConfigValue } from "../../../model/document";
import type { DType, Range } from "../../../model/types";
import { inferVersion } from "../../../workspace";
import { parallelizeNote, readForkCode, type ForkCode } from "../../../workspace/forkCode";
import { displayPath, lineLocation } from "../../../workspace/paths";
import { launchScripts, noLaunchScripts, passesConfig, worldSizeFromScript } from "../../../workspace/worldSize";
import { DDP_ERROR, eraForDate, EP_DATE, MESH_UNFLATTEN_DATE, modelDecideOptions, type DecideOptions, type MechanismDecision } from "../eras";
import { readKnobs } from "../knobs";
import { DIM_FIELDS, DIM_KEYS, layoutName, readDims, resolveDims, type DimsResolution } from "../parallelDims";
import { resolvePrecision } from "../resolve";
import { resolveGpu } from "../throughput";
import { simulationInputFromConfig, type DecidedInputs } from "../../../engine/fromConfig";
import type { SimulationInput } from "../../../engine/types";
import { GPUS, hasCudaCapability, type GpuId } from "../../../engine/gpus";
import type { PrecisionKnobs } from "../context";
import type { EvaluatedConfig, FieldValue } from "./evaluate";
import { choicesAt, PY_FIELDS, pyField } from "./schema";
import { table } from "../../../model/table";

/** torchtitan's Python-era versions. Dates are main-branch dates the semantics are read at. */
export const PY_RELEASES: Readonly<Record<string, { date: string; source: string }>> = table({
  // release/0.3 was cut from main 48cb7ae1f (2026-08-18) and set to 0.3.0rc1 (1fdf90d3f, #4216); its configs.py
  // still declares mixed_precision_reduce: Literal["float32"] (release/0.3 4f9e9a47d configs.py:93). Published on
  // PyPI as torchtitan 0.3.0: the wheel's files are dated 2026-09-03 (`pip download torchtitan==0.3.0 --no-deps`,
  // checked 2026-12-02) and its configs.py keeps Literal["float32"]; no v0.3.0 tag in the newest pytorch/torchtitan
  // snapshot read (b5bcd76c6, 2026-08-21; tags v0.1.0 … v0.2.2).
  "v0.3.0": { date: "2026-08-18", source: "release/0.3 (cut 2026-08-18 at 48cb7ae1f, 0.3.0rc1 1fdf90d3f); PyPI torchtitan 0.3.0, wheel built 2026-09-03" },
  // v0.4.0 could not be verified (2026-12-02): no v0.4.0 tag in the pytorch/torchtitan snapshot (newest 2026-08-21)
  // and PyPI lists 0.0.2 … 0.3.0 only (`pip index versions torchtitan`). It is modelled as main from #4597
  // (2026-09-11, bf16 reduce allowed), the newest change the semantics know; its date is that one, not a release date.
  "v0.4.0": { date: "2026-09-11", source: "v0.4.0: release not verified (no tag, not on PyPI as of 2026-12-02); modelled as main from #4597 (2026-09-11)" },
});

/** The version a Python registry is analysed as when nothing says otherwise (the newest modelled). */
export const PY_DEFAULT_VERSION = "v0.4.0";

/** The first Python-era date: 9810191bb (#2386). */
export const PY_FIRST_DATE = "2026-02-23";
/**
 * The what-if matrix's columns for a registry: the three mechanism periods of the Python era (eras.ts) and the
 * releases. main 2026-02-23: maybe_enable_amp (autocast on DDP / one GPU, nothing on TP-only); main 2026-03-09:
 * replicate with MixedPrecisionPolicy (e1847f4, #2458); v0.3.0 and v0.4.0: fully_shard everywhere (#2900).
 */
export const PY_WHAT_IF_VERSIONS: readonly { id: string; label: string }[] = [
  { id: `main@${PY_FIRST_DATE}`, label: `main ${PY_FIRST_DATE}` },
  { id: "main@2026-03-09", label: "main 2026-03-09" },
  { id: "v0.3.0", label: "v0.3.0" },
  { id: "v0.4.0", label: "v0.4.0" },
];

/** #2900 (00b7f5693): every layout gets MixedPrecisionPolicy; autocast gone; the norms run in bf16 (the loss still upcasts to fp32). */
export const ALWAYS_FSDP_DATE = "2026-04-09";
/** #2732 (0610235bb): `optimizer.implementation = "fused_opt_states_bf16"`. */
export const BF16_STATES_DATE = "2026-04-15";
/** #4597: `mixed_precision_reduce = "bfloat16"` allowed. */
export const BF16_REDUCE_DATE = "2026-09-11";

export interface PyVersion {
  id: string;
  date: string;
}

export function parsePyVersion(raw: string): PyVersion | undefined {
  const v = raw.trim();
  const dev = /^v?\d+\.\d+\.\d+\.?dev(\d{4})(\d{2})(\d{2})$/.exec(v);
  if (dev) return checkedDate(`${dev[1]}-${dev[2]}-${dev[3]}`);
  const rel = /^v?0\.([34])\.\d+(?:rc\d+)?$/.exec(v);
  if (rel) return { id: `v0.${rel[1]}.0`, date: PY_RELEASES[`v0.${rel[1]}.0`]!.date };
  const m = /^main@(\d{4}-\d{2}-\d{2})$/.exec(v);
  if (m) return checkedDate(m[1]!);
  return undefined;
}

function checkedDate(date: string): PyVersion | undefined {
  const parsed = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date || date < PY_FIRST_DATE) return undefined;
  return { id: `main@${date}`, date };
}

export interface PyContext {
  version: PySourcedVersion;
  /** A pin of a torchtitan that reads TOML, not this registry (v0.2.2 or older). */
  tomlPin?: string;
}

/** The version, once per document: CLI flag > directive > workspace setting > workspace pin > default. */
export function resolvePyVersion(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv, directives: Directive[]): PyContext {
  const fromSetting = settings.torchtitanVersion && settings.torchtitanVersion !== "auto" ? parsePyVersion(settings.torchtitanVersion) : undefined;
  const d = directiveValue(directives, "torchtitan-version");
  const fromDirective = d ? parsePyVersion(d.value) : undefined;
  if (fromSetting && settings.origin === "cli") return { version: { value: fromSetting, source: "cli", kind: "cli", detail: `--torchtitan-version ${settings.torchtitanVersion}` } };
  if (fromDirective && d) return { version: { value: fromDirective, source: "directive", kind: "directive", detail: `\`# precision-lens: torchtitan-version=${d.value}\` on line ${d.line + 1}`, location: { uri: doc.uri, range: d.range } } };
  if (fromSetting) return { version: { value: fromSetting, source: "setting", kind: "setting", detail: `precisionLens.torchtitanVersion = ${settings.torchtitanVersion}` } };
  const inferred = inferVersion(doc, env);
  // The workspace's own torchtitan package outranks a pin and the default (issue #30 §2): it is the code that runs.
  const code = readForkCode(env);
  if (code) {
    const pin = inferred.source === "workspace-pin" ? `; the pin (${inferred.detail}) is not what runs here` : "";
    const fromCode = pyVersionFromCode(code);
    if (fromCode) return { version: { ...fromCode, detail: fromCode.detail + pin } };
    const why = code.unmatched ?? `${code.packagePath}'s code dates it before the Python registries (${code.decidedBy?.what ?? "TOML-era config classes"})`;
    return { version: { value: parsePyVersion(PY_DEFAULT_VERSION)!, source: "workspace-code", kind: "inferred", detail: `the workspace's torchtitan code matches no known Python-era state (${why}); assuming ${PY_DEFAULT_VERSION}${pin}` } };
  }
  if (inferred.outsideTomlEra) {
    const v = parsePyVersion(inferred.outsideTomlEra.pin);
    if (v) return { version: { value: v, source: "workspace-pin", kind: "workspace-pin", detail: `torchtitan ${inferred.outsideTomlEra.pin} pinned in ${inferred.outsideTomlEra.file}`, ...(inferred.location ? { location: inferred.location } : {}) } };
  }
  const def: Sourced<PyVersion> = { value: parsePyVersion(PY_DEFAULT_VERSION)!, source: "default", kind: "default", detail: `no torchtitan pin in the workspace; assuming ${PY_DEFAULT_VERSION} (modelled as main from #4597, 2026-09-11; that release is not verified)` };
  if (inferred.source === "workspace-pin" && !inferred.outsideTomlEra) return { version: def, tomlPin: inferred.detail };
  return { version: def };
}

/**
 * The version the workspace's torchtitan code dates a registry to: the start of the code's window within the
 * Python era (its mechanism period, eras.ts). Known (`workspace-code`) when the models' parallelize are upstream's;
 * when the fork rewrote one, the era's mechanism does not describe the run: the version is then an inference, so
 * findings resting on it are capped, and the detail says what differs.
 */
/** A Python-era version fact; `window`: the dates a fork's code allows (workspace/forkCode.ts). */
export type PySourcedVersion = Sourced<PyVersion> & { window?: { from?: string; until?: string } };

export function pyVersionFromCode(code: ForkCode): PySourcedVersion | undefined {
  if (!code.window || !code.decidedBy) return undefined;
  const until = code.window.until;
  if (until !== undefined && until <= PY_FIRST_DATE) return undefined;
  const from = code.window.from < PY_FIRST_DATE ? PY_FIRST_DATE : code.window.from;
  // The newest release inside the window, else its first day (the mechanism is the same across the window).
  const release = Object.keys(PY_RELEASES).filter((id) => PY_RELEASES[id]!.date >= from && (until === undefined || PY_RELEASES[id]!.date < until)).pop();
  const v = release ? parsePyVersion(release) : parsePyVersion(`main@${from}`);
  if (!v) return undefined;
  const span = `main ${from}${until ? ` … ${until}` : " or later"}`;
  const differs = parallelizeNote(code);
  return {
    value: v,
    source: "workspace-code",
    kind: code.parallelize.length ? "inferred" : "workspace-code",
    detail: `${span}, dated by the workspace's torchtitan code: ${code.decidedBy.file} (${code.decidedBy.fn}): ${code.decidedBy.what}${differs}`,
    // The dates the code allows: what changed inside them (a field removed) is not certain for this fork.
    window: { from, ...(until ? { until } : {}) },
    location: code.decidedBy.location,
  };
}

export interface Override {
  key: string;
  raw: string;
  file: string;
  location: { uri: string; range: Range };
}

export interface Launch {
  worldSize?: Sourced<number>;
  overrides: Override[];
  /** The script that launches the function and every `--section.option value` on its launching lines, as written
   * (fields the version lacks included): `check --format json`'s `launch` (the registry oracle hands them to tyro). */
  script?: string;
  flags?: string[];
}

/**
 * Run scripts and slurm files (next to the module or above it) that launch this config function
 * (`CONFIG=fn`, `--config fn`, `--config=fn`): their NGPU / torchrun world size and `--section.option` flags.
 */
export function launchOf(fnName: string, env: AnalysisEnv): Launch {
  const out: Launch = { overrides: [] };
  if (!env.documentPath || noLaunchScripts(env)) return out;
  for (const { path, name, text } of launchScripts(env, fnName, true)) {
    {
      // Built only for a function that has a run script (most have none).
      const needle = passesConfig(fnName);
      const file = displayPath(path, env);
      out.script = file;
      out.flags = [];
      const ws = worldSizeFromScript(text, fnName);
      if (ws && ws.value <= MAX_WORLD_SIZE && !out.worldSize) {
        const slurm = /^#SBATCH\b/m.test(text) || /\.(slurm|sbatch)$/i.test(name);
        out.worldSize = { value: ws.value, source: slurm ? "slurm" : "run-script", kind: slurm ? "slurm" : "run-script", detail: `${ws.detail} in ${file}`, ...(ws.line !== undefined ? { location: lineLocation(path, text, ws.line) } : {}) };
      }
      const lines = text.split(/\r?\n/);
      lines.forEach((line, i) => {
        if (!needle.test(line) && !/run_train|torchtitan\.train/.test(line)) return;
        // tyro takes `--section.option` with `_` or `-` alike (`--parallelism.tensor-parallel-degree 8`, checked with
        // torchtitan 0.3.0's ConfigManager): the field is the name with `-` read as `_`.
        // A value never starts with `--` (that is the next flag) nor is a line continuation: a boolean field is a
        // flag without a value in tyro (`--compile.enable`, `--compile.no-enable`), so `--compile.enable
        // --parallelism.tensor_parallel_degree 8` is two flags (checked with torchtitan 0.3.0's ConfigManager).
        const flag = /--([a-z_-]+)\.([a-z_-]+)(?:(?:=|[ \t]+)(?!--|\\(?:\s|$))("[^"\n]*"|'[^'\n]*'|[^\s"']+))?/g;
        let m: RegExpExecArray | null;
        while ((m = flag.exec(line)) && out.overrides.length < 64) {
          const sec = m[1]!.replace(/-/g, "_");
          let opt = m[2]!.replace(/-/g, "_");
          if (m[3] === undefined) {
            // a bare flag: a boolean set to true, or its `no-` form to false; any other field's bare flag is not read
            if (out.flags!.length < 128) out.flags!.push(`--${m[1]}.${m[2]}`);
            const neg = opt.startsWith("no_") && pyField(sec, opt.slice(3))?.type === "bool";
            if (neg) opt = opt.slice(3);
            if (pyField(sec, opt)?.type !== "bool") continue;
            out.overrides.push({ key: `${sec}.${opt}`, raw: neg ? "false" : "true", file, location: lineLocation(path, text, i) });
            continue;
          }
          const key = `${sec}.${opt}`;
          const raw = m[3].replace(/^["']|["']$/g, "");
          if (out.flags!.length < 128) out.flags!.push(`--${m[1]}.${m[2]}`, raw);
          if (!pyField(sec, opt)) continue;
          out.overrides.push({ key, raw, file, location: lineLocation(path, text, i) });
        }
      });
      return out;
    }
  }
  return out;
}

/** A field set in the function that the targeted version no longer has. */
export interface RemovedField {
  key: string;
  range: Range;
  since: string;
  by: string;
}

export interface PyResolution {
  evaluated: EvaluatedConfig;
  /** Fields set that the version no longer has (not read; the removed-setting rule reports them). */
  removedFields: RemovedField[];
  /** The fields after the run script's overrides. */
  fields: Map<string, FieldValue & { override?: Override }>;
  view: ConfigDocument;
  worldSize: Sourced<number>;
  dims: DimsResolution;
  layout: ParallelLayout;
  layoutName: string;
  decision: MechanismDecision;
  /** The options the era's decide() was called with (the model family, the date), as for a TOML file. */
  decideOptions: DecideOptions;
  /** The model the function builds (`model_registry("8B")` in `torchtitan.models.<name>`), when known. */
  modelName?: string;
  knobs: PrecisionKnobs;
  precision?: ResolvedPrecision;
  optimizerState: { dtype: DType | null; knob: string };
  /** The engine's input for this function's step (absent when the launch fails or a dtype is not one torch knows). */
  simulationInput?: SimulationInput;
  /** The GPU type the throughput and memory estimates use (--gpu > directive > setting > default). */
  gpu: Sourced<GpuId>;
  /** The run script that launches this function and its flags as written (Launch.script / flags), when there is one. */
  launch?: { script: string; flags: string[] };
  /** Run-script flags tyro rejects at this version (a value outside the field's Literal): the launch fails. */
  rejectedFlags?: { override: Override; choices: readonly string[] }[];
  /** What the picture rests on that is not written in the file, flags or scripts (user-facing). */
  assumptions: string[];
}

/** `launch` is read once and reused by the what-if matrix, which resolves one function many times. */
export function resolveConfig(ev: EvaluatedConfig, doc: ConfigDocument, version: PyVersion, settings: AnalysisSettings, env: AnalysisEnv, directives: Directive[], launch: Launch = launchOf(ev.fn.name, env)): PyResolution {
  const fields = new Map<string, FieldValue & { override?: Override }>(ev.fields);
  const rejected: { override: Override; choices: readonly string[] }[] = [];
  for (const o of launch.overrides) {
    const base = fields.get(o.key);
    if (!base) continue;
    // tyro types the flag by the field's annotation: a value outside a Literal's choices exits with status 2
    // ("invalid choice", checked with tyro 1.0.17), so the run never starts (issue #30 §3).
    const choices = choicesAt(base.spec, version.date);
    if (choices && !choices.includes(o.raw)) {
      rejected.push({ override: o, choices });
      continue;
    }
    const value = base.spec.type === "int" || base.spec.type === "float" ? Number(o.raw) : base.spec.type === "bool" ? o.raw === "true" || o.raw === "True" : o.raw;
    fields.set(o.key, { ...base, state: "set", value, override: o });
  }
  // A field the version no longer has (ETP from 2026-04-30) is not read: reported by removed-setting, not used.
  const removedFields: RemovedField[] = [];
  for (const [key, f] of fields) {
    if (f.state !== "set" || !f.spec.until || version.date < f.spec.until) continue;
    removedFields.push({ key, range: f.origin ? (f.origin.file === doc.uri ? f.origin.range : f.origin.anchor) : ev.fn.nameRange, since: f.spec.until, by: f.spec.removedBy ?? "" });
  }
  const view = viewOf(doc, ev, removedFields.length ? new Map([...fields].filter(([k]) => !removedFields.some((r) => r.key === k))) : fields);
  const read = readDims(view);
  const assumptions: string[] = [];
  for (const f of DIM_FIELDS) {
    const [sec, key] = DIM_KEYS[f];
    const fv = fields.get(`${sec}.${key}`);
    if (fv?.state === "unknown") assumptions.push(`\`${sec}.${key}\` is not known (${fv.why}); its default ${String(fv.spec.default)} is assumed`);
  }
  for (const k of ["training.dtype", "training.mixed_precision_param", "training.mixed_precision_reduce", "optimizer.implementation"]) {
    const fv = fields.get(k);
    if (fv?.state === "unknown") assumptions.push(`\`${k}\` is not known (${fv.why}); its default ${String(fv.spec.default)} is assumed`);
  }
  // The same ParallelDims checks as a TOML file's at that date (the expert mesh factoring from 2025-12-17 on).
  const dimsOptions = { epDivisibility: version.date >= EP_DATE && version.date < MESH_UNFLATTEN_DATE, epMesh: version.date >= MESH_UNFLATTEN_DATE };
  const worldSize = notContradicting(worldSizeOf(doc, ev.fn.name, read.configured, settings, directives, launch, fields), read.configured, (w) => resolveDims(read, w, dimsOptions).errors.length === 0);
  if (worldSize.source === "default") assumptions.push(`the world size is ${worldSize.value} (${worldSize.detail})`);
  for (const n of ev.notFollowed) assumptions.push(`not followed: ${n.what} \`${n.text}\`${n.via ? ` in ${n.via}()` : ""} (line ${n.range.start.line + 1}${n.file === doc.uri ? "" : ` of ${n.file}`})`);
  const dims = resolveDims(read, worldSize.value, dimsOptions);
  const layout: ParallelLayout = dims.resolved ?? { ...dims.configured, dp_shard: dims.configured.dp_shard < 0 ? 1 : dims.configured.dp_shard };
  const era = eraForDate(version.date);
  const modelName = ev.model?.name;
  // The model decides the same launch checks as for a TOML file's `model.name`.
  const decideOptions: DecideOptions = modelDecideOptions(modelName, version.date);
  const flagError = rejected[0];
  const decided: MechanismDecision = flagError
    ? { mechanism: "error", reason: "tyro rejects a flag of the run script", logs: [], error: `tyro rejects --${flagError.override.key} ${flagError.override.raw} in ${flagError.override.file} (choices at ${version.id}: ${flagError.choices.map((c) => `"${c}"`).join(", ")}); the launch exits with status 2`, ddp: false }
    : dims.resolved
    ? era.decide(dims.resolved, worldSize.value, decideOptions)
    : { mechanism: "error", reason: "the parallel dims fail torchtitan's validation", logs: [], error: dims.errors[0]?.message ?? "invalid parallel dims", ddp: false };
  // Trainer.Config's model_spec has no default (trainer.py@e51a77d27:66, asserted not None): a function whose
  // model is not read may build any model, and whether DDP beside TP/PP raises depends on it (eras.ts ddpChecksWorld).
  const decision: MechanismDecision = modelName === undefined && decided.error === DDP_ERROR ? { ...decided, modelAssumed: true } : decided;
  const knobs = readKnobs(view, version.date);
  let precision = resolvePrecision(decision, knobs, layout);
  const oneDevice = layout.dp_replicate * layout.dp_shard * layout.cp * layout.tp * layout.pp === 1;
  const noDp = layout.dp_replicate * layout.dp_shard * layout.cp === 1;
  if (precision && oneDevice && decision.mechanism === "fully_shard") precision = { ...precision, gradReduce: { dtype: null, knob: "one device: no gradient reduction (FSDP2 on a size-1 mesh)" } };
  else if (precision && noDp && decision.mechanism === "fully_shard") precision = { ...precision, gradReduce: { dtype: null, knob: "no data-parallel gradient reduction (dp_replicate × dp_shard × cp = 1); FSDP2 runs on a size-1 mesh" } };
  // A dtype the evaluation could not read (a helper not followed, an expression not evaluated) is shown as not
  // known (null, the knob says why), never as the default it would have without the helper.
  if (precision) precision = uncertainDtypes(precision, fields, ev);
  const impl = fields.get("optimizer.implementation");
  const storage = knobs.trainingDtype.dtype ?? null;
  const optimizerState =
    impl?.value === "fused_opt_states_bf16" && version.date >= BF16_STATES_DATE
      ? { dtype: "bfloat16" as DType, knob: 'optimizer.implementation = "fused_opt_states_bf16" (Adam/AdamW exp_avg and exp_avg_sq in bf16; 0610235bb #2732)' }
      : precision?.paramStorage.dtype === null && / not known: /.test(precision.paramStorage.knob)
        ? { dtype: null, knob: "training.dtype is not known: Adam/AdamW states follow the parameter dtype" }
        : { dtype: storage, knob: storage === "bfloat16" ? "training.dtype = bfloat16: states follow the bf16 parameters" : "training.dtype: Adam/AdamW states follow the parameter dtype" };
  const gpu = resolveGpu(settings, directives, [], undefined, undefined, hardwareInFolder(env.documentPath ?? doc.uri));
  // A storage or compute dtype the evaluation could not read is not simulated as its default (the step would
  // show fp32 where the function may set bf16): no simulation, the report says why.
  const uncertain = !!precision && [precision.paramStorage, precision.compute].some((x) => x.dtype === null && / not known: /.test(x.knob));
  const simulationInput =
    !uncertain && dims.resolved && decision.mechanism !== "error" && knobs.param.dtype && knobs.reduce.dtype && knobs.trainingDtype.dtype
      ? pySimulationInput(view, ev, fields, { mechanism: decision.mechanism, layout: dims.resolved, ddp: decision.ddp, mechanismReason: decision.reason, paramDtype: knobs.param.dtype, reduceDtype: knobs.reduce.dtype, trainingDtype: knobs.trainingDtype.dtype, versionDate: version.date }, gpu.value)
      : undefined;
  if (simulationInput && optimizerState.dtype && optimizerState.dtype !== knobs.trainingDtype.dtype) simulationInput.optimizerStateDtype = optimizerState.dtype;
  return { ...(launch.script ? { launch: { script: launch.script, flags: launch.flags ?? [] } } : {}), ...(rejected.length ? { rejectedFlags: rejected } : {}), evaluated: ev, removedFields, fields, view, worldSize, dims, layout, layoutName: layoutName(dims.resolved ?? layout), decision, decideOptions, ...(modelName ? { modelName } : {}), knobs, ...(precision ? { precision } : {}), optimizerState, ...(simulationInput ? { simulationInput } : {}), gpu, assumptions };
}

/**
 * A default world size never contradicts the function (as for a TOML file, issue #17): when run_train.sh's 8 GPUs
 * fail the degrees' validation (EP 16 beside dp_shard -1), the world size is the smallest one they allow, an
 * inference; multiples of the fixed degrees, at most 4,096 tried.
 */
function notContradicting(ws: Sourced<number>, c: ParallelLayout, consistent: (w: number) => boolean): Sourced<number> {
  if (ws.source !== "default" || consistent(ws.value)) return ws;
  const rest = c.dp_replicate * Math.max(1, c.dp_shard) * c.cp * c.tp * c.pp;
  if (!(rest > 0) || !Number.isSafeInteger(rest)) return ws;
  for (let k = 1; k <= 4096 && rest * k <= MAX_WORLD_SIZE; k++) {
    if (consistent(rest * k)) return { value: rest * k, source: "degrees", kind: "inferred", detail: `≥ ${rest * k}, from the degrees (the smallest world size they allow; run_train.sh's 8 fails them)` };
  }
  return ws;
}

/** A field whose value the evaluation does not know: `unknown`, or left at its default after a statement not followed. */
function uncertainWhy(f: FieldValue | undefined, ev: EvaluatedConfig): string | undefined {
  if (!f) return undefined;
  if (f.state === "unknown") return f.why ?? "not evaluated";
  if (f.state === "default" && ev.notFollowed.length) return `a statement not followed (${ev.notFollowed[0]!.what} \`${ev.notFollowed[0]!.text.slice(0, 40)}\`) may set it`;
  return undefined;
}

function uncertainDtypes(p: ResolvedPrecision, fields: Map<string, FieldValue>, ev: EvaluatedConfig): ResolvedPrecision {
  const out = { ...p };
  const storage = uncertainWhy(fields.get("training.dtype"), ev);
  if (storage) out.paramStorage = { dtype: null, knob: `training.dtype not known: ${storage}` };
  const param = uncertainWhy(fields.get("training.mixed_precision_param"), ev);
  if ((param || storage) && p.compute.dtype !== null) out.compute = { dtype: null, knob: `${param ? `training.mixed_precision_param not known: ${param}` : `training.dtype not known: ${storage}`}` };
  const reduce = uncertainWhy(fields.get("training.mixed_precision_reduce"), ev);
  if (reduce && p.gradReduce.dtype !== null) out.gradReduce = { dtype: null, knob: `training.mixed_precision_reduce not known: ${reduce}` };
  return out;
}

/** 6348d93d1 (#3127): the float8 linear converter's default recipe is rowwise. */
const FLOAT8_ROWWISE_DATE = "2026-04-27";

/** #2900's companion (2026-04-08): the LLM parallelize functions pass cast_forward_inputs=False to fully_shard. */
const NO_CAST_FORWARD_INPUTS_DATE = "2026-04-08";

/**
 * The engine's input for one config function: the same reading as a TOML file's (engine/fromConfig.ts) over
 * the evaluated fields, plus what a Python config says elsewhere: the model of `model_registry("8B")`, the
 * activation-checkpoint class, the converters, main's token-count batch fields.
 */
function pySimulationInput(view: ConfigDocument, ev: EvaluatedConfig, fields: Map<string, FieldValue>, decided: DecidedInputs, gpu: GpuId): SimulationInput {
  const at = ev.fn.nameRange;
  const extra: ConfigEntry[] = [];
  const add = (path: string[], v: string | number | string[]): void => {
    const value: ConfigValue = Array.isArray(v) ? { kind: "array", value: v, range: at, items: v.map((x) => ({ kind: "string", value: x, range: at })) } : typeof v === "string" ? { kind: "string", value: v, range: at } : { kind: "integer", value: v, range: at };
    extra.push({ path, keyRange: at, range: at, value });
  };
  if (ev.model?.name) add(["model", "name"], ev.model.name);
  if (ev.model?.flavor) add(["model", "flavor"], ev.model.flavor);
  const ac = ev.activationCheckpoint.mode;
  if (["none", "full", "selective", "memory_budget"].includes(ac)) add(["activation_checkpoint", "mode"], ac);
  if (Array.isArray(ev.converters) && ev.converters.some((c) => c.kind === "float8 linear")) add(["model", "converters"], ["quantize.linear.float8"]);
  // main after release/0.3: tokens per microbatch and the context length stand for local_batch_size × seq_len.
  const tokens = fields.get("training.num_tokens_per_microbatch_per_dp_rank");
  const ctxLen = fields.get("training.max_context_length");
  if (tokens?.state === "set" || ctxLen?.state === "set") {
    const t = Number(tokens?.value ?? tokens?.spec.default);
    const c = Number(ctxLen?.value ?? ctxLen?.spec.default);
    if (Number.isInteger(t) && Number.isInteger(c) && c > 0 && t >= c) {
      add(["training", "seq_len"], c);
      add(["training", "local_batch_size"], Math.floor(t / c));
    }
  }
  const doc: ConfigDocument = { ...view, entries: [...view.entries.filter((e) => !extra.some((x) => x.path.join(".") === e.path.join("."))), ...extra] };
  const input = simulationInputFromConfig(doc, decided);
  // 6348d93d1 (#3127, 2026-04-27): Float8LinearConverter.Config's recipe_name defaults to "rowwise"
  // (release/0.3 4f9e9a47d components/quantization/float8.py:58); before it, None (tensorwise).
  if (input.float8 && !input.float8.recipe && (decided.versionDate ?? "") >= FLOAT8_ROWWISE_DATE) input.float8.recipe = "rowwise";
  // Float8Linear raises on a GPU below SM 8.9 (float8.py@e51a77d27:74): no fp8 GEMM runs there (the launch fails).
  if (input.float8 && !hasCudaCapability(GPUS[gpu], 8, 9)) delete input.float8;
  input.castForwardInputs = decided.versionDate === undefined || decided.versionDate < NO_CAST_FORWARD_INPUTS_DATE;
  input.gpu = gpu;
  return input;
}

/**
 * The world size by precedence (CLI flag > directive > setting; workspace/precedence.ts), where at each level one
 * that names this function wins over one that does not: `--world-size llama3_70b=64`,
 * `# precision-lens: world-size=64@llama3_70b` (any line of the file), precisionLens.worldSizeByFunction.
 */
function worldSizeOf(doc: ConfigDocument, fn: string, configured: ParallelLayout, settings: AnalysisSettings, directives: Directive[], launch: Launch, fields: Map<string, FieldValue>): Sourced<number> {
  const ok = (n: number | null | undefined): n is number => typeof n === "number" && n > 0 && n <= MAX_WORLD_SIZE;
  const byFn = settings.worldSizeByFunction?.[fn];
  if (settings.origin === "cli" && ok(byFn)) return { value: byFn, source: "cli", kind: "cli", detail: `--world-size ${fn}=${byFn}` };
  if (settings.origin === "cli" && ok(settings.worldSize)) return { value: settings.worldSize, source: "cli", kind: "cli", detail: `--world-size ${settings.worldSize}` };
  for (const d of directives) {
    const m = d.key === "world-size" ? /^(\d{1,7})@([A-Za-z_][A-Za-z0-9_]*)$/.exec(d.value) : null;
    if (m && m[2] === fn && ok(Number(m[1]))) return { value: Number(m[1]), source: "directive", kind: "directive", detail: `\`# precision-lens: world-size=${d.value}\` on line ${d.line + 1}`, location: { uri: doc.uri, range: d.range } };
  }
  const d = directives.find((x) => x.key === "world-size" && !x.value.includes("@"));
  const n = d && /^\d+$/.test(d.value) ? Number(d.value) : NaN;
  if (d && Number.isInteger(n) && n > 0 && n <= MAX_WORLD_SIZE) return { value: n, source: "directive", kind: "directive", detail: `\`# precision-lens: world-size=${n}\` on line ${d.line + 1}`, location: { uri: doc.uri, range: d.range } };
  if (ok(byFn)) return { value: byFn, source: "setting", kind: "setting", detail: `precisionLens.worldSizeByFunction.${fn} = ${byFn}` };
  if (settings.worldSize && settings.worldSize > 0 && settings.worldSize <= MAX_WORLD_SIZE) return { value: settings.worldSize, source: "setting", kind: "setting", detail: `precisionLens.worldSize = ${settings.worldSize}` };
  if (launch.worldSize) return launch.worldSize;
  const explicit = DIM_FIELDS.filter((f) => f !== "etp").every((f) => fields.get(DIM_KEYS[f].join("."))?.state !== "unknown");
  if (explicit && configured.dp_shard !== -1) {
    const product = configured.dp_replicate * configured.dp_shard * configured.cp * configured.tp * configured.pp;
    if (product > 0 && product <= MAX_WORLD_SIZE) return { value: product, source: "degrees", kind: "file", detail: `product of the parallel degrees (${product})` };
  }
  // run_train.sh: NGPU=${NGPU:-"8"} (run_train.sh@b5bcd76c6:29).
  return { value: 8, source: "default", kind: "default", detail: "run_train.sh default (NGPU=8)" };
}

/** The evaluated fields as document entries, each anchored where the analysed file sets it (or the def line). */
function viewOf(doc: ConfigDocument, ev: EvaluatedConfig, fields: Map<string, FieldValue>): ConfigDocument {
  const entries: ConfigEntry[] = [];
  for (const spec of PY_FIELDS) {
    const f = fields.get(`${spec.section}.${spec.key}`);
    if (!f || f.state !== "set" || f.value === undefined) continue;
    const range = f.origin ? (f.origin.file === doc.uri ? f.origin.range : f.origin.anchor) : ev.fn.nameRange;
    const v = f.value;
    const value: ConfigValue = Array.isArray(v)
      ? { kind: "array", value: v, range, items: v.map((x) => ({ kind: "string", value: x, range })) }
      : { kind: v === null ? "null" : typeof v === "string" ? "string" : typeof v === "boolean" ? "boolean" : Number.isInteger(v) ? "integer" : "float", value: v, range };
    entries.push({ path: [spec.section, spec.key], keyRange: range, range, value });
  }
  return { ...doc, entries, sections: [] };
}
