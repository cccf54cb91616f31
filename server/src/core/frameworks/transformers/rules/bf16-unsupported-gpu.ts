/**
 * transformers/bf16-unsupported-gpu: bf16 on a GPU without bf16 tensor cores (V100, T4, RTX 20xx): ValueError at transformers 4.21–4.34, emulated from 4.35.
 *
 * `bf16: true` on a GPU without bf16 tensor cores (compute capability below 8.0: V100, T4, RTX
 * 20xx), the GPU named by `precisionLens.gpu`, `--gpu` or a `# precision-lens: gpu=…` directive. What happens is
 * modelled by the transformers release (data.ts TA_BF16_GPU_CHECK_SINCE, TA_BF16_TORCH_CHECK_SINCE):
 * - 4.21.0 to 4.34.x: TrainingArguments.__post_init__ reads the device's capability and raises ValueError "Your setup
 *   doesn't support bf16/gpu" before the first step: an error resting on the transformers pin;
 * - from 4.35.0 the check is torch's `is_bf16_supported()`, which at torch 2.13.0 passes by emulation: bf16 runs
 *   without bf16 tensor cores (slower than fp16 AMP on the same GPU), or raises on a torch that reads the capability
 *   only: a warning naming both;
 * - before 4.21.0 TrainingArguments lets it through (a CPU with bf16 counts) and autocast decides: a warning.
 * Unpinned, the candidates give an error (4.21–4.34) or emulation (4.35+): a warning, true for every one of them.
 * Silent when no GPU is named: the default GPU is no fact, and among the candidates Ampere and newer GPUs run bf16.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { TransformersRule } from "../context";
import { GPUS } from "../../../engine/gpus";
import { versionAtLeast } from "../../../workspace/packagePin";
import { TA_BF16_GPU_CHECK_SINCE, TA_BF16_TORCH_CHECK_SINCE } from "../data";

export const bf16UnsupportedGpu: TransformersRule = {
  codes: ["transformers/bf16-unsupported-gpu"],
  restsOn: ["version"],
  versionOf: "transformers",
  run(ctx) {
    const d = diagnostics("transformers");
    const { gpu, bf16, versions, v } = ctx;
    if (!gpu || gpu.kind === "default" || !bf16.value) return d.out;
    // TRL's default `bf16` rests on the TRL version: only with a TRL pin.
    if (bf16.source !== "file" && !(ctx.dialect === "trl" && versions.pinned.trl)) return d.out;
    const spec = GPUS[gpu.value];
    if (!("cuda" in spec.capability) || spec.capability.cuda[0] >= 8) return d.out;
    const cc = `${spec.capability.cuda[0]}.${spec.capability.cuda[1]}`;
    const t = versions.transformers;
    const at = ctx.bf16E?.value.range ?? v.keyRange(v.childKeys()[0] ?? "");
    const where = `${spec.label} (compute capability ${cc}, ${gpu.detail})`;
    const raises = versions.pinned.transformers && versionAtLeast(t.value, TA_BF16_GPU_CHECK_SINCE) && !versionAtLeast(t.value, TA_BF16_TORCH_CHECK_SINCE);
    const src = bf16.source === "file" ? "`bf16: true`" : `TRL's default \`bf16: true\` (${bf16.detail})`;
    if (raises) {
      d.add("bf16-unsupported-gpu", "error", at, `bf16 on ${spec.label} (compute capability ${cc}): TrainingArguments raises ValueError "Your setup doesn't support bf16/gpu" at transformers ${t.value}`, undefined, undefined,
        `${src} on ${where}. At transformers ${t.value} (${t.detail}) TrainingArguments.__post_init__ checks the device's compute capability (below 8.0: no bf16) and raises ValueError "Your setup doesn't support bf16/gpu" before training starts (${TA_BF16_GPU_CHECK_SINCE} to 4.34.x). Use \`fp16: true\` (fp16 AMP with loss scaling) on this GPU.`);
    } else {
      const how = !versions.pinned.transformers
        ? `transformers is not pinned (${t.detail}): from ${TA_BF16_GPU_CHECK_SINCE} to 4.34.x TrainingArguments raises ValueError "Your setup doesn't support bf16/gpu"; from ${TA_BF16_TORCH_CHECK_SINCE} it asks torch, whose \`is_bf16_supported()\` passes by emulation at torch 2.13.0`
        : versionAtLeast(t.value, TA_BF16_TORCH_CHECK_SINCE)
          ? `at transformers ${t.value} (${t.detail}) TrainingArguments asks torch's \`is_bf16_supported()\`, which passes by emulation at torch 2.13.0 (a bf16 tensor can be created) and fails on a torch that reads the capability only (then ValueError "Your setup doesn't support bf16/gpu")`
          : `at transformers ${t.value} (${t.detail}) TrainingArguments lets bf16 through (a CPU with bf16 counts) and torch's autocast decides: emulated, or RuntimeError "Current CUDA Device does not support bfloat16"`;
      const short = !versions.pinned.transformers ? `ValueError at transformers ${TA_BF16_GPU_CHECK_SINCE}–4.34, emulated (slow) from ${TA_BF16_TORCH_CHECK_SINCE}` : "emulated (slow) or rejected, by the torch version";
      d.add("bf16-unsupported-gpu", "warning", at, `bf16 on ${spec.label} (compute capability ${cc}, no bf16 tensor cores): ${short}`, undefined, undefined,
        `${src} on ${where}: this GPU has no bf16 tensor cores; ${how}. Where it runs, bf16 matmuls are emulated, slower than fp16 AMP on the same GPU. Use \`fp16: true\` (fp16 AMP with loss scaling) on this GPU.`);
    }
    return d.out;
  },
};
