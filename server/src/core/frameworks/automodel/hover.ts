/** The NeMo AutoModel precision hover (model dtype, strategy, mp_policy, optimizer) and the inlay hint after the model dtype. */
import type { HoverTarget, InlayHintData } from "../../analysis";
import type { Diagnostic } from "../../model/types";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import type { AutomodelContext } from "./context";
import { detectAutomodel } from "./detect";
import type { AutomodelResolution } from "./resolve";

export function automodelHover(ctx: AutomodelContext, r: AutomodelResolution, failed: Diagnostic[]): { markdown: string; hovers: HoverTarget[]; inlayHints: InlayHintData[] } {
  const { v } = ctx;
  const markdown = summaryMarkdown({
    failed,
    reasonLine: detectAutomodel(ctx.doc) ?? FORCED,
    framework: "NeMo AutoModel",
    layoutName: r.layoutName,
    worldSize: ctx.worldSize,
    mechanism: r.mechanism,
    meaning: `the model is stored in ${ctx.model.dtype ?? "an unknown dtype"} (${ctx.model.detail}); the optimizer's state follows the stored parameters.`,
    table: r.table,
    notes: r.notes,
    assumptions: r.assumptions,
  });
  const hovers = hoversAt([ctx.model.entry?.keyRange, v.entry("model", "_target_")?.keyRange, ctx.strategyEntry?.keyRange, v.entry("distributed", "mp_policy", "param_dtype")?.keyRange, v.entry("distributed", "mp_policy", "reduce_dtype")?.keyRange, v.entry("optimizer", "_target_")?.keyRange], markdown);
  return { markdown, hovers, inlayHints: precisionHint(ctx.model.entry?.value.range, r.table, failed.length > 0) };
}
