/**
 * One analysis, two formats (issue #30 §1): a resolved torchtitan config function becomes the same
 * format-neutral `TitanContext` a TOML file does (degrees, knobs, model, converters, version, world size, GPU,
 * each with its provenance), and the SAME rule list (`rules/index.ts` TITAN_RULES) runs over it. A rule is scoped
 * by the behaviour it models (era, layout, model), never by the file format.
 *
 * What differs is only where a finding points and how a fix edits:
 *  - the view's entries are anchored at the literal that set each value (or at the call site of the helper that
 *    did, or at the function's name), so a rule's range is the literal's;
 *  - a fix is kept only when every edit replaces an in-file literal (a TOML insertion has no place in Python),
 *    and `true`/`false` become `True`/`False`;
 *  - every finding also rests on `evaluation` (the function as the static evaluator read it: `inferred` when a
 *    field it reads is not known or a statement was not followed), so an error on a guess is capped.
 *
 * The TOML key-schema rules (unknown, moved, removed, deprecated keys; a value's TOML type; the fork note) read a
 * TOML file's keys against the TOML releases' schema: a Python config's fields are typed by the evaluator's own
 * table (python/schema.ts), so those rules do not apply to it (`TOML_SCHEMA_RULES`); a field a version no longer
 * has is reported by rules/removed-setting.ts from `removedSettings`.
 */
import type { AnalysisSettings, AnalysisEnv, Sourced } from "../../../analysis";
import type { Directive } from "../../../diagnostics/directives";
import type { ConfigDocument, ConfigEntry, ConfigSection, ConfigValue } from "../../../model/document";
import type { Diagnostic, Fix, Range, TextEdit } from "../../../model/types";
import { gateDiagnostics, restsOnOf, restingOn, type Facts, type FactValue } from "../../../provenance";
import type { TitanContext, TitanRule } from "../context";
import { eraForDate } from "../eras";
import { titanFacts } from "../analyzer";
import { TITAN_RULES } from "../rules/index";
import { robustOverVersions } from "../robust";
import { deprecatedKey, extensionSectionWithoutModule, movedKey, removedKey, unknownKey, unknownSection } from "../rules/unknown-key";
import { invalidValue, wrongType } from "../rules/wrong-type";
import { forkConfig } from "../rules/fork-config";
import type { TitanVersion } from "../versions";
import type { PyResolution, PySourcedVersion, PyVersion } from "./context";
import type { FieldValue } from "./evaluate";
import type { Simulation } from "../../../engine/types";
import { table } from "../../../model/table";

/** The rules that check a TOML file's keys against the TOML releases' schema (not a Python config's). */
export const TOML_SCHEMA_RULES: readonly TitanRule[] = [unknownKey, unknownSection, movedKey, removedKey, deprecatedKey, extensionSectionWithoutModule, forkConfig, wrongType, invalidValue];

/** The rules a Python config function runs: every torchtitan rule but the TOML key-schema ones. */
export const PY_TITAN_RULES: readonly TitanRule[] = TITAN_RULES.filter((r) => !TOML_SCHEMA_RULES.includes(r));

const SECTIONS = ["training", "parallelism", "optimizer", "compile", "model", "float8", "mx", "quantize", "activation_checkpoint", "checkpoint", "job"];

/** The Python-era version as the TOML rooms read it (its era from the date; its key set is not the TOML one). */
export function titanVersionOf(v: PyVersion): TitanVersion {
  return { id: v.id, date: v.date, era: eraForDate(v.date), schemaRelease: "v0.2.2", whatIf: false };
}

/**
 * The format-neutral context of one config function. Sections that the function does not write are anchored at
 * the function's name (a diagnostic about a value it leaves at its default points at the function).
 */
