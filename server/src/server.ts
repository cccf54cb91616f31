/**
 * The language server: wires LSP to the analysis core and nothing more. Speaks --stdio and --node-ipc
 * (vscode-languageserver picks the transport from argv).
 */
import { existsSync } from "node:fs";
import { join, sep } from "node:path";
import { pathToFileURL } from "node:url";
import {
  CodeActionKind,
  CompletionItemKind,
  FoldingRangeKind,
  InsertTextFormat,
  SymbolKind,
  DiagnosticSeverity,
  DiagnosticTag,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  ProposedFeatures,
  TextDocumentSyncKind,
  TextDocuments,
  createConnection,
  type CodeAction,
  type CompletionItem,
  type DocumentSymbol,
  type FoldingRange,
  type CodeLens,
  type InlayHint,
  type Diagnostic as LspDiagnostic,
  type InitializeResult,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { analyzeDocument, formatOf } from "./core/analyze";
import { codeHref } from "./core/diagnostics/codes";
import type { AnalysisResult, AnalysisSettings } from "./core/analysis";
import { codeLenses, completionsAt, headline, hoverAt, quickFixes } from "./core/features/index";
import { configFunctionSymbols, documentSymbols, foldingRanges, type DocSymbol } from "./core/features/symbols";
import type { Diagnostic } from "./core/model/types";
import { nodeEnv, uriToPath, WorkspaceSnapshot } from "./host/nodeEnv";
import { buildReportView, renderReportHtml } from "./core/report";
import { clampPosition, clampRange } from "./host/positions";
import {
  REPORT_HTML_REQUEST,
  REPORT_REQUEST,
  SETTINGS_SECTION,
  SUMMARY_CHANGED_NOTIFICATION,
  SUMMARY_REQUEST,
  type ReportHtmlParams,
  type ReportHtmlResult,
  type ReportParams,
  type ReportResult,
  type ServerSettings,
  type SummaryParams,
  type SummaryResult,
} from "./protocol";
import { CostWindow, diagnosticsDelay } from "./latency";


const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);

let workspaceRoots: string[] = [];
/**
 * What the workspace holds around the configs (pins, run scripts, config sources), read once per workspace
 * state and invalidated by the client's file events (issue #21). Undefined when the client cannot send file
 * events: every read is then validated by a stat, as fresh as the disk.
 */
let snapshot: WorkspaceSnapshot | undefined;
let canPullConfiguration = false;
/** Inlay hints and lenses depend on settings and other files: ask the client to re-query after an analysis. */
let canRefresh = false;
const settingsCache = new Map<string, Promise<AnalysisSettings>>();
const results = new Map<string, { version: number; result: AnalysisResult }>();
const pending = new Map<string, ReturnType<typeof setTimeout>>();
/** What each document's recent analyses cost and when the last ended: fast documents publish at once, slow ones are throttled (latency.ts). */
const costs = new Map<string, CostWindow>();

connection.onInitialize((params): InitializeResult => {
  canPullConfiguration = !!params.capabilities.workspace?.configuration;
  canRefresh = !!params.capabilities.workspace?.inlayHint?.refreshSupport && !!params.capabilities.workspace?.codeLens?.refreshSupport;
  workspaceRoots = (params.workspaceFolders ?? []).map((f) => uriToPath(f.uri)).filter((p): p is string => !!p);
  // Only paths inside the workspace folders are kept: the client watches those, not their parents.
  if (params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration && workspaceRoots.length) {
    snapshot = new WorkspaceSnapshot(undefined, (p) => workspaceRoots.some((r) => p === r || p.startsWith(r.endsWith(sep) ? r : r + sep)));
  }
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      inlayHintProvider: true,
      completionProvider: { triggerCharacters: ["[", ".", "=", '"', " "] },
      documentSymbolProvider: true,
      foldingRangeProvider: true,
      codeLensProvider: { resolveProvider: false },
    },
    serverInfo: { name: "precision-lens" },
  };
});

connection.onInitialized(() => {
  if (canPullConfiguration) void connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION });
  if (snapshot) {
    // Every file: pins (requirements*.txt, pyproject.toml, *.lock), run scripts, config sources, .git.
    connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: "**/*" }] }).catch(() => {
      snapshot = undefined; // no file events after all: back to stat-validated reads
    });
  }
});

