/**
 * World size from the workspace (torchtitan.md §3.4, §5.3): launch scripts and slurm files next to the
 * config or above it (up to the workspace root) that mention the config's file name. Read, never run:
 *  - `torchrun --nnodes A --nproc_per_node B` (also `=` forms, `--nproc-per-node`) → A × B;
 *  - otherwise `NGPU=N` / `NGPU=${NGPU:-N}` (run_train.sh's convention, also `NGPU=N ./run_train.sh …`);
 *  - shell variables used by torchrun are resolved from assignments in the same file, and the SLURM
 *    variables from its `#SBATCH --nodes` / `--gpus-per-node` / `--gres=gpu:N` / `--gpus-per-task` lines.
 * Returns undefined when no script says anything (the caller falls back to 8).
 */
import { table } from "../model/table";
import type { AnalysisEnv, Sourced } from "../analysis";
import type { SourceLocation } from "../model/types";
import { expandText, readShell, type ShellVars } from "../parse/shell";
import { matchingNames } from "./listing";
import { scanLine, scannedPart } from "./scan";
import { ancestorDirs, basename, displayPath, join, lineLocation, oncePerAnalysis } from "./paths";

const SCRIPT = /\.(sh|bash|slurm|sbatch)$/i;

export interface WorldSizeInference extends Sourced<number> {
  /** "run-script" (a shell script) or "slurm" (a file with #SBATCH lines). */
  source: string;
  file: string;
  /** The script's own training entry point, when it is not torchtitan's trainer (customEntryPoint). */
  entry?: string;
}

/**
 * Launch scripts beside the config or above it (the upward search of paths.ts) that name `name` (the config's file
 * name, or a config function's) on a line of code (a comment is not a launch), nearest folder first; within a
 * folder, the scripts that pass it as the config (`--job.config_file x.toml`, `CONFIG_FILE=…`,
 * `CONFIG=${CONFIG:-"fn"}`, `--config fn`) before those that only mention it (`passOnly`: those are skipped), then
 * by name.
 */
export function* launchScripts(env: AnalysisEnv, name?: string, passOnly = false): Generator<{ path: string; name: string; text: string; config: string }> {
  if (!env.documentPath) return;
  const config = name ?? basename(env.documentPath);
  // A file config's own folders, nearest last: a path through a variable (`${LOG_DIR}/config.toml`) names this
  // file only where it expands to them (pathFits).
  const dirs = name === undefined ? env.documentPath.split(/[\\/]/).filter((p) => p).slice(0, -1) : undefined;
  // ancestorDirs is computed once per analysis (a registry's every config function searches the same folders, issue #36)
  for (const dir of ancestorDirs(env)) {
    const found: { path: string; name: string; text: string; config: string; rank: number }[] = [];
    for (const { path, file, text: raw } of scriptsIn(env, dir)) {
      if (raw === undefined) continue;
      // `config_${TODAY}.toml`: the script's own text with that word read as this file's name, where it fits.
      const text = raw.includes(config) ? raw : withTemplatedName(raw, config);
      if (text === undefined) continue;
      const rank = namingRank(text, config, dirs, dir);
      if (rank !== undefined && (!passOnly || rank === 0)) found.push({ path, name: file, text, config, rank });
    }
    found.sort((a, b) => a.rank - b.rank);
    for (const { rank: _, ...f } of found) yield f;
  }
}


/**
 * A script that names its config through a variable in the file name (`config_${TODAY}.toml`, issue #30): the
 * script's text with each such word replaced by `name` where the word can be `name`. A variable part matches only
 * what the script's own assignments allow: a literal value (`TODAY=20250101`) or the digits a `$(date +FMT)`
 * assignment prints (`%Y%m%d` → 8 digits, `%F` → YYYY-MM-DD). A variable the script does not assign, or assigns
 * anything else, matches nothing: `config_${X}.toml` is not every `config_*.toml`. Undefined when no word fits.
 */
