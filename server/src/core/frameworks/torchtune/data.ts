/** torchtune's dtype names (spec other-frameworks.md §1.2) and the near-misses a fix maps onto them. */
import type { DType } from "../../model/types";
import { table } from "../../model/table";

/** `dtype` values torchtune's `get_dtype` accepts, with the torch dtype each is. */
export const DTYPES: Readonly<Record<string, DType>> = table({ bf16: "bfloat16", fp32: "float32", fp16: "float16", fp64: "float64" });
/** Spellings users write for those dtypes (torch names, aliases), mapped to the torchtune name a fix writes. */
export const DTYPE_MAP: Readonly<Record<string, string>> = table({ bfloat16: "bf16", "torch.bfloat16": "bf16", float32: "fp32", "torch.float32": "fp32", float: "fp32", float16: "fp16", half: "fp16", "torch.float16": "fp16", float64: "fp64", double: "fp64" });
