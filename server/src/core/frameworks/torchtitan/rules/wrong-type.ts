/**
 * invalid-value: A value outside the key's allowed set or range.
 *
 * wrong-type: A value of the wrong type for its key.
 *
 * Values against the schema of the targeted release (spec torchtitan.md §2.1, §4.2):
 *  - wrong-type: the TOML value's type does not match the annotation (torchtitan does not type-check
 *    TOML values; tyro only warns, and the run fails or misbehaves later). Error; a warning for 0/1 as a
 *    bool. Fixes: unquote a quoted number/bool, wrap a single string in a list.
 *  - invalid-value: a string outside the declared choices (error where torchtitan raises at launch,
 *    otherwise a warning: accepted with a tyro warning), a number below the key's minimum,
 *    an invalid selective_ac_option, an empty context_parallel_load_balancer.
 * The precision dtype knobs and the parallel degrees are checked by their own rules and skipped here.
 */
import { detailIfLonger, diag, firstFitting, fitMessage, fix } from "../../../diagnostics/build";
import type { ConfigEntry, ConfigValue } from "../../../model/document";
import type { Diagnostic, Fix } from "../../../model/types";
import type { TitanContext, TitanRule } from "../context";
import { choicesAt, isClearSuggestion, keyInfo, suggest, PARALLEL_DEGREE_KEYS, PRECISION_VALUE_KEYS, type KeySpec } from "../schema/index";
import { leafEntries, markSafe, schemaView } from "../schema/view";
import { foldableIntoFork, foldableItem, foldIntoFork, forkMode, type ForkItem } from "../fork";
import { table } from "../../../model/table";

const SKIP = new Set([...PRECISION_VALUE_KEYS, ...PARALLEL_DEGREE_KEYS]);

const cache = new WeakMap<TitanContext, { kept: Diagnostic[]; folded: ForkItem[] }>();

function values(ctx: TitanContext): { kept: Diagnostic[]; folded: ForkItem[] } {
  let ds = cache.get(ctx);
  if (!ds) {
    ds = foldIntoFork(forkMode(ctx), computeValueDiagnostics(ctx));
    // A value upstream's code would not use, with no close known value (a fork's own enum value, the fork note's
    // kind), of a key the workspace's own config classes declare: the fork's code reads it (compile.components
    // "visual" in a fork's qwen3_vl), so it is no finding (held-back xiao-hu fork).
    const declared = new Set((ctx.workspaceSchema ?? []).filter((m) => m.sourcePath).flatMap((m) => m.keys.map((k) => k.path)));
    if (declared.size) ds = { ...ds, kept: ds.kept.filter((d) => !(d.code === "invalid-value" && d.severity === "warning" && declared.has(foldableItem(d)?.label.split(" = ")[0] ?? ""))) };
    cache.set(ctx, ds);
  }
  return ds;
}

function all(ctx: TitanContext): Diagnostic[] {
  return values(ctx).kept;
}

/** Values the value rule left to the fork-config note (a fork's own choice, in fork mode). */
export function valuesFolded(ctx: TitanContext): ForkItem[] {
  return values(ctx).folded;
}

export const wrongType: TitanRule = { codes: ["wrong-type"], restsOn: ["version"], run: (ctx) => all(ctx).filter((d) => d.code === "wrong-type") };
export const invalidValue: TitanRule = { codes: ["invalid-value"], restsOn: ["version"], run: (ctx) => all(ctx).filter((d) => d.code === "invalid-value") };

const TYPE_WORDS: Readonly<Record<KeySpec["type"], string>> = table({
  str: "a string",
  int: "an integer",
  float: "a number",
  number: "a number",
  bool: "a boolean (true/false)",
  "list[str]": "a list of strings",
  "list[list[str]]": "a list of lists of strings",
  "str|list[str]": "a string or a list of strings",
  any: "any value",
});

function isStrArray(v: ConfigValue): boolean {
  return v.kind === "array" && (v.items ?? []).every((i) => i.kind === "string");
}

export function typeMatches(type: KeySpec["type"], v: ConfigValue): boolean {
  switch (type) {
    case "str":
      return v.kind === "string";
    case "int":
      return v.kind === "integer";
    case "float":
    case "number":
      return v.kind === "integer" || v.kind === "float";
    case "bool":
      return v.kind === "boolean";
    case "list[str]":
      return isStrArray(v);
    case "list[list[str]]":
      return v.kind === "array" && (v.items ?? []).every(isStrArray);
    case "str|list[str]":
      return v.kind === "string" || isStrArray(v);
    case "any":
      return true;
  }
}