export function withTemplatedName(text: string, name: string): string | undefined {
  if (!text.includes("$") || name.length > 200) return undefined;
  const ext = name.slice(name.lastIndexOf("."));
  if (ext.length < 2 || !text.includes(ext)) return undefined;
  let vars: ReadonlyMap<string, string> | undefined;
  let dates: Map<string, string> | undefined;
  const words = new Set<string>();
  for (const l of logicalLines(text)) {
    if (/^\s*#/.test(l) || !l.includes("$") || !l.includes(ext)) continue;
    for (const token of l.replace(/\s#.*$/, "").split(/[\s"'=()|;&<>]+/)) {
      const seg = token.slice(token.lastIndexOf("/") + 1);
      if (seg.includes("$") && seg.endsWith(ext) && seg.length <= 200) words.add(seg);
    }
  }
  let out = text;
  let any = false;
  for (const seg of words) {
    vars ??= scriptVars(text);
    dates ??= dateVars(text);
    const re = templateRegex(seg, vars, dates);
    if (re && re.test(name)) {
      out = out.split(seg).join(name);
      any = true;
    }
  }
  return any ? out : undefined;
}

/** `VAR=$(date +FMT)` assignments: the variable → the regular-expression source of what `date` prints. */
function dateVars(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of logicalLines(text)) {
    const m = /^\s*(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)=["']?\$\(date\s+["']?\+([^"')\s]{1,40})["']?\)/.exec(l);
    if (!m) continue;
    const src = dateFormatRegex(m[2]!);
    if (src) out.set(m[1]!, src);
    else out.delete(m[1]!);
  }
  return out;
}

/** GNU date's numeric conversions only; any other `%x` gives no pattern (not guessed). */
const DATE_FIELDS: Readonly<Record<string, string>> = table({ Y: "\\d{4}", m: "\\d{2}", d: "\\d{2}", H: "\\d{2}", M: "\\d{2}", S: "\\d{2}", y: "\\d{2}", j: "\\d{3}", s: "\\d{1,12}", F: "\\d{4}-\\d{2}-\\d{2}", T: "\\d{2}:\\d{2}:\\d{2}" });
function dateFormatRegex(fmt: string): string | undefined {
  let src = "";
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i]!;
    if (c !== "%") {
      src += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      continue;
    }
    const f = DATE_FIELDS[fmt[++i] ?? ""];
    if (!f) return undefined;
    src += f;
  }
  return src;
}

/** The file-name word `config_${TODAY}.toml` as an anchored pattern, or undefined when a variable part is not known. */
function templateRegex(seg: string, vars: ReadonlyMap<string, string>, dates: ReadonlyMap<string, string>): RegExp | undefined {
  let src = "";
  const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  for (let i = 0; i < seg.length; ) {
    if (seg[i] !== "$") {
      src += esc(seg[i]!);
      i++;
      continue;
    }
    const m = /^\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))/.exec(seg.slice(i));
    if (!m) return undefined;
    const v = m[1] ?? m[2]!;
    i += m[0].length;
    const date = dates.get(v);
    const lit = vars.get(v);
    if (date !== undefined) src += date;
    else if (lit !== undefined && lit && !/[$`(]/.test(lit) && !lit.includes(SCRIPT_DIR)) src += esc(lit);
    else return undefined;
  }
  return new RegExp(`^${src}$`);
}

/**
 * The scripts of a folder with their texts, read once per analysis (an env is one analysis): each config function
 * of a registry looks for its run scripts in the same folders (issue #36). Read in the same order as before, and
 * only the folders asked for.
 */
const SCRIPTS = new WeakMap<AnalysisEnv, Map<string, { path: string; file: string; text: string | undefined }[]>>();
function scriptsIn(env: AnalysisEnv, dir: string): { path: string; file: string; text: string | undefined }[] {
  let byDir = SCRIPTS.get(env);
  if (!byDir) SCRIPTS.set(env, (byDir = new Map()));
  let list = byDir.get(dir);
  if (!list) {
    list = matchingNames(env.listDir(dir), "run-scripts", (n) => SCRIPT.test(n)).map((file) => {
      const path = join(dir, file);
      return { path, file, text: env.readFile(path) };
    });
    byDir.set(dir, list);
  }
  return list;
}

/**
 * No launch script in any folder `launchScripts` searches (once per analysis; it lists and reads the same folders
 * as a search that runs to its end): a registry's every config function then skips its own search (issue #36).
 */
export const noLaunchScripts = oncePerAnalysis((env: AnalysisEnv): boolean => !env.documentPath || ancestorDirs(env).every((dir) => scriptsIn(env, dir).every((s) => s.text === undefined)));

const scriptsNamingConfig = (env: AnalysisEnv) => launchScripts(env);

/** A line of code that passes `name` as the config (a path or module prefix allowed, a longer name not). */
export function passesConfig(name: string): RegExp {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:--job\\.config[_-]file|--config[_-]?file|--config|CONFIG_FILE|CONFIG)(?:=|\\s+)(?:\\$\\{[A-Za-z_]\\w*:-)?["']?(?:[^\\s"'}]{0,512}[/.:])?${esc}(?![\\w-])`);
}

