/**
 * Precision Lens beside its peers (issues #21 and #36), in one run and as ratios, against the versions users
 * install: the CLI on the corpus's torchtitan TOMLs against `taplo lint` and `tombi lint`; 1,000 and 10,000
 * distinct TOMLs (the corpus cycled, each copy's values and comments varied: time and peak RSS); the CLI on
 * a generated 200-function Python registry and on torchtitan's own registries against `ruff check --no-cache`
 * and `pyright`; didChange → publishDiagnostics on the seed file, 1,000- and 10,000-line TOMLs and a
 * 20,000-line TOML of mostly unknown keys against `tombi lsp` (taplo's PyPI wheel has no language server), on Python registries of 1,000
 * and 5,000 lines against `pyright-langserver` and `ruff server`, and on YAML against yaml-language-server
 * (LSP clients driving each server over stdio); cold start; single-file CLI. Ends with issue #36's goals,
 * each met or not in this run.
 *
 * The peers live in bench/peers/ (taplo 0.9.3, tombi 1.9.6 and ruff 0.17.6, native, from PyPI into a venv;
 * pyright and yaml-language-server from npm), installed by `npm run bench:setup`; a peer that is not
 * installed is named as missing and our own figures still print. Wall times on a shared machine are noisy:
 * every row alternates its commands (ours, peer, peer, ours, ...) over several rounds and prints each
 * command's median with its spread (min–max), the median of the per-round ratios with theirs, and the
 * 1-minute load average during the row. Peak RSS from /usr/bin/time's %M. Prints; asserts nothing.
 *
 *   node --import tsx test/bench/bench.ts --peers-only [--runs N] [--files 1000,10000] [--edits N]
 *     [--lsp-only] [--ours-only] [--cli corpus,single,cold,files,files10k,python] [--docs seed,1000,10000,20000u,py1000,py5000,yaml]
 *     [--base DIR[,DIR2]]
 *   PL_CORPUS=DIR: the corpus (default ../shared/corpus beside the checkout, else /work/shared/corpus).
 *
 * `--base DIR`: another checkout, built (`DIR/dist/cli.js`), run beside ours in the same alternating rounds of
 * the corpus and the many-files rows and of every didChange row (its `dist/server.js`), with its own code-cache folder; each row then prints ours / base per round
 * and issue #35's goal (reading run scripts for three more frameworks keeps these rows within 10% of the tree
 * before them: `git worktree add DIR <commit>`). A second folder (`--base BEFORE,MIDDLE`) is run too and printed as
 * MIDDLE / BEFORE per round (the tree before a change of ours against the tree it started from). `--cli files10k`: the many-files row at 10,000 files only.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { keysAt } from "../../server/src/core/frameworks/torchtitan/schema/index";
import { registry, registryWithFunctions } from "./python";

const ROOT = join(import.meta.dirname, "..", "..");
const PEERS = join(ROOT, "bench", "peers");
const CORPUS = process.env.PL_CORPUS ?? [join(ROOT, "..", "shared", "corpus"), "/work/shared/corpus"].find((d) => existsSync(d)) ?? join(ROOT, "..", "shared", "corpus");
const CLI = join(ROOT, "dist", "cli.js");

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const RUNS = Math.max(1, Number(arg("--runs")) || 5);
const FILE_COUNTS = (arg("--files") ?? "1000,10000").split(",").map(Number).filter((n) => n > 0);
const EDITS = Math.max(5, Number(arg("--edits")) || 40);
/** Narrowing for quick checks: --lsp-only (no CLI rows), --ours-only (no peers), --docs seed,1000,10000,yaml. */
const LSP_ONLY = process.argv.includes("--lsp-only");
const OURS_ONLY = process.argv.includes("--ours-only");
const DOCS = (arg("--docs") ?? "seed,1000,10000,20000u,py1000,py5000,yaml").split(",");
const CLI_ROWS = (arg("--cli") ?? "corpus,single,cold,files,python").split(",");
/** `--base DIR[,DIR2]`: built checkouts measured beside ours (issue #35's before/after row). */
const BASES = (arg("--base") ?? "").split(",").filter(Boolean);
/** LSP rounds: each round runs every server of a document once, in turn (alternating). */
const LSP_ROUNDS = Math.max(1, Number(arg("--lsp-rounds")) || 3);

interface Cmd {
  name: string;
  command: string;
  args: (files: string[]) => string[];
  /** Added to the environment of each run. */
  env?: Record<string, string>;
}

interface Peer {
  cli?: Cmd;
  /** The language server's spawn command. */
  lsp?: { command: string; args: string[] };
}

/** A command that exists, or a line saying why not. */
function found(path: string, what: string, missing: string[]): boolean {
  if (existsSync(path)) return true;
  missing.push(`${what}: not installed (${path.slice(ROOT.length + 1)} missing; run \`npm run bench:setup\`)`);
  return false;
}

