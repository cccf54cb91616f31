/**
 * torchtune/replicate-only-data-parallel: Replicate-only data parallelism: torchtune applies no FSDP.
 *
 * Replicas with no sharding and no TP/CP never synchronise their gradients.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";

export const replicateOnlyDataParallel: FrameworkRule<TorchtuneContext> = {
  codes: ["torchtune/replicate-only-data-parallel"],
  restsOn: [],
  run({ v, repDim, shardDim, tpDim, cpDim }) {
    const d = diagnostics("torchtune");
    const repEntry = v.entry("data_parallel_replicate_dim");
    const shardEntry = v.entry("data_parallel_shard_dim");
    if (repEntry && repDim > 1 && shardDim === 1 && tpDim === 1 && cpDim === 1) {
      d.add("replicate-only-data-parallel", "information", repEntry.value.range, { message: `\`data_parallel_replicate_dim: ${repDim}\` with shard dim 1: the ${repDim} replicas never sync gradients`, detail: `\`data_parallel_replicate_dim: ${repDim}\` with \`data_parallel_shard_dim: 1\` and no TP/CP: torchtune applies FSDP only when dp_shard > 1 or cp > 1 and has no DDP path, so the ${repDim} replicas would never synchronise their gradients.` }, shardEntry ? [fix("Set data_parallel_shard_dim: -1", [replaceValue(shardEntry, "-1")], true)] : []);
    }
    return d.out;
  },
};
