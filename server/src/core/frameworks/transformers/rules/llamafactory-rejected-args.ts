/**
 * transformers/llamafactory-rejected-args: LLaMA-Factory's get_train_args rejects this combination at launch.
 *
 * Two of LLaMA-Factory's own argument checks, run by `get_train_args` before anything loads
 * (src/llamafactory/hparams/parser.py@v0.9.5):
 * - `quantization_bit` with a `finetuning_type` other than `lora` / `oft`: ValueError "Quantization is only
 *   compatible with the LoRA or OFT method." (`_verify_model_args`, parser.py:188-190);
 * - `stage: rm` or `stage: ppo` with `load_best_model_at_end: true`: ValueError "RM and PPO stages do not support
 *   `load_best_model_at_end`." (parser.py:329-330).
 * The file alone decides (the finetuning type defaults to `lora`, finetuning_args.py:464). Checked by running
 * `get_train_args` (oracle/frameworks/llamafactory_worker.py, oracle/cases/hf/lf0.9.5/).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { TransformersRule } from "../context";

export const llamafactoryRejectedArgs: TransformersRule = {
  codes: ["transformers/llamafactory-rejected-args"],
  // The file alone decides.
  restsOn: [],
  run({ dialect, v }) {
    const d = diagnostics("transformers");
    if (dialect !== "llamafactory") return d.out;
    const quant = v.entry("quantization_bit");
    const ft = v.str("finetuning_type") ?? "lora";
    if (quant && v.int("quantization_bit") !== undefined && ft !== "lora" && ft !== "oft") {
      d.add("llamafactory-rejected-args", "error", quant.range, `\`quantization_bit\` with \`finetuning_type: ${ft}\`: LLaMA-Factory raises ValueError (LoRA/OFT only)`, [], undefined,
        "LLaMA-Factory's get_train_args raises ValueError \"Quantization is only compatible with the LoRA or OFT method.\" before loading. Use `finetuning_type: lora` (QLoRA) or drop `quantization_bit`.");
    }
    const stage = v.str("stage");
    const best = v.entry("load_best_model_at_end");
    if ((stage === "rm" || stage === "ppo") && best && v.bool("load_best_model_at_end") === true) {
      d.add("llamafactory-rejected-args", "error", best.range, `\`load_best_model_at_end\` with \`stage: ${stage}\`: LLaMA-Factory raises ValueError`, [], undefined,
        "LLaMA-Factory's get_train_args raises ValueError \"RM and PPO stages do not support `load_best_model_at_end`.\". Remove it, or train with another stage.");
    }
    return d.out;
  },
};
