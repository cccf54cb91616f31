/**
 * Ordinary PyTorch type promotion (`torch.result_type` for tensor operands of equal dimensionality), the
 * rule every op not registered with autocast falls back to (pytorch-dtypes.md §1.1 "Unlisted ops run in
 * the dtype implied by their inputs under normal type promotion").
 *
 * Rules encoded (torch semantics):
 *  - category order bool < integer < floating < complex; the higher category wins;
 *  - within floating: float64 > float32 > {bfloat16, float16}; bfloat16 with float16 → float32;
 *  - float8 dtypes do not promote with anything but themselves (torch raises) → `error`;
 *  - complex: complex64 with float64 → complex128; complex64 otherwise stays complex64;
 *  - a Python scalar (`"scalar-float"`) never raises the floating width of a floating tensor.
 */
import { categoryOf, isFloat8, type EDType } from "./dtypes";
import { table } from "../model/table";

export type PromoteOperand = EDType | "scalar-float" | "scalar-int";

export type PromoteResult = { dtype: EDType } | { error: string };

const FLOAT_RANK: Readonly<Partial<Record<EDType, number>>> = table({ float16: 1, bfloat16: 1, float32: 2, float64: 3 });

function promotePair(a: EDType, b: EDType): PromoteResult {
  if (a === b) return { dtype: a };
  if (isFloat8(a) || isFloat8(b)) return { error: `promotion of ${a} with ${b} is not defined for float8 dtypes` };
  const ca = categoryOf(a);
  const cb = categoryOf(b);
  const order = ["bool", "integer", "floating", "complex"];
  if (ca !== cb) {
    const hi = order.indexOf(ca) > order.indexOf(cb) ? a : b;
    const lo = hi === a ? b : a;
    if (categoryOf(hi) === "complex" && lo === "float64") return { dtype: "complex128" };
    if (categoryOf(hi) === "integer" && categoryOf(lo) === "bool") return { dtype: hi };
    return { dtype: hi };
  }
  switch (ca) {
    case "integer":
      return { dtype: a === "int64" || b === "int64" ? "int64" : "int32" };
    case "complex":
      return { dtype: "complex128" };
    case "floating": {
      const ra = FLOAT_RANK[a]!;
      const rb = FLOAT_RANK[b]!;
      if (ra === rb) return { dtype: "float32" }; // bfloat16 with float16
      return { dtype: ra > rb ? a : b };
    }
    default:
      return { dtype: a };
  }
}

/** Result dtype of an elementwise op over the given operands (at least one tensor). */
export function promoteTypes(operands: readonly PromoteOperand[]): PromoteResult {
  const tensors = operands.filter((o): o is EDType => o !== "scalar-float" && o !== "scalar-int");
  if (tensors.length === 0) return { error: "no tensor operand" };
  let acc: EDType = tensors[0]!;
  for (const t of tensors.slice(1)) {
    const r = promotePair(acc, t);
    if ("error" in r) return r;
    acc = r.dtype;
  }
  // A float scalar lifts integer/bool tensors to the default float dtype (float32); never widens floats.
  if (operands.includes("scalar-float") && (categoryOf(acc) === "integer" || acc === "bool")) return { dtype: "float32" };
  return { dtype: acc };
}