function computeValueDiagnostics(ctx: TitanContext): Diagnostic[] {
  const { doc } = ctx;
  const date = ctx.version.value.date;
  const view = schemaView(doc, date);
  const out: Diagnostic[] = [];
  for (const e of leafEntries(doc)) {
    const dotted = e.path.join(".");
    if (SKIP.has(dotted)) continue;
    // A fork's optimizer (Muon, Scion): unknown to upstream, not invalid; the fork-config note lists it.
    if (dotted === "optimizer.name" && ctx.fork?.optimizer !== undefined) continue;
    const spec = keyInfo(date, dotted, view.extensions);
    if (!spec) continue;
    const v = e.value;
    if (!typeMatches(spec.type, v) && !(v.kind === "string" && spec.type === "list[str]" && commaSplit(dotted, ctx.version))) {
      out.push(wrongTypeDiag(e, spec));
      continue;
    }
    out.push(...valueChecks(e, spec, date, ctx.version.value.id));
  }
  return out;
}

/**
 * The argparse-era ConfigManager split a TOML string on commas for its `string_list` arguments
 * (`check_string_list_argument`, torchtitan/config_manager.py from #823, 2025-02-15, until the typed JobConfig of
 * #767, 2025-04-18: `converters = "float8"` was `["float8"]`); before #823 only two keys were split, each from its
 * own commit (53d0f699b, 49c6d6fc1). Keys and dates read from torchtitan's history.
 */
const COMMA_SPLIT = { from: "2025-02-15", until: "2025-04-18" } as const;
const COMMA_SPLIT_BEFORE: Readonly<Record<string, string>> = table({
  "experimental.pipeline_parallel_split_points": "2024-10-30",
  "checkpoint.exclude_from_loading": "2025-02-06",
});

/**
 * True when a string for this list key is split into a list at some date the version may be: the picked date, or
 * any date of an inferred window (a warning must hold where the version is only inferred).
 */
function commaSplit(dotted: string, version: TitanContext["version"]): boolean {
  const at = (from: string, until: string) => {
    const lo = version.window?.from ?? version.value.date;
    const hi = version.window?.until;
    const inWindow = version.kind !== "inferred" || !version.window ? false : lo < until && (hi === undefined || hi > from);
    return (version.value.date >= from && version.value.date < until) || inWindow;
  };
  const before = COMMA_SPLIT_BEFORE[dotted];
  return at(COMMA_SPLIT.from, COMMA_SPLIT.until) || (before !== undefined && at(before, COMMA_SPLIT.until));
}

function wrongTypeDiag(e: ConfigEntry, spec: KeySpec): Diagnostic {
  const v = e.value;
  const raw = v.raw ?? JSON.stringify(v.value);
  const fixes: Fix[] = [];
  if (v.kind === "string") {
    const s = (v.value as string).trim();
    if ((spec.type === "int" && /^[-+]?\d+$/.test(s)) || ((spec.type === "float" || spec.type === "number") && s !== "" && Number.isFinite(Number(s)))) {
      fixes.push(fix(`Write ${s} without quotes`, [{ range: v.range, newText: s }], true));
    } else if (spec.type === "bool" && /^(true|false)$/i.test(s)) {
      fixes.push(fix(`Write ${s.toLowerCase()} without quotes`, [{ range: v.range, newText: s.toLowerCase() }], true));
    } else if (spec.type === "list[str]") {
      fixes.push(fix(`Wrap in a list: [${raw}]`, [{ range: v.range, newText: `[${raw}]` }], true));
    }
  } else if (spec.type === "bool" && v.kind === "integer" && (v.value === 0 || v.value === 1)) {
    const b = v.value === 1 ? "true" : "false";
    const d = diag("wrong-type", "warning", v.range, `${e.path.join(".")} expects ${TYPE_WORDS[spec.type]}, got ${raw}; Python treats it as ${b}, but write ${b}.`, { fixes: [fix(`Change to ${b}`, [{ range: v.range, newText: b }], true)] });
    return markSafe(d);
  } else if ((spec.type === "str" || spec.type === "str|list[str]") && (v.kind === "integer" || v.kind === "float" || v.kind === "boolean")) {
    fixes.push(fix(`Quote it: "${raw}"`, [{ range: v.range, newText: JSON.stringify(String(raw)) }], true));
  }
  const d = diag(
    "wrong-type",
    "error",
    v.range,
    firstFitting([
      `${e.path.join(".")} expects ${TYPE_WORDS[spec.type]}, got ${describe(v)}: the run fails or misbehaves where it is used`,
      `${e.path.join(".")} expects ${TYPE_WORDS[spec.type]}, got ${describe(v)}: the run may fail`,
      `${e.path.join(".")} expects ${TYPE_WORDS[spec.type]}, got ${describe(v)}`,
    ]),
    fixes.length ? { fixes } : undefined,
    { detail: `${e.path.join(".")} expects ${TYPE_WORDS[spec.type]}, got ${describe(v)}: torchtitan does not type-check TOML values, so the run fails or misbehaves where the value is used.` },
  );
  return fixes.length === 1 ? markSafe(d) : d;
}

