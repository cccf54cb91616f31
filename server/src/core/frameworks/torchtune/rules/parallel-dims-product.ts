/**
 * torchtune/parallel-dims-product: The parallel dims do not multiply to the world size.
 *
 * The parallel dims do not multiply to the world size (torchtune asserts they do).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";

export const parallelDimsProduct: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/parallel-dims-product"],
  restsOn: ["worldSize"],
  run({ v, worldSize, repDim, shardDim, tpDim, cpDim }) {
    const d = diagnostics("torchtune");
    const shardEntry = v.entry("data_parallel_shard_dim");
    if (worldSize && worldSize.source !== "recipe" && shardDim !== -1 && v.has("data_parallel_shard_dim")) {
      const product = repDim * shardDim * tpDim * cpDim;
      if (product !== worldSize.value) {
        d.add("parallel-dims-product", "error", shardEntry!.value.range, { message: `The parallel dims multiply to ${product} but the world size is ${worldSize.value}: torchtune asserts they are equal`, detail: `The parallel dims multiply to ${product} (replicate ${repDim} × shard ${shardDim} × tp ${tpDim} × cp ${cpDim}) but the world size is ${worldSize.value} (${worldSize.detail}); torchtune asserts they are equal.` }, [fix("Infer the shard dim (-1)", [replaceValue(shardEntry!, "-1")], true)]);
      }
    }
    return d.out;
  },
};
