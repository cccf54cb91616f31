/** Where to put a torchtitan diagnostic when the key it is about may not be written in the file. */
import { setKey } from "../../edit/toml";
import type { ConfigEntry } from "../../model/document";
import type { Range, TextEdit } from "../../model/types";
import type { TitanContext } from "./context";
import { DIM_KEYS, LEGACY_DIM_KEYS, type DimField } from "./parallelDims";

const FILE_START: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** The first written entry of the given fields, else the [parallelism] header, else the file start. */
export function dimsAnchor(ctx: TitanContext, fields: readonly DimField[]): { range: Range; entry?: ConfigEntry } {
  for (const f of fields) {
    const e = ctx.dims.entries[f];
    if (e) return { range: e.range, entry: e };
  }
  const header = ctx.doc.sections.find((s) => s.path.length === 1 && s.path[0] === "parallelism");
  return { range: header?.headerRange ?? FILE_START };
}

export function sectionAnchor(ctx: TitanContext, section: string): Range {
  return ctx.doc.sections.find((s) => s.path.length === 1 && s.path[0] === section)?.headerRange ?? FILE_START;
}

/** "8 GPUs (world size from run_train.sh default (NGPU=8))" */
export function worldSizePhrase(ctx: TitanContext): string {
  const n = ctx.worldSize.value;
  return `${n} GPU${n === 1 ? "" : "s"} (world size from ${ctx.worldSize.detail})`;
}

/** Edits that set a parallel degree where the file has it (also in the legacy tables), else in [parallelism]. */
export function setDim(ctx: TitanContext, field: DimField, value: number): TextEdit[] {
  const e = ctx.dims.entries[field];
  if (e) return [{ range: e.value.range, newText: String(value) }];
  const [table, key] = ctx.dims.legacyTables ? (LEGACY_DIM_KEYS[field] ?? DIM_KEYS[field]) : DIM_KEYS[field];
  return setKey(ctx.doc, [table], key, String(value));
}
