/** The DeepSpeed precision hover, its anchors, and the inlay hint after the enabled mode. */
import type { HoverTarget, InlayHintData } from "../../analysis";
import type { Diagnostic } from "../../model/types";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import type { DeepSpeedContext } from "./context";
import { detectDeepSpeed } from "./detect";
import type { DeepSpeedResolution } from "./resolve";

export function deepSpeedHover(ctx: DeepSpeedContext, r: DeepSpeedResolution, failed: Diagnostic[]): { markdown: string; hovers: HoverTarget[]; inlayHints: InlayHintData[] } {
  const { doc, v, f, worldSize } = ctx;
  const { table, mechanism, meaning, setBy, notes, assumptions } = r;
  const markdown = summaryMarkdown({ failed, reasonLine: detectDeepSpeed(doc) ?? FORCED, framework: "DeepSpeed", layoutName: r.layoutName, worldSize, layout: r.parallel, mechanism, ...(setBy ? { mechanismText: `set by ${setBy}` } : {}), meaning, table, notes, assumptions });
  const hovers = hoversAt(
    [f.bf16Entry?.keyRange, f.fp16Entry?.keyRange, v.keyRange("bf16"), v.keyRange("bfloat16"), v.keyRange("fp16"), v.keyRange("zero_optimization"), v.keyRange("zero_optimization", "stage"), v.keyRange("communication_data_type")],
    markdown,
  );
  const inlayHints = precisionHint((f.bf16Enabled === true ? f.bf16Entry : f.fp16Enabled === true ? f.fp16Entry : (f.bf16Entry ?? f.fp16Entry))?.value.range, table, failed.length > 0);
  return { markdown, hovers, inlayHints };
}