function describe(v: ConfigValue): string {
  const raw = v.raw ?? JSON.stringify(v.value);
  switch (v.kind) {
    case "string":
      return `the string ${raw}`;
    case "integer":
      return `the integer ${raw}`;
    case "float":
      return `the number ${raw}`;
    case "boolean":
      return `the boolean ${raw}`;
    case "array":
      return "a list with non-string items";
    case "table":
      return "a table";
    default:
      return raw;
  }
}

function valueChecks(e: ConfigEntry, spec: KeySpec, date: string, versionId: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const dotted = e.path.join(".");
  const v = e.value;
  // Numbers below the minimum.
  if (spec.min !== undefined && (v.kind === "integer" || v.kind === "float") && (v.value as number) < spec.min) {
    // keep_latest_k and validation.steps have dedicated rules with torchtitan's messages.
    if (dotted !== "checkpoint.keep_latest_k" && dotted !== "validation.steps") {
      out.push(diag("invalid-value", "warning", v.range, `${dotted} = ${v.raw ?? v.value} is below ${spec.min}, the smallest meaningful value.`));
    }
  }
  if (dotted === "activation_checkpoint.selective_ac_option" && v.kind === "string") {
    const s = v.value as string;
    if (s !== "op" && !(/^\d+$/.test(s) && Number(s) > 0)) {
      out.push(diag("invalid-value", "error", v.range, fitMessage(`selective_ac_option must be "op" or a positive integer string: torchtitan raises ValueError at launch`), undefined, { detail: `activation_checkpoint.selective_ac_option must be "op" or a positive integer string: torchtitan raises ValueError "Invalid selective AC option: ${s}" at launch (when mode = "selective").` }));
    }
  }
  if (dotted === "parallelism.context_parallel_load_balancer" && v.kind === "string" && v.value === "") {
    out.push(diag("invalid-value", "error", v.range, "context_parallel_load_balancer cannot be an empty string: torchtitan raises ValueError at startup", { fixes: [fix('Change to "headtail"', [{ range: v.range, newText: '"headtail"' }], true)] }, { detail: "parallelism.context_parallel_load_balancer cannot be an empty string: torchtitan raises ValueError at startup (None is only settable from the command line)." }));
  }
  if (!spec.choices || spec.openChoices) return out;
  const choices = choicesAt(spec, date);
  const check = (item: ConfigValue) => {
    if (item.kind !== "string") return;
    const s = item.value as string;
    if (choices.includes(s)) return;
    const future = spec.choices!.includes(s) && spec.choiceSince?.[s];
    const exact = choices.find((c) => c.toLowerCase() === s.toLowerCase());
    const names = exact ? [exact] : suggest(s, choices);
    const fixes = names.map((n, i) => fix(`Change to "${n}"`, [{ range: item.range, newText: JSON.stringify(n) }], i === 0));
    const list = choices.map((c) => `"${c}"`).join(", ");
    const what = future ? `"${s}" only exists from ${spec.choiceSince![s]} on, after torchtitan ${versionId}` : `"${s}" is not one of ${list}`;
    const sev = spec.invalidValueError ? "error" : "warning";
    const consequence = spec.invalidValueError ? `torchtitan raises ${spec.invalidValueError}` : "the TOML value is not validated: torchtitan accepts it with a tyro warning and uses it as is";
    const notOne = `"${s}" is not one of ${list}`;
    const whatShort = future ? `"${s}" only exists from ${spec.choiceSince![s]} on` : notOne.length <= 60 ? notOne : `"${s}" is not a known value`;
    const valueMsg = fitMessage(`${dotted}: ${whatShort}; ${spec.invalidValueError ? "torchtitan raises an error" : "torchtitan accepts it unvalidated"}`, names.length ? ` (did you mean "${names[0]}"?)` : "");
    const d = diag("invalid-value", sev, item.range, valueMsg, fixes.length ? { fixes } : undefined, detailIfLonger(valueMsg, `${dotted}: ${what}; ${consequence}.${names.length ? ` Did you mean "${names[0]}"?` : ""}`));
    // No close upstream name and not a later date's value: in fork mode, a value the fork registers
    // (a wan fork's compile component "vae"): "unknown to upstream", folded into the fork note.
    if (!future && !names.length) foldableIntoFork(d, { kind: "value", label: `${dotted} = "${s}"`, range: item.range });
    out.push(exact || (fixes.length === 1 && isClearSuggestion(s, names)) ? markSafe(d) : d);
  };
  if (v.kind === "array") for (const it of v.items ?? []) check(it);
  else check(v);
  return out;
}
