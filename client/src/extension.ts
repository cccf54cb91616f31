/**
 * Precision Lens client: starts the bundled language server (dist/server.js) over Node IPC and adds the
 * editor pieces LSP does not cover: language status items, the report view and the set-version/world-size
 * commands. All analysis happens in the server; it decides by content whether a file is a training config.
 */
import * as vscode from "vscode";
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";
import {
  REPORT_HTML_REQUEST,
  REPORT_REQUEST,
  SUMMARY_CHANGED_NOTIFICATION,
  SUMMARY_REQUEST,
  type ReportHtmlParams,
  type ReportHtmlResult,
  type ReportParams,
  type ReportResult,
  type SummaryChangedParams,
  type SummaryParams,
  type SummaryResult,
} from "../../server/src/protocol";
import { setTorchtitanVersion, setWorldSize, targetDocument } from "./commands";
import { REPORT_SCHEME, ReportProvider, openReport } from "./report";
import { ReportPanels } from "./reportPanel";
import { DOCUMENT_SELECTOR } from "./selector";
import { SETTINGS_SECTION } from "./settings";
import { PrecisionStatus } from "./status";


/** What activate() returns (used by the E2E suite and by anyone measuring activation). */
export interface PrecisionLensApi {
  /** Resolves when the language client is running. */
  ready: Promise<void>;
  timings: { activateMs?: number; readyMs?: number };
}

let client: LanguageClient | undefined;

export function activate(context: vscode.ExtensionContext): PrecisionLensApi {
  const t0 = performance.now();
  const timings: PrecisionLensApi["timings"] = {};
  const output = vscode.window.createOutputChannel("Precision Lens", { log: true });
  const serverModule = context.asAbsolutePath("dist/server.js");
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ["--nolazy", "--inspect=6011"] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    synchronize: { configurationSection: SETTINGS_SECTION },
  };
  const lc = new LanguageClient("precisionLens", "Precision Lens", serverOptions, clientOptions);
  client = lc;
  const toKey = (uri: vscode.Uri) => lc.code2ProtocolConverter.asUri(uri);

  const status = new PrecisionStatus(toKey);
  const reports = new ReportProvider(async (source, token, configFunction) => {
    const r = await lc.sendRequest<ReportResult | null>(REPORT_REQUEST, { uri: toKey(source), ...(configFunction ? { configFunction } : {}) } satisfies ReportParams, token);
    return r?.markdown ?? null;
  });

  const panels = new ReportPanels(
    (source, nonce, configFunction) => lc.sendRequest<ReportHtmlResult | null>(REPORT_HTML_REQUEST, { uri: toKey(source), nonce, ...(configFunction ? { configFunction } : {}) } satisfies ReportHtmlParams),
    (u) => status.summaryFor(u),
    openReport,
  );

  lc.onNotification(SUMMARY_CHANGED_NOTIFICATION, (p: SummaryChangedParams) => {
    const { uri, ...summary } = p;
    status.update(uri, summary);
    reports.sourceChanged(lc.protocol2CodeConverter.asUri(uri));
    panels.sourceChanged(lc.protocol2CodeConverter.asUri(uri));
  });

  const requestSummary = async (doc: vscode.TextDocument | undefined) => {
    if (!doc || !lc.isRunning() || !vscode.languages.match(DOCUMENT_SELECTOR, doc)) return;
    const key = toKey(doc.uri);
    try {
      const s = await lc.sendRequest<SummaryResult | null>(SUMMARY_REQUEST, { uri: key } satisfies SummaryParams);
      if (s) status.update(key, s);
    } catch (e) {
      output.warn(`summary request failed for ${key}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  context.subscriptions.push(
    output,
    status,
    reports,
    panels,
    vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, reports),
    vscode.window.onDidChangeActiveTextEditor((e) => {
      if (e && !status.summaryFor(e.document.uri)) void requestSummary(e.document);
    }),
    vscode.commands.registerCommand("precisionLens.restartServer", async () => {
      status.clear();
      await lc.restart();
      output.info("language server restarted");
      await requestSummary(vscode.window.activeTextEditor?.document);
    }),
    vscode.commands.registerCommand("precisionLens.showOutput", () => output.show(true)),
    // A torchtitan registry's code lens passes its config function as the second argument.
    vscode.commands.registerCommand("precisionLens.openReport", async (arg?: unknown, configFunction?: unknown) => {
      const doc = targetDocument(arg);
      const source = typeof arg === "string" ? vscode.Uri.parse(arg) : arg instanceof vscode.Uri ? arg : doc?.uri;
      if (!source) return void vscode.window.showWarningMessage("Precision Lens: open a training config first.");
      await panels.open(source, typeof configFunction === "string" ? configFunction : undefined);
    }),
    vscode.commands.registerCommand("precisionLens.setWorldSize", (arg?: unknown) => setWorldSize(arg, (u) => status.summaryFor(u))),
    vscode.commands.registerCommand("precisionLens.setTorchtitanVersion", (arg?: unknown) => setTorchtitanVersion(arg, (u) => status.summaryFor(u))),
  );

  const ready = lc.start().then(
    async () => {
      timings.readyMs = Math.round(performance.now() - t0);
      output.info(`language client ready in ${timings.readyMs} ms (activate() → server initialized)`);
      await requestSummary(vscode.window.activeTextEditor?.document);
    },
    (e: unknown) => {
      output.error(`language server failed to start: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    },
  );
  ready.catch(() => undefined);
  timings.activateMs = Math.round((performance.now() - t0) * 10) / 10;
  output.info(`activate() returned in ${timings.activateMs} ms`);
  return { ready, timings };
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.stop();
}
