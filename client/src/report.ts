/**
 * `precisionLens.openReport`: the server's Markdown report (precisionLens/report) as a read-only virtual
 * document `precision-lens-report:/<file> — precision report.md?<source uri>`, shown in the Markdown preview
 * when the built-in Markdown extension is there, as a plain read-only Markdown editor otherwise.
 * The document refreshes when the server re-analyses its source (summaryChanged).
 */
import * as vscode from "vscode";

export const REPORT_SCHEME = "precision-lens-report";
/** VS Code's built-in Markdown extension (it owns `markdown.showPreviewToSide`). */
export const MARKDOWN_EXTENSION = "vscode.markdown-language-features";

/** A torchtitan registry's function report carries the function in the fragment (`…::fn precision report.md#fn`). */
export function reportUri(source: vscode.Uri, configFunction?: string): vscode.Uri {
  const base = source.path.slice(source.path.lastIndexOf("/") + 1) || "untitled";
  const name = configFunction ? `${base}::${configFunction}` : base;
  return vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${name} precision report.md`, query: source.toString(), ...(configFunction ? { fragment: configFunction } : {}) });
}

export class ReportProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly fetch: (source: vscode.Uri, token: vscode.CancellationToken, configFunction?: string) => Promise<string | null>) {}

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const source = vscode.Uri.parse(uri.query);
    try {
      const md = await this.fetch(source, token, uri.fragment || undefined);
      return md ?? `# Precision Lens\n\n\`${source.fsPath || source.toString()}\` is not a training config Precision Lens analyses.\n`;
    } catch (e) {
      return `# Precision Lens\n\nThe report could not be produced: ${e instanceof Error ? e.message : String(e)}\n`;
    }
  }

  /** Called when the server re-analysed `source`: refreshes an open report of it. */
  sourceChanged(source: vscode.Uri): void {
    // The file's report and its functions' reports (same query, one fragment each).
    const query = source.toString();
    for (const d of vscode.workspace.textDocuments) if (d.uri.scheme === REPORT_SCHEME && d.uri.query === query) this.changed.fire(d.uri);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export async function openReport(source: vscode.Uri, configFunction?: string): Promise<void> {
  const uri = reportUri(source, configFunction);
  // The built-in Markdown extension registers its preview command only once it is activated, and its
  // activation event is that very command: asking `getCommands` first found no preview before anything had
  // activated it, and the report opened as Markdown source (issue #34). Running the command activates it;
  // only where there is no Markdown extension at all (the command is unknown) is the source shown instead.
  if (vscode.extensions.getExtension(MARKDOWN_EXTENSION)) {
    try {
      await vscode.commands.executeCommand("markdown.showPreviewToSide", uri);
      return;
    } catch {
      /* no preview command after all: the source below */
    }
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, "markdown");
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}
