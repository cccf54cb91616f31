/**
 * Helpers shared by the YAML/JSON framework analysers (torchtune, accelerate, Lightning, Axolotl,
 * DeepSpeed): a path-based view over the document, diagnostic and fix builders, the precision hover in
 * the same form as torchtitan's, YAML 1.1 boolean reporting and cross-file loading.
 */
import type { AnalysisEnv, HoverTarget, InlayHintData, Mechanism, ParallelLayout, ResolvedPrecision, Sourced } from "../analysis";
import { diag, fix } from "../diagnostics";
import { shortDtype } from "../dtypes";
import { findEntry, keyOf, type ConfigDocument, type ConfigEntry, type ConfigValue } from "../model";
import { isYaml11Boolean, yamlParseNotes } from "../parse/yaml";
import type { Diagnostic, DType, Fix, Range, Severity, TextEdit } from "../types";

export type { Fix };

/**
 * The first character of the text that is not whitespace and not inside a `#` comment line (linear scan:
 * no regular expression, so no backtracking on hostile input). Undefined for an empty or comment-only text.
 */
export function firstContentChar(text: string): string | undefined {
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === "#") {
      const nl = text.indexOf("\n", i);
      if (nl < 0) return undefined;
      i = nl + 1;
    } else if (c === " " || c === "\t" || c === "\r" || c === "\n" || c === "\uFEFF") i++;
    else return c;
  }
  return undefined;
}

/** A read-only view of a document under a root path (Lightning configs may nest the trainer under `fit:`). */
export class View {
  private readonly sectionKeys: Set<string>;
  private readonly entryIndex = new Map<string, ConfigEntry>();
  private readonly prefixes = new Set<string>();
  constructor(
    readonly doc: ConfigDocument,
    readonly root: readonly string[] = [],
  ) {
    this.sectionKeys = new Set(doc.sections.map((s) => keyOf(s.path)));
    for (const e of doc.entries) {
      this.entryIndex.set(keyOf(e.path), e);
      // Parents of every entry count as present (a salvaged model of a broken file may lack its sections).
      for (let i = 1; i < e.path.length; i++) this.prefixes.add(keyOf(e.path.slice(0, i)));
    }
  }
  at(...path: string[]): View {
    return new View(this.doc, [...this.root, ...path]);
  }
  entry(...path: string[]): ConfigEntry | undefined {
    return this.entryIndex.get(keyOf([...this.root, ...path]));
  }
  /** A section (block mapping) at the path. */
  isSection(...path: string[]): boolean {
    return this.sectionKeys.has(keyOf([...this.root, ...path]));
  }
  has(...path: string[]): boolean {
    return this.entry(...path) !== undefined || this.isSection(...path) || this.prefixes.has(keyOf([...this.root, ...path]));
  }
  /** Range to underline for the key at `path` (entry key or section header). */
  keyRange(...path: string[]): Range | undefined {
    const e = this.entry(...path);
    if (e) return e.keyRange;
    const k = keyOf([...this.root, ...path]);
    return this.doc.sections.find((s) => keyOf(s.path) === k)?.headerRange;
  }
  sectionRange(...path: string[]): Range | undefined {
    const k = keyOf([...this.root, ...path]);
    return this.doc.sections.find((s) => keyOf(s.path) === k)?.range ?? this.entry(...path)?.range;
  }
  str(...path: string[]): string | undefined {
    const e = this.entry(...path);
    return e?.value.kind === "string" ? (e.value.value as string) : undefined;
  }
  bool(...path: string[]): boolean | undefined {
    const e = this.entry(...path);
    return e?.value.kind === "boolean" ? (e.value.value as boolean) : undefined;
  }
  num(...path: string[]): number | undefined {
    const e = this.entry(...path);
    if (!e) return undefined;
    if (e.value.kind === "integer" || e.value.kind === "float") return e.value.value as number;
    if (e.value.kind === "string" && /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/.test(e.value.value as string)) return Number(e.value.value);
    return undefined;
  }
  int(...path: string[]): number | undefined {
    const n = this.num(...path);
    return n !== undefined && Number.isInteger(n) ? n : undefined;
  }
  /** The value as a plain scalar (string/number/boolean/null); undefined when absent or a container. */
  scalar(...path: string[]): string | number | boolean | null | undefined {
    const e = this.entry(...path);
    if (!e || e.value.kind === "array" || e.value.kind === "table") return undefined;
    return e.value.value as string | number | boolean | null;
  }
  /** Immediate child keys at the path, from entries and sections, in source order. */
  childKeys(...path: string[]): string[] {
    const p = [...this.root, ...path];
    const out: string[] = [];
    const add = (q: string[]) => {
      if (q.length > p.length && p.every((x, i) => q[i] === x)) {
        const k = q[p.length]!;
        if (!out.includes(k)) out.push(k);
      }
    };
    for (const e of this.doc.entries) add(e.path);
    for (const s of this.doc.sections) add(s.path);
    return out;
  }
  /** Entries whose path is under the given prefix (any depth), relative to the root. */
  entriesUnder(...path: string[]): ConfigEntry[] {
    const p = [...this.root, ...path];
    return this.doc.entries.filter((e) => e.path.length > p.length && p.every((x, i) => e.path[i] === x));
  }
}

