/**
 * The `precision-lens` command line: a thin front end over the analysis core, for CI pipelines.
 *   precision-lens check [--world-size N] [--torchtitan-version V] [--format text|json] PATH...
 * Exit codes: 0 no error-level diagnostic, 1 at least one, 2 usage error or unreadable input.
 */
import { diagnosticJson } from "./cli/diagnosticJson";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { extname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { analyzeDocument, formatOf } from "./core/analyze";
import type { AnalysisResult, AnalysisSettings } from "./core/analysis";
import { headline } from "./core/features";
import { fixAll, formatFixReport, type FixAllResult } from "./core/fix";
import { torchtitanJsonSchemaText } from "./core/jsonSchema";
import { simulationToJson } from "./core/engine";
import { parseVersion } from "./core/torchtitan/versions";
import { nodeEnv } from "./host/nodeEnv";
import { analyzeStdin, checkStdinOptions, countWarnings, errorsOnly, StdinUsageError } from "./cli/check";
import { toGithub } from "./cli/github";
import { toSarif } from "./cli/sarif";

export interface CliIO {
  stdout(s: string): void;
  stderr(s: string): void;
  cwd: string;
  /** Reads all of standard input (for `check -`); absent where there is none. */
  stdin?: () => string;
}

const USAGE = `Usage:
  precision-lens check [--world-size N] [--torchtitan-version V] [--format text|json|sarif|github]
                       [--quiet] [--max-warnings N] [--fix] PATH...
  precision-lens check [OPTIONS] --stdin-filename NAME -
      Analyse training configs (files, or folders searched recursively for .toml, .yaml, .yml, .json;
      - reads one config from standard input, analysed as if it were NAME).
      Exit 0 when no error-level diagnostic, 1 when any (or more warnings than --max-warnings),
      2 on usage errors or unreadable input.
      --fix rewrites the files in place with every fix that needs no choice (moved and renamed keys,
      clear typos), keeping comments and layout, and lists the fixes that need a choice.
  precision-lens explain [--world-size N] [--torchtitan-version V] FILE
      Print the full precision report of one config: layout, mechanism, the dtype of every op of a
      simulated training step, collectives, memory per GPU, assumptions and the era comparison.
  precision-lens schema [--torchtitan-version V]
      Print the JSON Schema of a torchtitan release (default v0.2.2) for taplo, tombi or any validator.
  precision-lens --help | --version

Options:
  --world-size N            number of GPUs (overrides in-file directives, settings and inference)
  --torchtitan-version V    auto (default), v0.1.0, v0.2.0, v0.2.1, v0.2.2, v0.2.2+pr2213, main@YYYY-MM-DD
  --format F                text (default); json, a stable contract (see README); sarif (SARIF 2.1.0,
                            for code scanning); github (GitHub Actions annotations)
  --quiet                   report errors only
  --max-warnings N          exit 1 when there are more than N warnings
  --stdin-filename NAME     the name of the config read from standard input (-)
  --fix                     apply the fixes that need no choice, in place
`;

/** Extensions `check` picks up when walking a folder. */
const CONFIG_EXTENSIONS = new Set([".toml", ".yaml", ".yml", ".json"]);
const SKIP_DIRS = new Set(["node_modules", ".git", ".hg", ".svn", "dist", "out", "__pycache__", ".venv", "venv"]);
/** Files over this size are reported as unreadable input rather than analysed. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

class UsageError extends Error {}

interface CheckOptions {
  settings: AnalysisSettings;
  format: "text" | "json" | "sarif" | "github";
  paths: string[];
  fix: boolean;
  quiet?: boolean;
  maxWarnings?: number;
  stdinFilename?: string;
}

export function runCli(argv: string[], io: CliIO): number {
  try {
    const [cmd, ...rest] = argv;
    if (!cmd || cmd === "--help" || cmd === "-h" || cmd === "help") {
      io.stdout(USAGE);
      return cmd ? 0 : 2;
    }
    if (cmd === "--version") {
      io.stdout("precision-lens 0.1.0\n");
      return 0;
    }
    if (cmd === "check") return check(parseCheckArgs(rest), io);
    if (cmd === "schema") return schema(rest, io);
    if (cmd === "explain") return explain(rest, io);
    throw new UsageError(`unknown command "${cmd}"`);
  } catch (e) {
    if (e instanceof UsageError || e instanceof StdinUsageError) {
      io.stderr(`precision-lens: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    throw e;
  }
}

function parseCheckArgs(args: string[]): CheckOptions {
  // origin "cli": --world-size / --torchtitan-version win over in-file directives (workspace/precedence.ts).
  const opts: CheckOptions = { settings: { origin: "cli" }, format: "text", paths: [], fix: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const [flag, inline] = a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined || (inline === undefined && v.startsWith("--"))) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--world-size": {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`--world-size must be a positive integer, got "${v}"`);
        opts.settings.worldSize = Number(v);
        break;
      }
      case "--torchtitan-version": {
        const v = value();
        if (v !== "auto" && !parseVersion(v)) throw new UsageError(`--torchtitan-version: unknown version "${v}" (use auto, v0.1.0, v0.2.0, v0.2.1, v0.2.2, v0.2.2+pr2213 or main@YYYY-MM-DD up to 2026-02-23)`);
        opts.settings.torchtitanVersion = v;
        break;
      }
      case "--format": {
        const v = value();
        if (v !== "text" && v !== "json" && v !== "sarif" && v !== "github") throw new UsageError(`--format must be text, json, sarif or github, got "${v}"`);
        opts.format = v;
        break;
      }
      case "--fix":
        opts.fix = true;
        break;
      case "--quiet":
        opts.quiet = true;
        break;
      case "--max-warnings": {
        const v = value();
        if (!/^\d+$/.test(v)) throw new UsageError(`--max-warnings must be a non-negative integer, got "${v}"`);
        opts.maxWarnings = Number(v);
        break;
      }
      case "--stdin-filename":
        opts.stdinFilename = value();
        break;
      case "-":
        opts.paths.push(a);
        break;
      default:
        if (a.startsWith("-")) throw new UsageError(`unknown option "${a}"`);
        opts.paths.push(a);
    }
  }
  if (opts.paths.length === 0) throw new UsageError("check needs at least one file or folder");
  checkStdinOptions(opts.paths, opts.stdinFilename, opts.fix);
  return opts;
}

interface FileOutcome {
  path: string;
  /** Absolute path (for standard input: --stdin-filename resolved against the working directory). */
  absPath?: string;
  result?: AnalysisResult;
  error?: string;
  fixes?: FixAllResult;
}

