/**
 * automodel/unknown-dtype: A dtype string NeMo AutoModel's dtype_from_str does not know: KeyError at launch.
 *
 * A dtype string NeMo AutoModel's `dtype_from_str` does not know (nemo_automodel 0.7.0
 * `shared/utils.py`: torch dtype names with or without `torch.`, plus `bf16`; `fp32`, `fp16` are not among
 * them), in `model.torch_dtype` / `model.dtype` or the FSDP2 `mp_policy` dtypes: it raises KeyError "Unknown
 * dtype string" while the recipe builds the model or parses `distributed`.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { ConfigEntry } from "../../../model/document";
import { dtypeFromStr, type AutomodelContext } from "../context";
import { table } from "../../../model/table";

const NEAR: Readonly<Record<string, string>> = table({ fp32: "float32", fp16: "float16", float: "float32", half: "float16", bfloat: "bfloat16" });

export const unknownDtype: FrameworkRule<AutomodelContext> = {
  codes: ["automodel/unknown-dtype"],
  restsOn: [],
  run(ctx) {
    const d = diagnostics("automodel");
    const entries: (ConfigEntry | undefined)[] = [ctx.model.entry, ...["param_dtype", "reduce_dtype", "output_dtype"].map((k) => ctx.v.entry("distributed", "mp_policy", k))];
    for (const e of entries) {
      if (!e || e.value.kind !== "string") continue;
      const s = e.value.value as string;
      if (s === "auto" && e.path[0] === "model") continue;
      if (dtypeFromStr(s) !== undefined) continue;
      const near = NEAR[s.toLowerCase()];
      d.add("unknown-dtype", "error", e.value.range, `\`${e.path.join(".")}: ${s}\` raises KeyError "Unknown dtype string"${near ? ` (use \`${near}\`)` : ""}`, near ? [fix(`Use ${near}`, [replaceValue(e, near)], true)] : undefined);
    }
    return d.out;
  },
};
