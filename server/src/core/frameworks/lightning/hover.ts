/** The Lightning precision hover, its anchors, and the inlay hint after `precision`. */
import type { HoverTarget, InlayHintData } from "../../analysis";
import type { Diagnostic } from "../../model/types";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import type { LightningContext } from "./context";
import type { LightningResolution } from "./resolve";

export function lightningHover(ctx: LightningContext, r: LightningResolution, failed: Diagnostic[]): { markdown: string; hovers: HoverTarget[]; inlayHints: InlayHintData[] } {
  const { where, t, pe, worldSize } = ctx;
  const markdown = summaryMarkdown({ failed, reasonLine: where.reason || FORCED, framework: where.litgpt ? "Lightning (LitGPT)" : "Lightning", layoutName: r.layoutName, worldSize, layout: r.parallel, mechanism: r.mechanism, meaning: r.meaning, table: r.table, notes: r.notes, assumptions: [] });
  const hovers = hoversAt([pe?.keyRange, t.keyRange("strategy"), t.keyRange("devices"), t.keyRange("plugins"), t.keyRange("_target_")], markdown);
  const inlayHints = precisionHint(pe?.value.range, r.table, failed.length > 0);
  return { markdown, hovers, inlayHints };
}
