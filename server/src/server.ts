/**
 * The language server: wires LSP to the analysis core and nothing more. Speaks --stdio and --node-ipc
 * (vscode-languageserver picks the transport from argv).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
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
  LSPErrorCodes,
  ResponseError,
  type CancellationToken,
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
import { isWithin, nodeEnv, uriToPath, WorkspaceSnapshot } from "./host/nodeEnv";
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
import { FrameGuard } from "./host/frameGuard";
import { SETTINGS_TIMEOUT_MS, WorkQueue, withTimeout, yieldToIO } from "./host/workQueue";


/**
 * Over stdio, frames pass through FrameGuard first: a malformed frame is dropped and reported in the
 * client's output (window/logMessage) instead of leaving the server deaf (issue #18). The guarded stream
 * ends when stdin does, so the connection's end-of-input exit still applies.
 */
const connection = process.argv.includes("--stdio") ? createGuardedStdioConnection() : createConnection(ProposedFeatures.all);

function createGuardedStdioConnection(): ReturnType<typeof createConnection> {
  const guarded = process.stdin.pipe(new FrameGuard((reason) => conn.console.error(`precision-lens: dropped a malformed message from the client: ${reason}`)));
  const conn = createConnection(ProposedFeatures.all, guarded, process.stdout);
  // With explicit streams the library does not route console output to the client: stdout is the protocol.
  for (const k of ["log", "info", "warn", "error", "debug"] as const) console[k] = (...args: unknown[]) => conn.console.log(args.map(String).join(" "));
  return conn;
}
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
/**
 * The last analysis of each document, with the version AND the text it was made from: a didChange that
 * reuses a version number (a client bug, or a forged one) is analysed again (issue #18). Comparing the
 * text is O(1) while the document is unchanged (the same string) and exact otherwise.
 */
const results = new Map<string, { version: number; text: string; result: AnalysisResult }>();
const pending = new Map<string, ReturnType<typeof setTimeout>>();
/** Documents waiting to be analysed and published, one per event-loop turn (host/workQueue.ts). */
const publishQueue = new WorkQueue((uri) => publish(uri));
/** What each document's recent analyses cost and when the last ended: slow documents are throttled while edits come faster than analyses (latency.ts). */
const costs = new Map<string, CostWindow>();
/** The files each open document's last analysis read (linked configs, run scripts, pins). */
const readsOf = new Map<string, Set<string>>();

/** Re-analyses the open documents whose last analysis read `uri`'s file (it changed, or closed back to the disk). */
function scheduleDependents(uri: string): void {
  const path = uriToPath(uri);
  if (!path) return;
  for (const [other, reads] of readsOf) {
    if (other === uri || !reads.has(path)) continue;
    const d = documents.get(other);
    if (!d) continue;
    results.delete(other);
    const w = costs.get(other);
    schedule(d, diagnosticsDelay(w?.cost, w ? performance.now() - w.endedAt : undefined, waiting(other)));
  }
}

/** The client applies versioned edits (documentChanges): each quick fix names the version it was computed for. */
let versionedEdits = false;

