/**
 * The single entry point of the analysis core: (uri, text, settings, env) → AnalysisResult.
 * Parses once, detects the framework, runs its analyser, and never throws: an internal failure becomes
 * a diagnostic so the user sees that something went wrong instead of a silent editor.
 */
import { boundToWorkspace } from "./workspace/boundary";
import { NO_ENV, type AnalysisEnv, type AnalysisResult, type AnalysisSettings } from "./analysis";
import { applyCodeTags } from "./diagnostics/codes";
import { briefOf, diag, sortDiagnostics } from "./diagnostics/build";
import { diagnosticsReportSection, REPORT_DIAGNOSTICS_SEPARATOR } from "./features/explain";
import { directiveValue, parseDirectives } from "./diagnostics/directives";
import { FRAMEWORKS, frameworkById } from "./frameworks/index";
import { firstContentChar } from "./frameworks/common/view";
import type { ConfigDocument, ConfigFormat } from "./model/document";
import { parseJsonDocument } from "./parse/json";
import { isRecovered, unparsedKeys } from "./parse/partial";
import { isBinaryReason, isNestingReason, MAX_ANALYSED_CHARS } from "./parse/guard";
import { parsePythonDocument } from "./parse/python";
import { parseShellDocument } from "./parse/shell";
import { parseTomlDocument } from "./parse/toml";
import { applySuppressions } from "./diagnostics/suppress";
import { LineIndex } from "./model/lineIndex";
import { assignLazy, copyLazy, defineLazy, lazyValue } from "./model/lazy";
import type { Diagnostic, Range } from "./model/types";
import { parseYamlDocument, yamlParseNotes } from "./parse/yaml";