/**
 * 0: a line of code passes `name` as the config; 1: a line of code mentions it; undefined: only comments do.
 * `dirs` (the config file's folders, nearest last): a mention through a variable (`"${LOG_DIR}/config.toml"`) counts
 * only where the script's own assignments expand it to a path that ends in those folders (`scriptDir`, the
 * script's folder, for `$(dirname "${BASH_SOURCE[0]}")`); one it cannot expand, or that points elsewhere, is not
 * this file, whatever its name (issue #30: a run script's `${LOG_DIR}/config.toml` is not every `config.toml`).
 */
export function namingRank(text: string, name: string, dirs?: readonly string[], scriptDir = ""): number | undefined {
  return perText(rankCache, text, `${name}\u0000${dirs ? dirs.join("/") : "\u0001"}\u0000${scriptDir}`, () => namingRankUncached(text, name, dirs, scriptDir));
}

/**
 * Answers that depend only on a script's text and a short key (issue #36): every config of a folder asks the same
 * scripts the same questions (a CLI run over 54 TOMLs re-read each script's lines per config and per question).
 * Bounded, oldest text first; the answers are never mutated by their users.
 */
function perText<T>(cache: Map<string, Map<string, T>>, text: string, key: string, compute: () => T): T {
  let byKey = cache.get(text);
  if (!byKey) {
    if (cache.size >= PER_TEXT_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(text, (byKey = new Map()));
  }
  if (byKey.has(key)) return byKey.get(key)!;
  const out = compute();
  if (byKey.size < PER_TEXT_ENTRIES) byKey.set(key, out);
  return out;
}
const PER_TEXT_ENTRIES = 64;
const rankCache = new Map<string, Map<string, number | undefined>>();
const entryCache = new Map<string, Map<string, string | undefined>>();
const linesCache = new Map<string, Map<string, string[]>>();

function namingRankUncached(text: string, name: string, dirs: readonly string[] | undefined, scriptDir: string): number | undefined {
  const passes = passesConfig(name);
  const vars = dirs && text.includes("$") ? scriptVars(text) : undefined;
  let rank: number | undefined;
  for (const l of logicalLines(text)) {
    if (/^\s*#/.test(l) || !l.includes(name)) continue;
    const code = l.replace(/\s#.*$/, "");
    if (!code.includes(name)) continue;
    if (vars && dirs && !namesThisFile(code, name, vars, dirs, scriptDir)) continue;
    if (passes.test(code)) return 0;
    rank = 1;
  }
  return rank;
}

/** The value of a variable that holds the script's own folder (`$(dirname "${BASH_SOURCE[0]}")` and kin). */
const SCRIPT_DIR = "\u0000script-dir";

/**
 * Variables assigned the script's own folder: `$(dirname "$0")`, `$(dirname "${BASH_SOURCE[0]}")`, `$(cd
 * "$(dirname …)" && pwd)`, or `$(dirname "$F")` where `F=$(realpath "${BASH_SOURCE[0]}")`. parse/shell.ts does
 * not run command substitutions, so these are recognised by their text here.
 */
function scriptDirVars(text: string): Map<string, string> {
  const own = /BASH_SOURCE|\$0(?!\w)|\$\{0\}/;
  const file = new Set<string>();
  const out = new Map<string, string>();
  for (const l of logicalLines(text)) {
    const m = /^\s*(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)=["']?\$\((.{0,300})$/.exec(l);
    if (!m) continue;
    const body = m[2]!;
    const refsOwn = own.test(body) || [...file].some((f) => body.includes(`$${f}`) || body.includes(`\${${f}}`));
    if (!refsOwn) continue;
    if (/\bdirname\b/.test(body)) out.set(m[1]!, SCRIPT_DIR);
    else if (/^\s*(?:realpath|readlink)\b/.test(body) || /^\s*echo\b/.test(body)) file.add(m[1]!);
  }
  return out;
}

/** The last value each variable of a script is assigned (words joined by a space), read by parse/shell.ts. */
const varsCache = new Map<string, ReadonlyMap<string, string>>();
function scriptVars(text: string): ReadonlyMap<string, string> {
  let out = varsCache.get(text);
  if (!out) {
    const vars: ShellVars = new Map();
    readShell(text, undefined, vars);
    const values = new Map([...vars].map(([k, v]) => [k, v.map((w) => w.text).join(" ")]));
    for (const [k, v] of scriptDirVars(text)) values.set(k, v);
    out = values;
    if (varsCache.size >= 32) varsCache.delete(varsCache.keys().next().value!);
    varsCache.set(text, out);
  }
  return out;
}

/**
 * True when some mention of `name` on the line is this file: a literal one (`configs/x.toml`, `x.toml`), or a path
 * through variables that the script's assignments expand to a path ending in the config's folders (pathFits).
 */
function namesThisFile(code: string, name: string, vars: ReadonlyMap<string, string>, dirs: readonly string[], scriptDir: string): boolean {
  let any = false;
  for (let at = code.indexOf(name), n = 0; at >= 0 && n < 64; at = code.indexOf(name, at + 1), n++) {
    if (/[\w-]/.test(code[at + name.length] ?? "")) continue;
    // The path word the name ends: back to a space, a quote, `=` or a shell operator.
    let from = at;
    while (from > 0 && at - from < 512 && !/[\s"'=()|;&<>]/.test(code[from - 1]!)) from--;
    const prefix = code.slice(from, at);
    if (prefix && !prefix.endsWith("/")) continue;
    any = true;
    if (!prefix.includes("$")) return true;
    const expanded = expandText(prefix, vars).split(SCRIPT_DIR).join(scriptDir);
    if (!expanded.includes("$") && pathFits(expanded, dirs)) return true;
  }
  // The name only inside longer words: as before, a mention.
  return !any;
}

/**
 * An expanded folder path (`/workspace/torchtitan/logs/run1/`) ends in the config's folders: every folder it
 * names matches the config's, from the nearest up; an absolute path may part from them above the first match
 * (the checkout's place on the machine that ran it is not this workspace's). `..` is not followed.
 */
export function pathFits(prefix: string, dirs: readonly string[]): boolean {
  const parts = prefix.split("/").filter((p) => p && p !== ".");
  if (parts.includes("..")) return false;
  const absolute = prefix.startsWith("/");
  let matched = 0;
  for (let i = parts.length - 1, j = dirs.length - 1; i >= 0; i--, j--) {
    if (j < 0 || parts[i] !== dirs[j]) return absolute && matched > 0;
    matched++;
  }
  return true;
}

export function inferWorldSize(env: AnalysisEnv): WorldSizeInference | undefined {
  for (const { path, name, text, config } of scriptsNamingConfig(env)) {
    const r = worldSizeFromScript(text, config);
    if (!r) continue;
    const file = displayPath(path, env);
    const slurm = /^#SBATCH\b/m.test(text) || /\.(slurm|sbatch)$/i.test(name);
    const out: WorldSizeInference = { value: r.value, source: slurm ? "slurm" : "run-script", kind: slurm ? "slurm" : "run-script", detail: `${r.detail} in ${file}`, file };
    if (r.line !== undefined) out.location = lineLocation(path, text, r.line);
    // The script runs the config with a training script of its own (`torchrun … train_ds_real.py --job.config_file
    // x.toml`, which builds its own mesh): the GPU count is the script's, but that torchtitan's trainer checks and
    // lays out this many GPUs is an assumption (named `custom-entry-point`), so nothing resting on it is an error.
    const entry = customEntryPoint(text, config);
    if (entry) {
      out.entry = entry;
      out.kind = "inferred";
      out.detail = `${out.detail}, which runs ${entry}, not torchtitan's trainer`;
    }
    return out;
  }
  return undefined;
}

/**
 * A launch script beside the config (or above it, the same search as the world size) that names the config and
 * passes one of `flags` on a command line (`--job.custom_config_module=m`, tyro's dashed form too): the module a
 * config's extension tables need may come from the command line, not the file (issue #17 §1). The first hit.
 */
export function scriptPassesFlag(env: AnalysisEnv, flags: readonly string[]): { file: string; flag: string } | undefined {
  const forms = flags.flatMap((f) => [f, f.replace(/_/g, "-")]).map((f) => ({ flag: `--${f}`, re: new RegExp(`(?:^|\\s)--${f.replace(/\./g, "\\.")}(?:=|\\s)`) }));
  for (const { path, text } of scriptsNamingConfig(env)) {
    for (const l of logicalLines(text)) {
      if (/^\s*#/.test(l)) continue;
      const hit = forms.find((f) => f.re.test(l));
      if (hit) return { file: displayPath(path, env), flag: hit.flag };
    }
  }
  return undefined;
}

/**
 * The Python entry point of the command that runs `config`, when it is not torchtitan's trainer: the first `.py`
 * file or `-m module` after `torchrun`/`python` on a line naming the config (or passing `$CONFIG_FILE`-style
 * variables that hold it), resolved through the script's assignments. torchtitan's own entries (`train.py`,
 * `torchtitan/train.py`, `-m torchtitan.train`) and anything not resolved give undefined (no claim).
 */
export function customEntryPoint(text: string, config: string): string | undefined {
  return perText(entryCache, text, config, () => lineEntryPoint(text, config) ?? shellEntryPoint(text, config));
}

/**
 * The same through parse/shell.ts, for a command whose words come from variables and bash arrays
 * (`torchrun "${COMMON_ARGS[@]}"` with `"-m" "timelyfreeze.train" "--job.config_file=${CONFIG_FILE}"` in the array):
 * a torchrun or python command one of whose expanded words names the config.
 */
function shellEntryPoint(text: string, config: string): string | undefined {
  if (!/\b(?:torchrun|python3?)\b/.test(text)) return undefined;
  for (const c of readShell(text).commands.slice(0, 4096)) {
    // A `${VAR:-"x"}` default keeps its quotes in the expanded word: unquoted here.
    const words = c.words.slice(0, 256).map((w) => unquoted(w.text));
    const at = words.findIndex((w) => /(?:^|\/)(?:torchrun|python3?(?:\.\d+)?)$/.test(w));
    if (at < 0 || !words.some((w) => w.includes(config))) continue;
    for (let i = at + 1; i < words.length; i++) {
      const w = words[i]!;
      if (w === "-m" && i + 1 < words.length) {
        const m = words[i + 1]!;
        return /^torchtitan(\.|$)/.test(m) || m.includes("$") ? undefined : `-m ${m}`;
      }
      if (/\.py$/.test(w)) return /(^|\/)train\.py$/.test(w) || w.includes("$") ? undefined : w;
    }
  }
  return undefined;
}

/** The word without the quotes around it (a loop: a regex for the trailing run would not be linear). */
function unquoted(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && (s[a] === '"' || s[a] === "'")) a++;
  while (b > a && (s[b - 1] === '"' || s[b - 1] === "'")) b--;
  return s.slice(a, b);
}

function lineEntryPoint(text: string, config: string): string | undefined {
  const lines = logicalLines(text);
  const vars = assignments(lines);
  const holders = [...vars].filter(([, v]) => v.includes(config)).map(([k]) => k);
  for (const l of lines) {
    if (/^\s*#/.test(l) || !/\b(?:torchrun|python3?|srun)\b/.test(l)) continue;
    if (!l.includes(config) && !holders.some((h) => l.includes(`$${h}`) || l.includes(`\${${h}`))) continue;
    const words = l.trim().split(/\s+/).slice(0, 256);
    for (let i = 0; i < words.length; i++) {
      let w = words[i]!.replace(/^["']|["']$/g, "");
      const viaModule = w === "-m" && i + 1 < words.length;
      if (viaModule) w = words[i + 1]!.replace(/^["']|["']$/g, "");
      const v = /^\$\{?([A-Za-z_]\w*)(?::?-([^}]*))?\}?$/.exec(w);
      if (v) {
        const assigned = vars.get(v[1]!);
        const dflt = assigned ? /^["']?\$\{\w+:?-([^}]*)\}["']?$/.exec(assigned)?.[1] ?? assigned : v[2];
        if (dflt === undefined) { if (viaModule) return undefined; continue; }
        w = dflt.replace(/^["']|["']$/g, "");
      }
      if (viaModule) return /^torchtitan(\.|$)/.test(w) ? undefined : `-m ${w}`;
      if (!/\.py$/.test(w)) continue;
      return /(^|\/)train\.py$/.test(w) ? undefined : w;
    }
  }
  return undefined;
}

interface Found {
  value: number;
  detail: string;
  /** Zero-based physical line of the script that gave the value (the first line of a continued command). */
  line?: number;
}

/** Joins backslash-continued lines so one command is one line. */
function logicalLines(text: string): string[] {
  return perText(linesCache, text, "", () => logicalLinesUncached(text));
}

function logicalLinesUncached(text: string): string[] {
  return scannedPart(text).replace(/\\\r?\n/g, " ").split(/\r?\n/).map(scanLine);
}

/** The physical line each logical line starts on. */
function logicalStarts(text: string): number[] {
  const starts: number[] = [];
  let physical = 0;
  for (const chunk of scannedPart(text).split(/(?<!\\)\r?\n/)) {
    starts.push(physical);
    physical += chunk.split(/\r?\n/).length;
  }
  return starts;
}

/** Shell assignments `VAR=value`, `export VAR=value`, `VAR=${VAR:-value}` (last one wins, like a shell). */
function assignments(lines: string[]): Map<string, string> {
  const vars = new Map<string, string>();
  for (const l of lines) {
    if (/^\s*#/.test(l)) continue;
    const re = /(?:^|[\s;])(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\$\{[^}]*\}|[^\s;]+)/g;
    for (let m = re.exec(l); m; m = re.exec(l)) {
      // `NGPU="${NGPU}"` re-exports the value unchanged: not an assignment worth keeping.
      const self = new RegExp(`^["']?\\$\\{?${m[1]}\\}?["']?$`).test(m[2]!);
      if (!self) vars.set(m[1]!, m[2]!);
    }
    // NGPU=$(echo $CUDA_VISIBLE_DEVICES | tr ',' '\n' | wc -l) and the like: as many as the devices listed.
    const counted = /(?:^|[\s;])(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=["']?\$\((?=[^)]*CUDA_VISIBLE_DEVICES)/.exec(l);
    if (counted) vars.set(counted[1]!, COUNT_VISIBLE);
  }
  return vars;
}

/** The value of a variable that counts the devices CUDA_VISIBLE_DEVICES lists. */
const COUNT_VISIBLE = "\u0000count(CUDA_VISIBLE_DEVICES)";

/** How many devices `CUDA_VISIBLE_DEVICES=0,1,2,3` lists (assigned in the script or on the line), if literal. */
function visibleDevices(vars: Map<string, string>, line?: string): number | undefined {
  const inline = line ? /(?:^|[\s;])CUDA_VISIBLE_DEVICES=("[^"]*"|'[^']*'|\S+)/.exec(line)?.[1] : undefined;
  let raw = (inline ?? vars.get("CUDA_VISIBLE_DEVICES"))?.replace(/^["']|["']$/g, "");
  // `CUDA_VISIBLE_DEVICES="${1:-0,1,2,3}"`: the list the script uses when it is run without that argument.
  const dflt = raw === undefined ? undefined : /^\$\{[\w]+:?-(\d+(?:,\d+)*)\}$/.exec(raw);
  if (dflt) raw = dflt[1]!;
  if (raw === undefined || !/^\d+(,\d+)*$/.test(raw)) return undefined;
  return raw.split(",").length;
}

/** SLURM variables a torchrun line may use, derived from #SBATCH directives. */
function slurmVars(lines: string[]): Map<string, number> {
  const out = new Map<string, number>();
  let gpusPerTask: number | undefined;
  let tasksPerNode: number | undefined;
  for (const l of lines) {
    const t = l.trim();
    const m = /^#SBATCH\s/.exec(t);
    if (!m) continue;
    const opt = t.slice(m[0].length).trimStart();
    const nodes = /(?:--nodes[=\s]+|-N\s*)(\d+)/.exec(opt);
    if (nodes) {
      out.set("SLURM_NNODES", Number(nodes[1]));
      out.set("SLURM_JOB_NUM_NODES", Number(nodes[1]));
    }
    const gpn = /--gpus-per-node[=\s]+(?:[A-Za-z0-9_]+:)?(\d+)/.exec(opt) ?? /--gres[=\s]+gpu(?::[A-Za-z0-9_]+)?:(\d+)/.exec(opt);
    if (gpn) {
      out.set("SLURM_GPUS_PER_NODE", Number(gpn[1]));
      out.set("SLURM_GPUS_ON_NODE", Number(gpn[1]));
    }
    const gpt = /--gpus-per-task[=\s]+(\d+)/.exec(opt);
    if (gpt) gpusPerTask = Number(gpt[1]);
    const tpn = /--ntasks-per-node[=\s]+(\d+)/.exec(opt);
    if (tpn) {
      tasksPerNode = Number(tpn[1]);
      out.set("SLURM_NTASKS_PER_NODE", tasksPerNode);
    }
  }
  if (!out.has("SLURM_GPUS_PER_NODE") && gpusPerTask !== undefined) {
    const g = gpusPerTask * (tasksPerNode ?? 1);
    out.set("SLURM_GPUS_PER_NODE", g);
    out.set("SLURM_GPUS_ON_NODE", g);
  }
  return out;
}

/** Resolves a shell word to an integer: literals, $VAR, ${VAR}, ${VAR:-default}, quoted forms. */
function resolve(word: string, vars: Map<string, string>, slurm: Map<string, number>, depth = 0): { value: number; via: string } | undefined {
  const w = word.trim().replace(/^["']|["']$/g, "");
  if (/^\d+$/.test(w)) return { value: Number(w), via: w };
  if (depth > 4) return undefined;
  const m = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}?$/.exec(w);
  if (!m) return undefined;
  const name = m[1]!;
  const s = slurm.get(name);
  if (s !== undefined) return { value: s, via: `${name}=${s} (#SBATCH)` };
  const assigned = vars.get(name);
  if (assigned === COUNT_VISIBLE) {
    const n = visibleDevices(vars);
    return n === undefined ? undefined : { value: n, via: `${name}=${n} (the devices CUDA_VISIBLE_DEVICES lists)` };
  }
  if (assigned !== undefined) {
    // NGPU=${NGPU:-8}: the self-reference is unset in a fresh shell, so the default applies.
    const self = new RegExp(`^["']?\\$\\{${name}:?-(.*)\\}["']?$`).exec(assigned);
    if (self) {
      const d = resolve(self[1]!, new Map([...vars].filter(([k]) => k !== name)), slurm, depth + 1);
      return d && { value: d.value, via: `${name}=\${${name}:-${d.value}}` };
    }
    const r = resolve(assigned, vars, slurm, depth + 1);
    return r && { value: r.value, via: `${name}=${r.value}` };
  }
  if (m[2] !== undefined) return resolve(m[2], vars, slurm, depth + 1);
  return undefined;
}

function flag(line: string, names: string[]): string | undefined {
  for (const n of names) {
    const m = new RegExp(`(?:^|\\s)${n}(?:=|\\s+)("[^"]*"|'[^']*'|[^\\s]+)`).exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * The scripts' answers, per script text and config name (issue #21, work once): a run script read once per
 * workspace state is asked again for every config of its folder and on every keystroke. Bounded like
 * forkSchema's scan cache; a pure function of its two strings, so nothing can go stale.
 */
const scriptCache = new Map<string, Map<string, Found | null>>();

export function worldSizeFromScript(text: string, config: string): Found | undefined {
  let byConfig = scriptCache.get(text);
  if (!byConfig) {
    if (scriptCache.size >= 32) scriptCache.delete(scriptCache.keys().next().value!);
    byConfig = new Map();
    scriptCache.set(text, byConfig);
  }
  let found = byConfig.get(config);
  if (found === undefined) {
    if (byConfig.size >= 256) byConfig.clear();
    found = worldSizeFromScriptUncached(text, config) ?? null;
    byConfig.set(config, found);
  }
  return found ? { ...found } : undefined;
}

function worldSizeFromScriptUncached(text: string, config: string): Found | undefined {
  const lines = logicalLines(text);
  const starts = logicalStarts(text);
  const at = (l: string): number | undefined => starts[lines.indexOf(l)];
  const vars = assignments(lines);
  const slurm = slurmVars(lines);
  // 1) An invocation that names the config and sets NGPU inline: `NGPU=16 ./run_train.sh --job.config_file x.toml`.
  for (const l of lines) {
    if (/^\s*#/.test(l) || !l.includes(config)) continue;
    const inline = /(?:^|[\s;])NGPU=("[^"]*"|'[^']*'|\S+)/.exec(l);
    if (inline && !/torchrun/.test(l)) {
      const r = resolve(inline[1]!, vars, slurm);
      if (r) return { value: r.value, detail: `NGPU=${r.value}`, line: at(l) };
    }
  }
  // 2) torchrun --nnodes A --nproc_per_node B.
  for (const l of lines) {
    if (/^\s*#/.test(l) || !/\btorchrun\b/.test(l)) continue;
    const procWord = flag(l, ["--nproc_per_node", "--nproc-per-node"]);
    if (!procWord) continue;
    // `--nproc_per_node gpu` (or auto) starts one process per visible device.
    const visible = /^["']?(gpu|auto)["']?$/.test(procWord) ? visibleDevices(vars, l) : undefined;
    const proc = visible !== undefined ? { value: visible, via: `${visible} (CUDA_VISIBLE_DEVICES)` } : resolve(procWord, vars, slurm);
    if (!proc) continue;
    const nodesWord = flag(l, ["--nnodes"]);
    let nodes: { value: number; via: string } | undefined = { value: 1, via: "1" };
    if (nodesWord) {
      const range = /^(\d+):(\d+)$/.exec(nodesWord);
      nodes = range ? { value: Number(range[2]), via: nodesWord } : resolve(nodesWord, vars, slurm);
    }
    if (!nodes) continue;
    const shown = (word: string | undefined, r: { value: number; via: string }) => (word && !/^\d+$/.test(word) ? `${word} = ${r.value}` : String(r.value));
    if (/NGPU/.test(procWord)) {
      const via = proc.via.startsWith("NGPU=${") ? ` (default of ${proc.via})` : proc.via.includes("CUDA_VISIBLE_DEVICES") ? proc.via.slice(proc.via.indexOf(" ")) : "";
      const nn = nodesWord ? ` × torchrun --nnodes ${shown(nodesWord, nodes)}` : "";
      return { value: nodes.value * proc.value, detail: `NGPU=${proc.value}${via}${nn}`, line: at(l) };
    }
    return { value: nodes.value * proc.value, detail: `torchrun --nnodes ${nodesWord ? shown(nodesWord, nodes) : "1 (default)"} --nproc_per_node ${shown(procWord, proc)}`, line: at(l) };
  }
  // 3) srun without torchrun: one task per GPU, #SBATCH --nodes × --ntasks-per-node.
  const srun = lines.find((l) => !/^\s*#/.test(l) && /(?:^|[\s;])srun\b/.test(l));
  const nodes = slurm.get("SLURM_NNODES");
  const perNode = slurm.get("SLURM_NTASKS_PER_NODE");
  if (srun !== undefined && !lines.some((l) => !/^\s*#/.test(l) && /\btorchrun\b|run_train\.sh/.test(l)) && perNode !== undefined) {
    const n = nodes ?? 1;
    return { value: n * perNode, detail: `#SBATCH --nodes ${n}${nodes === undefined ? " (default)" : ""} × --ntasks-per-node ${perNode} (srun, one task per GPU)`, line: at(srun) };
  }
  // 4) A plain NGPU assignment (COMM_MODE dry runs take the world size from NGPU).
  const ngpu = vars.get("NGPU");
  if (ngpu !== undefined) {
    const r = resolve("$NGPU", vars, slurm);
    const assigned = lines.filter((l) => !/^\s*#/.test(l) && /(?:^|[\s;])(?:export\s+)?NGPU=/.test(l)).pop();
    if (r) return { value: r.value, detail: r.via.startsWith("NGPU=${") ? `NGPU=${r.value} (default of ${r.via})` : `NGPU=${r.value}`, line: assigned === undefined ? undefined : at(assigned) };
  }
  return undefined;
}

export interface ScriptOverride {
  /** ["parallelism", "tensor_parallel_degree"] */
  path: [string, string];
  /** The value as written, unquoted. */
  raw: string;
  /** The script, relative to the workspace. */
  file: string;
  location: SourceLocation;
}

/**
 * `--section.option value` flags on the command lines of the nearest script that runs this config (the line that
 * names it; upstream's run_train.sh forwards its extra arguments to the trainer), for the sections in `sections`
 * (issue #30 §3: `--parallelism.*` overrides a TOML's degrees at launch). At most 64.
 */
export function scriptOverrides(env: AnalysisEnv, sections: readonly string[]): ScriptOverride[] {
  for (const { path, text, config } of launchScripts(env)) {
    const out: ScriptOverride[] = [];
    const lines = logicalLines(text);
    const starts = logicalStarts(text);
    lines.forEach((l, i) => {
      if (/^\s*#/.test(l) || !l.includes(config)) return;
      const re = /(?:^|\s)--([a-z_]+)\.([a-z_]+)(?:=|\s+)("[^"]*"|'[^']*'|[^\s"']+)/g;
      for (let m = re.exec(l); m && out.length < 64; m = re.exec(l)) {
        if (!sections.includes(m[1]!)) continue;
        out.push({ path: [m[1]!, m[2]!], raw: m[3]!.replace(/^["']|["']$/g, ""), file: displayPath(path, env), location: lineLocation(path, text, starts[i] ?? 0) });
      }
    });
    if (out.length) return out;
    if (namingRank(text, config) === 0) return [];
  }
  return [];
}
