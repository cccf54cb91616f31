/**
 * The same config under every torchtitan era: what mixed precision each would give. Shown in hovers and
 * the report, so a user sees that the seed case is a v0.1.0–v0.2.2 behaviour, not a law of nature.
 */
import type { Mechanism } from "../analysis";
import { shortDtype } from "../dtypes";
import type { DType } from "../types";
import type { TitanContext } from "./context";
import { ERAS, eraById, type EraId } from "./eras";
import { resolvePrecision } from "./precision";

export interface EraOutcome {
  era: EraId;
  label: string;
  readsToml: boolean;
  mechanism: Mechanism;
  compute?: DType;
  /** True for the era the analysis targets. */
  current: boolean;
}

/** Eras shown in the comparison: the targeted one first, then the others in date order. */
const SHOWN: readonly EraId[] = ["fsdp-dp-shard-or-cp", "maybe-enable-amp", "pr2213", "python-replicate", "python-always-fully-shard"];

export function eraComparison(ctx: TitanContext): EraOutcome[] {
  const d = ctx.dims.resolved;
  if (!d) return [];
  const ids = new Set<EraId>([ctx.version.value.era.id, ...SHOWN]);
  return ERAS.filter((e) => ids.has(e.id)).map((e) => {
    const decision = eraById(e.id).decide(d, ctx.worldSize.value, ctx.decideOptions);
    const p = resolvePrecision(decision, ctx.knobs, d);
    const o: EraOutcome = { era: e.id, label: e.label, readsToml: e.readsToml, mechanism: decision.mechanism, current: e.id === ctx.version.value.era.id };
    if (p?.compute.dtype) o.compute = p.compute.dtype;
    return o;
  });
}

const SHORT: Record<Mechanism, string> = { fully_shard: "fully_shard", autocast: "autocast", none: "no mixed precision", error: "launch fails" };

export function eraLine(o: EraOutcome): string {
  const what = o.mechanism === "error" ? SHORT.error : `${SHORT[o.mechanism]}${o.compute ? `, ${shortDtype(o.compute)} compute` : ""}`;
  return `${o.current ? "**" : ""}${o.label}: ${what}${o.current ? "** (targeted)" : ""}${o.readsToml ? "" : " — does not read TOML"}`;
}
