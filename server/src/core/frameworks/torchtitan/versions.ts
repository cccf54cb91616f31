/**
 * torchtitan versions the product can target, and how a version string maps to an era and a schema
 * release. `auto` is resolved elsewhere (workspace pins, then config keys); here only explicit values.
 */
import { eraById, eraForDate, type Era } from "./eras";
import { table } from "../../model/table";

export type Release = "v0.1.0" | "v0.2.0" | "v0.2.1" | "v0.2.2";

export const RELEASES: Readonly<Record<Release, { date: string; commit: string }>> = table({
  "v0.1.0": { date: "2025-06-17", commit: "f7084fc78" },
  "v0.2.0": { date: "2025-10-17", commit: "29624e37f" },
  "v0.2.1": { date: "2025-12-26", commit: "81af8833d" },
  "v0.2.2": { date: "2026-02-20", commit: "73a0e6979" },
});

/** The last main-branch date on which torchtitan read TOML configs (commit 238fa9953). */
export const LAST_TOML_DATE = "2026-02-23";
/** torchtitan's first commit on main (2d1c6d53b, "first commit, starter files"): no main@ date is earlier. */
export const FIRST_MAIN_DATE = "2023-12-13";

export interface TitanVersion {
  /** As the user would write it: "v0.2.2", "main@2025-03-01", "v0.2.2+pr2213". */
  id: string;
  /** Main-branch date the version corresponds to (release date for releases). */
  date: string;
  era: Era;
  /** The schema release whose key set applies (nearest release at or before the date; v0.1.0 before it). */
  schemaRelease: Release;
  /** True for the unmerged PR #2213 what-if. */
  whatIf: boolean;
}

export const DEFAULT_VERSION = "v0.2.2";

/** Parses an explicit version; returns undefined for anything not understood (the caller reports it). */
export function parseVersion(id: string): TitanVersion | undefined {
  const v = id.trim();
  if (v === "v0.2.2+pr2213") {
    return { id: v, date: RELEASES["v0.2.2"].date, era: eraById("pr2213"), schemaRelease: "v0.2.2", whatIf: true };
  }
  if (v in RELEASES) {
    const r = v as Release;
    return { id: r, date: RELEASES[r].date, era: eraForDate(RELEASES[r].date), schemaRelease: r, whatIf: false };
  }
  const m = /^main@(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (m) {
    const date = `${m[1]}-${m[2]}-${m[3]}`;
    // A real calendar date: Date.parse accepts 2025-02-30 (it rolls over to March), so round-trip it; and a
    // date torchtitan's main branch had (main@0000-01-01 is a calendar date, not a torchtitan version).
    const parsed = new Date(`${date}T00:00:00Z`);
    if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date || date < FIRST_MAIN_DATE || date > LAST_TOML_DATE) return undefined;
    return { id: v, date, era: eraForDate(date), schemaRelease: releaseAtOrBefore(date), whatIf: false };
  }
  return undefined;
}

export function releaseAtOrBefore(date: string): Release {
  let best: Release = "v0.1.0";
  for (const [r, info] of Object.entries(RELEASES) as [Release, { date: string }][]) if (info.date <= date) best = r;
  return best;
}

export const VERSION_CHOICES = ["auto", "v0.1.0", "v0.2.0", "v0.2.1", "v0.2.2", "v0.2.2+pr2213", "main@YYYY-MM-DD"] as const;