function explain(args: string[], io: CliIO): number {
  const opts = parseCheckArgs(args);
  if (opts.fix || opts.format !== "text" || opts.quiet || opts.maxWarnings !== undefined || opts.stdinFilename !== undefined) throw new UsageError("explain takes only --world-size, --torchtitan-version and one file");
  if (opts.paths.length !== 1) throw new UsageError("explain takes exactly one file");
  const { files, errors } = collect(opts.paths[0]!, io);
  if (errors.length || files.length !== 1) {
    io.stderr(`precision-lens: ${opts.paths[0]}: ${errors[0]?.error ?? "not a single file"}\n`);
    return 2;
  }
  const f = files[0]!;
  let text: string;
  try {
    text = readFileSync(f, "utf8");
  } catch (e) {
    io.stderr(`precision-lens: ${opts.paths[0]}: cannot read (${(e as Error).message})\n`);
    return 2;
  }
  const r = analyzeDocument(pathToFileURL(f).href, text, opts.settings, nodeEnv(f, [io.cwd]), formatOf(f));
  if (!r.reportMarkdown) {
    io.stdout(`${opts.paths[0]}: ${r.frameworkReason}; no precision report.\n`);
    return 0;
  }
  io.stdout(r.reportMarkdown + "\n");
  if (r.diagnostics.length) {
    io.stdout("\n## Diagnostics\n\n");
    for (const d of r.diagnostics) io.stdout(`- line ${d.range.start.line + 1}: ${d.severity} [${d.code}] ${d.message}\n`);
  }
  return r.diagnostics.some((d) => d.severity === "error") ? 1 : 0;
}

