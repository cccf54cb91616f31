/** The transformers precision hover, its anchors, and the inlay hint after `bf16`/`fp16`/the load dtype. */
import type { HoverTarget, InlayHintData } from "../../analysis";
import type { Diagnostic } from "../../model/types";
import { hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import type { TransformersContext } from "./context";
import { memoryLine, transformersMemory } from "./memory";
import type { TransformersResolution } from "./resolve";
import { table } from "../../model/table";

const DIALECT: Readonly<Record<string, string>> = table({ llamafactory: "transformers (LLaMA-Factory)", trl: "transformers (TRL)", trainer: "transformers (TrainingArguments)" });

export function transformersHover(ctx: TransformersContext, r: TransformersResolution, failed: Diagnostic[]): { markdown: string; hovers: HoverTarget[]; inlayHints: InlayHintData[] } {
  const { v, bf16E, fp16E, load, versions } = ctx;
  const ver = [`transformers ${versions.transformers.value}${versions.pinned.transformers ? "" : " (assumed)"}`];
  if (ctx.dialect === "trl") ver.push(`TRL ${versions.trl.value}${versions.pinned.trl ? "" : " (assumed)"}`);
  if (ctx.dialect === "llamafactory") ver.push(`LLaMA-Factory ${versions.llamafactory.value}${versions.pinned.llamafactory ? "" : " (assumed)"}`);
  if (ctx.launcher === "fsdp") ver.push(`accelerate ${versions.accelerate.value}${versions.pinned.accelerate ? "" : " (assumed)"}`);
  const notes = [...r.notes, `Versions: ${ver.join(", ")}.`, memoryLine(transformersMemory(ctx, r))];
  const markdown = summaryMarkdown({ failed, reasonLine: ctx.reason, framework: DIALECT[ctx.dialect]!, layoutName: r.layoutName, worldSize: ctx.worldSize, layout: r.parallel, mechanism: r.mechanism, ...(r.mechanismText !== undefined ? { mechanismText: r.mechanismText } : {}), meaning: r.meaning, table: r.table, notes, assumptions: r.assumptions });
  const hovers = hoversAt([bf16E?.keyRange, fp16E?.keyRange, load.entry?.keyRange, v.keyRange("pure_bf16"), v.keyRange("deepspeed"), v.keyRange("fsdp"), v.keyRange("fsdp_config"), v.keyRange("tf32"), v.keyRange("use_peft"), v.keyRange("finetuning_type")], markdown);
  const inlayHints = precisionHint((bf16E ?? fp16E ?? load.entry)?.value.range, r.table, failed.length > 0);
  return { markdown, hovers, inlayHints };
}
