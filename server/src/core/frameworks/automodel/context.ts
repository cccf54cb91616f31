/**
 * Everything a NeMo AutoModel rule reads, computed once per document version, from a recipe YAML
 * (`_target_` components) as nemo_automodel 0.7.0 (PyPI) reads it:
 * - the model's storage dtype: `model.dtype` (wins) or `model.torch_dtype`, default "auto" (unknown for a custom
 *   builder target such as `components.models.gpt2.build_gpt2_model`, which builds in its own dtype). `from_pretrained`
 *   resolves "auto" to the checkpoint's dtype (`hf_config.torch_dtype`, bf16 when the config has none:
 *   `_transformers/model_init.py`), `from_config` to bf16 (`_transformers/auto_model.py`); other strings go
 *   through `shared/utils.py` `dtype_from_str`, which raises KeyError for names it does not know (fp32, fp16);
 * - the strategy (`distributed.strategy`: fsdp2 default, megatron_fsdp, ddp; `recipes/_dist_utils.py`
 *   `parse_distributed_section`) and its mixed precision: FSDP2's `mp_policy` (default param bf16, reduce fp32:
 *   `components/distributed/config.py` FSDP2Config), Megatron-FSDP's `grad_reduce_in_fp32` and
 *   `preserve_fp32_weights` (both default False), DDP's `autocast_dtype`;
 * - the optimizer (`optimizer._target_`, `lr`) and the world size (setting, or the `torchrun --nproc-per-node`
 *   line the recipes carry in their header comment).
 */
import type { AnalysisEnv, AnalysisSettings, Sourced } from "../../analysis";
import type { ConfigDocument, ConfigEntry } from "../../model/document";
import type { DType } from "../../model/types";
import type { FactValue } from "../../provenance";
import { View } from "../common/view";
import { table } from "../../model/table";
import { directiveValue, parseDirectives } from "../../diagnostics/directives";
import { pickExplicit, worldSizeFromSettings, type Explicit } from "../../workspace/precedence";

/** `dtype_from_str`'s table (lower-cased; a bare name is also tried with a `torch.` prefix). */
const LUT: Readonly<Record<string, DType | "other">> = table({
  "torch.float": "float32",
  "torch.float32": "float32",
  "torch.float64": "float64",
  "torch.double": "float64",
  "torch.float16": "float16",
  "torch.half": "float16",
  "torch.bfloat16": "bfloat16",
  bf16: "bfloat16",
  "torch.complex64": "other",
  "torch.cfloat": "other",
  "torch.uint8": "other",
  "torch.int8": "other",
  "torch.int16": "other",
  "torch.short": "other",
  "torch.int32": "other",
  "torch.int": "other",
  "torch.int64": "other",
  "torch.long": "other",
  "torch.bool": "other",
});

/** A dtype string as `dtype_from_str` reads it: the dtype, "other" (not floating), or undefined (KeyError). */
export function dtypeFromStr(s: string): DType | "other" | undefined {
  const l = s.toLowerCase();
  return LUT[l] ?? LUT[`torch.${l}`];
}

export interface ModelDtype {
  /** The storage dtype, when known or inferred. */
  dtype: DType | undefined;
  entry: ConfigEntry | undefined;
  /** "file": written; "auto-config": from_config's auto (bf16, known); "checkpoint": the checkpoint's dtype (inferred). */
  how: "file" | "auto-config" | "checkpoint" | "invalid" | "custom";
  detail: string;
}

export interface AutomodelContext {
  doc: ConfigDocument;
  settings: AnalysisSettings;
  env: AnalysisEnv;
  v: View;
  training: boolean;
  modelTarget: string;
  model: ModelDtype;
  modelFact: FactValue;
  strategy: string;
  strategyEntry: ConfigEntry | undefined;
  optimizer: string;
  lr: number | undefined;
  worldSize: Sourced<number> | undefined;
}

