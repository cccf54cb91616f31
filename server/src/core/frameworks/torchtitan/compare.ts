/**
 * The same config under every torchtitan era: what mixed precision each would give. Shown in hovers and
 * the report, so a user sees that the seed case is a v0.1.0–v0.2.2 behaviour, not a law of nature.
 */
import type { Mechanism } from "../../analysis";
import { shortDtype } from "../../model/dtypeNames";
import type { DType } from "../../model/types";
import type { TitanContext } from "./context";
import { ERAS, eraById, type EraId } from "./eras";
import { resolvePrecision } from "./resolve";
import { table } from "../../model/table";

export interface EraOutcome {
  era: EraId;
  label: string;
  readsToml: boolean;
  mechanism: Mechanism;
  compute?: DType;
  /** The launch error, when the mechanism is "error". */
  error?: string;
  /** True for the era (or the period of it) the analysis targets. */
  current: boolean;
}

/** Eras shown in the comparison: the targeted one first, then the others in date order. */
const SHOWN: readonly EraId[] = ["fsdp-dp-shard-or-cp", "maybe-enable-amp", "pr2213", "python-replicate", "python-always-fully-shard"];

/**
 * One line per era; an era with periods (eras.ts `periods`) gets one line per run of periods with the same
 * outcome when the layout fares differently in them (e.g. a MoE layout with EP that runs in v0.2.0 and
 * fails from v0.2.1).
 */
export function eraComparison(ctx: TitanContext): EraOutcome[] {
  const d = ctx.dims.resolved;
  if (!d) return [];
  const target = ctx.version.value;
  const ids = new Set<EraId>([target.era.id, ...SHOWN]);
  const out: EraOutcome[] = [];
  for (const e of ERAS.filter((x) => ids.has(x.id))) {
    const periods = e.periods ?? [{ from: e.from, first: "", last: "" }];
    const outcomes = periods.map((p) => {
      const decision = eraById(e.id).decide(d, ctx.worldSize.value, { ...ctx.decideOptions, date: p.from });
      const pr = resolvePrecision(decision, ctx.knobs, d);
      const o: EraOutcome = { era: e.id, label: e.label, readsToml: e.readsToml, mechanism: decision.mechanism, current: false };
      if (pr?.compute.dtype) o.compute = pr.compute.dtype;
      if (decision.error) o.error = decision.error;
      return o;
    });
    const same = (a: EraOutcome, b: EraOutcome) => a.mechanism === b.mechanism && a.compute === b.compute && a.error === b.error;
    const isTarget = e.id === target.era.id;
    if (outcomes.every((o) => same(o, outcomes[0]!))) {
      out.push({ ...outcomes[0]!, current: isTarget });
      continue;
    }
    // Runs of adjacent periods with the same outcome, labelled by their first and last versions.
    for (let i = 0; i < periods.length; ) {
      let j = i;
      while (j + 1 < periods.length && same(outcomes[j + 1]!, outcomes[i]!)) j++;
      const until = periods[j + 1]?.from;
      const current = isTarget && target.date >= periods[i]!.from && (until === undefined || target.date < until);
      out.push({ ...outcomes[i]!, label: `${periods[i]!.first} … ${periods[j]!.last} (${e.mechanismLabel ?? e.id})`, current });
      i = j + 1;
    }
  }
  return out;
}

const SHORT: Readonly<Record<Mechanism, string>> = table({ fully_shard: "fully_shard", autocast: "autocast", none: "no mixed precision", error: "launch fails" });

export function eraLine(o: EraOutcome): string {
  const what = o.mechanism === "error" ? `${SHORT.error}${o.error ? ` (${o.error})` : ""}` : `${SHORT[o.mechanism]}${o.compute ? `, ${shortDtype(o.compute)} compute` : ""}`;
  return `${o.current ? "**" : ""}${o.label}: ${what}${o.current ? "** (targeted)" : ""}${o.readsToml ? "" : " — does not read TOML"}`;
}
