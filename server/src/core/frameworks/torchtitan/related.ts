/**
 * relatedInformation for torchtitan diagnostics: the places that decided them, when the analysis read them
 * from a file: the `data_parallel_shard_degree = -1` entry and what it resolved to, the run script line or
 * directive that gave the world size, the pin or directive that gave the torchtitan version.
 */
import type { RelatedInformation } from "../../model/types";
import type { TitanContext } from "./context";

export interface DecidedBy {
  /** The `-1` entry of data_parallel_shard_degree (only when it is -1). */
  shard?: boolean;
  worldSize?: boolean;
  version?: boolean;
}

export function decidedBy(ctx: TitanContext, what: DecidedBy): RelatedInformation[] {
  const out: RelatedInformation[] = [];
  const e = ctx.dims.entries.dp_shard;
  if (what.shard && e && ctx.dims.dpShardInferred && ctx.dims.resolved) {
    const w = ctx.worldSize.value;
    out.push({ location: { uri: ctx.doc.uri, range: e.range }, message: `-1 resolves to ${ctx.dims.resolved.dp_shard} on ${w} GPU${w === 1 ? "" : "s"}` });
  }
  if (what.worldSize && ctx.worldSize.location) out.push({ location: ctx.worldSize.location, message: `World size ${ctx.worldSize.value}: ${ctx.worldSize.detail}` });
  if (what.version && ctx.version.location) out.push({ location: ctx.version.location, message: `torchtitan ${ctx.version.value.id}: ${ctx.version.detail}` });
  return out;
}

/** "8 GPUs" */
export function gpus(n: number): string {
  return `${n} GPU${n === 1 ? "" : "s"}`;
}

/** A value as written, cut to `max` characters with an ellipsis (so a message stays one short line). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
