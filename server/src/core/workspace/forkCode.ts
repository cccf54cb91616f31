/**
 * The workspace's own torchtitan code dates it (issue #30 §2). When a folder above the config holds a
 * `torchtitan/` package (a fork, a submodule, a vendored copy), the functions that decide mixed precision and
 * layout are read as text through the Python parser (nothing is imported or run) and matched against the known
 * upstream states (spec torchtitan.md §0, §1.2, §1.5):
 *
 *   state                                             torchtitan/distributed/utils.py           config classes
 *   2025-06-16 (#1303) … 2026-02-23                   maybe_enable_amp, no dp_replicate branch   config/job_config.py
 *   2026-02-23 (#2386) … 2026-03-09                   maybe_enable_amp, no dp_replicate branch   config/configs.py
 *   2026-03-09 (#2458, e1847f439) … 2026-04-09        maybe_enable_amp checks dp_replicate_enabled
 *   2026-04-09 (#2900, 00b7f5693) …                   no maybe_enable_amp                        config/configs.py
 *   … 2025-06-16                                      no maybe_enable_amp                        job_config.py / config_manager.py
 *   2026-09-11 (#4597) …                              configs.py's mixed_precision_reduce admits "bfloat16"
 *
 * Checked at upstream: `git show 9810191bb^:torchtitan/distributed/utils.py` (maybe_enable_amp, no dp_replicate),
 * `git show e1847f439:torchtitan/distributed/utils.py` (`fsdp_enabled or dp_replicate_enabled`), 00b7f5693
 * deletes the function; 9810191bb adds torchtitan/config/configs.py.
 *
 * The models' `parallelize` modules are read too: where a fork's never calls fully_shard (or no data-parallel
 * wrapper at all), or patches autocast in, the upstream era's mechanism does not describe the run; that is
 * returned as `parallelize` differences, which the analysis states and rests its findings on as an assumption.
 *
 * Bounded: at most MAX_MODELS parallelize modules, each read through scannedPart (256 KiB); the parse is
 * memoised per text.
 */
import type { AnalysisEnv } from "../analysis";
import type { SourceLocation } from "../model/types";
import { parsePythonModule, type PyFunction } from "../parse/python";
import { ancestorDirs, basename, displayPath, fileUri, join, oncePerAnalysis } from "./paths";
import { scannedPart } from "./scan";

/** Model folders whose parallelize modules are read, at most. */
export const MAX_FORK_MODELS = 16;

export interface ForkCodeDecision {
  /** The file that decided, relative to the workspace ("torchtitan/distributed/utils.py"). */
  file: string;
  /** The function (or its absence) that decided: "maybe_enable_amp", "no maybe_enable_amp". */
  fn: string;
  /** What was read there, user-facing. */
  what: string;
  location: SourceLocation;
}

export interface ParallelizeDifference {
  /** The model folder ("llama3"). */
  model: string;
  file: string;
  /** "no data parallelism", "DDP only (no fully_shard)", "autocast patched in". */
  differs: string[];
  location: SourceLocation;
}

export interface ForkCode {
  /** The package folder, relative to the workspace ("torchtitan", "third_party/torchtitan/torchtitan"). */
  packagePath: string;
  /** Which config system the package's own classes are: Python (config/configs.py) or TOML (job_config.py). */
  configFormat?: "python" | "toml";
  /** The window of upstream dates the code matches ([from, until)); absent when it matches no known state. */
  window?: { from: string; until?: string };
  decidedBy?: ForkCodeDecision;
  /** Set when the code matches no known upstream state: why, user-facing. */
  unmatched?: string;
  /**
   * The fork's maybe_enable_amp returns autocast where upstream's returns a null context (TP or PP without FSDP):
   * the TP-only/PP-only fp32 of upstream's eras is not this fork's (held-back orangingq fork).
   */
  tpPpAutocast?: { file: string; location?: SourceLocation };
  /** The models whose parallelize the fork rewrote, as read. */
  parallelize: ParallelizeDifference[];
  /**
   * Per model folder whose parallelize has an expert-parallel branch: whether that branch takes the tp mesh
   * unguarded (`get_mesh("tp")`, `world_mesh["tp"]` with no `if`), which raises at TP = 1 (eras.ts epAsksTpMesh).
   */
  epBranchTpMesh: EpBranchTpMesh[];
  /** Everything read, user-facing. */
  evidence: string[];
}

export interface EpBranchTpMesh {
  model: string;
  file: string;
  asks: boolean;
  location: SourceLocation;
}

export const AMP_ADDED = "2025-06-16";
export const PY_CONFIG_DATE = "2026-02-23";
export const REPLICATE_POLICY_DATE = "2026-03-09";
export const AMP_REMOVED = "2026-04-09";
export const BF16_REDUCE_CHOICE_DATE = "2026-09-11";
export const BF16_STATES_DATE = "2026-04-15";

