/** Texts of the language status items (pure; no `vscode` import, unit-tested in Node). */
import type { SummaryResult } from "../../server/src/protocol";

/** Human label for the server's `source` field (unknown values are shown as they are). */
export function sourceLabel(source: string): string {
  const labels: Record<string, string> = {
    default: "default",
    directive: "# precision-lens comment",
    setting: "precisionLens setting",
    "workspace-pin": "pinned in the workspace",
    "config-keys": "inferred from the config's keys",
    "header-comment": "header comment",
    degrees: "parallelism degrees",
    "parallel-sizes": "parallel sizes",
    "linked-config": "linked config",
  };
  return labels[source] ?? source;
}

/**
 * The most characters one row of the language status popup holds: "text – detail" and its command link.
 * VS Code lays each row out on one line, in a hover box that hides what overflows (516 px wide at a 1400 px
 * window, 13 px text, about 6 px a character); the version row of 100 characters pushed it past the box and
 * the window's right edge (issue #20). The whole detail goes to the link's tooltip and the accessibility label.
 */
export const STATUS_ROW_CHARS = 72;

/** The command link of each item (its title counts in the row). */
export const STATUS_LINKS = { framework: "Open Report", version: "Change Version", worldSize: "Change World Size" } as const;

export interface StatusText {
  text: string;
  /** Short enough for the popup's row (STATUS_ROW_CHARS with the text and the link). */
  detail: string;
  /** The whole detail (tooltip and screen readers). */
  full: string;
}

/**
 * The summary of the config function under the cursor (a torchtitan Python registry, issue #30 §4): its headline,
 * layout and world size replace the file's. Outside every function, or in a file without them, the file's.
 */
export function summaryAt(s: SummaryResult, line: number | undefined): SummaryResult {
  const fns = s.configFunctions;
  if (!fns?.length || line === undefined) return s;
  const f = fns.find((x) => line >= x.startLine && line <= x.endLine) ?? (fns.length === 1 ? fns[0] : undefined);
  if (!f) return s;
  const out: SummaryResult = { ...s, headline: `${f.name}(): ${f.headline}` };
  if (f.worldSize) out.worldSize = f.worldSize;
  if (f.layoutName) out.layoutName = f.layoutName;
  if (f.mechanism) out.mechanism = f.mechanism;
  return out;
}

/** Texts of the three items for one summary (pure; exported for tests). */
export function statusTexts(s: SummaryResult): { framework: StatusText; version?: StatusText; worldSize?: StatusText } {
  const headline = s.headline ?? s.frameworkReason;
  // "TP-only on 8 GPUs: no mixed precision (float32 compute)": the layout and the world size have their own
  // places, so the verdict after the colon is the short form.
  const colon = headline.indexOf(": ");
  const verdict = colon > 0 ? headline.slice(colon + 2) : headline;
  const framework = row(`$(symbol-numeric) ${s.framework ?? "not a training config"}${s.layoutName ? ` · ${s.layoutName}` : ""}`, [headline, verdict], STATUS_LINKS.framework);
  const out: ReturnType<typeof statusTexts> = { framework };
  if (s.version) {
    // "torchtitan 0.2.2 pinned in pyproject.toml" beside "torchtitan v0.2.2": the where, without the what.
    const v = s.version.value.replace(/^v/, "");
    const echo = `torchtitan ${v} `;
    const where = s.version.detail.startsWith(echo) ? s.version.detail.slice(echo.length) : s.version.detail;
    out.version = row(`torchtitan ${s.version.value}`, sourceDetails(s.version.source, s.version.detail, where), STATUS_LINKS.version);
  }
  if (s.worldSize) out.worldSize = row(`world size ${s.worldSize.value}`, sourceDetails(s.worldSize.source, s.worldSize.detail, s.worldSize.detail), STATUS_LINKS.worldSize);
  return out;
}

/** Where a value came from, longest first: "label: detail", the detail, its short form, the label alone. */
function sourceDetails(source: string, detail: string, short: string): string[] {
  const label = sourceLabel(source);
  return detail && detail !== label ? [`${label}: ${detail}`, detail, short, label] : [label];
}

/** The first candidate that fits the row beside `text` and `link`, else the last one cut at a word with "…". */
function row(text: string, candidates: string[], link: string): StatusText {
  const visible = text.replace(/\$\([^)]*\)\s*/g, "");
  const room = Math.max(8, STATUS_ROW_CHARS - link.length - visible.length - 3);
  const full = candidates[0]!;
  const fit = candidates.find((c) => c.length <= room);
  return { text, detail: fit ?? shorten(candidates[candidates.length - 1]!, room), full };
}

function shorten(s: string, room: number): string {
  const cut = s.slice(0, room - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > room / 2 ? cut.slice(0, space) : cut).replace(/[\s,:;·(-]+$/, "")}…`;
}