connection.onDidChangeWatchedFiles((params) => {
  if (!snapshot) return;
  const paths = params.changes.map((c) => uriToPath(c.uri));
  // A change outside file:// (or one we cannot map) forgets the whole state.
  snapshot.invalidate(paths.every((p): p is string => !!p) ? paths : undefined);
  results.clear();
  for (const doc of documents.all()) {
    const w = costs.get(doc.uri);
    schedule(doc, diagnosticsDelay(w?.cost, w ? performance.now() - w.endedAt : undefined));
  }
});

connection.onDidChangeConfiguration(() => {
  settingsCache.clear();
  results.clear();
  for (const doc of documents.all()) schedule(doc, 0);
});

function settingsFor(uri: string): Promise<AnalysisSettings> {
  if (!canPullConfiguration) return Promise.resolve({});
  let s = settingsCache.get(uri);
  if (!s) {
    s = connection.workspace
      .getConfiguration({ scopeUri: uri, section: SETTINGS_SECTION })
      .then((raw: Partial<ServerSettings> | null) => toAnalysisSettings(raw))
      .catch(() => ({}));
    settingsCache.set(uri, s);
  }
  return s;
}

function toAnalysisSettings(raw: Partial<ServerSettings> | null): AnalysisSettings {
  const out: AnalysisSettings = {};
  if (raw && typeof raw.worldSize === "number" && Number.isInteger(raw.worldSize) && raw.worldSize > 0) out.worldSize = raw.worldSize;
  if (raw && typeof raw.torchtitanVersion === "string") out.torchtitanVersion = raw.torchtitanVersion;
  if (raw && typeof raw.gpu === "string") out.gpu = raw.gpu;
  if (raw && typeof raw.torchtitanConfigSource === "string" && raw.torchtitanConfigSource.trim()) out.torchtitanConfigSource = raw.torchtitanConfigSource.trim();
  return out;
}

async function analyze(doc: TextDocument): Promise<AnalysisResult> {
  const cached = results.get(doc.uri);
  if (cached && cached.version === doc.version) return cached.result;
  const settings = await settingsFor(doc.uri);
  const path = uriToPath(doc.uri);
  const started = performance.now();
  const result = analyzeDocument(doc.uri, doc.getText(), settings, nodeEnv(path, workspaceRoots, snapshot), formatOf(doc.uri) ?? languageFormat(doc.languageId));
  const ended = performance.now();
  let w = costs.get(doc.uri);
  if (!w) costs.set(doc.uri, (w = new CostWindow()));
  w.add(ended - started, ended);
  results.set(doc.uri, { version: doc.version, result });
  return result;
}

function languageFormat(languageId: string): "toml" | "yaml" | "json" | "python" | undefined {
  return languageId === "toml" || languageId === "yaml" || languageId === "json" || languageId === "python" ? languageId : undefined;
}

function schedule(doc: TextDocument, delay: number): void {
  const t = pending.get(doc.uri);
  if (t) clearTimeout(t);
  pending.set(
    doc.uri,
    setTimeout(() => {
      pending.delete(doc.uri);
      void publish(doc.uri);
    }, delay),
  );
}