connection.onInitialize((params): InitializeResult => {
  canPullConfiguration = !!params.capabilities.workspace?.configuration;
  versionedEdits = !!params.capabilities.workspace?.workspaceEdit?.documentChanges;
  canRefresh = !!params.capabilities.workspace?.inlayHint?.refreshSupport && !!params.capabilities.workspace?.codeLens?.refreshSupport;
  workspaceRoots = (params.workspaceFolders ?? []).map((f) => uriToPath(f.uri)).filter((p): p is string => !!p);
  // Only paths inside the workspace folders are kept: the client watches those, not their parents.
  if (params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration && workspaceRoots.length) {
    snapshot = new WorkspaceSnapshot(undefined, (p) => workspaceRoots.some((r) => isWithin(p, r)));
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
  // Queued like a settings change: one document per turn, so many open documents never block a request.
  publishQueue.touch();
  for (const doc of documents.all()) publishQueue.add(doc.uri);
});

// A settings change makes every result stale, but nothing is analysed in one go: each document is queued
// and re-analysed in its turn (or at once, when a request asks for it), so 5,000 open documents do not
// delay a hover (issue #18).
connection.onDidChangeConfiguration(() => {
  publishQueue.touch();
  settingsCache.clear();
  results.clear();
  for (const doc of documents.all()) publishQueue.add(doc.uri);
});

let settingsTimeoutReported = false;

/**
 * The settings for a document. A client that never answers `workspace/configuration`, or answers with
 * something unparsable, gets the defaults after SETTINGS_TIMEOUT_MS (said once in its output); a late
 * answer still replaces them and re-publishes the document.
 */
function settingsFor(uri: string): Promise<AnalysisSettings> {
  if (!canPullConfiguration) return Promise.resolve({});
  let s = settingsCache.get(uri);
  if (!s) {
    let timedOut = false;
    const asked = connection.workspace
      .getConfiguration({ scopeUri: uri, section: SETTINGS_SECTION })
      .then((raw: unknown) => toAnalysisSettings(raw));
    s = withTimeout(asked, SETTINGS_TIMEOUT_MS, {}, () => {
      timedOut = true;
      if (!settingsTimeoutReported) connection.console.warn(`precision-lens: no usable answer to workspace/configuration within ${SETTINGS_TIMEOUT_MS} ms; analysing with the default settings`);
      settingsTimeoutReported = true;
    });
    const mine = s;
    asked.then(
      (late) => {
        if (!timedOut || settingsCache.get(uri) !== mine) return;
        settingsCache.set(uri, Promise.resolve(late));
        results.delete(uri);
        publishQueue.add(uri);
      },
      () => undefined,
    );
    settingsCache.set(uri, s);
  }
  return s;
}

function toAnalysisSettings(value: unknown): AnalysisSettings {
  const out: AnalysisSettings = {};
  if (!value || typeof value !== "object" || Array.isArray(value)) return out;
  const raw = value as Partial<ServerSettings>;
  if (raw && typeof raw.worldSize === "number" && Number.isInteger(raw.worldSize) && raw.worldSize > 0) out.worldSize = raw.worldSize;
  if (raw && raw.worldSizeByFunction && typeof raw.worldSizeByFunction === "object") {
    const by: Record<string, number> = {};
    for (const [k, v] of Object.entries(raw.worldSizeByFunction as Record<string, unknown>).slice(0, 1000)) if (/^[A-Za-z_][A-Za-z0-9_]{0,199}$/.test(k) && typeof v === "number" && Number.isInteger(v) && v > 0) by[k] = v;
    if (Object.keys(by).length) out.worldSizeByFunction = by;
  }
  if (raw && typeof raw.torchtitanVersion === "string") out.torchtitanVersion = raw.torchtitanVersion;
  if (raw && typeof raw.gpu === "string") out.gpu = raw.gpu;
  if (raw && typeof raw.torchtitanConfigSource === "string" && raw.torchtitanConfigSource.trim()) out.torchtitanConfigSource = raw.torchtitanConfigSource.trim();
  return out;
}

/**
 * The analysis of a document as it is now. With a token (a request), a request cancelled before the
 * analysis starts is answered with RequestCancelled and costs nothing; the check comes after one turn of
 * the event loop, so a `$/cancelRequest` already sent has been read.
 */
async function analyze(doc: TextDocument, token?: CancellationToken): Promise<AnalysisResult> {
  const cached = results.get(doc.uri);
  const text = doc.getText();
  if (cached && cached.version === doc.version && cached.text === text) return cached.result;
  const settings = await settingsFor(doc.uri);
  if (token) {
    await yieldToIO();
    if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, "cancelled");
  }
  const now = doc.getText();
  const again = results.get(doc.uri);
  if (again && again.version === doc.version && again.text === now) return again.result;
  const path = uriToPath(doc.uri);
  const started = performance.now();
  // Neighbouring files open in the editor are read from their buffers; every file read is recorded, so an edit
  // of one (a linked DeepSpeed JSON, an accelerate config, a run script) re-analyses this document.
  // The map of open documents is built only when the analysis reads a neighbour (5,000 open documents must
  // not cost a pass over all of them per analysis).
  let open: Map<string, TextDocument> | undefined;
  const openText = (p: string): string | undefined => {
    if (!open) {
      open = new Map();
      for (const d of documents.all()) {
        const dp = uriToPath(d.uri);
        if (dp && d.uri !== doc.uri) open.set(dp, d);
      }
    }
    return open.get(p)?.getText();
  };
  const base = nodeEnv(path, workspaceRoots, snapshot, openText);
  const reads = new Set<string>();
  const env = { ...base, readFile: (p: string) => (reads.add(p), base.readFile(p)) };
  const result = analyzeDocument(doc.uri, now, settings, env, formatOf(doc.uri) ?? languageFormat(doc.languageId));
  readsOf.set(doc.uri, reads);
  const ended = performance.now();
  let w = costs.get(doc.uri);
  if (!w) costs.set(doc.uri, (w = new CostWindow()));
  w.add(ended - started, ended);
  results.set(doc.uri, { version: doc.version, text: now, result });
  return result;
}