export function formatOf(uri: string): ConfigFormat | undefined {
  const path = uri.split(/[?#]/)[0]!.toLowerCase();
  if (path.endsWith(".toml")) return "toml";
  if (path.endsWith(".yaml") || path.endsWith(".yml")) return "yaml";
  if (path.endsWith(".json")) return "json";
  if (path.endsWith(".py")) return "python";
  if (/\.(sh|bash|slurm|sbatch)$/.test(path)) return "shell";
  return undefined;
}

/**
 * For a file whose extension says nothing (`ds_config.conf`, no extension): a document that opens with
 * `{` is JSON, or YAML when it carries `#` comments (gpt-neox style); anything else stays TOML.
 */
export function sniffFormat(text: string): ConfigFormat | undefined {
  if (firstContentChar(text) !== "{") return undefined;
  return /^[ \t]*#/m.test(text) ? "yaml" : "json";
}

export function parseDocument(uri: string, text: string, format: ConfigFormat): ConfigDocument {
  switch (format) {
    case "toml":
      return parseTomlDocument(uri, text);
    case "yaml":
      return parseTemplatedYaml(uri, text);
    case "json":
      return parseJsonDocument(uri, text);
    case "python":
      return parsePythonDocument(uri, text);
    case "shell":
      return parseShellDocument(uri, text);
  }
}

/**
 * YAML with Jinja placeholders (`path: {{model_dir}}/vocab.json`, a config rendered before launch) does not
 * parse as written. When it fails to parse and holds `{{`, each `{{…}}` is read as a null of the same length
 * (`~` and spaces) and `{%…%}`/`{#…#}` as spaces, so offsets and lines stay those of the real text; if that
 * parses, the analysis goes on on it instead of reporting the placeholders as syntax errors.
 */
function parseTemplatedYaml(uri: string, text: string): ConfigDocument {
  const doc = parseYamlDocument(uri, text);
  // Templates are small; a second parse of a large broken file is not worth its time.
  if (!doc.syntaxErrors.length || text.length > 200_000 || !text.includes("{{")) return doc;
  const masked = text.replace(/\{\{[^\n{}]*\}\}/g, (m) => `~${" ".repeat(m.length - 1)}`).replace(/\{%[^\n{}%]*%\}|\{#[^\n{}#]*#\}/g, (m) => " ".repeat(m.length));
  const m = parseYamlDocument(uri, masked);
  return m.syntaxErrors.length || m.skipped ? doc : { ...m, text, lines: doc.lines };
}

export function analyzeDocument(uri: string, text: string, settings: AnalysisSettings = {}, env: AnalysisEnv = NO_ENV, formatHint?: ConfigFormat): AnalysisResult {
  const format = formatHint ?? formatOf(uri) ?? sniffFormat(text) ?? "toml";
  try {
    // Every file the analysis follows is read inside the document's workspace only (issue #33).
    return analyzeParsed(uri, text, settings, boundToWorkspace(env), format);
  } catch (e) {
    // Whatever failed (a parser's stack overflow included), this file gets one internal-error and the
    // caller's other files and requests go on. Never a syntax error: the file may well be valid.
    return internalErrorResult(uri, text, format, e);
  }
}

/** The result for a file whose analysis threw: an `internal-error` diagnostic on the first line. */
export function internalErrorResult(uri: string, text: string, format: ConfigFormat, e: unknown): AnalysisResult {
  const message = e instanceof Error ? e.message : String(e);
  const doc: ConfigDocument = { uri, format, text, lines: new LineIndex(text), entries: [], sections: [], comments: [], syntaxErrors: [] };
  return {
    uri,
    format,
    doc,
    hovers: [],
    framework: null,
    frameworkReason: `Precision Lens failed to analyse this file (${message})`,
    diagnostics: [diag("internal-error", "error", { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, `Precision Lens failed to analyse this file (${message}). Please report it; your file is unchanged.`)],
  };
}

function analyzeParsed(uri: string, text: string, settings: AnalysisSettings, env: AnalysisEnv, format: ConfigFormat): AnalysisResult {
  const doc = parseDocument(uri, text, format);
  const base = { uri, format, doc, hovers: [] as AnalysisResult["hovers"] };
  if (doc.skipped) {
    // Not analysed (too large, binary, nested too deep): the hover, status and CLI show the reason. A file
    // nested too deep that looks like a training config also gets one warning; unrelated files stay silent.
    // Detection from table headers (a line scan) only up to a few MB, so a 50 MB document stays cheap.
    const nul = isBinaryReason(doc.skipped) ? nulBytes(uri, text, format) : undefined;
    const likely = nul?.framework ?? (doc.text.length <= 4 * MAX_ANALYSED_CHARS ? FRAMEWORKS.find((f) => f.formats.includes(format) && f.detect(salvage(doc))) : undefined);
    const diagnostics = nul?.diagnostic ? [nul.diagnostic] : likely && isNestingReason(doc.skipped) ? [diag("not-analysed", "warning", { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, briefOf(doc.skipped).message, undefined, briefOf(doc.skipped).extra)] : [];
    const out: AnalysisResult = { ...base, framework: null, frameworkReason: doc.skipped, diagnostics };
    if (likely) out.likelyFramework = likely.id;
    return out;
  }

  const directives = parseDirectives(doc.comments);
  if (directiveValue(directives, "off")) {
    return { ...base, framework: null, frameworkReason: "turned off by a `# precision-lens: off` comment", diagnostics: [] };
  }
  const forced = directiveValue(directives, "framework");
  let analyzer = forced ? frameworkById(forced.value, format) : undefined;
  // A Python file is only ever read by the torchtitan registry front end (its model is the parsed module).
  if (analyzer && !analyzer.formats.includes(format)) analyzer = undefined;
  let reason = analyzer ? `set by a \`# precision-lens: framework=${forced!.value}\` comment` : "";
  if (!analyzer) {
    for (const f of FRAMEWORKS) {
      if (!f.formats.includes(format)) continue;
      // A file with syntax errors is detected and analysed from what still parses, when its front end
      // recovered (issue #14); a truncated model (JSON stops at the first error) is not analysed.
      const why = !doc.syntaxErrors.length || isRecovered(doc) ? f.detect(doc) : undefined;
      if (why) {
        const declined = f.declines?.(doc, env);
        if (declined) return { ...base, framework: null, frameworkReason: declined, diagnostics: [] };
        analyzer = f;
        reason = why;
        break;
      }
    }
  }
  if (!analyzer && doc.syntaxErrors.length) {
    // A broken file may well be a training config: report the syntax error only when it looks like one,
    // so unrelated TOML files (pyproject.toml, Cargo.toml) never get our diagnostics.
    const likely = FRAMEWORKS.find((f) => f.formats.includes(format) && f.detect(salvage(doc)));
    const diagnostics = likely ? doc.syntaxErrors.map((e) => syntaxDiag(format, e)) : [];
    const out: AnalysisResult = { ...base, framework: null, frameworkReason: likely ? `the file does not parse (it looks like a ${likely.id} config)` : "no training-config markers found", diagnostics };
    if (likely) out.likelyFramework = likely.id;
    // Completion still works while a new key is half typed (a JSON file stops parsing at it).
    if (likely?.keyCompletions) defineLazy(out, "keyCompletions", () => likely.keyCompletions!(salvage(doc), env));
    return out;
  }
  if (!analyzer) {
    // A hostile YAML file that is no config still says why it was cut short (the hover/status show this).
    const notes = format === "yaml" ? yamlParseNotes(doc).map((n) => n.detail) : [];
    return { ...base, framework: null, frameworkReason: ["no training-config markers found", ...notes].join("; "), diagnostics: [] };
  }

  try {
    const r = analyzer.analyze(doc, settings, env);
    // Suppressions (`# precision-lens: disable=CODE`) apply to every framework; unused ones add hints. Tags
    // (unnecessary, deprecated) come from the code registry, per code, for every analyser alike.
    const diagnostics = sortDiagnostics(applyCodeTags(applySuppressions(doc, r.diagnostics)));
    // Getters stay getters (core/model/lazy.ts): hovers, inlay hints and the report are built only when read.
    const out = assignLazy({ ...base }, r, { framework: analyzer.id, frameworkReason: reason, diagnostics }) as AnalysisResult;
    // Every framework's report opens with the same title (the file), then the framework's own summary, and
    // ends with every diagnostic and its long explanation (messages are one short sentence). One lazy step.
    if ("reportMarkdown" in out) {
      const report = lazyValue(out, "reportMarkdown");
      // A wrapper of the framework's lazy report, not a computation of its own (lazyComputations counts that one).
      defineLazy(out, "reportMarkdown", () => {
        const md = report();
        if (!md) return md;
        const titled = `${reportTitle(doc.uri)}\n\n${md}`;
        return diagnostics.length ? `${titled}${REPORT_DIAGNOSTICS_SEPARATOR}${diagnosticsReportSection(diagnostics).replace(/^## Diagnostics/, "")}` : titled;
      }, { counted: false });
    }
    return doc.syntaxErrors.length ? withSyntaxErrors(out, format) : out;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return {
      ...base,
      framework: analyzer.id,
      frameworkReason: reason,
      diagnostics: [diag("internal-error", "error", { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, `Precision Lens failed to analyse this file (${message}). Please report it; your file is unchanged.`)],
    };
  }
}

/** The report's first line, the same for every framework. */
export function reportTitle(uri: string): string {
  return `# Precision report: ${uri.split("/").pop() ?? uri}`;
}

/**
 * A file with syntax errors that was analysed from what still parses: the syntax errors join the
 * diagnostics (never suppressed), and every hover says which keys were set aside and count as absent.
 */
function withSyntaxErrors(r: AnalysisResult, format: ConfigFormat): AnalysisResult {
  const syntax = r.doc.syntaxErrors.map((e) => syntaxDiag(format, e));
  const keys = unparsedKeys(r.doc);
  const lines = r.doc.syntaxErrors.map((e) => e.range.start.line + 1);
  const absent = keys.length ? `; ${keys.map((k) => `\`${k.path.join(".")}\``).join(", ")} ${keys.length === 1 ? "counts" : "count"} as absent (${keys.length === 1 ? "its default applies" : "their defaults apply"})` : "";
  const note = `_${lines.length === 1 ? `Line ${lines[0]} does` : `Lines ${lines.join(", ")} do`} not parse: this picture is of the rest of the file${absent}._`;
  const baseHovers = lazyValue(r, "hovers");
  const out: AnalysisResult = copyLazy(r);
  defineLazy(out, "hovers", () => {
    const hovers = baseHovers().map((h) => ({ ...h, markdown: `${h.markdown}\n\n---\n${note}` }));
    for (const k of keys) {
      hovers.push({
        range: k.range,
        markdown: `**\`${k.path.join(".")}\` does not parse**, so the analysis counts it as absent: ${r.framework ?? "the framework"}'s default applies until the syntax error on this line is fixed.`,
      });
    }
    return hovers;
  });
  out.diagnostics = sortDiagnostics([...r.diagnostics, ...syntax]);
  if ("reportMarkdown" in r) {
    const report = lazyValue(r, "reportMarkdown");
    defineLazy(out, "reportMarkdown", () => {
      const md = report();
      if (!md) return md;
      const title = reportTitle(r.uri);
      return md.startsWith(`${title}\n`) ? `${title}\n\n> ${note}${md.slice(title.length)}` : `> ${note}\n\n${md}`;
    });
  }
  return out;
}

