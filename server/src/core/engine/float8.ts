/**
 * torchao Float8Linear as torchtitan configures it (pytorch-dtypes.md §6.4, torchtitan.md §2.3).
 * A recipe is data: the float8 format of each GEMM operand and what the FSDP / TP integrations do.
 * The exact formats are tagged [uncertain] in the spec; they live here, in one table.
 */
import type { EDType } from "./dtypes";
import { table } from "../model/table";

export type Float8RecipeName = "tensorwise" | "rowwise" | "rowwise_with_gw_hp";

export interface Float8Recipe {
  name: Float8RecipeName;
  input: EDType;
  weight: EDType;
  gradOutput: EDType;
  /** The grad-weight GEMM stays in high precision (rowwise_with_gw_hp). */
  gradWeightHighPrecision: boolean;
  /** `enable_fsdp_float8_all_gather` is honoured (tensorwise only). */
  supportsFsdpFloat8AllGather: boolean;
  /** Float8 TP styles (PrepareFloat8ModuleInput etc.) exist for this recipe (not rowwise). */
  supportsFloat8TensorParallel: boolean;
  scaling: string;
}

export const FLOAT8_RECIPES: Readonly<Record<Float8RecipeName, Float8Recipe>> = table({
  tensorwise: {
    name: "tensorwise",
    input: "float8_e4m3fn",
    weight: "float8_e4m3fn",
    gradOutput: "float8_e5m2",
    gradWeightHighPrecision: false,
    supportsFsdpFloat8AllGather: true,
    supportsFloat8TensorParallel: true,
    scaling: "per-tensor dynamic scales",
  },
  rowwise: {
    name: "rowwise",
    input: "float8_e4m3fn",
    weight: "float8_e4m3fn",
    gradOutput: "float8_e4m3fn",
    gradWeightHighPrecision: false,
    supportsFsdpFloat8AllGather: false,
    supportsFloat8TensorParallel: false,
    scaling: "axiswise scales rounded to powers of 2",
  },
  rowwise_with_gw_hp: {
    name: "rowwise_with_gw_hp",
    input: "float8_e4m3fn",
    weight: "float8_e4m3fn",
    gradOutput: "float8_e4m3fn",
    gradWeightHighPrecision: true,
    supportsFsdpFloat8AllGather: false,
    supportsFloat8TensorParallel: false,
    scaling: "axiswise scales rounded to powers of 2; grad-weight GEMM in high precision",
  },
});

/** torchtitan TOML era: `recipe_name` unset means the tensorwise default config (§6.4: "tensorwise in older torchtitan"). */
export const DEFAULT_FLOAT8_RECIPE: Float8RecipeName = "tensorwise";

export function float8Recipe(name: string | undefined): Float8Recipe {
  return name && name in FLOAT8_RECIPES ? FLOAT8_RECIPES[name as Float8RecipeName] : FLOAT8_RECIPES[DEFAULT_FLOAT8_RECIPE];
}

/**
 * Which nn.Linear modules get converted: both dims divisible by 16 and no `filter_fqns` entry is a
 * substring of the FQN (torchao's module filter). `auto_filter_small_kn` is a size heuristic we do not
 * model: it is treated as filtering nothing extra (documented in the assumptions output).
 */
export function isFloat8Converted(fqn: string, inFeatures: number, outFeatures: number, filterFqns: readonly string[]): boolean {
  if (inFeatures % 16 !== 0 || outFeatures % 16 !== 0) return false;
  return !filterFqns.some((f) => f !== "auto_filter_small_kn" && f.length > 0 && fqn.includes(f));
}
