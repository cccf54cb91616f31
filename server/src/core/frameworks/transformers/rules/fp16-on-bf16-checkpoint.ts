/**
 * transformers/fp16-on-bf16-checkpoint: `fp16: true` on a checkpoint trained in bf16, on a GPU that runs bf16: fp16's range (max 65504) can overflow where bf16 was meant.
 *
 * `fp16: true` in this file (fp16 AMP: the Accelerator's `mixed_precision="fp16"`, autocast to fp16 and a
 * GradScaler; transformers `training_args.py` `__post_init__` → `Trainer.create_accelerator_and_postprocess`) while
 * the checkpoint was trained in bf16 and the named GPU has bf16 tensor cores (CUDA compute capability ≥ 8.0, or an
 * AMD Instinct of the table). fp16 keeps 10 mantissa bits but only 5 exponent bits: its largest finite value is
 * 65504 (`torch.finfo(torch.float16).max`), bf16's about 3.39e38 (`torch.finfo(torch.bfloat16).max`) like fp32's, so
 * activations a bf16-trained model produces may become inf/NaN in fp16 (the GradScaler only rescales gradients, not
 * the forward pass). transformers' own model docs say of Llama 3 "Training the model in `float16` is not recommended
 * and is known to produce `nan`" (docs/source/en/model_doc/llama3.md:51-56@08bdcc14); Llama 2 and Code Llama carry
 * the same "trained using `bfloat16`" note (docs/source/en/model_doc/llama2.md, docs/source/en/model_doc/code_llama.md).
 *
 * The checkpoint's dtype, in this order:
 * - the model's `config.json` in the workspace (`model_name_or_path` a folder of the workspace, relative to this
 *   file's folder or a folder above it): `torch_dtype` (`dtype` from transformers 5) `"bfloat16"` → a warning;
 *   `float16`/`float32` there → silent;
 * - otherwise a documented model family (named assumption `bf16-model-family`): Hub ids of Llama 2, Llama 3 and
 *   Code Llama, from the notes above → information;
 * - anything else: silent.
 * The GPU is the named one (`--gpu`, `# precision-lens: gpu=…`, the precisionLens.gpu setting): silent when none is
 * named (the default GPU is no fact) or when it is pre-Ampere (V100, T4, RTX 20xx: there fp16 is the right choice,
 * bf16-unsupported-gpu says the reverse). Silent with `bf16: true` too (bf16-and-fp16 reports that).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix } from "../../common/edits";
import type { TransformersContext, TransformersRule } from "../context";
import { GPUS } from "../../../engine/gpus";
import { firstFitting } from "../../../diagnostics/build";
import { ancestorDirs, dirname, displayPath, join } from "../../../workspace/paths";

/** Hub ids of model families transformers' docs say were trained in bf16 (see the doc comment for the lines). */
const BF16_FAMILIES: readonly { re: RegExp; name: string; source: string }[] = [
  { re: /^meta-llama\/(?:Meta-)?Llama-3/i, name: "Llama 3", source: "transformers docs/source/en/model_doc/llama3.md" },
  { re: /^meta-llama\/Llama-2-/i, name: "Llama 2", source: "transformers docs/source/en/model_doc/llama2.md" },
  { re: /^(?:meta-llama|codellama)\/CodeLlama-/i, name: "Code Llama", source: "transformers docs/source/en/model_doc/code_llama.md" },
];

/** `rel` under `base` with `.` and `..` segments resolved (`/w/recipes` + `../models/x` → `/w/models/x`). */
function resolved(base: string, rel: string): string {
  const out = base.split("/");
  for (const seg of rel.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") { if (out.length > 1) out.pop(); } else out.push(seg);
  }
  return out.join("/");
}

/** The checkpoint dtype from the model folder's config.json in the workspace, with the file read. */
export function workspaceCheckpointDtype(ctx: TransformersContext, model: string): { dtype: string; file: string } | undefined {
  const { env } = ctx;
  const bases = model.startsWith("/") ? [""] : [...(env.documentPath ? [dirname(env.documentPath)] : []), ...ancestorDirs(env)];
  for (const b of bases) {
    const file = join(b ? resolved(b, model) : model, "config.json");
    const text = env.readFile(file);
    if (text === undefined || text.length > 1_000_000) continue;
    try {
      const j = JSON.parse(text) as Record<string, unknown>;
      const d = typeof j.torch_dtype === "string" ? j.torch_dtype : typeof j.dtype === "string" ? j.dtype : undefined;
      if (d) return { dtype: d, file: displayPath(file, env) };
    } catch {
      // Not JSON: no fact.
    }
    return undefined;
  }
  return undefined;
}

export const fp16OnBf16Checkpoint: TransformersRule = {
  codes: ["transformers/fp16-on-bf16-checkpoint"],
  // The GPU (named, else silent) and the file's `fp16`; the checkpoint dtype is read from the workspace or assumed.
  restsOn: [],
  run(ctx) {
    const d = diagnostics("transformers");
    const { gpu, fp16, fp16E, bf16, v, pureBf16 } = ctx;
    if (!gpu || gpu.kind === "default" || !fp16E || fp16.source !== "file" || !fp16.value || bf16.value || pureBf16) return d.out;
    const spec = GPUS[gpu.value];
    if ("cuda" in spec.capability && spec.capability.cuda[0] < 8) return d.out;
    const model = v.str("model_name_or_path");
    if (!model) return d.out;
    const ws = workspaceCheckpointDtype(ctx, model);
    let why: string;
    let severity: "warning" | "information";
    if (ws) {
      if (ws.dtype !== "bfloat16") return d.out;
      why = `\`torch_dtype: bfloat16\` in ${ws.file}`;
      severity = "warning";
    } else {
      const fam = BF16_FAMILIES.find((f) => f.re.test(model));
      if (!fam) return d.out;
      why = `assumed for ${fam.name}: trained in bf16 per ${fam.source}`;
      severity = "information";
    }
    const fixes = ctx.bf16E ? undefined : [fix("Use bf16 (`bf16: true`)", [{ range: fp16E.keyRange, newText: "bf16" }], true)];
    const what = ws ? "a checkpoint saved in bf16" : `${BF16_FAMILIES.find((f) => f.re.test(model))!.name} (trained in bf16)`;
    const message = firstFitting([
      `\`fp16\` AMP on ${what}: activations can overflow fp16 (max 65504); ${spec.label} runs bf16`,
      `\`fp16\` AMP on ${what}: activations can overflow fp16 (max 65504); this GPU runs bf16`,
    ]);
    d.add("fp16-on-bf16-checkpoint", severity, fp16E.value.range, message, fixes, undefined,
      `\`fp16: true\` runs fp16 AMP (autocast to fp16 with a GradScaler) on \`${model}\`, whose weights were trained in bf16 (${why}). fp16's largest value is 65504, bf16's about 3.4e38: activations the model learned in bf16 can overflow to inf/NaN in the fp16 forward pass, which loss scaling does not prevent. ${spec.label} (${gpu.detail}) has bf16 tensor cores: \`bf16: true\` runs at the same speed without loss scaling.`);
    return d.out;
  },
};