interface Peers {
  taplo: Peer;
  tombi: Peer;
  ruff: Peer;
  pyright: Peer;
  yamlLs?: { command: string; args: string[]; label: string };
}

function peers(missing: string[]): Peers {
  const venv = join(PEERS, ".venv", "bin");
  const taploBin = process.env.TAPLO_BIN ?? join(venv, "taplo");
  const tombiBin = process.env.TOMBI_BIN ?? join(venv, "tombi");
  const ruffBin = process.env.RUFF_BIN ?? join(venv, "ruff");
  const pyrightDir = join(PEERS, "node_modules", "pyright");
  const taplo: Peer = {};
  if (found(taploBin, "taplo 0.9.3 (PyPI wheel, bench/peers/.venv)", missing)) {
    taplo.cli = { name: "taplo lint", command: taploBin, args: (f) => ["lint", "--no-auto-config", "--no-schema", ...f] };
    // No taplo.lsp: the PyPI wheel is built without the language server ("the LSP is not part of this build").
  }
  const tombi: Peer = {};
  if (found(tombiBin, "tombi 1.9.6 (PyPI wheel, bench/peers/.venv)", missing)) {
    tombi.cli = { name: "tombi lint", command: tombiBin, args: (f) => ["lint", "--offline", ...f] };
    tombi.lsp = { command: tombiBin, args: ["lsp", "--offline"] };
  }
  const ruff: Peer = {};
  if (found(ruffBin, "ruff 0.17.6 (PyPI wheel, bench/peers/.venv)", missing)) {
    ruff.cli = { name: "ruff check --no-cache", command: ruffBin, args: (f) => ["check", "--no-cache", "--quiet", ...f] };
    ruff.lsp = { command: ruffBin, args: ["server"] };
  }
  const pyright: Peer = {};
  if (found(join(pyrightDir, "index.js"), "pyright 1.1.414 (npm, bench/peers)", missing)) {
    pyright.cli = { name: "pyright", command: process.execPath, args: (f) => [join(pyrightDir, "index.js"), ...f] };
    pyright.lsp = { command: process.execPath, args: [join(pyrightDir, "langserver.index.js"), "--stdio"] };
  }
  const ylsPeer = join(PEERS, "node_modules", "yaml-language-server", "bin", "yaml-language-server");
  const ylsDev = join(ROOT, "node_modules", "yaml-language-server", "bin", "yaml-language-server");
  let yamlLs: { command: string; args: string[]; label: string } | undefined;
  if (existsSync(ylsPeer)) yamlLs = { command: process.execPath, args: [ylsPeer, "--stdio"], label: `yaml-language-server ${version(join(PEERS, "node_modules", "yaml-language-server"))}` };
  else if (existsSync(ylsDev)) {
    yamlLs = { command: process.execPath, args: [ylsDev, "--stdio"], label: `yaml-language-server ${version(join(ROOT, "node_modules", "yaml-language-server"))} (the devDependency; bench:setup installs 2.0.0)` };
    missing.push("yaml-language-server 2.0.0: not installed in bench/peers; using the devDependency");
  } else missing.push("yaml-language-server: not installed (run `npm run bench:setup`)");
  return { taplo, tombi, ruff, pyright, yamlLs };
}

function version(pkgDir: string): string {
  try {
    return (JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "?";
  }
}

interface Run {
  s: number;
  rssMiB: number;
}

/** One run under /usr/bin/time: wall seconds and peak RSS. Output goes to /dev/null. */
function timed(cmd: Cmd, files: string[], cwd: string): Run {
  const out = join(cwd, ".time");
  const hasTime = existsSync("/usr/bin/time");
  const t0 = performance.now();
  const env = cmd.env ? { ...process.env, ...cmd.env } : process.env;
  const r = hasTime
    ? spawnSync("/usr/bin/time", ["-f", "%M", "-o", out, cmd.command, ...cmd.args(files)], { cwd, env, stdio: ["ignore", "ignore", "pipe"], maxBuffer: 64 << 20 })
    : spawnSync(cmd.command, cmd.args(files), { cwd, env, stdio: ["ignore", "ignore", "pipe"], maxBuffer: 64 << 20 });
  const s = (performance.now() - t0) / 1000;
  if (r.error) throw r.error;
  const rss = hasTime ? Number(readFileSync(out, "utf8").trim().split("\n").at(-1)) / 1024 : NaN;
  return { s, rssMiB: rss };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length));

