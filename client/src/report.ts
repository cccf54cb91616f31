/**
 * `precisionLens.openReport`: the server's Markdown report (precisionLens/report) as a read-only virtual
 * document `precision-lens-report:/<file> — precision report.md?<source uri>`, shown in the Markdown preview
 * when the built-in Markdown extension is there, as a plain read-only Markdown editor otherwise.
 * The document refreshes when the server re-analyses its source (summaryChanged).
 */
import * as vscode from "vscode";

export const REPORT_SCHEME = "precision-lens-report";

export function reportUri(source: vscode.Uri): vscode.Uri {
  const base = source.path.slice(source.path.lastIndexOf("/") + 1) || "untitled";
  return vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${base} precision report.md`, query: source.toString() });
}

export class ReportProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly fetch: (source: vscode.Uri, token: vscode.CancellationToken) => Promise<string | null>) {}

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const source = vscode.Uri.parse(uri.query);
    try {
      const md = await this.fetch(source, token);
      return md ?? `# Precision Lens\n\n\`${source.fsPath || source.toString()}\` is not a training config Precision Lens analyses.\n`;
    } catch (e) {
      return `# Precision Lens\n\nThe report could not be produced: ${e instanceof Error ? e.message : String(e)}\n`;
    }
  }

  /** Called when the server re-analysed `source`: refreshes an open report of it. */
  sourceChanged(source: vscode.Uri): void {
    const uri = reportUri(source);
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) this.changed.fire(uri);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export async function openReport(source: vscode.Uri): Promise<void> {
  const uri = reportUri(source);
  const hasPreview = (await vscode.commands.getCommands(true)).includes("markdown.showPreviewToSide");
  if (hasPreview) {
    await vscode.commands.executeCommand("markdown.showPreviewToSide", uri);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, "markdown");
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}