function schema(args: string[], io: CliIO): number {
  let v = "v0.2.2";
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--torchtitan-version") v = args[++i] ?? "";
    else if (a.startsWith("--torchtitan-version=")) v = a.slice("--torchtitan-version=".length);
    else throw new UsageError(`schema: unexpected argument "${a}"`);
  }
  const version = parseVersion(v);
  if (!version) throw new UsageError(`--torchtitan-version: unknown version "${v}" (use v0.1.0, v0.2.0, v0.2.1, v0.2.2 or main@YYYY-MM-DD up to 2026-02-23)`);
  io.stdout(torchtitanJsonSchemaText(version.schemaRelease));
  return 0;
}

function collect(root: string, io: CliIO): { files: string[]; errors: FileOutcome[] } {
  const files: string[] = [];
  const errors: FileOutcome[] = [];
  const abs = resolve(io.cwd, root);
  let st;
  try {
    st = statSync(abs);
  } catch {
    errors.push({ path: root, error: "no such file or folder" });
    return { files, errors };
  }
  if (st.isFile()) {
    files.push(abs);
    return { files, errors };
  }
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (e) {
      errors.push({ path: relative(io.cwd, dir) || dir, error: `cannot read folder (${(e as Error).message})` });
      return;
    }
    for (const n of names) {
      const p = join(dir, n);
      let s;
      try {
        s = statSync(p);
      } catch {
        continue;
      }
      if (s.isDirectory()) {
        if (!SKIP_DIRS.has(n)) walk(p);
      } else if (CONFIG_EXTENSIONS.has(extname(n).toLowerCase()) && n !== "package-lock.json") files.push(p);
    }
  };
  walk(abs);
  return { files, errors };
}

function check(opts: CheckOptions, io: CliIO): number {
  const outcomes: FileOutcome[] = [];
  for (const p of opts.paths) {
    if (p === "-") {
      outcomes.push(analyzeStdin(opts.stdinFilename!, opts.settings, io, MAX_FILE_BYTES));
      continue;
    }
    const { files, errors } = collect(p, io);
    outcomes.push(...errors);
    for (const f of files) {
      const shown = relative(io.cwd, f) || f;
      let text: string;
      try {
        const st = statSync(f);
        if (st.size > MAX_FILE_BYTES) {
          outcomes.push({ path: shown, error: `file is ${st.size} bytes, over the ${MAX_FILE_BYTES}-byte limit` });
          continue;
        }
        text = readFileSync(f, "utf8");
      } catch (e) {
        outcomes.push({ path: shown, error: `cannot read (${(e as Error).message})` });
        continue;
      }
      const uri = pathToFileURL(f).href;
      const env = nodeEnv(f, [io.cwd]);
      let fixes: FixAllResult | undefined;
      if (opts.fix) {
        fixes = fixAll(uri, text, opts.settings, env);
        if (fixes.changed) {
          try {
            writeFileSync(f, fixes.text);
          } catch (e) {
            outcomes.push({ path: shown, error: `cannot write the fixed file (${(e as Error).message})` });
            continue;
          }
          text = fixes.text;
        }
      }
      const result = analyzeDocument(uri, text, opts.settings, env, formatOf(f));
      outcomes.push(fixes ? { path: shown, absPath: f, result, fixes } : { path: shown, absPath: f, result });
    }
  }
  const warnings = countWarnings(outcomes.map((o) => o.result));
  if (opts.quiet) for (const o of outcomes) if (o.result) o.result = errorsOnly(o.result);
  const reported = () => outcomes.filter((o) => o.result).map((o) => ({ path: o.path, absPath: o.absPath ?? resolve(io.cwd, o.path), result: o.result! }));
  if (opts.format === "json") io.stdout(JSON.stringify(toJson(outcomes), null, 2) + "\n");
  else if (opts.format === "sarif") io.stdout(JSON.stringify(toSarif(reported(), io.cwd), null, 2) + "\n");
  else if (opts.format === "github") io.stdout(toGithub(reported()));
  else io.stdout(toText(outcomes));
  for (const o of outcomes) if (o.error) io.stderr(`precision-lens: ${o.path}: ${o.error}\n`);
  if (outcomes.some((o) => o.error)) return 2;
  const tooMany = opts.maxWarnings !== undefined && warnings > opts.maxWarnings;
  if (tooMany) io.stderr(`precision-lens: ${warnings} warning${warnings === 1 ? "" : "s"}, more than --max-warnings ${opts.maxWarnings}\n`);
  return tooMany || outcomes.some((o) => o.result?.diagnostics.some((d) => d.severity === "error")) ? 1 : 0;
}