/**
 * A file skipped as binary for its NUL bytes: when the text without them is a training config, one error
 * (torchtitan's tomllib, PyYAML's reader and Python's json all reject a NUL anywhere in the file); any other
 * binary file stays silent. The NUL-free text is parsed only to recognise the framework.
 */
function nulBytes(uri: string, text: string, format: ConfigFormat): { framework: (typeof FRAMEWORKS)[number]; diagnostic: Diagnostic } | undefined {
  const stripped = parseDocument(uri, text.replace(/\u0000/g, ""), format);
  if (stripped.skipped) return undefined;
  const view = stripped.syntaxErrors.length && !isRecovered(stripped) ? salvage(stripped) : stripped;
  const framework = FRAMEWORKS.find((f) => f.formats.includes(format) && f.detect(view));
  if (!framework) return undefined;
  const pos = new LineIndex(text).positionAt(text.indexOf("\u0000"));
  const loader = format === "toml" ? "tomllib" : format === "yaml" ? "YAML" : format === "json" ? "JSON" : "source";
  const message = `This ${framework.id} config contains NUL bytes (the first at line ${pos.line + 1}, column ${pos.character + 1}): Python's ${loader} loader rejects it`;
  return { framework, diagnostic: diag("nul-bytes", "error", { start: pos, end: { line: pos.line, character: pos.character + 1 } }, message, undefined, { detail: `${message}, so the run fails before training. Precision Lens did not analyse it. Remove the NUL bytes (a file saved as UTF-16 without a byte-order mark has one after every ASCII character; save it as UTF-8).` }) };
}

