/**
 * Axolotl's bundled DeepSpeed configs (`deepspeed_configs/*.json` in axolotl-ai-cloud/axolotl at v0.18.0),
 * reduced to the keys that decide precision and layout. Axolotl configs name them by a path into an
 * Axolotl checkout or its Docker image (`deepspeed_configs/zero2.json`,
 * `/workspace/axolotl/deepspeed_configs/zero3_bf16.json`), which is usually not in the user's workspace.
 *
 * Assumption `axolotl-bundled-ds`: a `deepspeed:` path that is not found and whose last two segments are
 * `deepspeed_configs/<name>.json` with a name below is that bundled file, as of v0.18.0. Every bundled
 * file sets `gradient_accumulation_steps`, `gradient_clipping`, `train_batch_size` and
 * `train_micro_batch_size_per_gpu` to "auto" (left out here: they do not change the precision).
 */
import type { ConfigDocument } from "../../model/document";
import { parseJsonDocument } from "../../parse/json";
import { table } from "../../model/table";

/** The precision-relevant content of each bundled file (JSON text, so the DeepSpeed analyser reads it as-is). */
const BUNDLED: Readonly<Record<string, string>> = table({
  "zero1.json": '{"zero_optimization": {"stage": 1}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}',
  "zero1_torch_compile.json": '{"zero_optimization": {"stage": 1}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}',
  "zero2.json": '{"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}',
  "zero2_torch_compile.json": '{"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}',
  "zero3.json": '{"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}',
  "zero3_bf16.json": '{"zero_optimization": {"stage": 3}, "bf16": {"enabled": true}}',
  "zero3_bf16_cpuoffload_all.json": '{"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "cpu"}}, "bf16": {"enabled": true}}',
  "zero3_bf16_cpuoffload_params.json": '{"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}}, "bf16": {"enabled": true}}',
});

export const AXOLOTL_BUNDLED_VERSION = "v0.18.0";

/** The bundled file a `deepspeed:` path names (`…/deepspeed_configs/zero2.json`), parsed; undefined otherwise. */
export function axolotlBundledDs(rel: string): { name: string; doc: ConfigDocument } | undefined {
  const parts = rel.split(/[\\/]+/);
  const name = parts[parts.length - 1] ?? "";
  if (parts[parts.length - 2] !== "deepspeed_configs" || !(name in BUNDLED)) return undefined;
  return { name, doc: parseJsonDocument(`axolotl-bundled:deepspeed_configs/${name}`, BUNDLED[name]!) };
}
