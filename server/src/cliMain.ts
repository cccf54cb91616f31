/**
 * The `precision-lens` command line: a thin front end over the analysis core, for CI pipelines.
 *   precision-lens check [--world-size N] [--torchtitan-version V] [--format text|json] PATH...
 * Exit codes: 0 no error-level diagnostic, 1 at least one, 2 usage error or unreadable input.
 */
import { randomBytes } from "node:crypto";
import { relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { analyzeDocument, formatOf, internalErrorResult, sniffFormat } from "./core/analyze";
import { MAX_WORLD_SIZE } from "./core/limits";
import { LineIndex } from "./core/text";
import { diag } from "./core/diagnostics";
import type { ConfigDocument } from "./core/model";
import { collectConfigs, decodeUtf8, firstInvalidUtf8, MAX_FILE_BYTES, readBounded } from "./host/files";
import { replaceFileAtomically } from "./host/replaceFile";
import { escapeControls } from "./host/terminal";
import type { AnalysisResult, AnalysisSettings } from "./core/analysis";
import { fixAll, type FixAllResult } from "./core/fix";
import { torchtitanJsonSchemaText } from "./core/jsonSchema";
import { GPU_IDS, parseGpu } from "./core/engine";
import { buildReportView, renderReportHtml } from "./core/report";
import { parseVersion } from "./core/frameworks/torchtitan/versions";
import { nodeEnv } from "./host/nodeEnv";
import { analyzeStdin, checkStdinOptions, errorsOnly, StdinUsageError } from "./cli/check";
import { checkWriter, count, fileJson, type CheckCounters, type FileOutcome } from "./cli/stream";

export interface CliIO {
  stdout(s: string): void;
  stderr(s: string): void;
  cwd: string;
  /** Reads all of standard input (for `check -`); absent where there is none. */
  stdin?: () => string;
}

const USAGE = `Usage:
  precision-lens check [--world-size N] [--torchtitan-version V] [--gpu G]
                       [--format text|json|sarif|github] [--quiet] [--max-warnings N]
                       [--fix] [--verbose] [--] PATH...
  precision-lens check [OPTIONS] --stdin-filename NAME -
      Analyse training configs (files, or folders searched recursively for .toml, .yaml, .yml, .json;
      only regular files, each real folder once; - reads one config from standard input, analysed as if
      it were NAME). Exit 0 when no error-level diagnostic, 1 when any (or more warnings than
      --max-warnings), 2 on usage errors or unreadable input, 3 when Precision Lens itself failed on a
      file (internal-error).
      --fix rewrites the files in place with every fix that needs no choice (moved and renamed keys,
      clear typos), keeping comments and layout, and lists the fixes that need a choice.
  precision-lens explain [--world-size N] [--torchtitan-version V] [--gpu G] [--format text|html] FILE
      Print the full precision report of one config: layout, mechanism, the dtype of every op of a
      simulated training step, collectives, memory per GPU, assumptions and the era comparison.
      --format html writes it as one self-contained page with charts (> report.html).
  precision-lens schema [--torchtitan-version V]
      Print the JSON Schema of a torchtitan release (default v0.2.2) for taplo, tombi or any validator.
  precision-lens --help | --version

Options:
  --world-size N            number of GPUs (overrides in-file directives, settings and inference)
  --torchtitan-version V    auto (default), v0.1.0, v0.2.0, v0.2.1, v0.2.2, v0.2.2+pr2213, main@YYYY-MM-DD
  --torchtitan-config-source PATH
                            a torchtitan fork's config source (its job_config.py, config_manager.py,
                            custom config module, or root folder); default: found above the config
  --torchtitan-config-source PATH
                            a torchtitan fork's config source (its job_config.py, config_manager.py,
                            custom config module, or root folder); default: found above the config
  --gpu G                   GPU type for throughput and memory estimates: ${GPU_IDS.join(", ")} (default h100-sxm)
  --format F                text (default); json, a stable contract (see README); sarif (SARIF 2.1.0,
                            for code scanning); github (GitHub Actions annotations)
  --quiet                   report errors only
  --max-warnings N          exit 1 when there are more than N warnings
  --stdin-filename NAME     the name of the config read from standard input (-)
  --fix                     apply the fixes that need no choice, in place (atomically; see README)
  --verbose                 also list what the folder walk skipped (special files, link cycles)
  --                        everything after it is a path, even if it starts with "-"
`;

/** Exit code when Precision Lens itself failed on some file (an internal-error diagnostic). */
export const EXIT_INTERNAL = 3;

class UsageError extends Error {}

interface CheckOptions {
  settings: AnalysisSettings;
  format: "text" | "json" | "sarif" | "github";
  paths: string[];
  fix: boolean;
  quiet?: boolean;
  maxWarnings?: number;
  stdinFilename?: string;
  verbose: boolean;
  help: boolean;
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
    if (cmd === "check") {
      const opts = parseCheckArgs(rest, io.cwd);
      if (opts.help) {
        io.stdout(USAGE);
        return 0;
      }
      return check(opts, io);
    }
    if (cmd === "schema") return schema(rest, io);
    if (cmd === "explain") return explain(htmlFormat(rest).rest, io, htmlFormat(rest).html);
    throw new UsageError(`unknown command "${cmd}"`);
  } catch (e) {
    if (e instanceof UsageError || e instanceof StdinUsageError) {
      io.stderr(`precision-lens: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    throw e;
  }
}

/**
 * The options of `check` and `explain`, one row each: the parser is driven by this table, so a new flag
 * is one row (its value check included). `value` names the flag's argument when it takes one.
 */
interface OptionSpec {
  value?: string;
  apply(opts: CheckOptions, v: string): void;
}

const CHECK_OPTIONS: Record<string, OptionSpec> = {
  "--world-size": {
    value: "N",
    apply(opts, v) {
      // Checked on the digits, not on Number(v): 99999999999999999999 must not become 1e+20.
      if (!/^\d+$/.test(v) || /^0+$/.test(v)) throw new UsageError(`--world-size must be a positive integer, got "${v}"`);
      const n = Number(v);
      if (v.replace(/^0+/, "").length > 7 || n > MAX_WORLD_SIZE) throw new UsageError(`--world-size must be at most ${MAX_WORLD_SIZE} (2^20), got "${v}"`);
      opts.settings.worldSize = n;
    },
  },
  "--torchtitan-version": {
    value: "V",
    apply(opts, v) {
      if (v !== "auto" && !parseVersion(v)) throw new UsageError(`--torchtitan-version: unknown version "${v}" (use auto, v0.1.0, v0.2.0, v0.2.1, v0.2.2, v0.2.2+pr2213 or main@YYYY-MM-DD, a real date up to 2026-02-23)`);
      opts.settings.torchtitanVersion = v;
    },
  },
  "--gpu": {
    value: "G",
    apply(opts, v) {
      if (!parseGpu(v)) throw new UsageError(`--gpu: unknown GPU type "${v}" (use ${GPU_IDS.join(", ")})`);
      opts.settings.gpu = v;
    },
  },
  "--torchtitan-config-source": {
    value: "PATH",
    apply(opts, v) {
      if (!v.trim()) throw new UsageError("--torchtitan-config-source needs a path (a fork's job_config.py, config_manager.py, custom config module, or its root folder)");
      opts.settings.torchtitanConfigSource = v;
    },
  },
  "--format": {
    value: "text|json|sarif|github",
    apply(opts, v) {
      if (v !== "text" && v !== "json" && v !== "sarif" && v !== "github") throw new UsageError(`--format must be text, json, sarif or github, got "${v}"`);
      opts.format = v;
    },
  },
  "--quiet": { apply: (opts) => void (opts.quiet = true) },
  "--max-warnings": {
    value: "N",
    apply(opts, v) {
      if (!/^\d+$/.test(v) || v.replace(/^0+/, "").length > 9) throw new UsageError(`--max-warnings must be a non-negative integer, got "${v}"`);
      opts.maxWarnings = Number(v);
    },
  },
  "--stdin-filename": { value: "NAME", apply: (opts, v) => void (opts.stdinFilename = v) },
  "--fix": { apply: (opts) => void (opts.fix = true) },
  "--verbose": { apply: (opts) => void (opts.verbose = true) },
  "--help": { apply: (opts) => void (opts.help = true) },
  "-h": { apply: (opts) => void (opts.help = true) },
};

function parseCheckArgs(args: string[], cwd: string): CheckOptions {
  // origin "cli": --world-size / --torchtitan-version win over in-file directives (workspace/precedence.ts).
  const opts: CheckOptions = { settings: { origin: "cli" }, format: "text", paths: [], fix: false, verbose: false, help: false };
  let onlyPaths = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (onlyPaths || a === "-" || !a.startsWith("-")) {
      if (a === "") throw new UsageError('an empty path ("") is not a file or folder');
      opts.paths.push(a);
      continue;
    }
    if (a === "--") {
      onlyPaths = true;
      continue;
    }
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const spec = Object.prototype.hasOwnProperty.call(CHECK_OPTIONS, flag) ? CHECK_OPTIONS[flag] : undefined;
    if (!spec) throw new UsageError(`unknown option "${a}"`);
    let v = "";
    if (spec.value) {
      const next = eq > 0 ? a.slice(eq + 1) : args[++i];
      if (next === undefined || (eq < 0 && next.startsWith("--"))) throw new UsageError(`${flag} needs a value (${spec.value})`);
      v = next;
    } else if (eq > 0) throw new UsageError(`${flag} takes no value`);
    spec.apply(opts, v);
  }
  // Relative to the folder the CLI runs in, as every path on its command line.
  if (opts.settings.torchtitanConfigSource) opts.settings.torchtitanConfigSource = resolve(cwd, opts.settings.torchtitanConfigSource);
  if (opts.paths.length === 0 && !opts.help) throw new UsageError("check needs at least one file or folder");
  if (!opts.help) checkStdinOptions(opts.paths, opts.stdinFilename, opts.fix);
  return opts;
}

/** `explain --format html`: the flag is taken out before the shared option parser sees the arguments. */
function htmlFormat(args: string[]): { html: boolean; rest: string[] } {
  const at = args.findIndex((a, i) => a === "--format=html" || (a === "--format" && args[i + 1] === "html"));
  if (at < 0) return { html: false, rest: args };
  return { html: true, rest: args.filter((_, i) => i !== at && !(args[at] === "--format" && i === at + 1)) };
}

/** `html`: the visual report (charts, what-if matrix) as one self-contained page instead of Markdown. */
function explain(args: string[], io: CliIO, html = false): number {
  const opts = parseCheckArgs(args, io.cwd);
  if (opts.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (opts.fix || opts.format !== "text" || opts.verbose || opts.quiet || opts.maxWarnings !== undefined || opts.stdinFilename !== undefined) throw new UsageError("explain takes only --world-size, --torchtitan-version, --gpu, --format text|html and one file");
  if (opts.paths.length !== 1) throw new UsageError("explain takes exactly one file");
  const { path: onePath, fn } = splitFunction(opts.paths[0]!);
  if (fn) opts.settings = { ...opts.settings, configFunction: fn };
  const { files, errors } = collectConfigs(onePath, io.cwd);
  if (errors.length || files.length !== 1) {
    io.stderr(`precision-lens: ${escapeControls(opts.paths[0]!)}: ${errors[0]?.error ?? "not a single file"}\n`);
    return 2;
  }
  const f = files[0]!;
  const read = readBounded(f);
  if (!read.ok) {
    io.stderr(`precision-lens: ${escapeControls(opts.paths[0]!)}: ${read.error}\n`);
    return 2;
  }
  const text = decodeUtf8(read.bytes);
  const r = analyzeDocument(pathToFileURL(f).href, text, opts.settings, nodeEnv(f, [io.cwd]), formatOf(f));
  addEncodingDiagnostic(r, read.bytes);
  const missing = fn ? missingFunction(r, fn) : undefined;
  if (missing) {
    io.stderr(`precision-lens: ${escapeControls(opts.paths[0]!)}: ${missing}\n`);
    return 2;
  }
  if (html) {
    io.stdout(renderReportHtml(buildReportView(r, { settings: opts.settings }), { nonce: randomBytes(16).toString("base64") }));
    return exitCode([{ path: opts.paths[0]!, result: r }]);
  }
  const shown = escapeControls(opts.paths[0]!);
  if (!r.reportMarkdown) {
    io.stdout(`${shown}: ${escapeLines(r.frameworkReason)}; no precision report.\n`);
    for (const d of r.diagnostics) io.stdout(`- line ${d.range.start.line + 1}: ${d.severity} [${d.code}] ${escapeControls(d.message)}\n`);
    return exitCode([{ path: shown, result: r }]);
  }
  // The report ends with its own "## Diagnostics" section (every diagnostic with its explanation).
  io.stdout(escapeLines(r.reportMarkdown) + "\n");
  return exitCode([{ path: shown, result: r }]);
}

/** Escapes control characters line by line, keeping the newlines of a multi-line text. */
function escapeLines(s: string): string {
  return s.split("\n").map(escapeControls).join("\n");
}

function schema(args: string[], io: CliIO): number {
  let v = "v0.2.2";
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--help" || a === "-h") {
      io.stdout(USAGE);
      return 0;
    }
    if (a === "--torchtitan-version") v = args[++i] ?? "";
    else if (a.startsWith("--torchtitan-version=")) v = a.slice("--torchtitan-version=".length);
    else throw new UsageError(`schema: unexpected argument "${a}"`);
  }
  const version = parseVersion(v);
  if (!version) throw new UsageError(`--torchtitan-version: unknown version "${v}" (use v0.1.0, v0.2.0, v0.2.1, v0.2.2 or main@YYYY-MM-DD, a real date up to 2026-02-23)`);
  io.stdout(torchtitanJsonSchemaText(version.schemaRelease));
  return 0;
}

/**
 * Not valid UTF-8: torchtitan's tomllib (and Python's YAML/JSON loaders reading UTF-8) reject the file, so
 * a training config gets an error at the first bad byte; other files get nothing. --fix never rewrites it.
 */
function addEncodingDiagnostic(r: AnalysisResult, bytes: Uint8Array): boolean {
  const bad = firstInvalidUtf8(bytes);
  if (bad < 0) return false;
  if (!r.framework && !r.likelyFramework) return true;
  const offset = decodeUtf8(bytes.subarray(0, bad)).length;
  const pos = new LineIndex(r.doc.text).positionAt(offset);
  const loader = r.format === "toml" ? "torchtitan's tomllib rejects it" : "Python's loaders reading it as UTF-8 reject it";
  r.diagnostics.unshift(
    diag("invalid-utf8", "error", { start: pos, end: { line: pos.line, character: pos.character + 1 } }, `This file is not valid UTF-8 (byte 0x${bytes[bad]!.toString(16).padStart(2, "0")} at offset ${bad}): ${loader}`, undefined, { detail: `This file is not valid UTF-8 (byte 0x${bytes[bad]!.toString(16).padStart(2, "0")} at offset ${bad}): ${loader}. Save it as UTF-8; --fix does not rewrite it.` }),
  );
  return true;
}

/** `FILE.py::function` names one torchtitan config function of a Python registry. */
export function splitFunction(arg: string): { path: string; fn?: string } {
  const m = /^(.+\.py)::([A-Za-z_][A-Za-z0-9_]*)$/.exec(arg);
  return m ? { path: m[1]!, fn: m[2]! } : { path: arg };
}

/** The error for `FILE.py::function` when the file has no such config function. */
function missingFunction(r: AnalysisResult, fn: string): string | undefined {
  if (r.configFunctions?.some((f) => f.name === fn)) return undefined;
  if (r.framework !== "torchtitan" || r.format !== "python") return `\`::${fn}\` needs a torchtitan Python config registry; this file is not one (${r.frameworkReason})`;
  return `no config function \`${fn}\` returning Trainer.Config in this file`;
}

function skippedResult(uri: string, reason: string, format: AnalysisResult["format"]): AnalysisResult {
  const doc: ConfigDocument = { uri, format, text: "", lines: new LineIndex(""), entries: [], sections: [], comments: [], syntaxErrors: [], skipped: reason };
  return { uri, format, doc, hovers: [], framework: null, frameworkReason: reason, diagnostics: [] };
}

/** One file, start to end. Never throws: a failure is an internal-error for this file only. */
function checkFile(f: string, shown: string, opts: CheckOptions, io: CliIO): FileOutcome {
  const uri = pathToFileURL(f).href;
  // The extension's format; a file whose extension says nothing (a DeepSpeed `ds_config.conf`) is sniffed by
  // analyzeDocument from its text (issue #17 §3: it was read as TOML here and got nothing).
  const extFormat = formatOf(f);
  let format = extFormat ?? "toml";
  const read = readBounded(f);
  if (!read.ok) {
    if (read.tooLarge) return { path: shown, result: skippedResult(uri, `Precision Lens did not analyse this file: it is ${read.tooLarge.size} bytes, over the limit of ${read.tooLarge.limit}.`, format) };
    return { path: shown, error: read.error };
  }
  let text = decodeUtf8(read.bytes);
  format = extFormat ?? sniffFormat(text) ?? "toml";
  try {
    const env = nodeEnv(f, [io.cwd]);
    let fixes: FixAllResult | undefined;
    let fixError: string | undefined;
    const invalidUtf8 = firstInvalidUtf8(read.bytes) >= 0;
    if (opts.fix && !invalidUtf8) {
      fixes = fixAll(uri, text, opts.settings, env);
      if (fixes.changed) {
        const w = replaceFileAtomically(f, Buffer.from(fixes.text, "utf8"), read);
        if (w.ok) text = fixes.text;
        else {
          fixError = w.error;
          fixes = { ...fixes, applied: [], changed: false };
        }
      }
    }
    const result = analyzeDocument(uri, text, opts.settings, env, format);
    addEncodingDiagnostic(result, text === fixes?.text ? Buffer.from(text, "utf8") : read.bytes);
    const out: FileOutcome = { path: shown, result };
    if (fixes) out.fixes = fixes;
    if (fixError) out.fixError = fixError;
    return out;
  } catch (e) {
    return { path: shown, result: internalErrorResult(uri, text, format, e) };
  }
}

function check(opts: CheckOptions, io: CliIO): number {
  // Streaming (cli/stream.ts): each file is written and released as soon as it is analysed; the exit code
  // and --max-warnings come from counters. Read errors go to stderr at the end, as before.
  const out = checkWriter(opts.format, io.cwd, (s) => io.stdout(s));
  const counters: CheckCounters = { internal: false, failed: false, errors: false, warnings: 0 };
  const readErrors: string[] = [];
  const fixErrors: string[] = [];
  const seen = new Set<string>();
  const done = (o: FileOutcome): void => {
    count(counters, o);
    if (o.error) readErrors.push(`precision-lens: ${escapeControls(o.path)}: ${o.error}\n`);
    if (o.fixError) fixErrors.push(`precision-lens: ${escapeControls(o.path)}: ${o.fixError}\n`);
    if (opts.quiet && o.result) o.result = errorsOnly(o.result);
    out.file(o);
  };
  for (const arg of opts.paths) {
    const { path: p, fn } = splitFunction(arg);
    if (p === "-") {
      done(analyzeStdin(opts.stdinFilename!, opts.settings, io, MAX_FILE_BYTES));
      continue;
    }
    const { files, errors, skipped } = collectConfigs(p, io.cwd, seen);
    for (const e of errors) done(e);
    if (opts.verbose) for (const s of skipped) io.stderr(`precision-lens: ${escapeControls(s.path)}: ${s.error}\n`);
    const fileOpts = fn ? { ...opts, settings: { ...opts.settings, configFunction: fn } } : opts;
    for (const f of files) {
      const o: FileOutcome = { ...checkFile(f, relative(io.cwd, f) || f, fileOpts, io), absPath: f };
      const missing = fn && o.result ? missingFunction(o.result, fn) : undefined;
      done(missing ? { path: o.path, error: missing } : o);
    }
  }
  out.end();
  for (const e of readErrors) io.stderr(e);
  for (const e of fixErrors) io.stderr(e);
  const code = counters.internal ? EXIT_INTERNAL : counters.failed ? 2 : counters.errors ? 1 : 0;
  if (code !== 0 && code !== 1) return code;
  const warnings = counters.warnings;
  const tooMany = opts.maxWarnings !== undefined && warnings > opts.maxWarnings;
  if (tooMany) io.stderr(`precision-lens: ${warnings} warning${warnings === 1 ? "" : "s"}, more than --max-warnings ${opts.maxWarnings}\n`);
  return tooMany ? 1 : code;
}

function exitCode(outcomes: FileOutcome[]): number {
  if (outcomes.some((o) => o.result?.diagnostics.some((d) => d.code === "internal-error"))) return EXIT_INTERNAL;
  if (outcomes.some((o) => o.error || o.fixError)) return 2;
  return outcomes.some((o) => o.result?.diagnostics.some((d) => d.severity === "error")) ? 1 : 0;
}

export { fileJson };
