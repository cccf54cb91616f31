/**
 * pure-bf16: training.dtype = "bfloat16": no fp32 master copy of weights, gradients or optimizer state.
 *
 * `training.dtype = "bfloat16"` builds the model under a bf16 default dtype (#1646), so
 * parameters, gradients and optimizer state are bf16 with no fp32 master copy (torchtitan.md §1.4 notes).
 * The same advice torchtune (torchtune/pure-bf16) and Lightning (lightning/pure-bf16) files get for pure bf16, in the shared wording of
 * core/frameworks/common/pureLowPrecision.ts: information, a warning when the learning rate is small enough for updates to
 * round away. `mixed_precision_param = "float32"` with it is bf16-storage-fp32-compute's concern.
 */
import { diag, fix } from "../../../diagnostics/build";
import { shortDtype } from "../../../model/dtypeNames";
import { findEntry } from "../../../model/document";
import { pureBf16Risk, pureLowPrecisionState } from "../../common/pureLowPrecision";
import type { TitanContext, TitanRule } from "../context";

export const pureBf16: TitanRule = {
  codes: ["pure-bf16"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const { trainingDtype, param } = ctx.knobs;
    const e = trainingDtype.entry;
    if (!e || trainingDtype.isDefault || trainingDtype.dtype !== "bfloat16") return [];
    if (!param.isDefault && param.dtype === "float32") return [];
    if (ctx.decision.mechanism === "error") return [];
    const lrEntry = findEntry(ctx.doc, "optimizer", "lr");
    const lr = lrEntry && (lrEntry.value.kind === "float" || lrEntry.value.kind === "integer") ? (lrEntry.value.value as number) : undefined;
    const { long, why } = pureBf16Risk({ lr });
    const detail = `training.dtype = "bfloat16" is pure bf16: ${pureLowPrecisionState("bf16")}${reduction(ctx)}.${why} ${alternative(ctx)}`;
    const message = `Pure bf16: no fp32 master copy of weights, gradients or optimizer state${lr !== undefined && long ? ` (lr = ${lr} updates may round away)` : ""}`;
    return [diag("pure-bf16", long ? "warning" : "information", e.value.range, message, { fixes: [fix(fixTitle(ctx), [{ range: e.value.range, newText: '"float32"' }])] }, { detail })];
  },
};

function hasDataParallel(ctx: TitanContext): boolean {
  const d = ctx.layout;
  return d.dp_shard * d.cp > 1 || d.dp_replicate > 1;
}

function reduction(ctx: TitanContext): string {
  const r = ctx.precision?.gradReduce.dtype;
  return r && hasDataParallel(ctx) ? `; gradients are reduced in ${shortDtype(r)}` : "";
}

/** What the same layout does with fp32 storage (the default), from the era's own decision. */
function alternative(ctx: TitanContext): string {
  const base = 'For fp32 master weights, leave training.dtype at "float32" (the default)';
  switch (ctx.decision.mechanism) {
    case "fully_shard":
      return `${base}: FSDP's MixedPrecisionPolicy still computes in ${low(ctx)} (mixed_precision_param) and keeps fp32 shards, gradients and optimizer state.`;
    case "autocast":
      return `${base}: autocast still runs the matmuls in ${low(ctx)} (mixed_precision_param) on fp32 weights.`;
    default:
      return `${base}, but this ${ctx.layoutName} layout applies no mixed precision in torchtitan ${ctx.version.value.id}, so it would then train fully in fp32.`;
  }
}

function low(ctx: TitanContext): string {
  return shortDtype(ctx.knobs.param.dtype ?? "bfloat16");
}

function fixTitle(ctx: TitanContext): string {
  return ctx.decision.mechanism === "none" ? 'Train in fp32: training.dtype = "float32" (this layout has no mixed precision)' : 'Keep fp32 master weights: training.dtype = "float32"';
}