/** The JSON contract, version 1. Extend only by adding fields. */
export function toJson(outcomes: FileOutcome[]): unknown {
  return {
    version: 1,
    files: outcomes
      .filter((o) => o.result)
      .map((o) => {
        const j = fileJson(o.path, o.result!);
        if (o.fixes) j.fixes = { applied: o.fixes.applied, needsChoice: o.fixes.needsChoice };
        return j;
      }),
  };
}

export function fileJson(path: string, r: AnalysisResult): Record<string, unknown> {
  const out: Record<string, unknown> = {
    path,
    framework: r.framework,
    frameworkReason: r.frameworkReason,
    worldSize: r.worldSize ? { value: r.worldSize.value, source: r.worldSize.source } : null,
    parallel: r.parallel ? { ...r.parallel } : null,
    mechanism: r.mechanism ?? null,
    precision: r.precision ? { paramStorage: r.precision.paramStorage.dtype, compute: r.precision.compute.dtype, gradReduce: r.precision.gradReduce.dtype } : null,
    diagnostics: r.diagnostics.map(diagnosticJson),
  };
  if (r.torchtitanVersion) out.torchtitanVersion = { value: r.torchtitanVersion.value, source: r.torchtitanVersion.source };
  if (r.framework === "torchtitan") out.simulation = r.simulation ? simulationToJson(r.simulation) : null;
  return out;
}

function toText(outcomes: FileOutcome[]): string {
  const lines: string[] = [];
  let errors = 0;
  let warnings = 0;
  let analysed = 0;
  for (const o of outcomes) {
    if (!o.result) continue;
    const r = o.result;
    if (!r.framework) {
      if (r.diagnostics.length === 0 && !o.fixes?.changed) continue;
    } else analysed++;
    const parts = [r.framework ?? "not a training config"];
    if (r.torchtitanVersion) parts[0] += ` ${r.torchtitanVersion.value}`;
    const h = headline(r);
    if (h) parts.push(h);
    if (r.worldSize) parts.push(`world size from ${r.worldSize.detail}`);
    lines.push(`${o.path}: ${parts.join(" · ")}`);
    if (o.fixes) for (const l of formatFixReport(o.path, o.fixes)) lines.push(`  ${l}`);
    for (const d of r.diagnostics) {
      if (d.severity === "error") errors++;
      if (d.severity === "warning") warnings++;
      lines.push(`  ${o.path}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.severity} [${d.code}] ${d.message}`);
    }
  }
  lines.push(`${analysed} training config${analysed === 1 ? "" : "s"} checked: ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`);
  return lines.join("\n") + "\n";
}
