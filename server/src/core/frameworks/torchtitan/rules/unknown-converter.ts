/**
 * unknown-converter: A model converter name the release does not register: KeyError at launch.
 *
 * mixed-quantization: Float8 and MX converters together: torchtitan allows one quantization at a time.
 *
 * model.converters names (spec torchtitan.md §2.3):
 *  - unknown-converter: a name not registered in the targeted release → KeyError at launch (error), with
 *    the name of the same converter in that release as the fix ("float8" → "quantize.linear.float8";
 *    the stale `converters = ["float8"]` of v0.2.2's llama3_405b.toml is the real case).
 *  - mixed-quantization: float8 and MX converters together → AssertionError "Cannot combine model
 *    converters with different quantization types" (error).
 */
import { clip, decidedBy } from "../related";
import { diag, fix } from "../../../diagnostics/build";
import type { Diagnostic } from "../../../model/types";
import type { TitanRule } from "../context";
import { converterNamesAt, converterRenameFor, isClearSuggestion, suggest } from "../schema/index";
import { converters } from "../schema/facts";
import { markSafe } from "../schema/view";

export const unknownConverter: TitanRule = {
  codes: ["unknown-converter"],
  restsOn: ["version"],
  run(ctx) {
    const date = ctx.version.value.date;
    const id = ctx.version.value.id;
    const names = converterNamesAt(date);
    const out: Diagnostic[] = [];
    for (const c of converters(ctx.doc, date)) {
      if (c.known || ctx.fork?.converters.has(c.name)) continue;
      const renamed = converterRenameFor(c.name, date);
      const cands = renamed ? [renamed] : suggest(c.name, names);
      const fixes = cands.map((n, i) => fix(`Change to "${n}"`, [{ range: c.range, newText: JSON.stringify(n) }], i === 0));
      const was = renamed ? ` "${c.name}" is the name of this converter in another torchtitan release; in ${id} it is "${renamed}".` : cands.length ? ` Did you mean "${cands[0]}"?` : "";
      const reg = names.length ? `registered names: ${names.map((n) => `"${n}"`).join(", ")}` : "this version has no model converters";
      const tpNote = renamed && c.name === "float8" ? ' (Note: the parallelize code still tests for "float8" to pick Float8 tensor-parallel styles; with the new name, float8 + TP uses regular TP all-gathers.)' : "";
      const short = `Converter "${clip(c.name, 40)}" is not registered in torchtitan ${id}: KeyError at launch${renamed ? ` (now "${renamed}")` : ""}`;
      const d = diag("unknown-converter", "error", c.range, short, fixes.length ? { fixes } : undefined, {
        detail: `Converter "${c.name}" is not registered in torchtitan ${id} (${reg}): the run fails with KeyError at launch.${was}${tpNote}`,
        related: decidedBy(ctx, { version: true }),
      });
      out.push(renamed || (fixes.length === 1 && isClearSuggestion(c.name, cands)) ? markSafe(d) : d);
    }
    return out;
  },
};

export const mixedQuantization: TitanRule = {
  codes: ["mixed-quantization"],
  restsOn: ["version"],
  run(ctx) {
    const date = ctx.version.value.date;
    const items = converters(ctx.doc, date).filter((c) => c.known && c.name.includes("quantize") && c.kind);
    const kinds = new Set(items.map((c) => c.kind!.float8OrMx));
    if (kinds.size < 2) return [];
    const first = items[0]!;
    const other = items.find((c) => c.kind!.float8OrMx !== first.kind!.float8OrMx)!;
    return [
      diag(
        "mixed-quantization",
        "error",
        other.range,
        `Converters "${first.name}" and "${other.name}" mix float8 and MX quantization: torchtitan asserts`,
        undefined,
        {
          detail: `Converters "${first.name}" and "${other.name}" mix float8 and MX quantization: torchtitan asserts "Cannot combine model converters with different quantization types: '${other.kind!.float8OrMx}' and '${first.kind!.float8OrMx}'". Keep only float8 or only MX converters.`,
        },
      ),
    ];
  },
};
