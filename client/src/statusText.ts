/** Texts of the language status items (pure; no `vscode` import, unit-tested in Node). */
import type { SummaryResult } from "../../server/src/protocol";

/** Human label for the server's `source` field (unknown values are shown as they are). */
export function sourceLabel(source: string): string {
  const labels: Record<string, string> = {
    default: "default",
    directive: "# precision-lens comment in this file",
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

/** Texts of the three items for one summary (pure; exported for tests). */
export function statusTexts(s: SummaryResult): {
  framework: { text: string; detail: string };
  version?: { text: string; detail: string };
  worldSize?: { text: string; detail: string };
} {
  const framework = {
    text: `$(symbol-numeric) ${s.framework ?? "not a training config"}${s.layoutName ? ` · ${s.layoutName}` : ""}`,
    detail: s.headline ?? s.frameworkReason,
  };
  const out: ReturnType<typeof statusTexts> = { framework };
  if (s.version) out.version = { text: `torchtitan ${s.version.value}`, detail: withDetail(sourceLabel(s.version.source), s.version.detail) };
  if (s.worldSize) out.worldSize = { text: `world size ${s.worldSize.value}`, detail: withDetail(sourceLabel(s.worldSize.source), s.worldSize.detail) };
  return out;
}

function withDetail(label: string, detail: string): string {
  return detail && detail !== label ? `${label}: ${detail}` : label;
}