export function firstEntry(doc: ConfigDocument, ...paths: string[][]): ConfigEntry | undefined {
  for (const p of paths) {
    const e = findEntry(doc, ...p);
    if (e) return e;
  }
  return undefined;
}

/** A diagnostic builder bound to a framework namespace: `d("TT3", ...)` yields code `torchtune/TT3`. */
export function diagnostics(ns: string) {
  const out: Diagnostic[] = [];
  return {
    out,
    add(code: string, severity: Severity, range: Range | undefined, message: string, fixes?: Fix[], facts?: Record<string, string | number | boolean>): void {
      if (!range) return;
      const data: { fixes?: Fix[]; facts?: Record<string, string | number | boolean> } = {};
      if (fixes?.length) data.fixes = fixes;
      if (facts) data.facts = facts;
      out.push(diag(code.includes("/") || code.startsWith("yaml-") || code.startsWith("json-") ? code : `${ns}/${code}`, severity, range, message, data));
    },
  };
}
export type Diags = ReturnType<typeof diagnostics>;

export { fix };

export function replaceValue(e: ConfigEntry | ConfigValue, newText: string): TextEdit {
  const v = "value" in e && "keyRange" in e ? (e as ConfigEntry).value : (e as ConfigValue);
  return { range: v.range, newText };
}

/** Deletes the whole lines an entry (or section) spans, including the line break. */
export function deleteLines(doc: ConfigDocument, r: Range): TextEdit {
  const start = { line: r.start.line, character: 0 };
  const endLine = r.end.line + 1;
  const end = endLine < doc.lines.lineCount ? { line: endLine, character: 0 } : { line: r.end.line, character: doc.lines.lineText(r.end.line).length };
  return { range: { start, end }, newText: "" };
}

/** Inserts `key: value` as a new line after the line of `after`, with the same indentation as that line. */
export function insertLineAfter(doc: ConfigDocument, after: Range, text: string, indent?: string): TextEdit {
  const line = after.end.line;
  const lineText = doc.lines.lineText(line);
  const ind = indent ?? /^\s*/.exec(lineText)![0];
  const at = { line, character: lineText.length };
  return { range: { start: at, end: at }, newText: `${doc.lines.eol}${ind}${text}` };
}

/** Indentation of the line a range starts on. */
export function indentOf(doc: ConfigDocument, r: Range): string {
  return /^\s*/.exec(doc.lines.lineText(r.start.line))![0];
}

