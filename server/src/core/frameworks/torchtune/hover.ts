/** The torchtune precision hover, its anchors, and the inlay hints after `dtype` and a `-1` shard dim. */
import type { HoverTarget, InlayHintData } from "../../analysis";
import type { Diagnostic } from "../../model/types";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import type { TorchtuneContext } from "./context";
import { detectTorchtune } from "./detect";
import type { TorchtuneResolution } from "./resolve";

export function torchtuneHover(ctx: TorchtuneContext, r: TorchtuneResolution, failed: Diagnostic[]): { markdown: string; hovers: HoverTarget[]; inlayHints: InlayHintData[] } {
  const { doc, v, worldSize, dtypeName, dtypeEntry, broken, shardDim, repDim, tpDim, cpDim } = ctx;
  const markdown = summaryMarkdown({
    failed,
    reasonLine: detectTorchtune(doc) ?? FORCED,
    framework: "torchtune",
    layoutName: r.layoutName,
    worldSize,
    layout: r.parallel,
    mechanism: "none",
    meaning: `torchtune builds the whole model in \`dtype\` (${dtypeName ?? "fp32"}); there is no autocast and no FSDP mixed-precision policy, so ${dtypeName === "bf16" ? "**pure bf16**: no fp32 master weights" : "everything runs in that dtype"}.`,
    table: r.table,
    notes: r.notes,
    assumptions: r.assumptions,
  });
  const shardEntry = v.entry("data_parallel_shard_dim");
  const hovers = hoversAt([dtypeEntry?.keyRange, v.entry("tensor_parallel_dim")?.keyRange, shardEntry?.keyRange, v.entry("data_parallel_replicate_dim")?.keyRange, v.entry("fsdp_cpu_offload")?.keyRange, v.keyRange("context_parallel_dim")], markdown);
  const inlayHints = precisionHint(dtypeEntry?.value.range, r.table, failed.length > 0 || broken);
  const W = worldSize?.value;
  const parallel = r.parallel;
  if (shardEntry && shardDim === -1 && parallel && W) {
    inlayHints.push({ position: shardEntry.value.range.end, label: ` → ${parallel.dp_shard} on ${W} GPU${W === 1 ? "" : "s"}`, tooltip: `-1 resolves to world size / (replicate × tp × cp) = ${W} / (${repDim} × ${tpDim} × ${cpDim}). World size from ${worldSize!.detail}.` });
  }
  return { markdown, hovers, inlayHints };
}
