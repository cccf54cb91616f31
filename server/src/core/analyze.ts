/**
 * The single entry point of the analysis core: (uri, text, settings, env) → AnalysisResult.
 * Parses once, detects the framework, runs its analyser, and never throws: an internal failure becomes
 * a diagnostic so the user sees that something went wrong instead of a silent editor.
 */
import { NO_ENV, type AnalysisEnv, type AnalysisResult, type AnalysisSettings } from "./analysis";
import { applyCodeTags } from "./codes";
import { diag, sortDiagnostics } from "./diagnostics";
import { diagnosticsReportSection } from "./explain";
import { directiveValue, parseDirectives } from "./directives";
import { FRAMEWORKS, frameworkById } from "./frameworks";
import type { ConfigDocument, ConfigFormat } from "./model";
import { parseJsonDocument } from "./parse/json";
import { parseTomlDocument } from "./parse/toml";
import { applySuppressions } from "./suppress";
import { parseYamlDocument, yamlParseNotes } from "./parse/yaml";

export function formatOf(uri: string): ConfigFormat | undefined {
  const path = uri.split(/[?#]/)[0]!.toLowerCase();
  if (path.endsWith(".toml")) return "toml";
  if (path.endsWith(".yaml") || path.endsWith(".yml")) return "yaml";
  if (path.endsWith(".json")) return "json";
  return undefined;
}

export function parseDocument(uri: string, text: string, format: ConfigFormat): ConfigDocument {
  switch (format) {
    case "toml":
      return parseTomlDocument(uri, text);
    case "yaml":
      return parseYamlDocument(uri, text);
    case "json":
      return parseJsonDocument(uri, text);
  }
}

export function analyzeDocument(uri: string, text: string, settings: AnalysisSettings = {}, env: AnalysisEnv = NO_ENV, formatHint?: ConfigFormat): AnalysisResult {
  const format = formatHint ?? formatOf(uri) ?? "toml";
  const doc = parseDocument(uri, text, format);
  const base = { uri, format, doc, hovers: [] as AnalysisResult["hovers"] };
  if (doc.skipped) return { ...base, framework: null, frameworkReason: doc.skipped, diagnostics: [] };

  const directives = parseDirectives(doc.comments);
  if (directiveValue(directives, "off")) {
    return { ...base, framework: null, frameworkReason: "turned off by a `# precision-lens: off` comment", diagnostics: [] };
  }
  const forced = directiveValue(directives, "framework");
  let analyzer = forced ? frameworkById(forced.value) : undefined;
  let reason = analyzer ? `set by a \`# precision-lens: framework=${forced!.value}\` comment` : "";
  if (!analyzer) {
    for (const f of FRAMEWORKS) {
      if (!f.formats.includes(format)) continue;
      const why = doc.syntaxErrors.length ? undefined : f.detect(doc);
      if (why) {
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
    const diagnostics = likely ? doc.syntaxErrors.map((e) => diag(`${format}-syntax`, "error", e.range, e.message)) : [];
    const out: AnalysisResult = { ...base, framework: null, frameworkReason: likely ? `the file does not parse (it looks like a ${likely.id} config)` : "no training-config markers found", diagnostics };
    if (likely) out.likelyFramework = likely.id;
    return out;
  }
  if (!analyzer) {
    // A hostile YAML file that is no config still says why it was cut short (the hover/status show this).
    const notes = format === "yaml" ? yamlParseNotes(doc).map((n) => n.message) : [];
    return { ...base, framework: null, frameworkReason: ["no training-config markers found", ...notes].join("; "), diagnostics: [] };
  }

  try {
    const r = analyzer.analyze(doc, settings, env);
    // Suppressions (`# precision-lens: disable=CODE`) apply to every framework; unused ones add hints. Tags
    // (unnecessary, deprecated) come from the code registry, per code, for every analyser alike.
    const diagnostics = sortDiagnostics(applyCodeTags(applySuppressions(doc, r.diagnostics)));
    const out: AnalysisResult = { ...base, ...r, framework: analyzer.id, frameworkReason: reason, diagnostics };
    // The report carries every diagnostic with its long explanation (messages are one short sentence).
    if (out.reportMarkdown && diagnostics.length) out.reportMarkdown = `${out.reportMarkdown}\n\n---\n\n${diagnosticsReportSection(diagnostics)}`;
    return out;
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

/**
 * For detection in a file that does not parse: a best-effort model from table headers alone, so
 * `[parallelism]` in a broken torchtitan file is still recognised.
 */
function salvage(doc: ConfigDocument): ConfigDocument {
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