export function pyTitanContext(r: PyResolution, version: PySourcedVersion, settings: AnalysisSettings, env: AnalysisEnv, directives: Directive[], simulation: Simulation | undefined): TitanContext {
  const at = r.evaluated.fn.nameRange;
  const sections: ConfigSection[] = SECTIONS.map((s) => ({ path: [s], headerRange: at, range: at }));
  const doc: ConfigDocument = { ...r.view, sections, entries: [...r.view.entries, ...converterEntries(r, at)] };
  const { overrides, ...rest } = version;
  const v: Sourced<TitanVersion> = { ...rest, value: titanVersionOf(version.value), ...(overrides ? { overrides: overrides.map((o) => ({ ...o, value: titanVersionOf(o.value) })) } : {}) };
  return {
    doc,
    settings,
    env,
    directives,
    version: v,
    worldSize: r.worldSize,
    dims: r.dims,
    layout: r.layout,
    layoutName: r.layoutName,
    decision: r.decision,
    decideOptions: r.decideOptions,
    knobs: r.knobs,
    precision: r.precision,
    gpu: r.gpu,
    ...(r.modelName ? { modelName: r.modelName } : {}),
    ...(r.simulationInput ? { simulationInput: r.simulationInput } : {}),
    ...(simulation ? { simulation } : {}),
    ...(r.removedFields.length ? { removedSettings: r.removedFields } : {}),
    ...(r.rejectedFlags?.length ? { rejectedFlags: r.rejectedFlags.map(({ override: o, choices }) => ({ key: o.key, raw: o.raw, file: o.file, location: o.location, choices, at })) } : {}),
  };
}

/**
 * The function's converters (`Float8LinearConverter.Config()` …) as the TOML-era names the quantize rules read
 * (`model.converters`), each item at its constructor call in this file (or the call site that reaches it).
 */
const CONVERTER_NAMES: Readonly<Record<string, string>> = table({
  "Float8LinearConverter.Config": "quantize.linear.float8",
  "MXFP8LinearConverter.Config": "quantize.linear.mx",
  "Float8GroupedMMConverter.Config": "quantize.grouped_mm.float8",
  "MXFP8GroupedMMConverter.Config": "quantize.grouped_mm.mx",
});

function converterEntries(r: PyResolution, at: Range): ConfigEntry[] {
  const conv = r.evaluated.converters;
  if (!Array.isArray(conv)) return [];
  const items: ConfigValue[] = [];
  for (const c of conv) {
    const name = CONVERTER_NAMES[c.name];
    if (!name) continue;
    const range = c.origin.file === r.view.uri ? c.origin.range : c.origin.anchor;
    items.push({ kind: "string", value: name, range });
  }
  if (!items.length) return [];
  return [{ path: ["model", "converters"], keyRange: at, range: at, value: { kind: "array", value: items.map((i) => i.value as string), range: at, items } }];
}

const DIM_KEYS_PY = ["data_parallel_replicate_degree", "data_parallel_shard_degree", "context_parallel_degree", "tensor_parallel_degree", "pipeline_parallel_degree", "expert_parallel_degree"].map((k) => `parallelism.${k}`);
const DTYPE_KEYS_PY = ["training.dtype", "training.mixed_precision_param", "training.mixed_precision_reduce"];
/** The fields a code's verdict reads (its `evaluation` fact is `inferred` when one of them is not known). */
const DTYPE_CODES = new Set(["unknown-dtype", "float16-without-grad-scaler", "reduce-dtype-not-allowed", "pure-bf16", "bf16-storage-fp32-compute"]);

function fieldsOf(code: string): readonly string[] {
  if (DTYPE_CODES.has(code)) return DTYPE_KEYS_PY;
  return [...DIM_KEYS_PY, ...DTYPE_KEYS_PY, "optimizer.implementation"];
}

/**
 * The `evaluation` fact of a finding: how the fields it reads are known. `inferred` when one of them is not
 * known (a base not followed, an expression not evaluated) or a statement of the function was not followed (a
 * loop could change any field); `run-script` when a flag sets one; otherwise `file`.
 */
export function evaluationFact(r: PyResolution, keys: readonly string[]): FactValue {
  const fn = r.evaluated.fn.name;
  // The evaluation ran out of its budget (issue #33): nothing it read is certain.
  if (r.evaluated.tooComplex) return { value: fn, kind: "inferred", detail: `${fn}() is ${r.evaluated.tooComplex}` };
  for (const k of keys) {
    const f = r.fields.get(k);
    if (f?.state === "unknown") return { value: fn, kind: "inferred", detail: `${k} not known` };
  }
  const nf = r.evaluated.notFollowed;
  if (nf.length) return { value: fn, kind: "inferred", detail: `${nf[0]!.what} on line ${nf[0]!.range.start.line + 1} not followed` };
  const flag = keys.map((k) => r.fields.get(k)).find((f) => f?.override);
  if (flag?.override) return { value: fn, kind: "run-script", detail: `set by a flag in ${flag.override.file}` };
  return { value: fn, kind: "file", detail: `every statement of ${fn}() followed` };
}