const parseCache = new Map<string, PyFunction[]>();

function functionsOf(text: string): PyFunction[] {
  let hit = parseCache.get(text);
  if (!hit) {
    hit = parsePythonModule(scannedPart(text)).module.functions;
    if (parseCache.size >= 32) parseCache.delete(parseCache.keys().next().value!);
    parseCache.set(text, hit);
  }
  return hit;
}

function offsetOf(text: string, line: number, character: number): number {
  let off = 0;
  for (let l = 0; l < line; l++) {
    const nl = text.indexOf("\n", off);
    if (nl < 0) return text.length;
    off = nl + 1;
  }
  return off + character;
}

function bodyText(text: string, fn: PyFunction): string {
  return text.slice(offsetOf(text, fn.range.start.line, fn.range.start.character), offsetOf(text, fn.range.end.line, fn.range.end.character));
}

function locationAt(path: string, fn: PyFunction | undefined): SourceLocation {
  const range = fn ? fn.headerRange : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return { uri: fileUri(path), range };
}

/**
 * The `torchtitan/` package folder above the config: `<dir>/torchtitan`, a submodule's `<dir>/torchtitan/torchtitan`,
 * or the folder itself. Asked three or four times per analysis (version, fork code, config sources): walked once.
 */
export const findTorchtitanPackage = oncePerAnalysis(findTorchtitanPackageUncached);

function findTorchtitanPackageUncached(env: AnalysisEnv): string | undefined {
  for (const dir of ancestorDirs(env)) {
    const candidates = basename(dir) === "torchtitan" ? [dir, join(dir, "torchtitan")] : [join(dir, "torchtitan"), join(join(dir, "torchtitan"), "torchtitan")];
    for (const pkg of candidates) {
      if (env.readFile(join(join(pkg, "distributed"), "utils.py")) !== undefined) return pkg;
    }
  }
  return undefined;
}

const memo = new Map<string, ForkCode | null>();

/**
 * The workspace's torchtitan code, read and matched; undefined when the workspace holds no torchtitan package.
 * Once per analysis (the version and the context ask); across analyses the memo above, keyed by the texts read.
 */
export const readForkCode = oncePerAnalysis(readForkCodeUncached);

function readForkCodeUncached(env: AnalysisEnv): ForkCode | undefined {
  const pkg = findTorchtitanPackage(env);
  if (!pkg) return undefined;
  const utilsPath = join(join(pkg, "distributed"), "utils.py");
  const utils = env.readFile(utilsPath)!;
  const configs = env.readFile(join(join(pkg, "config"), "configs.py"));
  const jobConfig = env.readFile(join(join(pkg, "config"), "job_config.py")) ?? env.readFile(join(pkg, "config_manager.py"));
  const components = join(pkg, "components");
  const optimizer = env.readFile(join(components, "optimizer.py")) ?? env.readFile(join(join(components, "optimizer"), "optimizer.py"));
  const modelsDir = join(pkg, "models");
  const models = env.listDir(modelsDir).filter((n) => /^[A-Za-z_]\w*$/.test(n)).sort().slice(0, MAX_FORK_MODELS);
  const parallelizeTexts = models.map((m) => {
    for (const rel of [["parallelize.py"], ["infra", "parallelize.py"]]) {
      const p = rel.reduce((d, x) => join(d, x), join(modelsDir, m));
      const t = env.readFile(p);
      if (t !== undefined) return { model: m, path: p, text: t };
    }
    return undefined;
  });
  const key = [pkg, utils, configs ?? "", jobConfig === undefined ? "" : "j", optimizer ?? "", ...parallelizeTexts.map((p) => (p ? `${p.path}\u0000${p.text}` : ""))].join("\u0001");
  const hit = memo.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const out = matchForkCode(env, pkg, utilsPath, utils, configs, jobConfig, optimizer, parallelizeTexts.filter((p): p is NonNullable<typeof p> => !!p));
  if (memo.size >= 16) memo.delete(memo.keys().next().value!);
  memo.set(key, out);
  return out;
}

