/**
 * `auto` version inference for torchtitan (issue #3): a pinned torchtitan in the workspace's Python
 * dependency files first (walking up from the config's directory to the workspace root), then the keys
 * the config uses (torchtitan.md §4.3 rename map), then the default.
 *
 * Nothing is executed; dependency files are scanned with regular expressions.
 */
import { matchingNames } from "./listing";
import { scanLines } from "./scan";
import type { AnalysisEnv, Sourced } from "../analysis";
import { entriesUnder, findEntry, findSection, hasSection, type ConfigDocument } from "../model/document";
import { DEFAULT_VERSION, LAST_TOML_DATE, RELEASES, type Release } from "../frameworks/torchtitan/versions";
import { keyWindow } from "../frameworks/torchtitan/schema/index";
import { leafEntries } from "../frameworks/torchtitan/schema/view";
import { ancestorDirs, displayPath, join, lineLocation } from "./paths";

export interface VersionInference extends Sourced<string> {
  /** "workspace-pin" | "config-keys" | "default". */
  source: string;
  /** Every piece of evidence considered, user-facing. */
  evidence: string[];
  /** source "config-keys": the keys (or tables) whose dates bound the window the version was picked from. */
  decidedBy?: string[];
  /** source "config-keys": the date window the keys fit ([from, until)), from which the version was picked. */
  window?: { from?: string; until?: string };
  /**
   * Set when the workspace pins a torchtitan that no longer reads TOML (≥ 0.3, or a build dated after
   * 2026-02-23): the pin as written and where. `value` is then the last TOML release, so the analysis can
   * go on, and the caller should warn that this file is not read by that torchtitan.
   */
  outsideTomlEra?: { pin: string; file: string };
}

/** Dependency files, in the order they are consulted within one directory. */
const DEP_FILES: { test: (name: string) => boolean; kind: string }[] = [
  { test: (n) => /^requirements.*\.txt$/i.test(n), kind: "requirements" },
  { test: (n) => n === "pyproject.toml", kind: "pyproject" },
  { test: (n) => n === "uv.lock", kind: "lock" },
  { test: (n) => n === "poetry.lock", kind: "lock" },
  { test: (n) => n === "pdm.lock", kind: "lock" },
];

export interface Pin {
  /** As written: "0.2.2", "v0.2.1", "0.2.0.dev20251001", a git sha. */
  raw: string;
  /** The line it came from, trimmed. */
  line: string;
  /** Zero-based number of that line in the file. */
  lineNo: number;
}

