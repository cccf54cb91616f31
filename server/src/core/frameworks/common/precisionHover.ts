/** The precision hover (the same summary as torchtitan's) and the inlay hint after a precision value. */
import { mdProse } from "../../model/markdown";
import type { HoverTarget, InlayHintData, Mechanism, Sourced } from "../../analysis";
import type { Diagnostic, Range } from "../../model/types";
import { isDType, short, type PrecisionTable, type Row } from "./precisionTable";
import type { FrameworkLayout } from "./resolvedLayout";
import { table } from "../../model/table";

export const MECHANISM_TEXT: Readonly<Record<Mechanism, string>> = table({
  fully_shard: "FSDP mixed-precision policy (parameters cast at module boundaries, gradients reduced in the policy's dtype)",
  autocast: "torch.autocast around forward (parameters stay in their stored dtype)",
  none: "none: no mixed precision; everything runs in the stored dtype",
  error: "none: the launch fails before training",
});

export interface Summary {
  framework: string;
  reasonLine?: string;
  layoutName: string;
  worldSize: Sourced<number> | undefined;
  layout?: FrameworkLayout;
  mechanism: Mechanism;
  /** Replaces the generic mechanism phrase where it would mislead (a precision the launcher decides). */
  mechanismText?: string;
  /** One sentence: what "bf16" (or the precision setting) means here. */
  meaning: string;
  table?: PrecisionTable;
  notes?: string[];
  /** Named assumptions behind the resolution (spec [inferred] facts), shown in italics. */
  assumptions?: string[];
  /** Error diagnostics: the framework refuses the config, so the table is what it would be once fixed. */
  failed?: Diagnostic[];
}

/** The detection line when a `# precision-lens: framework=...` comment chose the framework. */
export const FORCED = "set by a `# precision-lens: framework=...` comment";

/**
 * The mechanism as the run applies it, from the table: "none" is only said when nothing runs in 16 bits. A whole
 * model cast to bf16/fp16 without autocast (DeepSpeed's bf16/fp16 mode, a model loaded in bf16, torchtune) names
 * the cast and whether an fp32 master copy is kept (issue #31: "Mechanism: none" above a bf16 table).
 */
export function mechanismPhrase(mechanism: Mechanism, t: PrecisionTable | undefined): string {
  if (mechanism !== "none" || !t || !isDType(t.C.dtype) || t.C.dtype === "float32" || t.C.dtype === "float64") return MECHANISM_TEXT[mechanism];
  const low = short(t.C.dtype);
  return `${low} model cast (no autocast), ${t.P.dtype === "float32" ? "fp32 master weights" : `no fp32 master weights: pure ${low}`}`;
}

/**
 * The precision summary as Markdown. Every piece that can hold a config value (layout name, world-size detail,
 * meaning, table cells, notes, assumptions, detection line) goes through model/markdown.ts `mdProse` (issue #33):
 * a value cannot add a link, an image, HTML, emphasis, a line or a table cell.
 */
export function summaryMarkdown(s: Summary): string {
  const lines: string[] = [];
  const md = (x: string): string => mdProse(x);
  const cellMd = (x: string): string => mdProse(x, { cell: true });
  lines.push(`**Precision Lens** · ${s.framework}`);
  lines.push("");
  const gpus = s.worldSize ? ` on ${s.worldSize.value} GPU${s.worldSize.value === 1 ? "" : "s"}` : "";
  lines.push(`**${md(s.layoutName)}${gpus}**${s.worldSize ? ` (world size: ${md(s.worldSize.detail ?? "")})` : ""}`);
  if (s.layout) {
    const d = s.layout;
    lines.push("");
    lines.push(`Layout: dp_replicate ${d.dp_replicate} · dp_shard ${d.dp_shard} · cp ${d.cp} · tp ${d.tp} · pp ${d.pp}${d.sp && d.sp > 1 ? ` · sp ${d.sp}` : ""}`);
  }
  lines.push("");
  if (s.failed?.length) {
    lines.push(`Mechanism: **${MECHANISM_TEXT.error}** — ${s.failed.length} error${s.failed.length === 1 ? "" : "s"} (first: ${s.failed[0]!.code}). Once fixed: ${s.mechanism === "error" ? MECHANISM_TEXT.none : mechanismPhrase(s.mechanism, s.table)} — ${md(s.meaning)}`);
  } else lines.push(`Mechanism: **${s.mechanismText !== undefined ? md(s.mechanismText) : mechanismPhrase(s.mechanism, s.table)}** — ${md(s.meaning)}`);
  if (s.table) {
    const t = s.table;
    const cell = (r: Row) => (isDType(r.dtype) ? `\`${r.dtype}\`` : cellMd(r.dtype));
    lines.push("");
    lines.push("| | dtype | from |");
    lines.push("|---|---|---|");
    lines.push(`| parameter storage | ${cell(t.P)} | ${cellMd(t.P.from)} |`);
    lines.push(`| compute (matmuls) | ${cell(t.C)} | ${cellMd(t.C.from)} |`);
    lines.push(`| gradients | ${cell(t.G)} | ${cellMd(t.G.from)} |`);
    lines.push(`| gradient reduction | ${cell(t.R)} | ${cellMd(t.R.from)} |`);
    lines.push(`| optimizer state | ${cell(t.O)} | ${cellMd(t.O.from)} |`);
  }
  for (const n of s.notes ?? []) lines.push(`\n${md(n)}`);
  for (const a of s.assumptions ?? []) lines.push(`\n_Assumption: ${md(a)}_`);
  if (s.reasonLine) lines.push(`\n_Detected as ${s.framework}: ${md(s.reasonLine)}._`);
  return lines.join("\n");
}

/** An inlay hint after a precision value: what it resolves to, in short dtype names. */
export function precisionHint(at: Range | undefined, t: PrecisionTable | undefined, failed: boolean): InlayHintData[] {
  if (!at || !t) return [];
  const label = failed ? " → launch fails" : ` → params ${short(t.P.dtype)} · compute ${short(t.C.dtype)} · reduce ${short(t.R.dtype)}`;
  return [{ position: at.end, label, tooltip: `parameter storage ${t.P.dtype} (${t.P.from}); compute ${t.C.dtype} (${t.C.from}); gradients ${t.G.dtype}; gradient reduction ${t.R.dtype} (${t.R.from}); optimizer state ${t.O.dtype}.` }];
}

export function hoversAt(ranges: (Range | undefined)[], markdown: string): HoverTarget[] {
  const seen = new Set<string>();
  const out: HoverTarget[] = [];
  for (const r of ranges) {
    if (!r) continue;
    const k = `${r.start.line}:${r.start.character}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ range: r, markdown });
  }
  return out;
}
