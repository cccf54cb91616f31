/**
 * The streaming output of `precision-lens check` (issue #21): each file's outcome is written as soon as it
 * is analysed and then dropped, so memory stays flat in the number of files; the summary line and the exit
 * code come from counters. The bytes are those of the whole-run renderers they replace: JSON is
 * `JSON.stringify({version: 1, files}, null, 2)` written item by item; SARIF writes its rules (known only at
 * the end) before its results, so it keeps each file's results as serialized text, not the analyses.
 */
import { resolve } from "node:path";
import type { AnalysisResult } from "../core/analysis";
import { simulationToJson } from "../core/engine";
import { headline } from "../core/features/index";
import { formatFixReport, type FixAllResult } from "../core/features/fixAll";
import { logLine } from "../host/terminal";
import { diagnosticJson } from "./diagnosticJson";
import { githubLines } from "./github";
import type { ReportedFile } from "./report";
import { SarifBuilder } from "./sarif";

export interface FileOutcome {
  path: string;
  /** Absolute path (for standard input: --stdin-filename resolved against the working directory). */
  absPath?: string;
  result?: AnalysisResult;
  error?: string;
  fixes?: FixAllResult;
  /** Why --fix did not write the fixed text (the file changed meanwhile, a write failed, ...). */
  fixError?: string;
  /** Named on the command line (not found by a folder walk): a file that is not a config says why. */
  named?: boolean;
  /** Warnings --quiet took out of `result` (still counted in the summary, issue #34). */
  quietWarnings?: number;
}

/** What the text output shows beyond one line per diagnostic. */
export interface TextOptions {
  /** Each diagnostic's detail (the long explanation, with the fix) under its line. */
  verbose?: boolean;
  /** Only errors are listed (--quiet); the summary says so. */
  quiet?: boolean;
}

export type CheckFormat = "text" | "json" | "sarif" | "github";

/** What the exit code and --max-warnings need, counted as the files go by. */
export interface CheckCounters {
  internal: boolean;
  failed: boolean;
  errors: boolean;
  /** Warnings before --quiet filters them. */
  warnings: number;
}

export interface CheckWriter {
  file(o: FileOutcome): void;
  end(): void;
}

export function checkWriter(format: CheckFormat, cwd: string, write: (s: string) => void, text: TextOptions = {}): CheckWriter {
  switch (format) {
    case "json":
      return jsonWriter(write);
    case "sarif":
      return sarifWriter(cwd, write);
    case "github":
      return {
        file(o) {
          if (!o.result) return;
          const lines = githubLines(reportedFile(o, cwd));
          if (lines.length) write(lines.join("\n") + "\n");
        },
        end() {},
      };
    case "text":
      return textWriter(write, text);
  }
}

function reportedFile(o: FileOutcome, cwd: string): ReportedFile {
  return { path: o.path, absPath: o.absPath ?? resolve(cwd, o.path), result: o.result! };
}

/** Indents every line but the first (JSON strings hold no raw newline, so lines are JSON's own). */
function indent(json: string, by: string): string {
  return by + json.replace(/\n/g, `\n${by}`);
}

function jsonWriter(write: (s: string) => void): CheckWriter {
  let n = 0;
  return {
    file(o) {
      if (!o.result) return;
      const j = fileJson(o.path, o.result);
      if (o.fixes) j.fixes = { applied: o.fixes.applied, needsChoice: o.fixes.needsChoice };
      if (o.fixError) j.fixError = o.fixError;
      write(`${n++ ? "," : '{\n  "version": 1,\n  "files": ['}\n${indent(JSON.stringify(j, null, 2), "    ")}`);
    },
    end() {
      write(n ? "\n  ]\n}\n" : '{\n  "version": 1,\n  "files": []\n}\n');
    },
  };
}