/** Median, min and max. */
interface Spread {
  med: number;
  min: number;
  max: number;
}
const spread = (xs: number[]): Spread => ({ med: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
const fmtSpread = (x: Spread, f: (n: number) => string): string => `${f(x.med)} (${f(x.min)}–${f(x.max)})`;
const load = (): string => loadavg()[0]!.toFixed(1);

/** A row's commands over its rounds: `runs[j][i]` is command j's run in round i. */
interface Row {
  cmds: Cmd[];
  runs: Run[][];
}

/** Command `c`'s median run in the row, undefined when it is not there. */
function medOf(row: Row, c: Cmd | undefined): Run | undefined {
  const j = c ? row.cmds.indexOf(c) : -1;
  return j < 0 ? undefined : { s: median(row.runs[j]!.map((r) => r.s)), rssMiB: median(row.runs[j]!.map((r) => r.rssMiB)) };
}

/** The per-round time ratio a / b (same round), as a spread; undefined when either is absent. */
function ratioOf(row: Row, a: Cmd | undefined, b: Cmd | undefined): Spread | undefined {
  const [i, j] = [a ? row.cmds.indexOf(a) : -1, b ? row.cmds.indexOf(b) : -1];
  if (i < 0 || j < 0) return undefined;
  return spread(row.runs[i]!.map((r, k) => r.s / row.runs[j]![k]!.s));
}

/**
 * Alternating runs of every command on the same files (round 1: each command in turn, round 2: ...). Prints
 * each command's median time with its min–max, median peak RSS, the median (min–max) of its per-round
 * ratio to the first command, and the load average before and after the row.
 */
function compare(title: string, cmds: Cmd[], files: string[], cwd: string, runs = RUNS, argsFor?: (c: Cmd) => Cmd, count = files.length): Row {
  const l0 = load();
  const row: Row = { cmds, runs: cmds.map(() => []) };
  for (let i = 0; i < runs; i++) cmds.forEach((c, j) => row.runs[j]!.push(timed(argsFor ? argsFor(c) : c, files, cwd)));
  console.log(`\n${title} (${count.toLocaleString("en-US")} file${count === 1 ? "" : "s"}, ${runs} alternating round${runs > 1 ? "s" : ""}; median (min–max); load ${l0} → ${load()}):`);
  cmds.forEach((c, j) => {
    const t = spread(row.runs[j]!.map((r) => r.s));
    const rss = median(row.runs[j]!.map((r) => r.rssMiB));
    const r = j === 0 ? undefined : ratioOf(row, cmds[0], c);
    const ratio = r ? `   ours/${c.name.split(" ")[0]}: ${fmtSpread(r, (x) => x.toFixed(2))}` : "";
    console.log(`  ${pad(c.name, 36)} ${pad(fmtSpread(t, (x) => `${x.toFixed(3)}`) + " s", 28)} ${pad(`${rss.toFixed(0)} MiB`, 9)}${ratio}`);
  });
  return row;
}

/** Issue #36's goals as this run measured them; printed beside their rows and again at the end. */
const GOALS: { goal: string; met: boolean | undefined; detail: string }[] = [];
function goal(text: string, met: boolean | undefined, detail: string): void {
  GOALS.push({ goal: text, met, detail });
  console.log(`  goal ${text}: ${met === undefined ? "not measured" : met ? "met" : "NOT met"} (${detail})`);
}

/** Issue #21's goals for a CLI row (kept beside #36's). */
function cliGoals21(kind: "corpus" | "10000", row: Row, ours: Cmd, taplo?: Cmd, tombi?: Cmd): void {
  const o = medOf(row, ours)!;
  const tp = ratioOf(row, ours, taplo);
  const tb = ratioOf(row, ours, tombi);
  if (kind === "corpus") {
    if (tp) console.log(`  issue #21 goal ≤ 0.10 × taplo lint: ${tp.med <= 0.1 ? "met" : "NOT met"} (${fmtSpread(tp, (x) => x.toFixed(3))})`);
    if (tb) console.log(`  issue #21 goal ≤ 1.5 × tombi lint: ${tb.med <= 1.5 ? "met" : "NOT met"} (${fmtSpread(tb, (x) => x.toFixed(2))})`);
  } else if (tp) {
    console.log(`  issue #21 goal time ≤ taplo lint and peak RSS ≤ 250 MiB: ${tp.med <= 1 && o.rssMiB <= 250 ? "met" : "NOT met"} (${fmtSpread(tp, (x) => x.toFixed(3))} × taplo, ${o.rssMiB.toFixed(0)} MiB)`);
  }
}

/**
 * `n` distinct TOMLs in `dir`: the given texts cycled, each copy made different from every other by its
 * values and comments (a leading comment naming the copy, the first integer value of `steps`, `seed`,
 * `log_freq` or `interval` moved by the copy's round, and a trailing note), so no two files are equal
 * and nothing the tools might cache per text is reused.
 */
function distinctTomls(texts: string[], n: number, dir: string): void {
  for (let i = 0; i < n; i++) {
    const k = i % texts.length;
    const round = Math.floor(i / texts.length);
    let t = texts[k]!;
    let moved = false;
    t = t.replace(/^(\s*(?:steps|seed|log_freq|interval)\s*=\s*)(\d+)/m, (_m, a: string, v: string) => ((moved = true), `${a}${Number(v) + round}`));
    const note = moved ? "" : `# round ${round}\n`;
    writeFileSync(join(dir, `c${String(i).padStart(5, "0")}.toml`), `# bench copy ${i} of file ${k}\n${t}${t.endsWith("\n") ? "" : "\n"}${note}# note ${(i * 7919) % 10007}\n`);
  }
}

/**
 * A torchtitan config of `lines` lines that is detected and analysed as one: every key of the v0.2.2 schema
 * that has a default, under its table, at its default (examples/fsdp_tp_64gpu.toml's values where it sets
 * the key), each key documented by comment lines (its doc string, then numbered note lines) so that the file
 * reaches `lines`. Like a `--job.print_config` dump that someone annotated: all keys known, most lines comments.
 */
export function torchtitanToml(lines: number): string {
  const base = new Map<string, string>();
  let table = "";
  for (const l of readFileSync(join(ROOT, "examples", "fsdp_tp_64gpu.toml"), "utf8").split("\n")) {
    const h = /^\[([a-z0-9_.]+)\]/.exec(l);
    if (h) table = h[1]!;
    const kv = /^([a-z0-9_]+) = (.+)$/.exec(l);
    if (kv) base.set(`${table}.${kv[1]}`, kv[2]!);
  }
  const byTable = new Map<string, [string, string, string][]>();
  for (const [path, spec] of keysAt("v0.2.2")) {
    const v = base.get(path) ?? tomlValue(spec.default);
    if (v === undefined || spec.deprecated) continue;
    const i = path.lastIndexOf(".");
    const t = path.slice(0, i);
    if (!byTable.has(t)) byTable.set(t, []);
    byTable.get(t)!.push([path.slice(i + 1), v, spec.doc.replace(/\s+/g, " ")]);
  }
  const keys = [...byTable.values()].reduce((n, ks) => n + ks.length, 0);
  const fixed = 2 + byTable.size * 2 + keys * 2;
  const notes = Math.max(0, Math.floor((lines - fixed) / keys));
  let extra = Math.max(0, lines - fixed - notes * keys);
  const out = ["# precision-lens: world-size=64", "# bench config: every v0.2.2 key with a default, documented"];
  for (const [t, ks] of byTable) {
    out.push("", `[${t}]`);
    for (const [k, v, doc] of ks) {
      out.push(`# ${doc}`);
      const n = notes + (extra > 0 ? 1 : 0);
      if (extra > 0) extra--;
      for (let j = 0; j < n; j++) out.push(`#   note ${j + 1}`);
      out.push(`${k} = ${v}`);
    }
  }
  return out.join("\n") + "\n";
}

function tomlValue(v: unknown): string | undefined {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(v).includes("e") ? String(v) : String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === "string" || typeof x === "number")) return `[${v.map((x) => (typeof x === "string" ? JSON.stringify(x) : String(x))).join(", ")}]`;
  return undefined;
}

