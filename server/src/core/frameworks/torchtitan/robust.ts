/**
 * Robust conclusions (issue #30 §5): a torchtitan version that is not stated (inferred from the keys, or the
 * default) is a set of candidate dates, not a point: the window the keys allow, else every date of the format's
 * era (TOML: torchtitan's first commit … 2026-02-23). A launch failure that the era decision (eras.ts) reaches at
 * EVERY candidate date rests on no guess about the version: its diagnostic no longer rests on `version`, so the
 * severity gate (core/provenance.ts) keeps it an error (unless another fact it rests on is assumed), and its
 * detail says it holds over the whole window.
 *
 * `decide` is piecewise constant between the dates where some era or period changes behaviour, so testing the
 * window's start and every such date inside it covers every candidate (at most a few dozen decisions).
 */
import type { Diagnostic } from "../../model/types";
import { restingOn, restsOnOf, type RestsOn } from "../../provenance";
import { isKnown } from "../../provenance";
import type { TitanContext } from "./context";
import { DDP_CP_FROM, DDP_CP_UNTIL, EP_DATE, ERAS, MESH_UNFLATTEN_DATE, eraForDate } from "./eras";
import { readDims, resolveDims } from "./parallelDims";
import { FIRST_MAIN_DATE, LAST_TOML_DATE, RELEASES } from "./versions";

/** The codes whose verdict is the era decision's launch error (decision.errorCode). */
const DECISION_CODES = new Set(["ddp-with-other-parallelism", "ep-without-fsdp-mesh", "ep-needs-tp-mesh"]);

/** Every date where some decision may change (era and period starts, the dated checks, the releases). */
function boundaries(): string[] {
  const out = new Set<string>([EP_DATE, MESH_UNFLATTEN_DATE, DDP_CP_FROM, DDP_CP_UNTIL, ...Object.values(RELEASES).map((r) => r.date)]);
  for (const e of ERAS) {
    if (e.id === "pr2213") continue;
    out.add(e.from);
    if (e.until) out.add(e.until);
    for (const p of e.periods ?? []) out.add(p.from);
  }
  return [...out].sort();
}

/**
 * The candidate dates of an unstated version: the keys' window [from, until), else the TOML era. Undefined when
 * the version is stated (a known fact) or the file is not TOML-era (a Python registry's window is left to its
 * own version inference).
 */
export function candidateDates(ctx: TitanContext): { dates: string[]; from: string; until: string } | undefined {
  if (isKnown(ctx.version.kind) || ctx.version.value.whatIf || !ctx.version.value.era.readsToml) return undefined;
  const from = ctx.version.window?.from ?? FIRST_MAIN_DATE;
  // until is exclusive; the TOML era ends with 2026-02-23 (its last date is included).
  const until = ctx.version.window?.until ?? "9999-12-31";
  const last = LAST_TOML_DATE;
  const dates = [from, ...boundaries().filter((d) => d > from && d < until && d <= last)];
  return { dates, from, until: until > last ? last : until };
}

/** True when the era decision fails with `code` at every candidate date. */
function failsAtEveryDate(ctx: TitanContext, code: string, dates: readonly string[]): boolean {
  const w = ctx.worldSize.value;
  return dates.every((date) => {
    // The degrees as that date reads and validates them (keys it does not read, the EP checks of its period):
    // a date where ParallelDims fails first gives another diagnostic, so the verdict is not the same.
    const dims = resolveDims(readDims(ctx.doc, date), w, { epDivisibility: date >= EP_DATE && date < MESH_UNFLATTEN_DATE, epMesh: date >= MESH_UNFLATTEN_DATE });
    return dims.resolved !== undefined && dims.errors.length === 0 && eraForDate(date).decide(dims.resolved, w, { ...ctx.decideOptions, date }).errorCode === code;
  });
}

/**
 * Drops `version` from what an error rests on when the same launch failure holds at every candidate date, and
 * says so in its detail. Other diagnostics pass unchanged.
 */
export function robustOverVersions(ctx: TitanContext, found: Diagnostic[], rule: RestsOn): Diagnostic[] {
  let cands: ReturnType<typeof candidateDates> | null = null;
  for (const d of found) {
    if (d.severity !== "error" || !DECISION_CODES.has(d.code)) continue;
    const on = restsOnOf(d, rule);
    if (!on.includes("version")) continue;
    if (cands === null) cands = candidateDates(ctx);
    if (!cands || !failsAtEveryDate(ctx, d.code, cands.dates)) continue;
    restingOn(d, on.filter((n) => n !== "version"));
    const span = `from ${cands.from} to ${cands.until}`;
    d.detail = `${d.detail ?? d.message} This holds at every torchtitan version the file allows (${span}, ${cands.dates.length} periods checked), so it does not rest on the inferred version (torchtitan ${ctx.version.value.id}).`;
  }
  return found;
}