/** Finds an exact torchtitan pin in one dependency file's text (undefined for ranges or no mention). */
export function findPin(text: string, kind: string): Pin | undefined {
  const lines = scanLines(text);
  if (kind === "lock") {
    // [[package]] name = "torchtitan" version = "…" (uv / poetry / pdm); a git source may carry a tag.
    for (let i = 0; i < lines.length; i++) {
      if (!/^\s*name\s*=\s*"torchtitan"\s*$/.test(lines[i]!)) continue;
      for (let j = i + 1; j < Math.min(lines.length, i + 12) && !/^\s*\[/.test(lines[j]!); j++) {
        const tag = /[?&]tag=(v?[\w.]+)/.exec(lines[j]!) ?? /\btag\s*=\s*"(v?[\w.]+)"/.exec(lines[j]!);
        if (tag) return { raw: tag[1]!, line: lines[j]!.trim(), lineNo: j };
      }
      for (let j = i + 1; j < Math.min(lines.length, i + 12) && !/^\s*\[/.test(lines[j]!); j++) {
        const v = /^\s*version\s*=\s*"([^"]+)"/.exec(lines[j]!);
        if (v) return { raw: v[1]!, line: `torchtitan ${v[1]}`, lineNo: j };
      }
    }
    return undefined;
  }
  for (let lineNo = 0; lineNo < lines.length; lineNo++) {
    const line = lines[lineNo]!.replace(/(^|\s)#.*$/, "").trim();
    if (!/torchtitan/i.test(line)) continue;
    // torchtitan==0.2.2 / ===0.2.2 (requirements, PEP 621 dependency strings)
    const eq = /\btorchtitan\s*(?:\[[^\]]*\]\s*)?===?\s*([0-9][\w.+-]*)/i.exec(line);
    if (eq) return { raw: eq[1]!, line, lineNo };
    // git+https://github.com/pytorch/torchtitan(.git)@v0.2.1 (PEP 508 direct reference)
    const git = /github\.com[/:]pytorch\/torchtitan(?:\.git)?@([\w.-]+)/i.exec(line);
    if (git) return { raw: git[1]!, line, lineNo };
    // poetry: torchtitan = "0.2.2" / "==0.2.2" / { git = "…", tag = "v0.2.1" } / { version = "0.2.2" }
    const poetry = /^torchtitan\s*=(.+)$/i.exec(line);
    if (poetry) {
      const v = poetry[1]!.trimStart() || poetry[1]!;
      const tag = /\b(?:tag|rev)\s*=\s*"([^"]+)"/.exec(v);
      if (tag) return { raw: tag[1]!, line, lineNo };
      const plain = /^"\s*(?:==\s*)?([0-9][\w.+-]*)\s*"$/.exec(v.trim()) ?? /\bversion\s*=\s*"\s*(?:==\s*)?([0-9][\w.+-]*)\s*"/.exec(v);
      if (plain) return { raw: plain[1]!, line, lineNo };
    }
  }
  return undefined;
}

export type PinMeaning = { kind: "release"; version: Release } | { kind: "main"; date: string } | { kind: "outside"; why: string } | { kind: "unknown"; why: string };

/** What a pinned version string means for the TOML schema. */
export function interpretPin(raw: string): PinMeaning {
  const s = raw.trim().replace(/^v/, "");
  const dev = /^(\d+)\.(\d+)\.(\d+)\.?dev(\d{4})(\d{2})(\d{2})/.exec(s);
  if (dev) {
    const date = `${dev[4]}-${dev[5]}-${dev[6]}`;
    return date > LAST_TOML_DATE ? { kind: "outside", why: `a build dated ${date}, after torchtitan stopped reading TOML (${LAST_TOML_DATE})` } : { kind: "main", date };
  }
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(s);
  if (!m) return { kind: "unknown", why: `"${raw}" is not a version number (a commit?); it cannot be dated without the repository` };
  const [maj, min, patch] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  const rel = `v${maj}.${min}.${patch}` as Release;
  if (rel in RELEASES) return { kind: "release", version: rel };
  if (maj > 0 || min >= 3) return { kind: "outside", why: `torchtitan ${raw} is newer than v0.2.2, the last release that reads TOML` };
  if (maj === 0 && min === 2 && patch > 2) return { kind: "outside", why: `torchtitan ${raw} is newer than v0.2.2, the last release that reads TOML` };
  return { kind: "unknown", why: `torchtitan ${raw} predates v0.1.0 (no release with that number is modelled)` };
}

/** A config key (or section) and the main-branch date range in which torchtitan's schema had it. */
interface KeyEvidence {
  what: string;
  present: (doc: ConfigDocument) => boolean;
  /** Inclusive. */
  from?: string;
  /** Exclusive. */
  until?: string;
}

const has = (...path: string[]) => (doc: ConfigDocument) => findEntry(doc, ...path) !== undefined;
const section = (...path: string[]) => (doc: ConfigDocument) => findSection(doc, ...path) !== undefined || entriesUnder(doc, ...path).length > 0;

