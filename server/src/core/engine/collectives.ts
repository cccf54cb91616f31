/**
 * The collectives a layout runs, with the dtype each moves: FSDP all-gather and reduce-scatter, HSDP and
 * DDP all-reduce, tensor-parallel gathers and reductions, pipeline send/recv.
 */
import { reshardAfterForward, type SimContext } from "./context";
import { byOp } from "./forward";
import type { OpName } from "./ops";
import type { Collective, OpResult, ParamResult } from "./types";

export function deriveCollectives(ctx: SimContext, forward: OpResult[], params: ParamResult[]): Collective[] {
  const L = ctx.input.layout;
  const out: Collective[] = [];
  const f = (n: OpName) => byOp(forward, n).dtype;
  if (ctx.fsdp && ctx.fsdpDegree > 1) {
    const lc = ctx.fsdp.lifecycle;
    const f8 = ctx.float8?.fsdpAllGather;
    out.push({
      name: "fsdp_all_gather",
      dtype: f8 ? ctx.float8!.recipe.weight : lc.allGatherInput,
      kind: "all_gather",
      mesh: L.cp > 1 ? "fsdp (dp_shard × cp)" : "fsdp (dp_shard)",
      when: ctx.input.layout.pp > 1 || reshardAfterForward(ctx) === false ? "forward (parameters kept unsharded for backward)" : "forward, and again in backward (resharded after forward)",
      why: f8
        ? `float8 all-gather: tensorwise Float8Linear weights are quantised to ${ctx.float8!.recipe.weight} before the all-gather (1 B/param); other parameters in ${lc.allGatherInput}`
        : ctx.fsdp.policy.paramDtype
          ? `sharded ${lc.sharded} parameters are cast to param_dtype ${lc.allGatherInput} before the all-gather`
          : `no param cast (param_dtype cleared or equal to the ${lc.sharded} storage), all-gather moves ${lc.sharded}`,
    });
    out.push({
      name: "fsdp_reduce_scatter",
      dtype: lc.reduce,
      kind: "reduce_scatter",
      mesh: out[0]!.mesh,
      when: L.pp > 1 ? "once per step (PP defers gradient sync to the last microbatch)" : "backward, per FSDP unit",
      why:
        (ctx.fsdp.policy.reduceDtype
          ? `reduce_dtype ${lc.reduce}: ${lc.unshardedGrad} unsharded gradients are copied into a ${lc.reduce} buffer, result cast to ${lc.shardedGrad} for .grad`
          : `reduce_dtype cleared/unset: reduce in the gradient dtype ${lc.reduce}, result cast to ${lc.shardedGrad} for .grad`) +
        (ctx.input.gradientDivideFactorOne === false ? "" : lc.reduce === "float16" ? "; fp16 reduction takes FSDP's pre/post-divide path, which torchtitan's divide factor 1.0 (plain sum) defeats" : "; torchtitan sets the gradient divide factor to 1.0, so this is a plain sum (the loss is already normalised)"),
    });
  }
  if (ctx.fsdp && L.dp_replicate > 1) {
    out.push({ name: "hsdp_all_reduce", dtype: ctx.fsdp.lifecycle.reduce, kind: "all_reduce", mesh: "dp_replicate", when: "backward, on the reduce-scatter output", why: `HSDP all-reduces the reduced gradient across replicas in ${ctx.fsdp.lifecycle.reduce}` });
  }
  if (ctx.input.ddp && !ctx.fsdp) {
    const d = params.find((p) => p.op === "wq")!.reduce ?? ctx.storage;
    const hook = ctx.assumptions.get("ddp_comm_hook");
    out.push({ name: "ddp_all_reduce", dtype: d, kind: "all_reduce", mesh: "dp_replicate", when: "backward, per bucket (every microbatch)", why: hook === "none" ? `DDP buckets hold ${ctx.storage} gradients (autocast never changes .grad), all-reduced as is` : `${hook} hook: bucket cast to ${d} for the all-reduce, copied back into the ${ctx.storage} bucket` });
  }
  if (L.tp > 1) {
    out.push({ name: "tp_embedding_reduce_scatter", dtype: f("tok_embeddings"), kind: "reduce_scatter", mesh: "tp", when: "forward (all-gather in backward)", why: `RowwiseParallel embedding output (Partial → Shard(1)) is ${f("tok_embeddings")}` });
    const normAg = ctx.float8?.tpFloat8 ? ctx.float8.recipe.input : f("attention_norm");
    out.push({
      name: "tp_norm_all_gather",
      dtype: normAg,
      kind: "all_gather",
      mesh: "tp",
      when: "forward, before wq/wk/wv and w1/w3 (reduce-scatter of its gradient in backward)",
      why: ctx.float8?.tpFloat8 ? `Float8 TP (PrepareFloat8ModuleInput) casts the norm output to ${normAg} before the all-gather` : `sequence-parallel norm output (Shard(1) → Replicate) is ${f("attention_norm")}; any autocast cast happens after the gather, inside the linear`,
    });
    out.push({ name: "tp_final_norm_all_gather", dtype: f("norm"), kind: "all_gather", mesh: "tp", when: "forward, before output", why: `final norm output is ${f("norm")} (plain ColwiseParallel, even with float8)` });
    out.push({ name: "tp_projection_reduce_scatter", dtype: f("wo"), kind: "reduce_scatter", mesh: "tp", when: "forward after wo and w2 (all-gather in backward)", why: `RowwiseParallel wo/w2 outputs (Partial → Shard(1)) are ${f("wo")}` });
    if (ctx.input.lossParallel ?? true) {
      const lossIn = byOp(forward, "loss").steps[0]!.dtype;
      out.push({ name: "tp_loss_all_reduce", dtype: lossIn, kind: "all_reduce", mesh: "tp", when: "loss (max, sum-exp, target logit)", why: `loss parallel reduces statistics of pred.float() (${lossIn})` });
    }
  }
  if (L.pp > 1) {
    out.push({ name: "pp_send_recv", dtype: f("ffn_residual"), kind: "send_recv", mesh: "pp", when: "every microbatch, activations forward and their gradients backward", why: `stage outputs (block outputs) are ${f("ffn_residual")}; shape inference records this dtype for the recv buffers` });
  }
  return out;
}
