/**
 * float8-grouped-mm-pp-cp: Float8 grouped matmuls with pipeline or context parallelism: torchtitan asserts.
 *
 * mx-tp-compile: MXFP8 Linear with tensor parallelism and torch.compile: torchtitan asserts.
 *
 * float8-emulate-compile: float8 emulate with torch.compile on still needs an SM 8.9+ GPU.
 *
 * float8-recipe-with-all-gather: A float8 recipe together with float8 all-gather: torchtitan asserts.
 *
 * float8-all-gather-no-effect: A float8 FSDP setting that does nothing in this layout.
 *
 * quantize-without-compile: Low-precision matmuls without torch.compile: slow.
 *
 * quantize-gpu-unsupported: float8 or MXFP8 on a GPU that lacks it (SM 8.9+ / SM100 or gfx950): the launch fails.
 *
 * Float8 / MX constraints with the parallel layout and compile (spec torchtitan.md §2.3, §7 items 8–9):
 *  - float8-grouped-mm-pp-cp: float8 grouped MM asserts pipeline_parallel_degree == 1 and
 *    context_parallel_degree == 1 (error).
 *  - mx-tp-compile: MX Linear asserts not (compile and TP > 1): "TP not yet supported with torch.compile
 *    for mxfp8" (error).
 *  - float8-emulate-compile: float8 `emulate = true` only avoids the SM 8.9 requirement with compile off
 *    (warning).
 *  - float8-recipe-with-all-gather: recipe_name together with enable_fsdp_float8_all_gather → AssertionError (error).
 *  - float8-all-gather-no-effect: the float8 FSDP all-gather needs dp_shard > 1 (CP alone does not count);
 *    precompute needs the all-gather (information, faded).
 *  - quantize-without-compile: float8/MX grouped MM without compile (torchtitan warns; slow) (information).
 */
import { clip, decidedBy, gpus } from "../related";
import { diag, fix } from "../../../diagnostics/build";
import type { ConfigEntry } from "../../../model/document";
import type { Diagnostic } from "../../../model/types";
import type { TitanContext, TitanRule } from "../context";
import { GPUS, hasCudaCapability, hasRocmCapability } from "../../../engine/gpus";
import { RELEASES } from "../versions";
import { activeQuant, compileState, findLeaf as findEntry, float8LinearTable } from "../schema/facts";

function f8(ctx: TitanContext, key: string): ConfigEntry | undefined {
  return findEntry(ctx.doc, ...float8LinearTable(ctx.version.value.date), key);
}

function converterRange(ctx: TitanContext, pred: (name: string) => boolean) {
  const q = activeQuant(ctx.doc, ctx.version.value.date);
  return q.items.find((c) => pred(c.name))?.range;
}

export const float8GroupedMmPpCp: TitanRule = {
  codes: ["float8-grouped-mm-pp-cp"],
  restsOn: ["version"],
  run(ctx) {
    const q = activeQuant(ctx.doc, ctx.version.value.date);
    if (!q.float8Grouped) return [];
    const { pp, cp } = ctx.dims.configured;
    if (pp === 1 && cp === 1) return [];
    const range = converterRange(ctx, (n) => n.includes("float8") && (n.includes("grouped_mm") || n.includes("moe")))!;
    const which = [pp !== 1 ? `pipeline_parallel_degree = ${pp}` : "", cp !== 1 ? `context_parallel_degree = ${cp}` : ""].filter(Boolean).join(" and ");
    return [
      diag("float8-grouped-mm-pp-cp", "error", range, `Float8 grouped matmuls with ${[pp !== 1 ? `PP ${pp}` : "", cp !== 1 ? `CP ${cp}` : ""].filter(Boolean).join(" and ")}: torchtitan asserts PP = CP = 1`, undefined, {
        detail: `Float8 grouped matmuls do not support pipeline or context parallelism: torchtitan asserts pipeline_parallel_degree == 1 and context_parallel_degree == 1, but this config has ${which}.`,
      }),
    ];
  },
};