/** torchtitan.md §0 and §4.3 (dates of the commits that added / renamed / removed keys). */
export const KEY_EVIDENCE: readonly KeyEvidence[] = [
  { what: "[parallelism] table", present: (d) => hasSection(d, "parallelism"), from: "2025-03-18" },
  { what: "parallel degrees in [training]", present: (d) => ["data_parallel_shard_degree", "data_parallel_replicate_degree", "tensor_parallel_degree"].some((k) => findEntry(d, "training", k)), until: "2025-03-18" },
  { what: "training.data_parallel_degree", present: has("training", "data_parallel_degree"), until: "2024-09-10" },
  { what: "experimental.pipeline_parallel_degree / context_parallel_degree", present: (d) => !!findEntry(d, "experimental", "pipeline_parallel_degree") || !!findEntry(d, "experimental", "context_parallel_degree"), until: "2025-03-18" },
  { what: "[float8] table", present: (d) => hasSection(d, "float8"), from: "2024-07-30", until: "2025-09-26" },
  { what: "float8.enable_float8_linear", present: has("float8", "enable_float8_linear"), until: "2025-02-15" },
  { what: "[mx] table", present: (d) => hasSection(d, "mx"), from: "2025-05-14", until: "2025-09-26" },
  { what: "[quantize.dense] / [quantize.moe]", present: (d) => section("quantize", "dense")(d) || section("quantize", "moe")(d), from: "2025-09-26", until: "2025-09-30" },
  { what: "[quantize.linear] / [quantize.grouped_mm]", present: (d) => section("quantize", "linear")(d) || section("quantize", "grouped_mm")(d), from: "2025-09-30" },
  { what: "training.dtype", present: has("training", "dtype"), from: "2025-09-16" },
  { what: "training.compile", present: has("training", "compile"), until: "2025-08-20" },
  { what: "[compile] table", present: (d) => hasSection(d, "compile"), from: "2025-08-20" },
  { what: "training.batch_size", present: has("training", "batch_size"), until: "2025-06-05" },
  { what: "training.local_batch_size", present: has("training", "local_batch_size"), from: "2025-06-05" },
  { what: "checkpoint.enable_checkpoint", present: has("checkpoint", "enable_checkpoint"), until: "2025-08-22" },
  { what: "checkpoint.enable", present: has("checkpoint", "enable"), from: "2025-08-22" },
  { what: "checkpoint.model_weights_only", present: has("checkpoint", "model_weights_only"), until: "2025-06-13" },
  { what: "checkpoint.last_save_model_weights_only", present: has("checkpoint", "last_save_model_weights_only"), from: "2025-06-13", until: "2025-07-20" },
  { what: "checkpoint.last_save_model_only", present: has("checkpoint", "last_save_model_only"), from: "2025-07-20" },
  { what: "checkpoint.last_save_in_safetensors_format", present: has("checkpoint", "last_save_in_safetensors_format"), until: "2025-07-20" },
  { what: "training.seed / training.deterministic", present: (d) => !!findEntry(d, "training", "seed") || !!findEntry(d, "training", "deterministic"), until: "2025-10-29" },
  { what: "[debug] table", present: (d) => hasSection(d, "debug"), from: "2025-10-29" },
  { what: "model.hf_assets_path", present: has("model", "hf_assets_path"), from: "2025-08-11" },
  { what: "[validation] table", present: (d) => hasSection(d, "validation"), from: "2025-07-09" },
  { what: "validation.enabled", present: has("validation", "enabled"), until: "2025-08-22" },
  { what: "validation.enable", present: has("validation", "enable"), from: "2025-08-22" },
  { what: "job.print_args", present: has("job", "print_args"), until: "2025-10-14" },
  { what: "job.print_config / job.custom_config_module", present: (d) => !!findEntry(d, "job", "print_config") || !!findEntry(d, "job", "custom_config_module"), from: "2025-10-14" },
  { what: "optimizer.fused", present: has("optimizer", "fused"), until: "2025-02-24" },
  { what: "optimizer.implementation", present: has("optimizer", "implementation"), from: "2025-02-24" },
  { what: "parallelism.pipeline_parallel_microbatches", present: has("parallelism", "pipeline_parallel_microbatches"), until: "2025-04-07" },
  { what: "parallelism.pipeline_parallel_microbatch_size", present: has("parallelism", "pipeline_parallel_microbatch_size"), from: "2025-04-07" },
  { what: "parallelism.pipeline_parallel_split_points", present: has("parallelism", "pipeline_parallel_split_points"), until: "2025-10-13" },
  { what: "parallelism.enable_compiled_autograd", present: has("parallelism", "enable_compiled_autograd"), until: "2025-10-28" },
  { what: "parallelism.expert_parallel_degree", present: has("parallelism", "expert_parallel_degree"), from: "2025-07-08" },
  { what: "parallelism.expert_tensor_parallel_degree", present: has("parallelism", "expert_tensor_parallel_degree"), from: "2025-08-13" },
  { what: "lr_scheduler.lr_min", present: has("lr_scheduler", "lr_min"), until: "2025-07-31" },
  { what: "lr_scheduler.min_lr_factor", present: has("lr_scheduler", "min_lr_factor"), from: "2025-07-31" },
  { what: "memory_estimation.enabled", present: has("memory_estimation", "enabled"), until: "2025-08-20" },
  { what: "memory_estimation.enable", present: has("memory_estimation", "enable"), from: "2025-08-20" },
  { what: "comm.mode", present: has("comm", "mode"), from: "2025-11-25" },
  { what: "[training.dataloader] / [validation.dataloader]", present: (d) => section("training", "dataloader")(d) || section("validation", "dataloader")(d), from: "2025-12-18" },
  { what: "parallelism.context_parallel_load_balancer", present: has("parallelism", "context_parallel_load_balancer"), from: "2026-01-20" },
  { what: "lr_scheduler.total_steps", present: has("lr_scheduler", "total_steps"), from: "2026-02-06" },
];