function matchForkCode(
  env: AnalysisEnv,
  pkg: string,
  utilsPath: string,
  utils: string,
  configs: string | undefined,
  jobConfig: string | undefined,
  optimizer: string | undefined,
  parallelize: { model: string; path: string; text: string }[],
): ForkCode {
  const packagePath = displayPath(pkg, env);
  const utilsShown = displayPath(utilsPath, env);
  const configFormat = configs !== undefined ? "python" : jobConfig !== undefined ? "toml" : undefined;
  const evidence: string[] = [];
  if (configFormat === "python") evidence.push(`${packagePath}/config/configs.py: Python config classes (from ${PY_CONFIG_DATE}, #2386)`);
  if (configFormat === "toml") evidence.push(`${packagePath}: TOML-era config classes (job_config.py / config_manager.py)`);
  const amp = functionsOf(utils).find((f) => f.name === "maybe_enable_amp");
  const out: ForkCode = { packagePath, parallelize: [], epBranchTpMesh: [], evidence };
  if (configFormat) out.configFormat = configFormat;
  if (amp) {
    const body = bodyText(utils, amp);
    const loc = locationAt(utilsPath, amp);
    if (tpPpBranchAutocasts(body)) {
      out.unmatched = `${utilsShown}: maybe_enable_amp autocasts TP or PP without FSDP (upstream's returns a null context there)`;
      out.tpPpAutocast = { file: utilsShown, location: loc };
      evidence.push(out.unmatched);
    } else if (!/\bautocast\b/.test(body) || !/\btp_enabled\b|\bpp_enabled\b/.test(body)) {
      out.unmatched = `${utilsShown}: maybe_enable_amp matches no upstream version (${/\bautocast\b/.test(body) ? "no TP/PP branch" : "no autocast"})`;
      evidence.push(out.unmatched);
    } else if (/\bdp_replicate_enabled\b/.test(body)) {
      out.window = { from: REPLICATE_POLICY_DATE, until: AMP_REMOVED };
      out.decidedBy = { file: utilsShown, fn: "maybe_enable_amp", what: "maybe_enable_amp leaves mixed precision to fully_shard or replicate (dp_replicate_enabled, #2458) and disables it for TP/PP alone", location: loc };
    } else {
      const from = configFormat === "python" ? PY_CONFIG_DATE : AMP_ADDED;
      const until = configFormat === "toml" ? PY_CONFIG_DATE : REPLICATE_POLICY_DATE;
      out.window = { from, until };
      out.decidedBy = { file: utilsShown, fn: "maybe_enable_amp", what: "maybe_enable_amp: autocast on one device or DDP, no mixed precision for TP or PP without FSDP (#1303; no dp_replicate branch yet)", location: loc };
    }
  } else if (configFormat === "python") {
    // Later upstream states in the same mechanism period, read where the fork declares them.
    const reduce = configs !== undefined ? /mixed_precision_reduce\s*:\s*Literal\[([^\]]*)\]/.exec(configs) : null;
    const reduceBf16 = !!reduce && /["']bfloat16["']/.test(reduce[1]!);
    const statesBf16 = optimizer === undefined ? undefined : optimizer.includes("fused_opt_states_bf16");
    const from = reduceBf16 ? BF16_REDUCE_CHOICE_DATE : statesBf16 ? BF16_STATES_DATE : AMP_REMOVED;
    const until = reduce && !reduceBf16 ? (statesBf16 === false ? BF16_STATES_DATE : BF16_REDUCE_CHOICE_DATE) : statesBf16 === false ? BF16_STATES_DATE : undefined;
    out.window = until && until > from ? { from, until } : { from };
    const notes = [
      reduceBf16 ? 'configs.py admits mixed_precision_reduce "bfloat16" (#4597, 2026-09-11)' : reduce ? 'configs.py declares mixed_precision_reduce: Literal["float32"] (before #4597, 2026-09-11)' : "",
      statesBf16 ? 'the optimizer knows "fused_opt_states_bf16" (#2732, 2026-04-15)' : statesBf16 === false ? 'the optimizer has no "fused_opt_states_bf16" (before #2732, 2026-04-15)' : "",
    ].filter(Boolean);
    out.decidedBy = { file: utilsShown, fn: "no maybe_enable_amp", what: `no maybe_enable_amp (removed by #2900, 2026-04-09): fully_shard for every layout${notes.length ? `; ${notes.join("; ")}` : ""}`, location: locationAt(utilsPath, undefined) };
  } else if (configFormat === "toml") {
    out.window = { from: "2024-01-01", until: AMP_ADDED };
    out.decidedBy = { file: utilsShown, fn: "no maybe_enable_amp", what: "no maybe_enable_amp with TOML-era config classes: before #1303 (2025-06-16), FSDP mixed precision only", location: locationAt(utilsPath, undefined) };
  } else {
    out.unmatched = `${utilsShown} has no maybe_enable_amp and the package has no config classes where upstream keeps them`;
    evidence.push(out.unmatched);
  }
  if (out.decidedBy) evidence.push(`${out.decidedBy.file}: ${out.decidedBy.what}`);
  for (const p of parallelize) {
    const asks = epBranchAsksTpMesh(p.text);
    if (asks !== undefined) {
      const fn = functionsOf(p.text).find((f) => /^parallelize_/.test(f.name));
      out.epBranchTpMesh.push({ model: p.model, file: displayPath(p.path, env), asks, location: locationAt(p.path, fn) });
    }
    const d = parallelizeDifference(p.text);
    if (!d.length) continue;
    const fn = functionsOf(p.text).find((f) => /^parallelize_/.test(f.name));
    const file = displayPath(p.path, env);
    out.parallelize.push({ model: p.model, file, differs: d, location: locationAt(p.path, fn) });
    evidence.push(`fork parallelize differs: ${file}: ${d.join(", ")}`);
  }
  return out;
}