function sarifWriter(cwd: string, write: (s: string) => void): CheckWriter {
  const b = new SarifBuilder(cwd);
  const chunks: string[] = [];
  const at = "        ";
  return {
    file(o) {
      if (o.result) for (const r of b.results(reportedFile(o, cwd))) chunks.push(indent(JSON.stringify(r, null, 2), at));
    },
    end() {
      const log = JSON.stringify(b.log([]), null, 2);
      const key = '"results": []';
      const i = log.lastIndexOf(key);
      write(chunks.length ? `${log.slice(0, i)}"results": [\n${chunks.join(",\n")}\n      ]${log.slice(i + key.length)}\n` : `${log}\n`);
    },
  };
}

/**
 * `byLauncher` (issue #31): the launcher is unknown and the candidate launchers disagree on a row, whose value above is
 * then null: each such row's dtype under every candidate ("single GPU/DDP", "DeepSpeed ZeRO-3", "FSDP2"). Absent otherwise.
 */
function byLauncherJson(p: NonNullable<AnalysisResult["precision"]>): { byLauncher?: Record<string, Record<string, string | null>> } {
  const rows = (["paramStorage", "compute", "gradReduce"] as const).filter((k) => p[k].byLauncher);
  return rows.length ? { byLauncher: Object.fromEntries(rows.map((k) => [k, { ...p[k].byLauncher! }])) } : {};
}

/** The JSON contract, version 1, of one file. Extend only by adding fields. */
export function fileJson(path: string, r: AnalysisResult): Record<string, unknown> {
  const out: Record<string, unknown> = {
    path,
    framework: r.framework,
    frameworkReason: r.frameworkReason,
    // `kind` (issue #17): the provenance of the fact, docs/provenance.md; added after the fields it extends.
    worldSize: r.worldSize ? { value: r.worldSize.value, source: r.worldSize.source, kind: r.worldSize.kind } : null,
    parallel: r.parallel ? { ...r.parallel } : null,
    mechanism: r.mechanism ?? null,
    precision: r.precision ? { paramStorage: r.precision.paramStorage.dtype, compute: r.precision.compute.dtype, gradReduce: r.precision.gradReduce.dtype, ...(r.precision.paramStorageParts ? { paramStorageParts: r.precision.paramStorageParts.map((x) => ({ modules: x.modules, dtype: x.dtype })) } : {}), ...byLauncherJson(r.precision) } : null,
    diagnostics: r.diagnostics.map(diagnosticJson),
  };
  if (r.doc.skipped) out.skipped = r.doc.skipped;
  if (r.torchtitanVersion) {
    const v = r.torchtitanVersion;
    out.torchtitanVersion = { value: v.value, source: v.source, kind: v.kind, ...(v.decidedBy ? { decidedBy: v.decidedBy } : {}) };
  }
  // transformers family: the package versions the rules read (the oracle runs the frameworks at them).
  if (r.packageVersions) out.packageVersions = r.packageVersions;
  if (r.framework === "torchtitan") out.simulation = r.simulation ? simulationToJson(r.simulation) : null;
  const fns = r.configFunctions;
  if (fns?.length) {
    // A registry is not summarised by its first function (issue #30 §4): with several, the file-level layout,
    // world size, mechanism, precision and simulation are null and each function has its entry.
    if (fns.length > 1) {
      out.worldSize = null;
      out.parallel = null;
      out.mechanism = null;
      out.precision = null;
      out.simulation = null;
    }
    out.configFunctions = fns.map((f) => ({
      name: f.name,
      range: f.range,
      headline: f.detail,
      worldSize: f.worldSize ? { value: f.worldSize.value, source: f.worldSize.source, kind: f.worldSize.kind } : null,
      parallel: f.parallel ? { ...f.parallel } : null,
      layoutName: f.layoutName ?? null,
      mechanism: f.mechanism ?? null,
      precision: f.precision ? { paramStorage: f.precision.paramStorage.dtype, compute: f.precision.compute.dtype, gradReduce: f.precision.gradReduce.dtype } : null,
      // the run script that launches the function and its flags as written (the registry oracle hands them to tyro)
      ...(f.launch ? { launch: { script: f.launch.script, flags: [...f.launch.flags] } } : {}),
      diagnostics: (f.diagnostics ?? []).map(diagnosticJson),
    }));
  }
  return out;
}

