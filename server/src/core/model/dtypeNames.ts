/**
 * dtype strings as torchtitan's TORCH_DTYPE_MAP knows them (spec torchtitan.md §2.1), and the declared
 * choices per knob. One source of truth for every rule, hover and completion.
 */
import type { DType } from "./types";
import { table } from "./table";

/** Keys of torchtitan's TORCH_DTYPE_MAP (unchanged 2024-05-20 … end of the TOML era). */
export const TORCH_DTYPE_MAP_KEYS: readonly DType[] = ["float16", "float32", "bfloat16"];

export function isTorchDtypeKey(s: string): s is "float16" | "float32" | "bfloat16" {
  return (TORCH_DTYPE_MAP_KEYS as readonly string[]).includes(s);
}

/** Short names for messages: fp32, bf16, fp16. */
export function shortDtype(d: DType): string {
  switch (d) {
    case "float32":
      return "fp32";
    case "bfloat16":
      return "bf16";
    case "float16":
      return "fp16";
    case "float64":
      return "fp64";
    default:
      return d;
  }
}

/** Common misspellings people write for dtypes, mapped to the torch name (used for did-you-mean). */
export const DTYPE_ALIASES: Readonly<Record<string, DType>> = table({
  bf16: "bfloat16",
  bfloat: "bfloat16",
  "torch.bfloat16": "bfloat16",
  bfloat_16: "bfloat16",
  fp32: "float32",
  float: "float32",
  "torch.float32": "float32",
  f32: "float32",
  fp16: "float16",
  half: "float16",
  "torch.float16": "float16",
  f16: "float16",
});
