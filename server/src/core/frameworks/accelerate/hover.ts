/** The accelerate precision hover, its anchors, and the inlay hint after `mixed_precision`. */
import type { HoverTarget, InlayHintData } from "../../analysis";
import type { Diagnostic } from "../../model/types";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import type { AccelerateContext } from "./context";
import { detectAccelerate } from "./detect";
import type { Resolution } from "./resolve";

export function accelerateHover(ctx: AccelerateContext, r: Resolution, failed: Diagnostic[]): { markdown: string; hovers: HoverTarget[]; inlayHints: InlayHintData[] } {
  const { doc, v, worldSize, mixedEntry, distEntry } = ctx;
  const markdown = summaryMarkdown({
    failed,
    reasonLine: detectAccelerate(doc) ?? FORCED,
    framework: "accelerate",
    layoutName: r.layoutName,
    worldSize,
    layout: r.parallel,
    mechanism: r.mechanism,
    ...(r.setBy ? { mechanismText: `set by ${r.setBy}` } : {}),
    meaning: r.meaning,
    table: r.table,
    notes: r.notes,
    assumptions: r.assumptions,
  });
  const hovers = hoversAt([mixedEntry?.keyRange, distEntry?.keyRange, v.keyRange("fsdp_config"), v.keyRange("fsdp_config", "fsdp_version"), v.keyRange("parallelism_config"), v.keyRange("deepspeed_config", "deepspeed_config_file"), v.keyRange("num_processes")], markdown);
  const inlayHints = precisionHint((mixedEntry ?? distEntry)?.value.range, r.table, failed.length > 0);
  return { markdown, hovers, inlayHints };
}
