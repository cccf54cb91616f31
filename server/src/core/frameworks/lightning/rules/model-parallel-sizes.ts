/**
 * lightning/model-parallel-sizes: ModelParallelStrategy sizes do not match devices × num_nodes.
 *
 * ModelParallelStrategy sizes that do not multiply to devices × num_nodes.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import type { LightningContext } from "../context";

export const modelParallelSizes: FrameworkRule<LightningContext> = {
  codes: ["lightning/model-parallel-sizes"],
  restsOn: [],
  run({ st, devices, nodes }) {
    const d = diagnostics("lightning");
    if (st.family === "model_parallel" && st.args) {
      const dp = st.args.int("data_parallel_size");
      const tp = st.args.int("tensor_parallel_size");
      if (dp !== undefined && tp !== undefined && devices !== undefined && dp * tp !== devices * nodes) {
        d.add("model-parallel-sizes", "error", st.args.keyRange("data_parallel_size"), { message: `data_parallel_size × tensor_parallel_size = ${dp * tp}, but devices × num_nodes = ${devices * nodes}: RuntimeError`, detail: `data_parallel_size × tensor_parallel_size = ${dp} × ${tp} = ${dp * tp}, but devices × num_nodes = ${devices} × ${nodes} = ${devices * nodes}: ModelParallelStrategy raises RuntimeError.` });
      }
    }
    return d.out;
  },
};
