/** The verl precision hover (on each precision override or key) and the inlay hint after `model_dtype`. */
import type { HoverTarget, InlayHintData } from "../../analysis";
import type { Diagnostic, Range } from "../../model/types";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import type { VerlContext } from "./context";
import { detectVerl } from "./detect";
import type { VerlResolution } from "./resolve";

const PRECISION_KEY = /(?:model_dtype|megatron\.dtype|mixed_precision\.\w+|fsdp_config\.dtype|\.strategy|rollout\.dtype|optim\.(?:lr|optimizer)|n_gpus_per_node|nnodes|use_legacy_worker_impl)$/;

export function verlHover(ctx: VerlContext, r: VerlResolution, failed: Diagnostic[]): { markdown: string; hovers: HoverTarget[]; inlayHints: InlayHintData[] } {
  const actor = ctx.roles.find((x) => x.name === "actor")!;
  const markdown = summaryMarkdown({
    failed,
    reasonLine: detectVerl(ctx.doc) ?? FORCED,
    framework: "verl",
    layoutName: r.layoutName,
    worldSize: ctx.worldSize,
    mechanism: r.mechanism,
    ...(r.table && r.mechanism === "none" ? { mechanismText: "Megatron-Core mixed precision (model in megatron.dtype, fp32 main parameters and optimizer state)" } : {}),
    meaning: !r.table
      ? `not resolved for this strategy (${ctx.version.detail}).`
      : r.mechanism === "none"
        ? `the actor runs on verl's Megatron workers: Megatron-Core parameters in \`megatron.dtype\` (${String(actor.megatronDtype?.value ?? "unknown")}), fp32 main parameters and optimizer states in Megatron-Core's mixed-precision optimizer (${ctx.version.detail}).`
        : `the actor is loaded in \`model_dtype\` (${String(actor.modelDtype.value ?? "unknown")}) and trained under an FSDP mixed-precision policy; the optimizer's state follows the stored parameters (${ctx.version.detail}).`,
    table: r.table,
    notes: r.notes,
    assumptions: ctx.assumptions,
  });
  const ranges: (Range | undefined)[] = [];
  for (const [k, v] of ctx.values) if (v.origin === "file" && PRECISION_KEY.test(k)) ranges.push(v.range);
  const hovers = hoversAt(ranges, markdown);
  const md = actor.modelDtype.origin === "file" ? actor.modelDtype.range : undefined;
  const inlayHints = precisionHint(md, r.table, failed.length > 0);
  return { markdown, hovers, inlayHints };
}