async function publish(uri: string): Promise<void> {
  const doc = documents.get(uri);
  if (!doc) return;
  try {
    const version = doc.version;
    const result = await analyze(doc);
    // A newer version arrived while analysing: its own publish will follow.
    if (documents.get(uri)?.version !== version) return;
    await connection.sendDiagnostics({ uri, version, diagnostics: result.diagnostics.map(toLspDiagnostic) });
    await connection.sendNotification(SUMMARY_CHANGED_NOTIFICATION, { uri, ...summary(result) });
    if (canRefresh) {
      void connection.languages.inlayHint.refresh().catch(() => undefined);
      void connection.sendRequest("workspace/codeLens/refresh").catch(() => undefined);
    }
  } catch (e) {
    connection.console.error(`precision-lens: analysing ${uri} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
}

/**
 * The diagnostic pages shipped beside the bundle (docs/diagnostics in the .vsix and the npm package): a
 * code's link opens them in the editor, offline. Without them (a bare dist/server.js) the published pages.
 */
const DOCS_BASE = ((): string | undefined => {
  const local = join(__dirname, "..", "docs", "diagnostics");
  return existsSync(join(local, "README.md")) ? pathToFileURL(local).href : undefined;
})();

const SEVERITY = { error: DiagnosticSeverity.Error, warning: DiagnosticSeverity.Warning, information: DiagnosticSeverity.Information, hint: DiagnosticSeverity.Hint } as const;

function toLspDiagnostic(d: Diagnostic): LspDiagnostic {
  const out: LspDiagnostic = { range: d.range, severity: SEVERITY[d.severity], code: d.code, source: d.source, message: d.message };
  if (d.data) out.data = d.data;
  out.codeDescription = { href: codeHref(d.code, DOCS_BASE) };
  const tags = [...(d.unnecessary ? [DiagnosticTag.Unnecessary] : []), ...(d.deprecated ? [DiagnosticTag.Deprecated] : [])];
  if (tags.length) out.tags = tags;
  if (d.related?.length) out.relatedInformation = d.related.map((r) => ({ location: r.location, message: r.message }));
  return out;
}

function fromLspDiagnostic(d: LspDiagnostic): Diagnostic | undefined {
  if (d.source !== "precision-lens" || typeof d.code !== "string") return undefined;
  const sev = d.severity === DiagnosticSeverity.Error ? "error" : d.severity === DiagnosticSeverity.Warning ? "warning" : d.severity === DiagnosticSeverity.Hint ? "hint" : "information";
  const message = typeof d.message === "string" ? d.message : d.message.value;
  const out: Diagnostic = { code: d.code, severity: sev, message, range: d.range, source: "precision-lens" };
  if (d.data) out.data = d.data as Diagnostic["data"];
  return out;
}

function summary(result: AnalysisResult): SummaryResult {
  const s: SummaryResult = { framework: result.framework, frameworkReason: result.frameworkReason };
  if (result.torchtitanVersion) s.version = result.torchtitanVersion;
  if (result.worldSize) s.worldSize = result.worldSize;
  if (result.layoutName) s.layoutName = result.layoutName;
  if (result.mechanism) s.mechanism = result.mechanism;
  const h = headline(result, { framework: false });
  if (h) s.headline = h;
  return s;
}

// TextDocuments fires onDidChangeContent for an open too: a document never analysed yet, or one whose
// analysis is fast, is published at once; a slow one at once after a pause, else throttled (latency.ts).
documents.onDidChangeContent((e) => {
  const w = costs.get(e.document.uri);
  schedule(e.document, diagnosticsDelay(w?.cost, w ? performance.now() - w.endedAt : undefined));
});
documents.onDidClose((e) => {
  const t = pending.get(e.document.uri);
  if (t) clearTimeout(t);
  pending.delete(e.document.uri);
  results.delete(e.document.uri);
  costs.delete(e.document.uri);
  settingsCache.delete(e.document.uri);
  void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
});

/** Runs a request handler; an internal failure is logged and answered with the fallback, never thrown. */
async function runSafe<T>(name: string, fallback: T, f: () => Promise<T> | T): Promise<T> {
  try {
    return await f();
  } catch (e) {
    connection.console.error(`precision-lens: ${name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return fallback;
  }
}

connection.onHover((params) =>
  runSafe("hover", null, async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return null;
    const h = hoverAt(await analyze(doc), clampPosition(doc, params.position));
    return h ? { contents: { kind: "markdown" as const, value: h.markdown }, range: h.range } : null;
  }),
);

/** At most this many quick fixes per request, whatever the client sends. */
const MAX_CODE_ACTIONS = 64;

connection.onCodeAction((params) =>
  runSafe("codeAction", [] as CodeAction[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    // Fixes come only from the server's own analysis of this version: a client diagnostic is matched to
    // ours by identity (code, range, message) and its `data` is never trusted (a client could send 16k fixes).
    const ours = new Map((await analyze(doc)).diagnostics.map((d) => [diagnosticKey(d), d]));
    const matched: { ours: Diagnostic }[] = [];
    for (const lsp of (params.context?.diagnostics ?? []).slice(0, MAX_CODE_ACTIONS)) {
      const d = fromLspDiagnostic(lsp);
      const hit = d && ours.get(diagnosticKey(d));
      if (hit && !matched.some((m) => m.ours === hit)) matched.push({ ours: hit });
    }
    return matched
      .flatMap(({ ours: d }) => quickFixes([d]).map((q) => ({ q, d })))
      .slice(0, MAX_CODE_ACTIONS)
      .map(({ q, d }): CodeAction => {
        const action: CodeAction = {
          title: q.title,
          kind: CodeActionKind.QuickFix,
          edit: { changes: { [params.textDocument.uri]: q.fix.edits } },
          diagnostics: [toLspDiagnostic(d)],
        };
        if (q.fix.isPreferred) action.isPreferred = true;
        return action;
      });
  }),
);

function diagnosticKey(d: Diagnostic): string {
  const r = d.range;
  return `${d.code}\u0000${r?.start?.line}:${r?.start?.character}-${r?.end?.line}:${r?.end?.character}\u0000${d.message}`;
}

connection.languages.inlayHint.on((params) =>
  runSafe("inlayHint", [] as InlayHint[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const r = await analyze(doc);
    const range = clampRange(doc, params.range);
    return (r.inlayHints ?? [])
      .filter((h) => h.position.line >= range.start.line && h.position.line <= range.end.line)
      .map((h): InlayHint => {
        const out: InlayHint = { position: h.position, label: h.label, paddingLeft: true };
        if (h.tooltip) out.tooltip = h.tooltip;
        return out;
      });
  }),
);

connection.onCodeLens((params) =>
  runSafe("codeLens", [] as CodeLens[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    return codeLenses(await analyze(doc)).map((l): CodeLens => ({ range: l.range, command: { title: l.title, command: l.command, arguments: l.arguments } }));
  }),
);

const COMPLETION_KIND = { section: CompletionItemKind.Module, key: CompletionItemKind.Property, value: CompletionItemKind.Value } as const;

connection.onCompletion((params) =>
  runSafe("completion", [] as CompletionItem[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    return completionsAt(await analyze(doc), clampPosition(doc, params.position)).map((c): CompletionItem => {
      const item: CompletionItem = { label: c.label, kind: COMPLETION_KIND[c.kind], insertTextFormat: InsertTextFormat.PlainText };
      if (c.detail) item.detail = c.detail;
      if (c.documentation) item.documentation = { kind: "markdown", value: c.documentation };
      if (c.range) item.textEdit = { range: c.range, newText: c.insertText };
      else item.insertText = c.insertText;
      if (c.sortText) item.sortText = c.sortText;
      if (c.preselect) item.preselect = true;
      return item;
    });
  }),
);

function toLspSymbol(s: DocSymbol): DocumentSymbol {
  const out: DocumentSymbol = { name: s.name, kind: s.kind === "table" ? SymbolKind.Namespace : s.kind === "function" ? SymbolKind.Function : SymbolKind.Property, range: s.range, selectionRange: s.selectionRange, children: s.children.map(toLspSymbol) };
  if (s.detail) out.detail = s.detail;
  return out;
}

connection.onDocumentSymbol((params) =>
  runSafe("documentSymbol", [] as DocumentSymbol[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const r = await analyze(doc);
    if (r.configFunctions) return configFunctionSymbols(r.configFunctions).map(toLspSymbol);
    return r.framework ? documentSymbols(r.doc).map(toLspSymbol) : [];
  }),
);

connection.onFoldingRanges((params) =>
  runSafe("foldingRange", [] as FoldingRange[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const r = await analyze(doc);
    if (!r.framework) return [];
    return foldingRanges(r.doc).map((f) => ({ startLine: f.startLine, endLine: f.endLine, kind: f.kind === "comment" ? FoldingRangeKind.Comment : FoldingRangeKind.Region }));
  }),
);

connection.onRequest(SUMMARY_REQUEST, (params: SummaryParams) =>
  runSafe("summary", null as SummaryResult | null, async () => {
    const doc = documents.get(params.uri);
    return doc ? summary(await analyze(doc)) : null;
  }),
);

connection.onRequest(REPORT_REQUEST, (params: ReportParams) =>
  runSafe("report", null as ReportResult | null, async () => {
    const doc = documents.get(params.uri);
    if (!doc) return null;
    const r = await analyze(doc);
    return r.reportMarkdown ? { markdown: r.reportMarkdown } : null;
  }),
);

connection.onRequest(REPORT_HTML_REQUEST, (params: ReportHtmlParams) =>
  runSafe("reportHtml", null as ReportHtmlResult | null, async () => {
    const doc = documents.get(params.uri);
    if (!doc) return null;
    const view = buildReportView(await analyze(doc), { settings: await settingsFor(doc.uri) });
    return { html: renderReportHtml(view, { nonce: params.nonce, interactive: true }), title: view.title };
  }),
);

process.on("uncaughtException", (e) => connection.console.error(`precision-lens: uncaught ${e.stack ?? e.message}`));
documents.listen(connection);
connection.listen();