function dayBefore(date: string): string {
  const t = Date.parse(`${date}T00:00:00Z`) - 86400000;
  return new Date(t).toISOString().slice(0, 10);
}

/** Picks a version for a date window [from, until): the latest release inside, else a main-branch date. */
export function versionForWindow(from: string | undefined, until: string | undefined): string {
  const releases = (Object.entries(RELEASES) as [Release, { date: string }][]).filter(([, r]) => (!from || r.date >= from) && (!until || r.date < until));
  if (releases.length) return releases[releases.length - 1]![0];
  if (until) {
    const d = dayBefore(until);
    return `main@${d > LAST_TOML_DATE ? LAST_TOML_DATE : d}`;
  }
  if (from && from <= LAST_TOML_DATE) return `main@${from}`;
  return DEFAULT_VERSION;
}

/**
 * Evidence from the dated schema itself (schema/index.ts keyWindow): every key the config writes that
 * did not exist over the whole TOML era, including old names and removed keys (`float8.scaling_type_*`
 * dates a file before 2025-01-31). Keys no upstream schema ever had (a fork's) are not evidence.
 */
export function schemaKeyEvidence(doc: ConfigDocument): KeyEvidence[] {
  const out: KeyEvidence[] = [];
  const seen = new Set<string>();
  for (const e of leafEntries(doc)) {
    const path = e.path.join(".");
    if (seen.has(path)) continue;
    seen.add(path);
    const w = keyWindow(path);
    if (!w) continue;
    out.push({ what: path, present: () => true, ...(w.from ? { from: w.from } : {}), ...(w.until ? { until: w.until } : {}) });
    if (out.length >= 400) break;
  }
  return out;
}

type KeysVerdict = { value: string; detail: string; evidence: string[]; decidedBy: string[]; window: { from?: string; until?: string } } | undefined;

/**
 * fromKeys reads only which keys and tables the config has (never values or positions): its verdict is
 * memoised on that list, so an edit that changes a value or a comment does not infer the version again.
 */
const fromKeysMemo = new Map<string, KeysVerdict>();
const FROM_KEYS_ENTRIES = 64;