/**
 * For detection in a file that does not parse: a best-effort model from table headers alone, so
 * `[parallelism]` in a broken torchtitan file is still recognised; for JSON, from the keys of the first two
 * levels, so a DeepSpeed file broken before its `zero_optimization` is still recognised.
 */
function salvage(doc: ConfigDocument): ConfigDocument {
  if (doc.format === "json") return { ...doc, ...jsonKeys(doc), syntaxErrors: [] };
  const sections: ConfigDocument["sections"] = [];
  for (let line = 0; line < doc.lines.lineCount; line++) {
    const m = /^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?/.exec(doc.lines.lineText(line));
    if (m) {
      const r = { start: { line, character: 0 }, end: { line, character: m[0].length } };
      sections.push({ path: m[1]!.split("."), headerRange: r, range: r });
    }
  }
  return { ...doc, sections, syntaxErrors: [] };
}

/**
 * The keys of the first two object levels of a JSON text that may not parse, by one linear scan (strings
 * and escapes skipped, depth counted): depth-1 keys whose value is an object become sections, the others
 * and depth-2 keys entries (null values: detection asks only which keys exist).
 */
function jsonKeys(doc: ConfigDocument): Pick<ConfigDocument, "entries" | "sections"> {
  const t = doc.text;
  const entries: ConfigDocument["entries"] = [];
  const sections: ConfigDocument["sections"] = [];
  const zero = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  let depth = 0;
  let parent: string | undefined;
  let pending: string | undefined; // a depth-1 key whose value is not seen yet
  for (let i = 0; i < t.length && entries.length + sections.length < 10_000; i++) {
    const c = t[i];
    if (c === '"') {
      let j = i + 1;
      while (j < t.length && t[j] !== '"' && t[j] !== "\n") j += t[j] === "\\" ? 2 : 1;
      const s = t.slice(i + 1, j);
      let k = j + 1;
      while (k < t.length && (t[k] === " " || t[k] === "\t" || t[k] === "\r" || t[k] === "\n")) k++;
      if (t[k] === ":" && !s.includes("\\")) {
        if (depth === 1) pending = s;
        else if (depth === 2 && parent !== undefined) entries.push({ path: [parent, s], keyRange: zero, range: zero, value: { kind: "null", value: null, range: zero } });
      }
      i = j;
    } else if (c === "{" || c === "[") {
      if (depth === 1 && c === "{" && pending !== undefined) {
        parent = pending;
        sections.push({ path: [pending], headerRange: zero, range: zero });
      } else if (depth === 1) parent = undefined;
      if (depth === 1) pending = undefined;
      depth++;
    } else if (c === "}" || c === "]") {
      depth = Math.max(0, depth - 1);
      if (depth <= 1) parent = undefined;
    } else if (depth === 1 && pending !== undefined && c !== ":" && c !== " " && c !== "\t" && c !== "\r" && c !== "\n") {
      entries.push({ path: [pending], keyRange: zero, range: zero, value: { kind: "null", value: null, range: zero } });
      pending = undefined;
    }
  }
  return { entries, sections };
}

/** A parser error as a diagnostic: its first line as the message, the whole text (with context) as detail. */
function syntaxDiag(format: string, e: { range: Range; message: string }): Diagnostic {
  const b = briefOf(e.message);
  return diag(`${format}-syntax`, "error", e.range, b.message, undefined, b.extra);
}