/**
 * How one parallelize module differs from every upstream one (each of which reaches fully_shard, directly or via
 * apply_fsdp, and DDP or replicate for dp_replicate). Comments are not code: lines are read without them.
 */
export function parallelizeDifference(text: string): string[] {
  const code = scannedPart(text)
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*$/, ""))
    .join("\n");
  const out: string[] = [];
  const fsdp = /\b(fully_shard|apply_fsdp)\s*\(/.test(code);
  const ddp = /\b(replicate|apply_ddp|apply_replicate|DistributedDataParallel)\s*\(/.test(code);
  if (!fsdp && !ddp) out.push("no data parallelism (neither fully_shard nor replicate/DDP is called)");
  else if (!fsdp) out.push("DDP only (fully_shard is never called)");
  if (/\bautocast\s*\(/.test(code)) out.push("autocast patched in");
  return out;
}

/**
 * Whether a parallelize module's expert-parallel branches (each `if` whose condition names `ep_enabled`, not as
 * `not …ep_enabled`) take the tp mesh unguarded: `get_mesh("tp")` (not `get_optional_mesh`), or an index
 * `["tp"]` with no conditional `if` on its line or the next. Undefined when the module has no such branch. Read as
 * text, comments removed; a branch is the lines indented deeper than its `if` (at most 200 each). Assumption: the
 * condition is on one line (as in every upstream release).
 */
export function epBranchAsksTpMesh(text: string): boolean | undefined {
  const lines = scannedPart(text)
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*$/, ""));
  let found = false;
  for (let start = 0; start < lines.length; start++) {
    const t = lines[start]!.trim();
    if (!/^if\b/.test(t) || !t.endsWith(":") || !/\bep_enabled\b/.test(t) || /\bnot\s+[\w.]*ep_enabled\b/.test(t)) continue;
    found = true;
    const indent = /^\s*/.exec(lines[start]!)![0].length;
    const block: string[] = [];
    for (let i = start + 1; i < lines.length && block.length < 200; i++) {
      const l = lines[i]!;
      if (!l.trim()) continue;
      if (/^\s*/.exec(l)![0].length <= indent) break;
      block.push(l);
    }
    const asks = block.some((l, i) => {
      if (/\bget_mesh\(\s*["']tp["']\s*\)/.test(l)) return true;
      if (!/\[\s*["']tp["']\s*\]/.test(l)) return false;
      return !/\bif\b/.test(l) && !/^\s*if\b/.test(block[i + 1] ?? "");
    });
    if (asks) return true;
  }
  return found ? false : undefined;
}

/**
 * True when the branch of maybe_enable_amp taken for TP or PP (the `if` naming tp_enabled/pp_enabled) returns
 * autocast instead of a null context: its first `return` after that condition, comments removed.
 */
function tpPpBranchAutocasts(body: string): boolean {
  const code = body.split("\n").map((l) => l.replace(/#.*$/, "")).join("\n");
  const cond = /\bif\b[^\n:]{0,200}\b(?:tp_enabled|pp_enabled)\b[^\n]{0,200}:/.exec(code);
  if (!cond) return false;
  const ret = /\breturn\b([^\n]{0,300})/.exec(code.slice(cond.index + cond[0].length));
  return !!ret && /\bautocast\s*\(/.test(ret[1]!) && !/nullcontext/.test(ret[1]!);
}

/** One line for hovers and headers: "dated by torchtitan/distributed/utils.py (maybe_enable_amp): …". */
export function forkCodeSummary(f: ForkCode): string {
  const parts: string[] = [];
  if (f.decidedBy) parts.push(`dated by the workspace's torchtitan code, ${f.decidedBy.file} (${f.decidedBy.fn}): ${f.decidedBy.what}`);
  else if (f.unmatched) parts.push(`the workspace's torchtitan code (${f.packagePath}) matches no known upstream state: ${f.unmatched}`);
  for (const p of f.parallelize) parts.push(`fork parallelize differs: ${p.file}: ${p.differs.join(", ")}`);
  return parts.join("; ");
}

/** "; fork parallelize differs: <file>: <what> (…)" for a version's detail, or "" when every parallelize is upstream-shaped. */
export function parallelizeNote(f: ForkCode): string {
  if (!f.parallelize.length) return "";
  return `; fork parallelize differs: ${f.parallelize.map((p) => `${p.file}: ${p.differs.join(", ")}`).join("; ")} (read as written, the era's mechanism is an assumption)`;
}