/** Inserts a line at the end of the file (adding a line break first when the file lacks one). */
export function appendLine(doc: ConfigDocument, text: string): TextEdit {
  const endOffset = doc.text.length;
  const pos = doc.lines.positionAt(endOffset);
  const needsBreak = doc.text.length > 0 && !/\r?\n$/.test(doc.text);
  return { range: { start: pos, end: pos }, newText: `${needsBreak ? doc.lines.eol : ""}${text}${doc.lines.eol}` };
}

/** One row of the precision table: the dtype (or a phrase such as "load dtype") and what set it. */
export interface Row {
  dtype: DType | string;
  from: string;
  /** `none`: no such step (no gradient reduction on one device); `launcher`: filled in by the launcher. Both are null in the contract. */
  kind?: "none" | "launcher";
}

export interface PrecisionTable {
  P: Row;
  C: Row;
  G: Row;
  R: Row;
  O: Row;
}

export function dt(dtype: DType | string, from: string): Row {
  return { dtype, from };
}

/** The gradient-reduction row of a single-device run: there is none ("none" in text, null in JSON). */
export function noReduce(from = "one device: no gradient reduction"): Row {
  return { dtype: "none", from, kind: "none" };
}

/** A row the launcher decides (DeepSpeed `"auto"` filled by HF Trainer/accelerate). */
export function launcherRow(from: string): Row {
  return { dtype: "set by the launcher", from, kind: "launcher" };
}

/**
 * The three contract fields from a full table. `none`/`launcher` rows become null; other non-dtype phrases
 * ("load dtype", "8-bit") fall back to float32 with the phrase as knob.
 */
export function toResolved(t: PrecisionTable, setBy?: string): ResolvedPrecision {
  const conv = (r: Row) => (r.kind ? { dtype: null, knob: r.from } : isDType(r.dtype) ? { dtype: r.dtype, knob: r.from } : { dtype: "float32" as DType, knob: `${r.from} (${r.dtype}; shown as float32, the usual load dtype)` });
  const out: ResolvedPrecision = { paramStorage: conv(t.P), compute: conv(t.C), gradReduce: conv(t.R) };
  if (setBy) out.setBy = setBy;
  return out;
}

export function isDType(s: string): s is DType {
  return ["float32", "bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float64"].includes(s);
}

export const MECHANISM_TEXT: Record<Mechanism, string> = {
  fully_shard: "FSDP mixed-precision policy (parameters cast at module boundaries, gradients reduced in the policy's dtype)",
  autocast: "torch.autocast around forward (parameters stay in their stored dtype)",
  none: "none: no mixed precision; everything runs in the stored dtype",
  error: "none: the launch fails before training",
};

/**
 * A layout with the sequence-parallel degree where a framework has one (accelerate ALST/Ulysses `sp_size`).
 * `sp` travels with `AnalysisResult.parallel` (and the CLI's JSON) as an extra field; absent means 1.
 */
export type FrameworkLayout = ParallelLayout & { sp?: number };

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

/** The errors among the diagnostics: any of them stops the launch before training. */
export function launchErrors(d: Diags): Diagnostic[] {
  return d.out.filter((x) => x.severity === "error");
}

