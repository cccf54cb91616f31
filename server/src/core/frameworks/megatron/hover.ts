/** The Megatron-LM precision hover, on each precision or parallel flag, and the inlay hint after `--bf16`/`--fp16`. */
import type { HoverTarget, InlayHintData } from "../../analysis";
import type { Diagnostic, Range } from "../../model/types";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import type { MegatronContext } from "./context";
import { detectMegatron } from "./detect";
import type { MegatronResolution } from "./resolve";

const HOVERED = /^(?:bf16|fp16|fp8-.*|fp4-.*|accumulate-allreduce-grads-in-fp32|grad-reduce-in-bf16|main-.*-dtype|exp-avg.*-dtype|use-precision-aware-optimizer|use-distributed-optimizer|use-megatron-fsdp|use-torch-fsdp2|.*-parallel-size|num-layers|num-experts)$/;

export function megatronHover(ctx: MegatronContext, r: MegatronResolution, failed: Diagnostic[]): { markdown: string; hovers: HoverTarget[]; inlayHints: InlayHintData[] } {
  const markdown = summaryMarkdown({
    failed,
    reasonLine: detectMegatron(ctx.doc) ?? FORCED,
    framework: "Megatron-LM",
    layoutName: r.layoutName,
    worldSize: ctx.worldSize,
    layout: r.parallel,
    mechanism: "none",
    mechanismText: "Megatron-LM mixed precision (model in params_dtype, fp32 main parameters and optimizer state)",
    meaning: `the model is built in ${ctx.paramsDtype}; ${ctx.fp32Grads.value ? "gradients accumulate and reduce in fp32" : `gradients stay ${ctx.paramsDtype}`} (${ctx.version.detail}).`,
    table: r.table,
    notes: r.notes,
  });
  const ranges: (Range | undefined)[] = [];
  for (const f of ctx.flags.values()) if (HOVERED.test(f.name)) ranges.push(f.range);
  const hovers = hoversAt(ranges, markdown);
  const at = ctx.flag("bf16") ?? ctx.flag("fp16");
  return { markdown, hovers, inlayHints: precisionHint(at?.range, r.table, failed.length > 0) };
}
