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

/** How many folders above the config are read for a GPU name (`logs/h200/`, `configs/a100/`): the nearest only. */
export const FOLDER_DEPTH = 2;

/**
 * The GPU family a folder right above the config names (`…/logs/h200/llama3_8b.toml`, issue #30): weaker evidence
 * than the file's own name or a comment in it, so it is read only when neither names one. The whole folder name
 * must be the family, optionally with a count (`h200`, `8xh100`): a folder like `h100_vs_a100` or a user's
 * `gpu-cluster` is not read. Only the FOLDER_DEPTH nearest folders, so a checkout under `/data/h100/…` far above
 * the config is not evidence.
 */
export function hardwareInFolder(path: string | undefined): (NamedHardware & { folder: string }) | undefined {
  const parts = (path ?? "").split(/[\\/]/).filter(Boolean);
  parts.pop();
  for (let i = 0; i < FOLDER_DEPTH && parts.length; i++) {
    const folder = parts.pop()!;
    if (folder.length > 40) continue;
    const m = FOLDER.exec(folder);
    if (m) return { gpu: m[1]!.toLowerCase(), folder };
  }
  return undefined;
}
const FOLDER = new RegExp(`^(?:\\d{1,6}x)?(${FAMILY})$`, "i");
