/**
 * The visual precision report in a webview: the server renders the page (precisionLens/reportHtml) with
 * a fresh nonce per render; the page's content security policy allows only that nonce's style and
 * script, nothing from the network, no local resources. Clicking a what-if cell posts
 * `{type: "whatIf", worldSize, version}`: we offer to write that world size and/or version as a
 * `# precision-lens:` directive (undoable WorkspaceEdit). The panel re-renders when the server
 * re-analyses its source.
 */
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { supportsDirectiveComments } from "./directiveEdit";
import { writeDirective } from "./commands";
import { parsePageMessage } from "./reportMessage";
import type { SummaryResult } from "../../server/src/protocol";

export const REPORT_VIEW_TYPE = "precisionLens.report";

type FetchHtml = (source: vscode.Uri, nonce: string, configFunction?: string) => Promise<{ html: string; title: string } | null>;

function nonce(): string {
  return randomBytes(18).toString("base64");
}

/** A page for when the server has no report (CSP: nothing at all but the nonce's style). */
function messagePage(text: string): string {
  const n = nonce();
  const esc = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${n}'"><style nonce="${n}">body{color:var(--vscode-foreground);font-family:var(--vscode-font-family);padding:16px}</style></head><body><p>${esc}</p></body></html>`;
}

/** One panel per document, and per config function of a torchtitan registry. */
function panelKey(source: vscode.Uri, configFunction: string | undefined): string {
  return configFunction ? `${source.toString()}::${configFunction}` : source.toString();
}

export class ReportPanels implements vscode.Disposable {
  private readonly panels = new Map<string, { panel: vscode.WebviewPanel; source: vscode.Uri; configFunction?: string }>();
  private readonly renders = new WeakMap<vscode.WebviewPanel, number>();
  private readonly disposed = new WeakSet<vscode.WebviewPanel>();

  constructor(
    private readonly fetchHtml: FetchHtml,
    private readonly summaryFor: (uri: vscode.Uri) => SummaryResult | undefined,
    private readonly openMarkdown: (source: vscode.Uri, configFunction?: string) => Promise<void>,
  ) {}

  async open(source: vscode.Uri, configFunction?: string): Promise<void> {
    const key = panelKey(source, configFunction);
    const existing = this.panels.get(key)?.panel;
    if (existing) {
      existing.reveal(existing.viewColumn ?? vscode.ViewColumn.Beside, true);
      return this.render(source, existing, configFunction);
    }
    const name = source.path.slice(source.path.lastIndexOf("/") + 1) || "untitled";
    const panel = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, `Precision: ${name}${configFunction ? `::${configFunction}` : ""}`, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      enableCommandUris: false,
      enableForms: false,
      localResourceRoots: [],
    });
    this.panels.set(key, { panel, source, ...(configFunction ? { configFunction } : {}) });
    panel.onDidDispose(() => {
      this.disposed.add(panel);
      this.panels.delete(key);
    });
    panel.webview.onDidReceiveMessage((m: unknown) => {
      const msg = parsePageMessage(m);
      if (msg?.type === "openMarkdown") void this.openMarkdown(source, configFunction);
      else if (msg?.type === "whatIf") void offerDirective(source, msg.worldSize, msg.version, this.summaryFor(source));
    });
    await this.render(source, panel, configFunction);
  }

  /** The server re-analysed `source`: re-render its panels (the file's, its functions'), if open. */
  sourceChanged(source: vscode.Uri): void {
    const uri = source.toString();
    for (const p of this.panels.values()) if (p.source.toString() === uri) void this.render(source, p.panel, p.configFunction);
  }

  private async render(source: vscode.Uri, panel: vscode.WebviewPanel, configFunction?: string): Promise<void> {
    // Renders may overlap while the user types: only the latest request's page is shown.
    const seq = (this.renders.get(panel) ?? 0) + 1;
    this.renders.set(panel, seq);
    try {
      const r = await this.fetchHtml(source, nonce(), configFunction);
      if (this.renders.get(panel) !== seq || this.disposed.has(panel)) return;
      panel.webview.html = r?.html ?? messagePage(`${source.fsPath || source.toString()} is not open or not a training config Precision Lens analyses.`);
    } catch (e) {
      if (this.renders.get(panel) !== seq || this.disposed.has(panel)) return;
      panel.webview.html = messagePage(`The report could not be produced: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  dispose(): void {
    for (const p of this.panels.values()) p.panel.dispose();
    this.panels.clear();
  }
}

interface DirectivePick extends vscode.QuickPickItem {
  write: { worldSize?: number; version?: string };
}

/** A what-if cell was clicked: offer to write its world size, its version, or both, into the file. */
export async function offerDirective(source: vscode.Uri, worldSize: number, version: string, summary: SummaryResult | undefined): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(source);
  if (!supportsDirectiveComments(doc.languageId, doc.fileName)) {
    return void vscode.window.showInformationMessage("Precision Lens: this file format has no comments; use the Set World Size / Set torchtitan Version commands for a setting.");
  }
  const wsDiffers = summary?.worldSize?.value !== worldSize;
  const vDiffers = summary?.version?.value !== version;
  if (!wsDiffers && !vDiffers) return void vscode.window.showInformationMessage(`Precision Lens: ${worldSize} GPUs with torchtitan ${version} is the current configuration.`);
  const items: DirectivePick[] = [];
  if (wsDiffers) items.push({ label: `$(edit) world-size=${worldSize}`, description: `# precision-lens: world-size=${worldSize}`, write: { worldSize } });
  if (vDiffers) items.push({ label: `$(edit) torchtitan-version=${version}`, description: `# precision-lens: torchtitan-version=${version}`, write: { version } });
  if (wsDiffers && vDiffers) items.push({ label: "$(edit) both", description: `world-size=${worldSize} and torchtitan-version=${version}`, write: { worldSize, version } });
  const picked = await vscode.window.showQuickPick(items, { title: `What if: ${worldSize} GPUs, torchtitan ${version}`, placeHolder: "Write as a directive at the top of the file (undoable)" });
  if (!picked) return;
  if (picked.write.worldSize !== undefined) await writeDirective(doc, "world-size", String(picked.write.worldSize));
  if (picked.write.version !== undefined) await writeDirective(doc, "torchtitan-version", picked.write.version);
}
