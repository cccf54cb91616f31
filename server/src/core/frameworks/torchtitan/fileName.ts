/**
 * What a config's file name says about the hardware it is for (issue #17 §2): a GPU family between
 * separators (`llama3_8b_h100.toml`), optionally after a count (`llama3_405b-16xgb300-8k.toml`: 16 GB300s).
 * Both are inferences, never facts. A bare `64gpu` is not read: names like `ddp_1gpu` or our own
 * `tp_only_8gpu.toml` describe a variant as often as the launch.
 */

/** GPU families seen in config file names; a family without figures in engine/gpus.ts (GB300) is still read. */
const FAMILY = "gb300|gb200|b300|b200|h200|h100|h800|h20|a100|a800|mi300x|mi325x|mi355x|l40s";
const NAMED = new RegExp(`(?:^|[-_.])(?:(\\d{1,6})x)?(${FAMILY})(?=[-_.]|$)`, "i");

export interface NamedHardware {
  /** The family, lower-cased (`b200`). */
  gpu: string;
  /** The count before it, when the name has one (`16xgb300` → 16). */
  count?: number;
}

/** The hardware the file's name names, if any (names over 200 characters are not read). */
export function hardwareInFileName(path: string | undefined): NamedHardware | undefined {
  const base = path?.split(/[\\/]/).pop() ?? "";
  const m = base.length > 200 ? null : NAMED.exec(base);
  if (!m) return undefined;
  const count = m[1] !== undefined ? Number(m[1]) : NaN;
  return Number.isInteger(count) && count > 0 ? { gpu: m[2]!.toLowerCase(), count } : { gpu: m[2]!.toLowerCase() };
}