function textWriter(write: (s: string) => void, opts: TextOptions): CheckWriter {
  let errors = 0;
  let warnings = 0;
  let analysed = 0;
  let skipped = 0;
  let written = 0;
  let unreadable = 0;
  const emit = (lines: string[]) => {
    written += lines.length;
    if (lines.length) write(lines.map(logLine).join("\n") + "\n");
  };
  const diagnosticLines = (path: string, d: AnalysisResult["diagnostics"][number]): string[] => {
    const line = `  ${path}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.severity} [${d.code}] ${d.message}`;
    // --verbose: the long explanation (what to do about it) under the message, whole (issue #34).
    return opts.verbose && d.detail ? [line, `      ${d.detail}`] : [line];
  };
  return {
    file(o) {
      if (!o.result) {
        if (o.error) unreadable++;
        return;
      }
      const r = o.result;
      warnings += o.quietWarnings ?? 0;
      const lines: string[] = [];
      if (r.doc.skipped) {
        lines.push(`${o.path}: not analysed: ${r.doc.skipped}`);
        skipped++;
        for (const d of r.diagnostics) {
          if (d.code === "not-analysed") continue;
          // Counted like an analysed file's (a nul-bytes error makes the exit code 1: the summary says so).
          if (d.severity === "error") errors++;
          if (d.severity === "warning") warnings++;
          lines.push(...diagnosticLines(o.path, d));
        }
        return emit(lines);
      }
      if (!r.framework) {
        // A file named on the command line says why it is not a config (a folder walk stays quiet on those).
        if (r.diagnostics.length === 0 && !o.fixes?.changed && !o.named) return;
      } else analysed++;
      const parts: string[] = [r.framework ?? `not a training config: ${r.frameworkReason}`];
      if (r.torchtitanVersion) parts[0] += ` ${r.torchtitanVersion.value}`;
      const fns = r.configFunctions ?? [];
      if (fns.length > 1) parts.push(`${fns.length} config functions`);
      else {
        const h = headline(r, { framework: false });
        if (h) parts.push(h);
        if (r.worldSize) parts.push(`world size from ${r.worldSize.detail}`);
      }
      lines.push(`${o.path}: ${parts.join(" · ")}`);
      // One line per config function (issue #30 §4): where it is and what it resolves to.
      if (fns.length > 1) for (const f of fns) lines.push(`  ${o.path}:${f.selectionRange.start.line + 1}:${f.selectionRange.start.character + 1}: ${f.name}(): ${f.detail}${f.worldSize ? ` · world size from ${f.worldSize.detail}` : ""}`);
      if (o.fixes) for (const l of formatFixReport(o.path, o.fixes)) lines.push(`  ${l}`);
      for (const d of r.diagnostics) {
        if (d.severity === "error") errors++;
        if (d.severity === "warning") warnings++;
        lines.push(...diagnosticLines(o.path, d));
      }
      emit(lines);
    },
    end() {
      // Nothing but unreadable paths (`check nonexist.toml`): the error on stderr says it all, no "0 checked".
      if (unreadable && !written && !analysed) return;
      const lines: string[] = [];
      if (skipped) lines.push(`${skipped} file${skipped === 1 ? "" : "s"} not analysed (over a size limit, binary, or too deeply nested)`);
      const quiet = opts.quiet && warnings ? " (--quiet: warnings not listed)" : "";
      lines.push(`${analysed} training config${analysed === 1 ? "" : "s"} checked: ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}${quiet}`);
      emit(lines);
    },
  };
}

/** Adds one outcome to the counters (before --quiet filters its diagnostics). */
export function count(c: CheckCounters, o: FileOutcome): void {
  if (o.error || o.fixError) c.failed = true;
  for (const d of o.result?.diagnostics ?? []) {
    if (d.code === "internal-error") c.internal = true;
    if (d.severity === "error") c.errors = true;
    else if (d.severity === "warning") c.warnings++;
  }
}