function worldFromComments(doc: ConfigDocument): Sourced<number> | undefined {
  for (const c of doc.comments) {
    const m = /\btorchrun\b.*?--nproc[-_]per[-_]node[=\s]+(\d+)/.exec(c.text);
    if (!m) continue;
    const nodes = /--nnodes[=\s]+(\d+)/.exec(c.text);
    const n = Number(m[1]) * (nodes ? Number(nodes[1]) : 1);
    return { value: n, source: "header-comment", kind: "run-script", detail: `\`torchrun --nproc-per-node ${m[1]}${nodes ? ` --nnodes ${nodes[1]}` : ""}\` in the comment on line ${c.line + 1}` };
  }
  return undefined;
}

export function automodelContext(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): AutomodelContext {
  const v = new View(doc);
  const modelTarget = v.str("model", "_target_") ?? "";
  const training = v.has("optimizer");
  const entry = v.entry("model", "dtype") ?? v.entry("model", "torch_dtype");
  const written = entry && entry.value.kind === "string" ? (entry.value.value as string) : undefined;
  const fromConfig = /from_config$/.test(modelTarget);
  let model: ModelDtype;
  if (written !== undefined && written !== "auto") {
    const d = dtypeFromStr(written);
    model = d === undefined ? { dtype: undefined, entry, how: "invalid", detail: `\`${entry!.path.join(".")}: ${written}\` (not a dtype name dtype_from_str knows)` } : { dtype: d === "other" ? undefined : d, entry, how: "file", detail: `\`${entry!.path.join(".")}: ${written}\`` };
  } else if (!/^nemo_automodel\.NeMoAutoModel\w*\.(?:from_pretrained|from_config)$/.test(modelTarget)) {
    // A custom builder (`components.models.gpt2.build_gpt2_model`, a composite class's from_pretrained): the
    // dtype is the builder's own (build_gpt2_model builds in torch's default fp32), not NeMoAutoModel's auto.
    model = { dtype: undefined, entry, how: "custom", detail: `\`model._target_: ${modelTarget}\` (a custom builder: its own dtype, not read)` };
  } else if (fromConfig) {
    model = { dtype: "bfloat16", entry, how: "auto-config", detail: `${written ? "`torch_dtype: auto`" : "no `torch_dtype`"}: from_config builds the model in bf16` };
  } else {
    model = { dtype: "bfloat16", entry, how: "checkpoint", detail: `${written ? "`torch_dtype: auto`" : "no `torch_dtype` (auto)"}: the checkpoint's dtype, bf16 for most published LLM checkpoints` };
  }
  const modelFact: FactValue = model.how === "checkpoint" ? { value: "bfloat16", kind: "inferred", detail: "the checkpoint's dtype (torch_dtype auto), assumed bf16" } : model.how === "custom" ? { value: "unknown", kind: "inferred", detail: model.detail } : { value: model.dtype ?? "unknown", kind: "file", detail: model.detail };
  const strategyEntry = v.entry("distributed", "strategy");
  const strategy = (v.str("distributed", "strategy") ?? "fsdp2").toLowerCase();
  const optimizer = v.str("optimizer", "_target_") ?? "";
  const lr = v.num("optimizer", "lr");
  // A CLI flag > a `# precision-lens: world-size=N` directive > the workspace setting > the torchrun comment.
  const d = directiveValue(parseDirectives(doc.comments), "world-size");
  const n = d && /^\d{1,7}$/.test(d.value) ? Number(d.value) : 0;
  const fromDirective: Explicit<number> | undefined = n > 0 ? { value: n, source: "directive", kind: "directive", detail: `\`# precision-lens: world-size=${n}\` on line ${d!.line + 1}`, label: `\`# precision-lens: world-size=${n}\` (line ${d!.line + 1})` } : undefined;
  const worldSize: Sourced<number> | undefined = pickExplicit(settings, worldSizeFromSettings(settings), fromDirective) ?? worldFromComments(doc);
  return { doc, settings, env, v, training, modelTarget, model, modelFact, strategy, strategyEntry, optimizer, lr, worldSize };
}
