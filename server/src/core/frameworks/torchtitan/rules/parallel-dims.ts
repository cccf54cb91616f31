/**
 * parallel-dims-degree: A parallelism degree below 1: ParallelDims rejects it at launch.
 *
 * parallel-dims-limit: A parallelism degree beyond what Precision Lens analyses; it cannot say what happens.
 *
 * parallel-dims-type: A parallelism degree that is not an integer.
 *
 * parallel-dims-dp-shard: data_parallel_shard_degree is neither -1 nor at least 1.
 *
 * parallel-dims-resolved: data_parallel_shard_degree = -1 resolves to 0: the other degrees need more GPUs than the
 * world size.
 *
 * parallel-dims-product: The parallel degrees do not multiply to the world size.
 *
 * parallel-dims-etp: expert_tensor_parallel_degree must equal tensor_parallel_degree or be 1.
 *
 * parallel-dims-ep-divisibility: Expert parallelism does not divide the data-parallel × context-parallel ranks
 * (2025-07-08 … 2025-12-17).
 *
 * parallel-dims-*: torchtitan's ParallelDims._validate failures, at the degree key that is wrong.
 */
import { diag } from "../../../diagnostics/build";
import { restingOn, restsOnOf, type FactName } from "../../../provenance";
import type { Diagnostic } from "../../../model/types";
import type { TitanContext, TitanRule } from "../context";
import { dimsAnchor, worldSizePhrase } from "../locate";
import { DIM_KEYS, type DimsError } from "../parallelDims";
import { MESH_UNFLATTEN_DATE } from "../eras";
import { decidedBy, gpus } from "../related";
import { table } from "../../../model/table";

export const parallelDims: TitanRule = {
  codes: ["parallel-dims-degree", "parallel-dims-limit", "parallel-dims-type", "parallel-dims-dp-shard", "parallel-dims-resolved", "parallel-dims-product", "parallel-dims-etp", "parallel-dims-ep-divisibility"],
  restsOn: ["worldSize"],
  run(ctx) {
    return ctx.dims.errors.map((e) => {
      const where = dimsAnchor(ctx, e.fields);
      // Past the analysis bound Precision Lens cannot know what happens: say so quietly, assert nothing.
      if (e.kind === "limit") return diag("parallel-dims-limit", "information", where.range, e.message, undefined, e.detail ? { detail: e.detail } : undefined);
      return restingOn(diag(
        `parallel-dims-${e.kind}`,
        "error",
        where.range,
        short(ctx, e),
        { facts: { worldSize: ctx.worldSize.value, worldSizeSource: ctx.worldSize.source } },
        { detail: `${e.message} — on ${worldSizePhrase(ctx)}. torchtitan stops at launch before training.`, related: decidedBy(ctx, { worldSize: true, version: e.kind === "ep-divisibility" }) },
      ), e.everyWorldSize ? RESTS_ON_EVERY_WORLD_SIZE : RESTS_ON[e.kind]);
    }).map((d) => (ctx.launcher?.source === "custom-entry" && restsOnOf(d, parallelDims).includes("worldSize") ? ownEntry(d, ctx.launcher.value) : d));
  },
};

/**
 * A run script with its own entry point (`torchrun … train_ds_real.py --job.config_file x.toml`) may build its own
 * mesh from the GPUs it starts (upstream's deepseek_v3 experiment does: pp × ep × fsdp): a check of the degrees
 * against that world size is torchtitan's trainer's, not the script's, so it is information that says so.
 */
function ownEntry(d: Diagnostic, entry: string): Diagnostic {
  // The launcher fact (an inference: the script's entry point) caps the trainer's check at information.
  d.severity = "information";
  d.data = { ...d.data, facts: { ...d.data?.facts, assumed: [d.data?.facts?.assumed, "launcher"].filter(Boolean).join(",") } };
  d.message = `If torchtitan's trainer ran it (the run script runs ${entry}): ${d.message}`;
  return d;
}

/** A degree of the wrong type or below 1 fails on any world size; the others rest on it (and EP's asserts on the era). */
const RESTS_ON: Readonly<Record<DimsError["kind"], readonly FactName[]>> = table({
  degree: [],
  type: [],
  "dp-shard": [],
  etp: [],
  limit: [],
  resolved: ["worldSize"],
  product: ["worldSize"],
  "ep-divisibility": ["worldSize", "version"],
});

/** An EP check that fails whatever the world size (see DimsError.everyWorldSize): it rests on the era only. */
const RESTS_ON_EVERY_WORLD_SIZE: readonly FactName[] = ["version"];

/** One sentence per failure; the torchtitan wording stays in the detail. */
function short(ctx: TitanContext, e: DimsError): string {
  const c = ctx.dims.configured;
  const w = ctx.worldSize.value;
  const f = e.fields[0]!;
  switch (e.kind) {
    case "degree":
      return `${DIM_KEYS[f][1]} = ${c[f]} is below 1: torchtitan's ParallelDims rejects it at launch`;
    case "dp-shard":
      return `data_parallel_shard_degree = ${c.dp_shard} must be -1 or at least 1: the launch fails`;
    case "resolved":
      return `dp_shard -1 → 0 on ${gpus(w)}: the other degrees need ${c.dp_replicate * c.cp * c.tp * c.pp} GPUs, so the launch fails`;
    case "product": {
      const rest = c.dp_replicate * c.cp * c.tp * c.pp;
      const s = c.dp_shard === -1 ? Math.floor(w / rest) : c.dp_shard;
      return `The degrees multiply to ${rest * s}, not the world size ${w}: the launch fails`;
    }
    case "etp":
      return `expert_tensor_parallel_degree = ${c.etp} must be 1 or tensor_parallel_degree (${c.tp}): the launch fails`;
    case "ep-divisibility":
      return `expert_parallel_degree = ${c.ep} does not divide the ranks torchtitan ${ctx.version.value.id} needs: the launch ${ctx.version.value.date >= MESH_UNFLATTEN_DATE ? "fails" : "asserts"}`;
    default:
      return e.message;
  }
}