export function summaryMarkdown(s: Summary): string {
  const lines: string[] = [];
  lines.push(`**Precision Lens** · ${s.framework}`);
  lines.push("");
  const gpus = s.worldSize ? ` on ${s.worldSize.value} GPU${s.worldSize.value === 1 ? "" : "s"}` : "";
  lines.push(`**${s.layoutName}${gpus}**${s.worldSize ? ` (world size: ${s.worldSize.detail})` : ""}`);
  if (s.layout) {
    const d = s.layout;
    lines.push("");
    lines.push(`Layout: dp_replicate ${d.dp_replicate} · dp_shard ${d.dp_shard} · cp ${d.cp} · tp ${d.tp} · pp ${d.pp}${d.sp && d.sp > 1 ? ` · sp ${d.sp}` : ""}`);
  }
  lines.push("");
  if (s.failed?.length) {
    lines.push(`Mechanism: **${MECHANISM_TEXT.error}** — ${s.failed.length} error${s.failed.length === 1 ? "" : "s"} (first: ${s.failed[0]!.code}). Once fixed: ${MECHANISM_TEXT[s.mechanism === "error" ? "none" : s.mechanism]} — ${s.meaning}`);
  } else lines.push(`Mechanism: **${s.mechanismText ?? MECHANISM_TEXT[s.mechanism]}** — ${s.meaning}`);
  if (s.table) {
    const t = s.table;
    const cell = (r: Row) => (isDType(r.dtype) ? `\`${r.dtype}\`` : r.dtype);
    lines.push("");
    lines.push("| | dtype | from |");
    lines.push("|---|---|---|");
    lines.push(`| parameter storage | ${cell(t.P)} | ${t.P.from} |`);
    lines.push(`| compute (matmuls) | ${cell(t.C)} | ${t.C.from} |`);
    lines.push(`| gradients | ${cell(t.G)} | ${t.G.from} |`);
    lines.push(`| gradient reduction | ${cell(t.R)} | ${t.R.from} |`);
    lines.push(`| optimizer state | ${cell(t.O)} | ${t.O.from} |`);
  }
  for (const n of s.notes ?? []) lines.push(`\n${n}`);
  for (const a of s.assumptions ?? []) lines.push(`\n_Assumption: ${a}_`);
  if (s.reasonLine) lines.push(`\n_Detected as ${s.framework}: ${s.reasonLine}._`);
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

export function short(d: DType | string): string {
  return isDType(d) ? shortDtype(d) : d;
}

export function layout(p: Partial<ParallelLayout>): ParallelLayout {
  return { dp_replicate: 1, dp_shard: 1, cp: 1, tp: 1, pp: 1, ep: 1, etp: 1, ...p };
}

/**
 * `yaml-1.1-boolean` (Information): a bare yes/no/on/off that PyYAML reads as a boolean. Skips the paths a
 * framework reports itself with a sharper code (e.g. accelerate's AC1), and keys that expect a boolean
 * (`expectsBool`), where the YAML 1.1 reading is what the user meant.
 */
export function yaml11Booleans(doc: ConfigDocument, d: Diags, skip: (path: string[]) => boolean, expectsBool: (path: string[]) => boolean): void {
  if (doc.format !== "yaml") return;
  for (const e of doc.entries) {
    if (!isYaml11Boolean(e.value) || skip(e.path) || expectsBool(e.path)) continue;
    const raw = e.value.raw!;
    const b = e.value.value as boolean;
    d.add(
      "yaml-1.1-boolean",
      "information",
      e.value.range,
      `\`${keyOf(e.path)}: ${raw}\` is read as the boolean ${b ? "True" : "False"}, not the string "${raw}": the framework loads YAML with PyYAML, which follows YAML 1.1 where bare yes/no/on/off are booleans. Quote it ('${raw}') if you meant the string, or write ${b} to make the boolean explicit.`,
      [fix(`Quote it: '${raw}'`, [replaceValue(e.value, `'${raw}'`)]), fix(`Write ${b}`, [replaceValue(e.value, String(b))])],
    );
  }
}

/** Parser notes (alias limit) as diagnostics. */
export function parseNoteDiagnostics(doc: ConfigDocument, d: Diags): void {
  for (const n of yamlParseNotes(doc)) d.add(n.code, n.severity, n.range, n.message);
}

/** Heuristic keys that hold booleans in every framework here (so `yes`/`no` there is harmless). */
const BOOL_FIRST = new Set(["enable", "use", "is", "has", "do", "with", "load", "save", "log", "apply", "packed", "shuffle", "compile", "resume", "strict", "flash", "sample", "gradient", "same", "fused", "cpu", "cuda", "offload", "sync", "zero3", "tpu", "fsdp", "deterministic", "benchmark", "overwrite", "push", "train", "eval", "pin", "drop", "auto", "allow", "skip", "bf16", "fp16", "tf32", "fp8"]);
const BOOL_WHOLE = new Set(["bf16", "fp16", "tf32", "fp8", "bfloat16", "float16", "debug", "enabled", "fused", "shuffle", "packed", "compile", "strict", "deterministic", "benchmark", "verbose", "sync_batchnorm", "fast_dev_run", "overlap_comm", "contiguous_gradients", "reduce_scatter"]);
const BOOL_LAST = new Set(["enabled", "flag", "offload", "only", "checkpointing", "loading", "memory", "stats", "params", "prefetch", "comm", "states", "init"]);

export function looksBoolKey(path: string[]): boolean {
  const k = (path[path.length - 1] ?? "").toLowerCase();
  if (BOOL_WHOLE.has(k)) return true;
  const parts = k.split("_");
  return BOOL_FIRST.has(parts[0]!) || (parts.length > 1 && BOOL_LAST.has(parts[parts.length - 1]!));
}

// ---------------------------------------------------------------------------------------------------
// Cross-file links

export interface Linked {
  /** Absolute path of the linked file. */
  path: string;
  text: string;
}

function dirname(p: string): string {
  const i = Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\"));
  return i <= 0 ? (i === 0 ? "/" : ".") : p.slice(0, i);
}

export function joinPath(base: string, rel: string): string {
  if (/^([A-Za-z]:[\\/]|\/)/.test(rel)) return normalize(rel);
  return normalize(`${base}/${rel}`);
}

function normalize(p: string): string {
  const abs = p.startsWith("/");
  const drive = /^[A-Za-z]:/.exec(p)?.[0] ?? "";
  const parts = p.slice(drive.length).split(/[\\/]+/);
  const out: string[] = [];
  for (const x of parts) {
    if (!x || x === ".") continue;
    if (x === "..") {
      if (out.length && out[out.length - 1] !== "..") out.pop();
      else if (!abs) out.push("..");
    } else out.push(x);
  }
  return `${drive}${abs ? "/" : ""}${out.join("/")}`;
}

export { dirname };

/**
 * Finds a file a config names by a relative path. Tried in order: relative to the document's folder (the
 * spec's rule), then each enclosing folder up to 6 levels, then the workspace roots (Assumption
 * `link-search-upward`: Axolotl resolves `deepspeed:` from the working directory, usually the repo root,
 * e.g. `deepspeed_configs/zero2.json` from `examples/llama-3/x.yaml`). Only exact paths are read.
 */
export function readLinked(env: AnalysisEnv, rel: string): Linked | undefined {
  if (!env.documentPath || !rel || rel.includes("${")) return undefined;
  const tried = new Set<string>();
  let dir = dirname(env.documentPath);
  for (let i = 0; i < 7; i++) {
    const p = joinPath(dir, rel);
    if (!tried.has(p)) {
      tried.add(p);
      const text = env.readFile(p);
      if (text !== undefined) return { path: p, text };
    }
    if (/^\/?$/.test(dir) || /^[A-Za-z]:\/?$/.test(dir) || /^\.\.?$/.test(dir)) break;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  for (const r of env.workspaceRoots ?? []) {
    const p = joinPath(r, rel);
    if (tried.has(p)) continue;
    const text = env.readFile(p);
    if (text !== undefined) return { path: p, text };
  }
  return undefined;
}

/** Plural helper for messages. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function quoteList(xs: readonly string[]): string {
  return xs.map((x) => `\`${x}\``).join(", ");
}

/** World size given by the user setting (wins over everything). */
export function settingWorldSize(ws: number | null | undefined): Sourced<number> | undefined {
  return ws && ws > 0 ? { value: ws, source: "setting", detail: "from the precisionLens.worldSize setting / --world-size" } : undefined;
}

/** Nearest string by edit distance (for did-you-mean fixes). */
export function nearest(s: string, choices: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of choices) {
    const d = editDistance(s.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return bestD <= Math.max(2, Math.floor(s.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) dp[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) dp[i]![j] = Math.min(dp[i - 1]![j]! + 1, dp[i]![j - 1]! + 1, dp[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  return dp[a.length]![b.length]!;
}
