/** DeepSpeed tables: dtype names, 1-bit optimizers, who fills `"auto"`. */
import type { DType } from "../../model/types";
import { table } from "../../model/table";

/**
 * DeepSpeed's 1-bit optimizers turn the backward all-reduce off after `freeze_step` and exchange
 * compressed momentum instead (runtime/fp16/onebit/adam.py:250-256 at v0.19.5; zoadam.py, lamb.py alike).
 */
export const ONE_BIT_OPTIMIZERS = ["onebitadam", "zerooneadam", "onebitlamb"];

/** DeepSpeed dtype names (`communication_data_type`, `data_types.*`, `torch_autocast.dtype`). */
export const DS_DTYPE: Readonly<Record<string, DType>> = table({ fp32: "float32", fp16: "float16", bf16: "bfloat16", bfp16: "bfloat16", float32: "float32", float16: "float16", bfloat16: "bfloat16" });

/** Who fills a DeepSpeed `"auto"` value (spec §5.1: "auto" means the file is meant for HF Trainer/accelerate). */
export const AUTO_FILLED_BY = "the launcher (HF Trainer `--bf16`/`--fp16`, or accelerate `mixed_precision`)";
