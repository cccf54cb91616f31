/**
 * transformers/pure-bf16-zero3: LLaMA-Factory pure_bf16 with DeepSpeed ZeRO-3: rejected at launch.
 *
 * LLaMA-Factory `pure_bf16: true` with DeepSpeed ZeRO-3: the argument parser raises
 * ValueError "`pure_bf16` is incompatible with DeepSpeed ZeRO-3." (src/llamafactory/hparams/parser.py:384-385@v0.9.5).
 * Error when the DeepSpeed file is found and says stage 3; a file that is not found is not guessed from its name.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { removeKey, fix } from "../../common/edits";
import { relateLast } from "../../common/related";
import type { TransformersRule } from "../context";

export const pureBf16Zero3: TransformersRule = {
  codes: ["transformers/pure-bf16-zero3"],
  // The DeepSpeed file's stage: read from disk or inline (a file not found is not guessed from its name).
  restsOn: ["linkedConfig"],
  run({ pureBf16, ds, dsSource, v, doc, dsRel }) {
    const d = diagnostics("transformers");
    if (!pureBf16 || !ds || ds.facts.stage !== 3) return d.out;
    const e = v.entry("pure_bf16")!;
    d.add("pure-bf16-zero3", "error", e.range, `\`pure_bf16\` with DeepSpeed ZeRO-3 (${dsSource === "inline" ? "inline config" : dsRel}): LLaMA-Factory raises ValueError at launch`, [fix("Remove `pure_bf16` (ZeRO-3 keeps fp32 master weights)", removeKey(doc, e.range), true)], undefined, "LLaMA-Factory's argument parser raises ValueError \"`pure_bf16` is incompatible with DeepSpeed ZeRO-3.\". Use `bf16: true` with ZeRO-3 (fp32 master partitions), or ZeRO-2 / no DeepSpeed for pure bf16.");
    if (dsSource === "file") relateLast(d, "transformers/pure-bf16-zero3", ds.path, ds.view.entry("zero_optimization", "stage")?.range, "ZeRO stage 3 is set here");
    return d.out;
  },
};