/** The facts of one function: the TOML ones (world size, version, GPU, model) with the function's version. */
export function pyTitanFacts(ctx: TitanContext): Facts {
  const facts = titanFacts(ctx);
  // A function whose model_spec is not read builds a model the analysis does not know (no default model).
  if (!ctx.modelName) facts.model = { value: "llama3", kind: "inferred", detail: "model_spec not read; checked like llama3" };
  return facts;
}

/** Runs the shared rule list over one config function: ranges at its literals, fixes that edit them, facts gated. */
export function pyTitanDiagnostics(ctx: TitanContext, r: PyResolution, rules: readonly TitanRule[] = PY_TITAN_RULES): Diagnostic[] {
  const facts = pyTitanFacts(ctx);
  const literals = literalRanges(r, ctx.doc.uri);
  const out: Diagnostic[] = [];
  for (const rule of rules) {
    const found = robustOverVersions(ctx, rule.run(ctx), rule);
    for (const d of found) {
      restingOn(d, [...restsOnOf(d, rule), "evaluation"]);
      pythonFixes(d, literals);
    }
    for (const d of found) out.push(...gateDiagnostics([d], rule, { ...facts, evaluation: evaluationFact(r, fieldsOf(d.code)) }));
  }
  return out;
}

/**
 * Where a fix may edit, per place a finding's edit can point at (a field's origin): only what belongs to this
 * config (issue #33). The literal itself, or an expression in this function's own body; for a value passed to a
 * shared helper's parameter, the literal at the call site (the edit moves there), never the parameter; otherwise
 * nothing. Keyed by the origin's range; the value is the range the edit really replaces.
 */
function literalRanges(r: PyResolution, uri: string): Map<string, Range> {
  const out = new Map<string, Range>();
  for (const f of r.fields.values()) {
    if (f.state !== "set" || f.override || !f.origin) continue;
    const at = fixRange(f.origin, r, uri);
    if (at && f.origin.file === uri) out.set(key(f.origin.range), at);
  }
  return out;
}

function fixRange(o: NonNullable<FieldValue["origin"]>, r: PyResolution, uri: string): Range | undefined {
  const lit = o.literal && o.literal.file === uri ? o.literal.range : undefined;
  if (o.file === uri && ((lit && key(lit) === key(o.range)) || within(o.range, r.evaluated.fn.range))) return o.range;
  return lit;
}

function within(inner: Range, outer: Range): boolean {
  const le = (a: Range["start"], b: Range["start"]): boolean => a.line < b.line || (a.line === b.line && a.character <= b.character);
  return le(outer.start, inner.start) && le(inner.end, outer.end);
}

function key(range: Range): string {
  return `${range.start.line}:${range.start.character}:${range.end.line}:${range.end.character}`;
}

/** Keeps the fixes whose every edit replaces one of the function's own literals, in Python spelling. */
function pythonFixes(d: Diagnostic, literals: Map<string, Range>): void {
  const fixes = d.data?.fixes;
  if (!fixes?.length || !d.data) return;
  const kept: Fix[] = [];
  for (const f of fixes) {
    if (!f.edits.every((e) => literals.has(key(e.range)))) continue;
    kept.push({ ...f, edits: f.edits.map((e) => pyEdit({ range: literals.get(key(e.range))!, newText: e.newText })) });
  }
  if (kept.length) d.data.fixes = kept;
  else delete d.data.fixes;
  if (!d.data.fixes && !d.data.facts) delete d.data;
}

function pyEdit(e: TextEdit): TextEdit {
  const t = e.newText === "true" ? "True" : e.newText === "false" ? "False" : e.newText;
  return { range: e.range, newText: t };
}