interface Latency {
  median: number;
  p95: number;
  first: number;
  init: number;
}

/**
 * One server on one document: spawn → initialize (`init`), didOpen → first publish (`first`), then `edits`
 * full-text changes, each timed from didChange to the publishDiagnostics for that document and that version
 * (a server that publishes no version: the next publish for the document).
 */
async function lspLatency(server: { command: string; args: string[] } | undefined, dir: string, uri: string, text: string, languageId: string, edits = EDITS): Promise<Latency> {
  const { TestLspClient } = await import("../support/lspClient");
  const t0 = performance.now();
  // PL_SERVER_NODE_ARGS: flags for our server's Node (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the warm path).
  const c = new TestLspClient(server ? { ...server, cwd: dir } : undefined, (process.env.PL_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean));
  const of = (v: number) => (p: { version?: number }) => p.version === undefined || p.version === v;
  try {
    await c.initialize([{ uri: pathToFileURL(dir).href, name: "bench" }]);
    const init = performance.now() - t0;
    const t1 = performance.now();
    const firstP = c.waitForDiagnostics(uri, of(1), 120_000);
    await c.open(uri, text, languageId);
    await firstP;
    const first = performance.now() - t1;
    const samples: number[] = [];
    for (let v = 2; v < edits + 2; v++) {
      const next = c.waitForDiagnostics(uri, of(v), 120_000);
      const t = performance.now();
      await c.change(uri, v, `${text}${v % 2 ? `\n# edit ${v}\n` : "\n"}`);
      await next;
      samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    return { median: median(samples), p95: samples[Math.min(samples.length - 1, Math.ceil(0.95 * samples.length) - 1)]!, first, init };
  } finally {
    await c.shutdown(process.env.PL_SERVER_NODE_ARGS ? 10_000 : 0).catch(() => undefined);
  }
}

const ms = (x: number) => `${x.toFixed(1)} ms`;

/** A TOML of `lines` lines, mostly keys no torchtitan release has: the seed file, then tables of 25 keys of one's own. */
export function unknownKeysToml(lines: number): string {
  const out = readFileSync(join(ROOT, "examples", "tp_only_8gpu.toml"), "utf8").split("\n");
  for (let t = 0; out.length < lines; t++) {
    out.push(`[own_table_${t}]`);
    for (let k = 0; k < 25 && out.length < lines; k++) out.push(`key_${k} = ${k % 3 === 0 ? `"value ${t}.${k}"` : k % 3 === 1 ? String(t + k / 10) : String(t * 25 + k)}`);
  }
  return out.join("\n") + "\n";
}

function walkFiles(dir: string, ext: string): string[] {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(ext)) files.push(join(d, e.name));
    }
  };
  if (existsSync(dir)) walk(dir);
  return files.sort();
}