function keySetOf(doc: ConfigDocument): string {
  const parts: string[] = [];
  const visit = (e: ConfigDocument["entries"][number], depth: number): void => {
    parts.push(`${depth}:${e.path.join("\u0001")}`);
    if (e.value.kind === "table" && e.value.entries) for (const sub of e.value.entries) visit(sub, depth + 1);
  };
  for (const e of doc.entries) visit(e, 0);
  for (const s of doc.sections) parts.push(`[${s.path.join("\u0001")}]`);
  return parts.join("\n");
}

function fromKeys(doc: ConfigDocument): KeysVerdict {
  const key = keySetOf(doc);
  if (fromKeysMemo.has(key)) {
    const hit = fromKeysMemo.get(key);
    return hit && { ...hit, evidence: hit.evidence.slice(), decidedBy: hit.decidedBy.slice() };
  }
  const verdict = computeFromKeys(doc);
  if (fromKeysMemo.size >= FROM_KEYS_ENTRIES) fromKeysMemo.delete(fromKeysMemo.keys().next().value!);
  fromKeysMemo.set(key, verdict);
  return verdict && { ...verdict, evidence: verdict.evidence.slice(), decidedBy: verdict.decidedBy.slice() };
}

function computeFromKeys(doc: ConfigDocument): KeysVerdict {
  const hits = KEY_EVIDENCE.filter((k) => k.present(doc) && (k.from || k.until));
  // A key a hand-written evidence line already names (e.g. "training.seed / training.deterministic") is not repeated.
  const named = new Set(hits.flatMap((h) => h.what.split(/[\s/,]+/)));
  for (const k of schemaKeyEvidence(doc)) if (!named.has(k.what)) hits.push(k);
  if (!hits.length) return undefined;
  const evidence = hits.map((h) => `${h.what} (${h.from ? `from ${h.from}` : ""}${h.from && h.until ? " " : ""}${h.until ? `until ${h.until}` : ""})`);
  const all = windowOf(hits);
  // Keys of different versions (a fork that kept an old name, a half-migrated file): the date that the
  // most keys fit (the latest on a tie) decides; the others are then reported against it.
  const fit = all.from && all.until && all.from >= all.until ? bestFit(hits) : hits;
  const { from, until } = windowOf(fit);
  // Only the keys that bound the window are worth naming.
  const decisive = fit.filter((h) => (from !== undefined && h.from === from) || (until !== undefined && h.until === until)).map((h) => h.what);
  const shown = decisive.length > 4 ? [...decisive.slice(0, 4), `${decisive.length - 4} more`] : decisive;
  const value = versionForWindow(from, until);
  const span = `${shown.join(", ")} ${decisive.length > 1 ? "exist" : "exists"} only ${from ? `from ${from}` : ""}${from && until ? " and " : ""}${until ? `before ${until}` : ""}`;
  if (fit !== hits) {
    const others = hits.filter((h) => !fit.includes(h)).map((h) => h.what);
    return {
      value,
      detail: `the config's keys belong to different torchtitan versions: ${fit.length} of ${hits.length} fit ${value} (${span}); ${others.join(", ")} ${others.length > 1 ? "belong" : "belongs"} to another version`,
      evidence,
      decidedBy: decisive,
      window: { ...(from ? { from } : {}), ...(until ? { until } : {}) },
    };
  }
  return { value, detail: `${span} → ${value}`, evidence, decidedBy: decisive, window: { ...(from ? { from } : {}), ...(until ? { until } : {}) } };
}

function windowOf(hits: readonly KeyEvidence[]): { from?: string; until?: string } {
  let from: string | undefined;
  let until: string | undefined;
  for (const h of hits) {
    if (h.from && (!from || h.from > from)) from = h.from;
    if (h.until && (!until || h.until < until)) until = h.until;
  }
  return { ...(from ? { from } : {}), ...(until ? { until } : {}) };
}

