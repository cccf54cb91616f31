/**
 * The dtype domain of the simulator. Output and JSON use torch spellings (`float32`, `bfloat16`, ...);
 * inside the engine a few non-floating dtypes also flow through the graph (token ids, the complex RoPE
 * table), so the engine's own type is a superset of the product-wide `DType`.
 * Byte sizes: pytorch-dtypes.md header ("fp32 4, bf16 2, fp16 2, fp8 1, complex64 8, int64 8").
 */
import type { DType } from "../model/types";
import { table } from "../model/table";

export type EDType = DType | "complex64" | "complex128" | "int64" | "int32" | "bool";

export const DTYPE_BYTES: Readonly<Record<EDType, number>> = table({
  float64: 8,
  float32: 4,
  bfloat16: 2,
  float16: 2,
  float8_e4m3fn: 1,
  float8_e5m2: 1,
  complex64: 8,
  complex128: 16,
  int64: 8,
  int32: 4,
  bool: 1,
});

export type DTypeCategory = "bool" | "integer" | "floating" | "complex";

export function categoryOf(d: EDType): DTypeCategory {
  switch (d) {
    case "bool":
      return "bool";
    case "int32":
    case "int64":
      return "integer";
    case "complex64":
    case "complex128":
      return "complex";
    default:
      return "floating";
  }
}

export function isFloating(d: EDType): boolean {
  return categoryOf(d) === "floating";
}

export function isFloat8(d: EDType): boolean {
  return d === "float8_e4m3fn" || d === "float8_e5m2";
}

/** True for the 16-bit floating dtypes autocast and FSDP use as "lower precision". */
export function isLowPrecision(d: EDType): boolean {
  return d === "bfloat16" || d === "float16" || isFloat8(d);
}

/** Narrows an engine dtype to the product-wide `DType` (undefined for int/complex/bool). */
export function asDType(d: EDType): DType | undefined {
  return isFloating(d) ? (d as DType) : undefined;
}

const SHORT_NAMES: Readonly<Record<EDType, string>> = table({
  float64: "fp64",
  float32: "fp32",
  bfloat16: "bf16",
  float16: "fp16",
  float8_e4m3fn: "fp8 e4m3",
  float8_e5m2: "fp8 e5m2",
  complex64: "complex64",
  complex128: "complex128",
  int64: "int64",
  int32: "int32",
  bool: "bool",
});

/** Short names for tables: fp32, bf16, fp16, fp8e4m3, ... */
export function shortName(d: EDType): string {
  return SHORT_NAMES[d];
}

/** Bytes, human readable (binary units), e.g. 1536 → "1.50 KiB", 16e9 → "14.90 GiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  const neg = bytes < 0;
  let v = Math.abs(bytes);
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const s = i === 0 ? `${Math.round(v)} ${units[i]}` : `${v.toFixed(2)} ${units[i]}`;
  return neg ? `-${s}` : s;
}
