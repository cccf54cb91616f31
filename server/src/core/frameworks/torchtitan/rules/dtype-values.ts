/**
 * unknown-dtype: A dtype string torchtitan's TORCH_DTYPE_MAP does not know: KeyError at launch.
 *
 * float16-without-grad-scaler: float16 training without loss scaling (torchtitan has no GradScaler).
 *
 * reduce-dtype-not-allowed: A dtype outside the knob's allowed values (e.g. mixed_precision_reduce = "bfloat16" in
 * v0.2.2).
 *
 * Values of the precision dtype knobs (spec torchtitan.md §2.1): TOML values are not checked against the
 * declared choices, so
 *  - unknown-dtype: a string TORCH_DTYPE_MAP does not know (or a non-string) → KeyError at launch (error);
 *  - float16-without-grad-scaler: "float16" trains fp16 with no loss scaling (warning);
 *  - reduce-dtype-not-allowed: a TORCH_DTYPE_MAP dtype outside the knob's declared choices, e.g.
 *    mixed_precision_reduce = "bfloat16" (warning: accepted with a tyro warning, not a supported choice).
 */
import { diag, fix } from "../../../diagnostics/build";
import { DTYPE_ALIASES, isTorchDtypeKey } from "../../../model/dtypeNames";
import type { Diagnostic, DType } from "../../../model/types";
import type { KnobValue, TitanRule } from "../context";
import { KNOB_SPECS, knobChoices, type KnobSpec } from "../knobs";
import { clip, decidedBy } from "../related";
import { editDistance } from "../schema/index";

export const dtypeValues: TitanRule = {
  codes: ["unknown-dtype", "float16-without-grad-scaler", "reduce-dtype-not-allowed"],
  restsOn: [],
  run(ctx) {
    const out: Diagnostic[] = [];
    const knobs: [KnobValue, KnobSpec][] = [
      [ctx.knobs.param, KNOB_SPECS.param],
      [ctx.knobs.reduce, KNOB_SPECS.reduce],
      [ctx.knobs.trainingDtype, KNOB_SPECS.trainingDtype],
    ];
    // A Python config function's value is never checked against the declared Literal (no tyro on that path).
    const py = ctx.doc.format === "python";
    for (const [k, spec] of knobs) {
      const choices = knobChoices(spec, ctx.version.value.date);
      const e = k.entry;
      if (!e || k.isDefault) continue;
      const raw = e.value.raw ?? String(e.value.value);
      const s = e.value.kind === "string" ? (e.value.value as string) : undefined;
      if (s === undefined || !isTorchDtypeKey(s)) {
        const suggestion = nearestChoice(s ?? raw, choices);
        out.push(
          diag(
            "unknown-dtype",
            "error",
            e.value.range,
            `${k.key} = ${clip(raw, 24)} is not in torchtitan's TORCH_DTYPE_MAP: KeyError at launch`,
            { fixes: [fix(`Change to "${suggestion}"`, [{ range: e.value.range, newText: `"${suggestion}"` }], true)] },
            {
              detail: `${k.key} = ${raw} is not a dtype torchtitan knows (TORCH_DTYPE_MAP has "float16", "float32", "bfloat16"); ${py ? "a value set in Python is not validated" : "the TOML value is not validated"}, so the run fails with KeyError at launch. Allowed here: ${choices.map((c) => `"${c}"`).join(", ")}.`,
            },
          ),
        );
        continue;
      }
      if (s === "float16") {
        out.push(
          diag(
            "float16-without-grad-scaler",
            "warning",
            e.value.range,
            `${k.key} = "float16" trains in fp16 without loss scaling: torchtitan has no GradScaler`,
            { fixes: [fix('Change to "bfloat16"', [{ range: e.value.range, newText: '"bfloat16"' }], true)] },
            {
              detail: `${k.key} = "float16" trains in fp16 without loss scaling: torchtitan has no GradScaler, so small gradients underflow to zero and large activations overflow. Use "bfloat16" (same memory, fp32 range).`,
            },
          ),
        );
        continue;
      }
      if (!(choices as readonly string[]).includes(s)) {
        out.push(
          diag(
            "reduce-dtype-not-allowed",
            "warning",
            e.value.range,
            py ? `${k.key} = "${s}" is not a declared choice in torchtitan ${ctx.version.value.id}: used anyway, unchecked` : `${k.key} = "${s}" is not allowed in torchtitan ${ctx.version.value.id}: used anyway, with a warning`,
            { fixes: [fix(`Change to "${spec.default}"`, [{ range: e.value.range, newText: `"${spec.default}"` }], true)] },
            {
              detail: `${k.key} = "${s}" is not an allowed choice in torchtitan ${ctx.version.value.id} (only ${choices.map((c) => `"${c}"`).join(", ")}); ${py ? "a value set in Python is not checked against the declared Literal, so it is used" : "the TOML value is accepted with a tyro warning"} and ${k.key === "training.mixed_precision_reduce" ? "FSDP then reduces gradients in " + s + ", losing precision in the sum" : "used as is"}.`,
              related: decidedBy(ctx, { version: true }),
            },
          ),
        );
      }
    }
    return out;
  },
};

/** The allowed choice closest to what was written: a known alias first, then edit distance. */
export function nearestChoice(written: string, choices: readonly DType[]): DType {
  const w = written.replace(/^["']|["']$/g, "").trim().toLowerCase();
  const alias = DTYPE_ALIASES[w];
  if (alias && choices.includes(alias)) return alias;
  let best = choices[0]!;
  let bestD = Infinity;
  for (const c of choices) {
    const dist = editDistance(w, c);
    if (dist < bestD) {
      best = c;
      bestD = dist;
    }
  }
  return best;
}