/** One config function of a torchtitan registry (not cached: a report is asked for now and then), else the cached analysis. */
async function analyzeFor(doc: TextDocument, configFunction: unknown, token?: CancellationToken): Promise<AnalysisResult> {
  if (typeof configFunction !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,199}$/.test(configFunction)) return analyze(doc, token);
  const settings = { ...(await settingsFor(doc.uri)), configFunction };
  return analyzeDocument(doc.uri, doc.getText(), settings, nodeEnv(uriToPath(doc.uri), workspaceRoots), formatOf(doc.uri) ?? languageFormat(doc.languageId));
}

function languageFormat(languageId: string): "toml" | "yaml" | "json" | "python" | undefined {
  return languageId === "toml" || languageId === "yaml" || languageId === "json" || languageId === "python" ? languageId : undefined;
}

/** An earlier edit of the document still waits for its analysis (a timer, or the publish queue): edits come faster than analyses (latency.ts). */
function waiting(uri: string): boolean {
  return pending.has(uri) || publishQueue.has(uri);
}

function schedule(doc: TextDocument, delay: number): void {
  const t = pending.get(doc.uri);
  if (t) clearTimeout(t);
  pending.set(
    doc.uri,
    setTimeout(() => {
      pending.delete(doc.uri);
      publishQueue.add(doc.uri);
    }, delay),
  );
}