export const mxTpCompile: TitanRule = {
  codes: ["mx-tp-compile"],
  restsOn: ["version"],
  run(ctx) {
    const date = ctx.version.value.date;
    const q = activeQuant(ctx.doc, date);
    if (!q.mxLinear) return [];
    const c = compileState(ctx.doc, date);
    if (!c.model || ctx.dims.configured.tp <= 1) return [];
    const range = converterRange(ctx, (n) => n.endsWith("mx") && !n.includes("grouped") && !n.includes("moe"))!;
    return [
      diag("mx-tp-compile", "error", range, `MXFP8 Linear with TP ${ctx.dims.configured.tp} and torch.compile: torchtitan asserts TP is not supported there yet`, undefined, {
        detail: `MXFP8 Linear with tensor parallelism (tensor_parallel_degree = ${ctx.dims.configured.tp}) and torch.compile fails: torchtitan asserts "TP not yet supported with torch.compile for mxfp8". Turn compile off or use TP = 1.`,
      }),
    ];
  },
};

export const float8EmulateCompile: TitanRule = {
  codes: ["float8-emulate-compile"],
  restsOn: ["version"],
  run(ctx) {
    const date = ctx.version.value.date;
    const e = f8(ctx, "emulate");
    if (e?.value.value !== true || !activeQuant(ctx.doc, date).float8Linear) return [];
    const c = compileState(ctx.doc, date);
    if (!c.model) return [];
    return [
      diag("float8-emulate-compile", "warning", e.value.range, "float8 emulate = true with torch.compile on: Float8Linear still needs an SM 8.9+ GPU", undefined, {
        detail: `float8 emulate = true only works with compile off: with torch.compile on, Float8Linear still needs a GPU with SM 8.9 or later ("Failed to swap to Float8Linear because float8 is only supported on SM89 or later").`,
      }),
    ];
  },
};

export const float8RecipeWithAllGather: TitanRule = {
  codes: ["float8-recipe-with-all-gather"],
  restsOn: ["version"],
  run(ctx) {
    const recipe = f8(ctx, "recipe_name");
    const ag = f8(ctx, "enable_fsdp_float8_all_gather");
    if (!recipe || recipe.value.kind !== "string" || ag?.value.value !== true) return [];
    if (!activeQuant(ctx.doc, ctx.version.value.date).float8Linear) return [];
    return [
      diag(
        "float8-recipe-with-all-gather",
        "error",
        ag.value.range,
        `Float8 all-gather with recipe_name = ${clip(recipe.value.raw ?? JSON.stringify(recipe.value.value), 24)}: torchtitan asserts (it is tensorwise only)`,
        { fixes: [fix("Set enable_fsdp_float8_all_gather = false", [{ range: ag.value.range, newText: "false" }], true)] },
        {
          detail: `enable_fsdp_float8_all_gather = true cannot be combined with recipe_name = ${recipe.value.raw ?? JSON.stringify(recipe.value.value)}: torchtitan asserts they are not supported together (the float8 all-gather is tensorwise only).`,
        },
      ),
    ];
  },
};

export const float8AllGatherNoEffect: TitanRule = {
  codes: ["float8-all-gather-no-effect"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const out: Diagnostic[] = [];
    const ag = f8(ctx, "enable_fsdp_float8_all_gather");
    const pre = f8(ctx, "precompute_float8_dynamic_scale_for_fsdp");
    if (!activeQuant(ctx.doc, ctx.version.value.date).float8Linear) return [];
    const dpShard = ctx.dims.resolved?.dp_shard;
    const agOn = ag?.value.value === true;
    if (agOn && dpShard !== undefined && dpShard <= 1) {
      const d = diag(
        "float8-all-gather-no-effect",
        "information",
        ag!.value.range,
        `enable_fsdp_float8_all_gather has no effect: dp_shard is ${dpShard} on ${gpus(ctx.worldSize.value)}, so there is no FSDP all-gather`,
        undefined,
        {
          detail: `enable_fsdp_float8_all_gather has no effect here: it needs data_parallel_shard_degree > 1 (resolved dp_shard = ${dpShard} on ${ctx.worldSize.value} GPUs; CP alone does not count), so weights are all-gathered in the usual dtype.`,
          related: decidedBy(ctx, { shard: true, worldSize: true }),
        },
      );
      out.push(d);
    }
    if (pre?.value.value === true && (!agOn || (dpShard !== undefined && dpShard <= 1))) {
      const d = diag(
        "float8-all-gather-no-effect",
        "information",
        pre.value.range,
        `precompute_float8_dynamic_scale_for_fsdp has no effect without an active float8 FSDP all-gather`,
        undefined,
        {
          detail: `precompute_float8_dynamic_scale_for_fsdp has no effect here: it only works with the float8 FSDP all-gather active (enable_fsdp_float8_all_gather = true and dp_shard > 1).`,
          related: decidedBy(ctx, { shard: true, worldSize: true }),
        },
      );
      out.push(d);
    }
    return out;
  },
};

