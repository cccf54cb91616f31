/**
 * torchtune/tensor-parallel-plan: Tensor parallelism without a plan, or with a LoRA model.
 *
 * `tensor_parallel_dim > 1` without a plan, or with a LoRA model: the recipe refuses it.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";

export const tensorParallelPlan: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/tensor-parallel-plan"],
  restsOn: [],
  run({ v, tpDim, isLora }) {
    const d = diagnostics("torchtune");
    const tpEntry = v.entry("tensor_parallel_dim");
    if (tpEntry && tpDim > 1) {
      if (!v.has("tensor_parallel_plan")) d.add("tensor-parallel-plan", "error", tpEntry.value.range, { message: `\`tensor_parallel_dim: ${tpDim}\` without a \`tensor_parallel_plan\`: the recipe raises ValueError`, detail: `\`tensor_parallel_dim: ${tpDim}\` without a \`tensor_parallel_plan\`: the recipe raises ValueError. Add the model's plan (e.g. \`_component_: torchtune.models.llama3.base_llama_tp_plan\`) or set the dim to 1.` }, [fix("Set tensor_parallel_dim: 1", [replaceValue(tpEntry, "1")], true)]);
      if (isLora) d.add("tensor-parallel-plan", "error", tpEntry.value.range, `\`tensor_parallel_dim: ${tpDim}\` with a LoRA model: the LoRA distributed recipe asserts tensor parallelism is 1.`, [fix("Set tensor_parallel_dim: 1", [replaceValue(tpEntry, "1")], true)]);
    }
    return d.out;
  },
};