/** The evidence that holds at the date most of it holds at (the latest such date on a tie). */
function bestFit(hits: readonly KeyEvidence[]): KeyEvidence[] {
  const dates = new Set<string>(["0000-01-01", ...Object.values(RELEASES).map((r) => r.date)]);
  for (const h of hits) {
    if (h.from) dates.add(h.from);
    if (h.until) dates.add(dayBefore(h.until));
  }
  let best: KeyEvidence[] = [];
  let bestDate = "";
  for (const d of [...dates].filter((x) => x <= LAST_TOML_DATE).sort()) {
    const ok = hits.filter((h) => (!h.from || h.from <= d) && (!h.until || d < h.until));
    if (ok.length >= best.length) {
      best = ok;
      bestDate = d;
    }
  }
  return bestDate ? best : hits.slice();
}

/**
 * Dependency files are scanned once per text (a lock file can be megabytes; the server re-infers on every
 * edit and the host hands back the same text while the file is unchanged).
 */
const pinMemo = new Map<string, Map<string, Pin | undefined>>();
const PIN_MEMO_ENTRIES = 64;

function findPinCached(text: string, kind: string): Pin | undefined {
  let byText = pinMemo.get(kind);
  if (!byText) pinMemo.set(kind, (byText = new Map()));
  if (byText.has(text)) return byText.get(text);
  const pin = findPin(text, kind);
  if (byText.size >= PIN_MEMO_ENTRIES) byText.delete(byText.keys().next().value!);
  byText.set(text, pin);
  return pin;
}

export function inferVersion(doc: ConfigDocument, env: AnalysisEnv): VersionInference {
  const evidence: string[] = [];
  let outside: VersionInference["outsideTomlEra"];
  let outsideLocation: VersionInference["location"];
  for (const dir of ancestorDirs(env)) {
    const names = env.listDir(dir);
    for (const dep of DEP_FILES) {
      for (const name of matchingNames(names, `dep:${DEP_FILES.indexOf(dep)}`, dep.test)) {
        const path = join(dir, name);
        const text = env.readFile(path);
        if (text === undefined) continue;
        const pin = findPinCached(text, dep.kind);
        if (!pin) continue;
        const where = displayPath(path, env);
        const meaning = interpretPin(pin.raw);
        evidence.push(`${where}: ${pin.line}`);
        const location = lineLocation(path, text, pin.lineNo);
        if (meaning.kind === "release") return { value: meaning.version, source: "workspace-pin", kind: "workspace-pin", detail: `torchtitan ${pin.raw} pinned in ${where}`, evidence, location };
        if (meaning.kind === "main") return { value: `main@${meaning.date}`, source: "workspace-pin", kind: "workspace-pin", detail: `torchtitan ${pin.raw} (a main-branch build of ${meaning.date}) pinned in ${where}`, evidence, location };
        if (meaning.kind === "outside") {
          if (!outside) outsideLocation = location;
          outside ??= { pin: pin.raw, file: where };
          evidence.push(meaning.why);
          continue;
        }
        evidence.push(meaning.why);
      }
    }
  }
  if (outside) {
    return {
      value: DEFAULT_VERSION,
      source: "workspace-pin",
      kind: "workspace-pin",
      detail: `torchtitan ${outside.pin} pinned in ${outside.file} no longer reads TOML configs; showing ${DEFAULT_VERSION}, the last release that does`,
      evidence,
      outsideTomlEra: outside,
      ...(outsideLocation ? { location: outsideLocation } : {}),
    };
  }
  const keys = fromKeys(doc);
  if (keys) return { value: keys.value, source: "config-keys", kind: "inferred", detail: keys.detail, evidence: [...evidence, ...keys.evidence], decidedBy: keys.decidedBy, window: keys.window };
  return { value: DEFAULT_VERSION, source: "default", kind: "default", detail: `no torchtitan pin in the workspace and no version-specific keys; assuming ${DEFAULT_VERSION}`, evidence };
}
