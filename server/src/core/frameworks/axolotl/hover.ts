/** The Axolotl precision hover, its anchors, and the inlay hint after `bf16`/`fp16`. */
import type { HoverTarget, InlayHintData } from "../../analysis";
import type { Diagnostic } from "../../model/types";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import type { AxolotlContext } from "./context";
import { detectAxolotl } from "./detect";
import type { AxolotlResolution } from "./resolve";

export function axolotlHover(ctx: AxolotlContext, r: AxolotlResolution, failed: Diagnostic[]): { markdown: string; hovers: HoverTarget[]; inlayHints: InlayHintData[] } {
  const { doc, v, worldSize, bf16E, fp16E } = ctx;
  const markdown = summaryMarkdown({ failed, reasonLine: detectAxolotl(doc) ?? FORCED, framework: "Axolotl", layoutName: r.layoutName, worldSize, layout: r.parallel, mechanism: r.mechanism, meaning: r.meaning, table: r.table, notes: r.notes, assumptions: r.assumptions });
  const hovers = hoversAt([bf16E?.keyRange, fp16E?.keyRange, v.keyRange("bfloat16"), v.keyRange("float16"), v.keyRange("adapter"), v.keyRange("deepspeed"), v.keyRange("fsdp_version"), v.keyRange("fsdp_config"), v.keyRange("fsdp"), v.keyRange("fp8")], markdown);
  const inlayHints = precisionHint((bf16E ?? fp16E)?.value.range, r.table, failed.length > 0);
  return { markdown, hovers, inlayHints };
}
