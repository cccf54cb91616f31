/** One file of `check`, read, fixed and analysed; and the helpers `explain` shares with it. */
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import type { AnalysisResult } from "../core/analysis";
import { analyzeDocument, formatOf, internalErrorResult, sniffFormat } from "../core/analyze";
import { fixAll, type FixAllResult } from "../core/features/fixAll";
import type { ConfigDocument } from "../core/model/document";
import { LineIndex } from "../core/model/lineIndex";
import { firstInvalidUtf8, readBounded } from "../host/files";
import { addEncodingDiagnostic, decodeConfig } from "./encoding";
import { isWithin, nodeEnv } from "../host/nodeEnv";
import { replaceFileAtomically } from "../host/replaceFile";
import type { CliIO } from "./io";
import type { CheckOptions } from "./options";
import type { FileOutcome } from "./stream";

/** `FILE.py::function` names one torchtitan config function of a Python registry. */
export function splitFunction(arg: string): { path: string; fn?: string } {
  const m = /^(.+\.py)::([A-Za-z_][A-Za-z0-9_]*)$/.exec(arg);
  return m ? { path: m[1]!, fn: m[2]! } : { path: arg };
}

/** The error for `FILE.py::function` when the file has no such config function. */
export function missingFunction(r: AnalysisResult, fn: string): string | undefined {
  if (r.configFunctions?.some((f) => f.name === fn)) return undefined;
  if (r.framework !== "torchtitan" || r.format !== "python") return `\`::${fn}\` needs a torchtitan Python config registry; this file is not one (${r.frameworkReason})`;
  return `no config function \`${fn}\` returning Trainer.Config in this file`;
}

function skippedResult(uri: string, reason: string, format: AnalysisResult["format"]): AnalysisResult {
  const doc: ConfigDocument = { uri, format, text: "", lines: new LineIndex(""), entries: [], sections: [], comments: [], syntaxErrors: [], skipped: reason };
  return { uri, format, doc, hovers: [], framework: null, frameworkReason: reason, diagnostics: [] };
}

/**
 * One file, start to end. Never throws: a failure is an internal-error for this file only. `raw`: the real
 * path (bytes) of a file whose name is not valid UTF-8 (`f` then shows its bad bytes as `\xNN`); it is read
 * through those bytes and analysed like any other, but --fix does not rewrite it.
 */
export function checkFile(f: string, shown: string, opts: CheckOptions, io: CliIO, raw?: Buffer, tree?: string): FileOutcome {
  const uri = pathToFileURL(f).href;
  // The extension's format; a file whose extension says nothing (a DeepSpeed `ds_config.conf`) is sniffed by
  // analyzeDocument from its text (issue #17 §3: it was read as TOML here and got nothing).
  const extFormat = formatOf(f);
  let format = extFormat ?? "toml";
  const read = readBounded(raw ?? f);
  if (!read.ok) {
    if (read.tooLarge) return { path: shown, result: skippedResult(uri, `Precision Lens did not analyse this file: it is ${read.tooLarge.size} bytes, over the limit of ${read.tooLarge.limit}.`, format) };
    return { path: shown, error: read.error };
  }
  const decoded = decodeConfig(read.bytes);
  let text = decoded.text;
  format = extFormat ?? sniffFormat(text) ?? "toml";
  try {
    // The workspace: the working directory, and the folder named on the command line (its files may name each
    // other); a file outside both reads only within its own folder or git repository (core/workspace/boundary.ts).
    // (Its own folder stays the innermost root, so paths are shown as before.)
    const env = nodeEnv(f, tree && !isWithin(f, io.cwd) ? [io.cwd, tree, dirname(f)] : [io.cwd], io.snapshot);
    let fixes: FixAllResult | undefined;
    let fixError: string | undefined;
    const invalidUtf8 = firstInvalidUtf8(read.bytes) >= 0;
    if (opts.fix && !invalidUtf8) {
      fixes = fixAll(uri, text, opts.settings, env);
      if (fixes.changed && raw) {
        fixError = "not rewritten: the file name is not valid UTF-8; apply the fixes by hand";
        fixes = { ...fixes, applied: [], changed: false };
      } else if (fixes.changed) {
        const w = replaceFileAtomically(f, Buffer.from(fixes.text, "utf8"), read);
        if (w.ok) {
          text = fixes.text;
          // A later file of this run may read this one (a DeepSpeed JSON beside its launcher config).
          io.snapshot?.invalidate([f]);
        } else {
          fixError = w.error;
          fixes = { ...fixes, applied: [], changed: false };
        }
      }
    }
    const result = analyzeDocument(uri, text, opts.settings, env, format);
    addEncodingDiagnostic(result, text === fixes?.text ? Buffer.from(text, "utf8") : read.bytes, decoded.encoding);
    const out: FileOutcome = { path: shown, result };
    if (fixes) out.fixes = fixes;
    if (fixError) out.fixError = fixError;
    return out;
  } catch (e) {
    return { path: shown, result: internalErrorResult(uri, text, format, e) };
  }
}