export async function peersBench(): Promise<void> {
  const missing: string[] = [];
  const { taplo, tombi, ruff, pyright, yamlLs } = peers(missing);
  console.log(`\n=== Precision Lens beside its peers (issues #21, #36) — Node ${process.version}, ${new Date().toISOString()}, load ${loadavg().map((x) => x.toFixed(1)).join(" ")} ===`);
  console.log("Noisy figures: a shared machine. Each row alternates its commands over rounds; medians with (min–max), ratios per round.");
  for (const m of missing) console.log(`  peer missing — ${m}`);
  if (!existsSync(CLI)) {
    console.log(`  ${CLI} missing: run npm run build first.`);
    return;
  }
  const work = mkdtempSync(join(tmpdir(), "pl-bench-"));
  // The CLI's V8 code cache (server/src/host/codeCache.ts) in a folder of the bench's own, warmed by one run
  // before the timed ones; the "code cache off" rows show what a first run (or PRECISION_LENS_NO_CODE_CACHE=1) costs.
  const cacheHome = join(work, "cache");
  const ours: Cmd = { name: "precision-lens check --format json", command: process.execPath, args: (f) => [CLI, "check", "--format", "json", ...f], env: { XDG_CACHE_HOME: cacheHome } };
  const oursOff: Cmd = { ...ours, name: "no-code-cache precision-lens", env: { XDG_CACHE_HOME: cacheHome, PRECISION_LENS_NO_CODE_CACHE: "1" } };
  const tomlPeers = OURS_ONLY ? [] : [taplo.cli, tombi.cli].filter((c): c is Cmd => !!c);
  const node0: Cmd = { name: "node -e 0 (Node's own start)", command: process.execPath, args: () => ["-e", "0"] };
  // `--version`: Node's start plus the bundle's load and initialisation, no analysis; the floor of any CLI row.
  const version: Cmd = { ...ours, name: "precision-lens --version", args: () => [CLI, "--version"] };
  const cliRow = (k: string) => !LSP_ONLY && CLI_ROWS.includes(k);
  // The trees before (--base): the same command from each one's dist, each with its own code cache.
  const bases: Cmd[] = [];
  BASES.forEach((dir, i) => {
    const cli = join(dir, "dist", "cli.js");
    if (!existsSync(cli)) console.log(`  --base: ${cli} missing (build that tree first); left out.`);
    else bases.push({ name: `base${i ? i + 1 : ""} ${dir.split("/").filter(Boolean).at(-1)}`, command: process.execPath, args: (f) => [cli, "check", "--format", "json", ...f], env: { XDG_CACHE_HOME: join(work, `cache-base${i}`) } });
  });
  const base = bases[0];
  const withBase = (cmds: Cmd[]): Cmd[] => [cmds[0]!, ...bases, ...cmds.slice(1)];
  /** Issue #35's goal for a row that ran the base tree: ours within 10% of it, per round; a second base against the first. */
  const baseGoal = (what: string, row: Row): void => {
    const r = ratioOf(row, ours, base);
    if (!r) return;
    const o = medOf(row, ours)!;
    const b = medOf(row, base)!;
    goal(`#35: ${what} within 10% of the base tree`, r.med <= 1.1, `ours / base ${fmtSpread(r, (x) => x.toFixed(3))} per round; peak RSS ${o.rssMiB.toFixed(0)} / ${b.rssMiB.toFixed(0)} MiB`);
    for (const other of bases.slice(1)) {
      const m = ratioOf(row, other, base)!;
      goal(`#35: ${what}, ${other.name} within 10% of the base tree`, m.med <= 1.1, `${other.name.split(" ")[0]} / base ${fmtSpread(m, (x) => x.toFixed(3))} per round; peak RSS ${medOf(row, other)!.rssMiB.toFixed(0)} / ${b.rssMiB.toFixed(0)} MiB`);
    }
  };
  try {
    if (!LSP_ONLY) timed(ours, [join(ROOT, "examples", "tp_only_8gpu.toml")], work);
    if (!LSP_ONLY) for (const b of bases) timed(b, [join(ROOT, "examples", "tp_only_8gpu.toml")], work);
    // 1. The corpus's torchtitan TOMLs.
    const ttFiles = walkFiles(join(CORPUS, "torchtitan"), ".toml");
    if (LSP_ONLY) console.log("\nCLI rows skipped (--lsp-only).");
    else if (cliRow("corpus") && ttFiles.length) {
      const cmds = withBase([ours, ...tomlPeers, oursOff, version, node0]);
      const row = compare("CLI on the corpus's torchtitan TOMLs", cmds, ttFiles, work);
      baseGoal("CLI on the corpus's torchtitan TOMLs", row);
      cliGoals21("corpus", row, ours, taplo.cli, tombi.cli);
      const r = ratioOf(row, ours, node0)!;
      goal("CLI on the corpus's torchtitan TOMLs ≤ 2 × node -e 0", r.med <= 2, `${fmtSpread(r, (x) => x.toFixed(2))} ×; --version ${fmtSpread(ratioOf(row, version, node0)!, (x) => x.toFixed(2))} × node -e 0`);
    } else if (cliRow("corpus")) console.log(`\nCLI on the corpus: skipped, ${join(CORPUS, "torchtitan")} is absent.`);

    // 2. Single file (pre-commit's case): the seed example.
    const seed = join(work, "seed", "train.toml");
    mkdirSync(join(work, "seed"));
    copyFileSync(join(ROOT, "examples", "tp_only_8gpu.toml"), seed);
    if (cliRow("single")) compare("Single-file CLI (examples/tp_only_8gpu.toml)", [ours, ...tomlPeers, oursOff], [seed], work, Math.max(RUNS, 5));
    // Cold start of the CLI itself: `--version` (load and initialise, no analysis) beside a bare `node -e 0`.
    if (cliRow("cold")) compare("Cold start, CLI (spawn → exit)", [version, { ...version, name: "no-code-cache --version", env: oursOff.env! }, node0], [], work, Math.max(RUNS, 7));

    // 3. Many distinct files: the corpus's torchtitan TOMLs (else the examples) cycled, each copy varied.
    const sources = (ttFiles.length ? ttFiles : walkFiles(join(ROOT, "examples"), ".toml")).map((f) => readFileSync(f, "utf8"));
    for (const n of cliRow("files") ? FILE_COUNTS : cliRow("files10k") ? [10_000] : []) {
      const d = join(work, `n${n}`);
      mkdirSync(d);
      distinctTomls(sources, n, d);
      // Folders as arguments (each tool walks them) keep the command line short at 10,000 files.
      const argsFor = (c: Cmd): Cmd => (c === tombi.cli ? { ...c, args: () => ["lint", "--offline", d] } : c === taplo.cli ? { ...c, args: () => c.args([join(d, "*.toml")]) } : { ...c, args: () => c.args([d]) });
      const row = compare(`${n.toLocaleString("en-US")} distinct TOMLs (the corpus's ${sources.length} cycled, values and comments varied)`, withBase([ours, ...tomlPeers]), [d], work, n >= 10_000 ? Math.min(RUNS, 3) : RUNS, argsFor, n);
      baseGoal(`${n.toLocaleString("en-US")} distinct TOMLs`, row);
      if (n === 10_000) {
        cliGoals21("10000", row, ours, taplo.cli, tombi.cli);
        const r = ratioOf(row, ours, tombi.cli);
        const o = medOf(row, ours)!;
        goal("10,000 distinct TOMLs ≤ 2 × tombi lint and ≤ 250 MiB", r ? r.med <= 2 && o.rssMiB <= 250 : undefined, `${r ? fmtSpread(r, (x) => x.toFixed(2)) : "no tombi"} × tombi, ${o.rssMiB.toFixed(0)} MiB`);
      }
      rmSync(d, { recursive: true, force: true });
    }

    // 4. Python registries on the CLI: a generated one of 200 config functions, and torchtitan's own.
    if (cliRow("python")) {
      const pyDir = join(work, "py", "torchtitan", "models", "bench");
      mkdirSync(pyDir, { recursive: true });
      const gen = join(pyDir, "config_registry.py");
      writeFileSync(gen, registryWithFunctions(200));
      const pyPeers = OURS_ONLY ? [] : [ruff.cli].filter((c): c is Cmd => !!c);
      const row = compare("CLI on a generated registry of 200 config functions (1,408 lines)", [ours, ...pyPeers, node0], [gen], work);
      const r = ratioOf(row, ours, ruff.cli);
      goal("CLI on one registry of 200 config functions ≤ 20 × ruff check --no-cache", r ? r.med <= 20 : undefined, r ? `${fmtSpread(r, (x) => x.toFixed(1))} ×` : "no ruff");
      const own = walkFiles(join(CORPUS, "wild2026", "pytorch__torchtitan@v0.3.0"), "config_registry.py");
      if (own.length) compare(`CLI on torchtitan v0.3.0's own registries (corpus wild2026)`, [ours, ...pyPeers, ...(OURS_ONLY || !pyright.cli ? [] : [pyright.cli]), node0], own, work, Math.min(RUNS, 3));
      else console.log(`\nCLI on torchtitan's own registries: skipped, not in ${CORPUS}.`);
    }

    // 5. The editor: didChange → publishDiagnostics.
    const lspDir = join(work, "lsp");
    mkdirSync(join(lspDir, "torchtitan", "models", "bench"), { recursive: true });
    const allDocs: { key: string; name: string; file: string; text: () => string; languageId: string }[] = [
      { key: "seed", name: "seed file (tp_only_8gpu.toml)", file: "train.toml", text: () => readFileSync(join(ROOT, "examples", "tp_only_8gpu.toml"), "utf8"), languageId: "toml" },
      { key: "1000", name: "1,000-line TOML", file: "big1000.toml", text: () => torchtitanToml(1000), languageId: "toml" },
      { key: "10000", name: "10,000-line TOML", file: "big10000.toml", text: () => torchtitanToml(10_000), languageId: "toml" },
      { key: "20000u", name: "20,000-line TOML, mostly unknown keys", file: "unknown20000.toml", text: () => unknownKeysToml(20_000), languageId: "toml" },
      { key: "py1000", name: "1,000-line Python registry", file: "torchtitan/models/bench/config_registry.py", text: () => registry(1000), languageId: "python" },
      { key: "py5000", name: "5,000-line Python registry", file: "torchtitan/models/bench/config_registry_5000.py", text: () => registry(5000), languageId: "python" },
      { key: "yaml", name: "YAML (accelerate fsdp2_bf16.yaml)", file: "fsdp2_bf16.yaml", text: () => readFileSync(join(ROOT, "examples", "yaml", "accelerate", "fsdp2_bf16.yaml"), "utf8"), languageId: "yaml" },
    ];
    const docs = allDocs.filter((d) => DOCS.includes(d.key)).map((d) => ({ ...d, text: d.text() }));
    console.log(`\ndidChange → publishDiagnostics (${EDITS} full-text edits per server and round, ${LSP_ROUNDS} alternating rounds; per server the median over rounds of each round's median / p95, (min–max); "first" = didOpen → first publish):`);
    const cold: { name: string; init: number; first: number }[] = [];
    for (const d of docs) {
      const path = join(lspDir, d.file);
      writeFileSync(path, d.text);
      const uri = pathToFileURL(path).href;
      const edits = d.text.length > 200_000 || d.languageId === "python" ? Math.min(EDITS, 20) : EDITS;
      const servers: { name: string; server?: { command: string; args: string[] } }[] = [{ name: "precision-lens" }];
      // The trees before (--base): their own dist/server.js, in the same alternating rounds (ours / base per round).
      for (const dir of BASES) {
        const bundle = join(dir, "dist", "server.js");
        if (existsSync(bundle)) servers.push({ name: `base ${dir.split("/").filter(Boolean).pop()}`, server: { command: process.execPath, args: [bundle, "--stdio"] } });
        else console.log(`  --base: ${bundle} missing (build that tree first); left out.`);
      }
      if (OURS_ONLY) {
        /* no peers */
      } else if (d.languageId === "toml") {
        if (taplo.lsp) servers.push({ name: "taplo lsp", server: taplo.lsp });
        if (tombi.lsp) servers.push({ name: "tombi lsp 1.9.6", server: tombi.lsp });
      } else if (d.languageId === "python") {
        if (pyright.lsp) servers.push({ name: "pyright-langserver 1.1.414", server: pyright.lsp });
        if (ruff.lsp) servers.push({ name: "ruff server 0.17.6", server: ruff.lsp });
      } else if (yamlLs) servers.push({ name: yamlLs.label, server: yamlLs });
      const l0 = load();
      const got = servers.map(() => ({ rounds: [] as Latency[], err: undefined as string | undefined }));
      for (let round = 0; round < LSP_ROUNDS; round++) {
        for (const [j, s] of servers.entries()) {
          if (got[j]!.err) continue;
          try {
            got[j]!.rounds.push(await lspLatency(s.server, lspDir, uri, d.text, d.languageId, edits));
          } catch (e) {
            got[j]!.err = e instanceof Error ? e.message.split("\n")[0] : String(e);
          }
        }
      }
      console.log(`  ${d.name} (${d.text.split("\n").length} lines; load ${l0} → ${load()}):`);
      const stat = (j: number, k: keyof Latency) => spread(got[j]!.rounds.map((r) => r[k]));
      const perRound = (j: number, k: "median" | "p95") => spread(got[0]!.rounds.map((r, i) => r[k] / (got[j]!.rounds[i]?.[k] ?? NaN)).filter((x) => Number.isFinite(x)));
      for (const [j, s] of servers.entries()) {
        const g = got[j]!;
        if (!g.rounds.length) {
          console.log(`    ${pad(s.name, 30)} failed: ${g.err}`);
          continue;
        }
        const ratio = j > 0 && got[0]!.rounds.length ? `   ours/theirs median ${fmtSpread(perRound(j, "median"), (x) => x.toFixed(3))}, p95 ${fmtSpread(perRound(j, "p95"), (x) => x.toFixed(3))}` : "";
        console.log(`    ${pad(s.name, 30)} ${pad(`${fmtSpread(stat(j, "median"), (x) => x.toFixed(1))} / ${fmtSpread(stat(j, "p95"), (x) => x.toFixed(1))} ms`, 44)} first ${pad(ms(stat(j, "first").med), 10)}${ratio}${g.err ? ` (a round failed: ${g.err})` : ""}`);
        if (d.key === "seed") cold.push({ name: s.name, init: stat(j, "init").med, first: stat(j, "first").med });
      }
      const oursRounds = got[0]!.rounds.length ? got[0]! : undefined;
      const j = (prefix: string) => servers.findIndex((s) => s.name.startsWith(prefix));
      const has = (k: number) => k > 0 && got[k]!.rounds.length > 0;
      if (d.key === "1000" && oursRounds) console.log(`    issue #21 goal p95 ≤ 16 ms on the 1,000-line TOML: ${stat(0, "p95").med <= 16 ? "met" : "NOT met"} (${ms(stat(0, "p95").med)})`);
      if (d.key === "20000u" && oursRounds) {
        const t = j("tombi");
        goal("TOML didChange, 20,000 lines of mostly unknown keys, ≤ 1.5 × tombi (p95)", has(t) ? perRound(t, "p95").med <= 1.5 : undefined, has(t) ? `p95 ${fmtSpread(perRound(t, "p95"), (x) => x.toFixed(2))} ×, median ${fmtSpread(perRound(t, "median"), (x) => x.toFixed(2))} ×` : "no tombi");
      }
      if (d.key === "py1000" && oursRounds) {
        const p = j("pyright");
        goal("Python registry didChange, 1,000 lines, median ≤ 0.05 × pyright-langserver's", has(p) ? perRound(p, "median").med <= 0.05 : undefined, has(p) ? `${fmtSpread(perRound(p, "median"), (x) => x.toFixed(3))} ×; ours ${ms(stat(0, "median").med)}` : "no pyright");
        pyMedian.set(1000, { ms: stat(0, "median").med, fns: (d.text.match(/^def /gm) ?? []).length });
      }
      if (d.key === "py5000" && oursRounds) {
        goal("Python registry didChange, 5,000 lines, p95 ≤ 100 ms", stat(0, "p95").med <= 100, `p95 ${fmtSpread(stat(0, "p95"), (x) => x.toFixed(1))} ms`);
        pyMedian.set(5000, { ms: stat(0, "median").med, fns: (d.text.match(/^def /gm) ?? []).length });
        const a = pyMedian.get(1000);
        const b = pyMedian.get(5000)!;
        // Linear: the cost per config function at 5,000 lines within 1.5 × its cost at 1,000 lines.
        if (a) goal("Python registry didChange linear in the number of config functions", b.ms / b.fns <= 1.5 * (a.ms / a.fns), `${(a.ms / a.fns).toFixed(2)} ms per function at ${a.fns} functions, ${(b.ms / b.fns).toFixed(2)} at ${b.fns}`);
      }
    }

    // 6. Cold start: spawn → initialize answered, and → first diagnostics on the seed file.
    if (cold.length) console.log("\nCold start, language server (spawn → initialize answered; spawn → first diagnostics on the seed file):");
    const o = cold[0];
    for (const c of cold) {
      const ratio = o && c !== o ? `   ours/theirs: initialize ${(o.init / c.init).toFixed(3)}, first diagnostics ${((o.init + o.first) / (c.init + c.first)).toFixed(3)}` : "";
      console.log(`  ${pad(c.name, 34)} initialize ${pad(ms(c.init), 10)} first diagnostics ${pad(ms(c.init + c.first), 10)}${ratio}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`\nIssue #36's goals in this run (load now ${loadavg().map((x) => x.toFixed(1)).join(" ")}):`);
  for (const g of GOALS) console.log(`  ${g.met === undefined ? "not measured" : g.met ? "met    " : "NOT met"}  ${g.goal} (${g.detail})`);
}

/** The Python rows' medians, for the linearity goal. */
const pyMedian = new Map<number, { ms: number; fns: number }>();
