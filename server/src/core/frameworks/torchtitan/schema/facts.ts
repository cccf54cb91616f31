/**
 * Era-aware reads of the config for the cross-field rules: is the model compiled, which converters are
 * on, where the float8/MX tables live at a date.
 */
import type { ConfigDocument, ConfigEntry } from "../../../model/document";
import { findEntryDeep } from "../../../edit/toml";
import { CONVERTER_RENAMES } from "./data";
import { converterNamesAt } from "./index";

export interface CompileState {
  /** Compile is on (`[compile] enable`, or `training.compile` before 2025-08-20). */
  enabled: boolean;
  /** The model itself is compiled ("model" in components, or the old bool). */
  model: boolean;
  /** The entry that turns it on/off, when written. */
  entry?: ConfigEntry;
}

export function compileState(doc: ConfigDocument, date: string): CompileState {
  if (date < "2025-08-20") {
    const e = findLeaf(doc, "training", "compile");
    const on = e?.value.value === true;
    return { enabled: on, model: on, ...(e ? { entry: e } : {}) };
  }
  const e = findLeaf(doc, "compile", "enable");
  const on = e?.value.value === true;
  const comps = findLeaf(doc, "compile", "components");
  const list = comps && Array.isArray(comps.value.value) ? (comps.value.value as unknown[]) : ["model", "loss"];
  return { enabled: on, model: on && list.includes("model"), ...(e ? { entry: e } : {}) };
}

/** Table of the float8 Linear settings at a date. */
export function float8LinearTable(date: string): string[] {
  if (date < "2025-09-26") return ["float8"];
  if (date < "2025-09-30") return ["quantize", "dense", "float8"];
  return ["quantize", "linear", "float8"];
}

export function mxLinearTable(date: string): string[] {
  if (date < "2025-09-26") return ["mx"];
  if (date < "2025-09-30") return ["quantize", "dense", "mx"];
  return ["quantize", "linear", "mx"];
}

export interface ConverterItem {
  name: string;
  entry: ConfigEntry;
  index: number;
  range: ConfigEntry["range"];
  /** Registered at the date. */
  known: boolean;
  kind?: { float8OrMx: "float8" | "mx"; grouped: boolean };
}

/** The converters as written, with what each is at the date (only registered names count as active). */
export function converters(doc: ConfigDocument, date: string): ConverterItem[] {
  const e = findLeaf(doc, "model", "converters");
  if (!e || e.value.kind !== "array") return [];
  const names = converterNamesAt(date);
  const out: ConverterItem[] = [];
  (e.value.items ?? []).forEach((it, index) => {
    if (it.kind !== "string") return;
    const name = it.value as string;
    const known = names.includes(name);
    const kind = CONVERTER_RENAMES[name];
    out.push({ name, entry: e, index, range: it.range, known, ...(kind ? { kind } : {}) });
  });
  return out;
}

export function activeQuant(doc: ConfigDocument, date: string): { float8Linear: boolean; float8Grouped: boolean; mxLinear: boolean; mxGrouped: boolean; items: ConverterItem[] } {
  const items = converters(doc, date).filter((c) => c.known && c.kind);
  return {
    float8Linear: items.some((c) => c.kind!.float8OrMx === "float8" && !c.kind!.grouped),
    float8Grouped: items.some((c) => c.kind!.float8OrMx === "float8" && c.kind!.grouped),
    mxLinear: items.some((c) => c.kind!.float8OrMx === "mx" && !c.kind!.grouped),
    mxGrouped: items.some((c) => c.kind!.float8OrMx === "mx" && c.kind!.grouped),
    items,
  };
}

/** An entry by full path, also inside inline tables (`training = { seq_len = 8 }`). */
export function findLeaf(doc: ConfigDocument, ...path: string[]): ConfigEntry | undefined {
  return findEntryDeep(doc, path);
}