export const quantizeWithoutCompile: TitanRule = {
  codes: ["quantize-without-compile"],
  restsOn: ["version"],
  run(ctx) {
    const date = ctx.version.value.date;
    const q = activeQuant(ctx.doc, date);
    if (!q.float8Grouped && !q.mxGrouped) return [];
    if (compileState(ctx.doc, date).model) return [];
    const range = converterRange(ctx, (n) => n.includes("grouped_mm") || n.includes("moe"))!;
    return [
      diag("quantize-without-compile", "information", range, "Low-precision grouped matmuls without torch.compile: torchtitan warns that this is slow", undefined, {
        detail: `Low-precision grouped matmuls without torch.compile: torchtitan warns that this is slow. Set [compile] enable = true with "model" in components.`,
      }),
    ];
  },
};

/**
 * quantize-gpu-unsupported: float8 Linear needs SM 8.9+ unless emulated in eager mode (v0.2.2
 * components/quantization/float8.py:37-45, ValueError; the same check at v0.1.0 float8.py:29), MXFP8 Linear needs
 * SM100 or ROCm gfx950 (v0.2.2 quantization/mx.py:42-44, AssertionError; SM100 only at v0.1.0 … v0.2.1). Rests on
 * the GPU type: an error when it is known (directive, setting, --gpu), information on the default GPU
 * (core/provenance.ts turns the error into it).
 */
export const quantizeGpuUnsupported: TitanRule = {
  codes: ["quantize-gpu-unsupported"],
  restsOn: ["gpu"],
  onAssumed: "information",
  run(ctx) {
    const date = ctx.version.value.date;
    const q = activeQuant(ctx.doc, date);
    const spec = GPUS[ctx.gpu.value];
    const out: Diagnostic[] = [];
    const float8 = q.items.find((c) => c.kind?.float8OrMx === "float8" && !c.kind.grouped);
    if (float8 && !hasCudaCapability(spec, 8, 9) && !(f8(ctx, "emulate")?.value.value === true && !compileState(ctx.doc, date).model)) {
      out.push(
        diag("quantize-gpu-unsupported", "error", float8.range, `float8 on ${spec.label}: torchtitan needs an SM 8.9+ GPU, so the launch fails (ValueError)`, undefined, {
          detail: `Float8 Linear on ${spec.label} (${ctx.gpu.detail}): torchtitan raises ValueError "Failed to swap to Float8Linear because float8 is only supported on SM89 or later" at launch. Use an SM 8.9+ GPU (L40S, H100, H200, B200), or set emulate = true with compile off to test.`,
        }),
      );
    }
    const mx = q.items.find((c) => c.kind?.float8OrMx === "mx" && !c.kind.grouped);
    const rocmOk = date >= RELEASES["v0.2.2"].date && hasRocmCapability(spec, 9, 5);
    if (mx && !hasCudaCapability(spec, 10, 0) && !rocmOk) {
      out.push(
        diag("quantize-gpu-unsupported", "error", mx.range, `MXFP8 on ${spec.label}: torchtitan needs SM100 (B200) or gfx950, so the launch fails`, undefined, {
          detail: `MXFP8 Linear on ${spec.label} (${ctx.gpu.detail}): torchtitan asserts "MXFP8 is only supported on CUDA SM100 or later, or ROCm gfx950 or later" at launch. Use a Blackwell GPU (B200) or drop the MX converter.`,
        }),
      );
    }
    return out;
  },
};
