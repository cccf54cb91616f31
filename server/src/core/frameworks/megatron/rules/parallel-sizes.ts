/**
 * megatron/parallel-sizes: Parallel sizes validate_args rejects: world size, layers or experts not divisible.
 *
 * Parallel sizes validate_args rejects (megatron/training/arguments.py at core_v0.16.1):
 * - the world size not divisible by tensor × pipeline × context parallel size ("world size … is not divisible
 *   by total_model_size"); rests on the world size (from `torchrun --nproc_per_node … --nnodes …`);
 * - `--num-layers` not divisible by the pipeline size, when no uneven split (`--decoder-first/last-pipeline-
 *   num-layers`), no virtual pipeline flags and no `--account-for-*-in-pipeline-split` change the count;
 * - `--expert-model-parallel-size` above 1 without `--num-experts`, or not dividing it;
 * - `--num-attention-heads` not a multiple of the tensor parallel size, or (with `--group-query-attention`)
 *   `--num-query-groups` neither a multiple nor a divisor of it: megatron-core's `TransformerConfig.__post_init__`
 *   raises ValueError (megatron/core/transformer/transformer_config.py:924 and :939 in the 0.16.1 wheel; the
 *   oracle's megatron worker found these two missing).
 * A flag whose value is not a literal number (an unset variable) is skipped, and so is a missing `--num-experts`
 * when the command's arguments are not all known (`absentUnknown`: `$@`, an array from a sourced file, slime).
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import type { FrameworkRule } from "../../common/rule";
import { restingOn } from "../../../provenance";
import type { MegatronContext } from "../context";

export const parallelSizes: FrameworkRule<MegatronContext> = {
  codes: ["megatron/parallel-sizes"],
  restsOn: [],
  run(ctx) {
    const d = diagnostics("megatron");
    const { flag, int, worldSize } = ctx;
    const tp = int("tensor-model-parallel-size", 1);
    const pp = int("pipeline-model-parallel-size", 1);
    const cp = int("context-parallel-size", 1);
    const W = worldSize?.value;
    if (tp && pp && cp && W) {
      const model = tp * pp * cp;
      const at = flag("tensor-model-parallel-size") ?? flag("pipeline-model-parallel-size") ?? flag("context-parallel-size");
      if (W % model !== 0 && at) {
        d.add("parallel-sizes", "error", at.valueRange ?? at.range, { message: `world size ${W} is not divisible by TP × PP × CP = ${tp} × ${pp} × ${cp} = ${model}: validate_args stops the launch`, detail: `validate_args asserts world_size % (tensor × pipeline × context parallel size) == 0; here ${W} (${worldSize!.detail}) % ${model} = ${W % model}.` });
        restingOn(d.out[d.out.length - 1]!, ["worldSize"]);
      }
    }
    const layers = flag("num-layers");
    const nl = int("num-layers", 0);
    const uneven = ["decoder-first-pipeline-num-layers", "decoder-last-pipeline-num-layers", "num-layers-per-virtual-pipeline-stage", "num-virtual-stages-per-pipeline-rank", "account-for-embedding-in-pipeline-split", "account-for-loss-in-pipeline-split", "pipeline-model-parallel-layout"].some((f) => flag(f));
    if (layers && nl && pp && pp > 1 && !uneven && nl % pp !== 0) d.add("parallel-sizes", "error", layers.valueRange ?? layers.range, { message: `\`--num-layers ${nl}\` is not divisible by the pipeline size ${pp}: validate_args stops the launch`, detail: `With no uneven split, validate_args asserts num_layers % pipeline_model_parallel_size == 0 ("Number of layers should be divisible by the pipeline-model-parallel size"); ${nl} % ${pp} = ${nl % pp}.` });
    const ep = int("expert-model-parallel-size", 1);
    const epFlag = flag("expert-model-parallel-size");
    if (ep && ep > 1 && epFlag) {
      const ne = flag("num-experts");
      const n = int("num-experts", 0);
      if (!ne) {
        if (!ctx.absentUnknown) d.add("parallel-sizes", "error", epFlag.valueRange ?? epFlag.range, "`--expert-model-parallel-size` above 1 without `--num-experts`: validate_args stops the launch");
      } else if (n && n % ep !== 0) d.add("parallel-sizes", "error", ne.valueRange ?? ne.range, `\`--num-experts ${n}\` is not a multiple of the expert parallel size ${ep}: validate_args stops the launch`);
    }
    const heads = flag("num-attention-heads");
    const nh = int("num-attention-heads", 0);
    if (heads && nh && tp && nh % tp !== 0) d.add("parallel-sizes", "error", heads.valueRange ?? heads.range, `\`--num-attention-heads ${nh}\` is not a multiple of the tensor parallel size ${tp}: TransformerConfig stops the launch`);
    const groups = flag("num-query-groups");
    const ng = int("num-query-groups", 0);
    if (groups && flag("group-query-attention") && ng && tp && ng % tp !== 0 && tp % ng !== 0) d.add("parallel-sizes", "error", groups.valueRange ?? groups.range, `\`--num-query-groups ${ng}\` is neither a multiple nor a divisor of the tensor parallel size ${tp}: TransformerConfig stops the launch`);
    return d.out;
  },
};