async function publish(uri: string): Promise<void> {
  const doc = documents.get(uri);
  if (!doc) return;
  try {
    const version = doc.version;
    const text = doc.getText();
    const result = await analyze(doc);
    // A newer version (or text) arrived while analysing: its own publish will follow.
    const now = documents.get(uri);
    if (now?.version !== version || now.getText() !== text) return;
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
  const fns = result.configFunctions;
  if (fns?.length) {
    s.configFunctions = fns.map((f) => ({
      name: f.name,
      startLine: f.range.start.line,
      endLine: f.range.end.line,
      headline: f.detail,
      ...(f.worldSize ? { worldSize: { value: f.worldSize.value, source: f.worldSize.source, detail: f.worldSize.detail } } : {}),
      ...(f.layoutName ? { layoutName: f.layoutName } : {}),
      ...(f.mechanism ? { mechanism: f.mechanism } : {}),
    }));
    // Several functions: the file is not summarised by its first one (the cursor picks one, summaryAt).
    if (fns.length > 1) {
      s.headline = `${fns.length} config functions: put the cursor in one for its precision`;
      delete s.worldSize;
      delete s.layoutName;
      delete s.mechanism;
    }
  }
  return s;
}

// TextDocuments fires onDidChangeContent for an open too: a document never analysed yet, or one whose
// analysis is fast, is published at once; a slow one at once unless an earlier edit still waits, else throttled (latency.ts).
documents.onDidChangeContent((e) => {
  publishQueue.touch();
  const w = costs.get(e.document.uri);
  schedule(e.document, diagnosticsDelay(w?.cost, w ? performance.now() - w.endedAt : undefined, waiting(e.document.uri)));
  scheduleDependents(e.document.uri);
});
documents.onDidSave(() => publishQueue.touch());
documents.onDidClose((e) => {
  publishQueue.touch();
  readsOf.delete(e.document.uri);
  scheduleDependents(e.document.uri);
  const t = pending.get(e.document.uri);
  if (t) clearTimeout(t);
  pending.delete(e.document.uri);
  publishQueue.delete(e.document.uri);
  results.delete(e.document.uri);
  costs.delete(e.document.uri);
  settingsCache.delete(e.document.uri);
  void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
});

/** Runs a request handler; an internal failure is logged and answered with the fallback, never thrown. */
async function runSafe<T>(name: string, fallback: T, f: () => Promise<T> | T): Promise<T> {
  publishQueue.touch();
  try {
    return await f();
  } catch (e) {
    if (e instanceof ResponseError) throw e;
    connection.console.error(`precision-lens: ${name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return fallback;
  }
}

connection.onHover((params, token) =>
  runSafe("hover", null, async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return null;
    const h = hoverAt(await analyze(doc, token), clampPosition(doc, params.position));
    return h ? { contents: { kind: "markdown" as const, value: h.markdown }, range: h.range } : null;
  }),
);

/** At most this many quick fixes per request, whatever the client sends. */
const MAX_CODE_ACTIONS = 64;

connection.onCodeAction((params, token) =>
  runSafe("codeAction", [] as CodeAction[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    // Fixes come only from the server's own analysis of this version: a client diagnostic is matched to
    // ours by identity (code, range, message) and its `data` is never trusted (a client could send 16k fixes).
    const version = doc.version;
    const result = await analyze(doc, token);
    // A fix is computed for one version of the text (issue #33): none when the document changed meanwhile,
    // and, where the client supports it, each edit names that version so a later one is never edited.
    if (documents.get(params.textDocument.uri)?.version !== version) return [];
    const ours = new Map(result.diagnostics.map((d) => [diagnosticKey(d), d]));
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
          edit: versionedEdits ? { documentChanges: [{ textDocument: { uri: params.textDocument.uri, version }, edits: q.fix.edits }] } : { changes: { [params.textDocument.uri]: q.fix.edits } },
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

connection.languages.inlayHint.on((params, token) =>
  runSafe("inlayHint", [] as InlayHint[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const r = await analyze(doc, token);
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

connection.onCodeLens((params, token) =>
  runSafe("codeLens", [] as CodeLens[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    return codeLenses(await analyze(doc, token)).map((l): CodeLens => ({ range: l.range, command: { title: l.title, command: l.command, arguments: l.arguments } }));
  }),
);

const COMPLETION_KIND = { section: CompletionItemKind.Module, key: CompletionItemKind.Property, value: CompletionItemKind.Value } as const;

connection.onCompletion((params, token) =>
  runSafe("completion", [] as CompletionItem[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    return completionsAt(await analyze(doc, token), clampPosition(doc, params.position)).map((c): CompletionItem => {
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

connection.onDocumentSymbol((params, token) =>
  runSafe("documentSymbol", [] as DocumentSymbol[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const r = await analyze(doc, token);
    if (r.configFunctions) return configFunctionSymbols(r.configFunctions).map(toLspSymbol);
    return r.framework ? documentSymbols(r.doc).map(toLspSymbol) : [];
  }),
);

connection.onFoldingRanges((params, token) =>
  runSafe("foldingRange", [] as FoldingRange[], async () => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const r = await analyze(doc, token);
    if (!r.framework) return [];
    return foldingRanges(r.doc).map((f) => ({ startLine: f.startLine, endLine: f.endLine, kind: f.kind === "comment" ? FoldingRangeKind.Comment : FoldingRangeKind.Region }));
  }),
);

connection.onRequest(SUMMARY_REQUEST, (params: SummaryParams, token: CancellationToken) =>
  runSafe("summary", null as SummaryResult | null, async () => {
    const doc = documents.get(params.uri);
    return doc ? summary(await analyze(doc, token)) : null;
  }),
);

connection.onRequest(REPORT_REQUEST, (params: ReportParams, token: CancellationToken) =>
  runSafe("report", null as ReportResult | null, async () => {
    const doc = documents.get(params.uri);
    if (!doc) return null;
    const r = await analyzeFor(doc, params.configFunction, token);
    return r.reportMarkdown ? { markdown: r.reportMarkdown } : null;
  }),
);

connection.onRequest(REPORT_HTML_REQUEST, (params: ReportHtmlParams, token: CancellationToken) =>
  runSafe("reportHtml", null as ReportHtmlResult | null, async () => {
    const doc = documents.get(params.uri);
    if (!doc) return null;
    const settings = await settingsFor(doc.uri);
    const view = buildReportView(await analyzeFor(doc, params.configFunction, token), { settings, env: nodeEnv(uriToPath(doc.uri), workspaceRoots) });
    return { html: renderReportHtml(view, { nonce: params.nonce, interactive: true }), title: view.title };
  }),
);

process.on("uncaughtException", (e) => connection.console.error(`precision-lens: uncaught ${e.stack ?? e.message}`));
documents.listen(connection);
connection.listen();
