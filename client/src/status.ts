/**
 * Language status items (the `{}` entry of the status bar) for documents the server claims as training
 * configs: framework + precision layout, torchtitan version, world size, each with where it came from and a
 * command to change it. Files the server does not claim show nothing (the items' selector lists only
 * claimed documents).
 */
import * as vscode from "vscode";
import type { SummaryResult } from "../../server/src/protocol";
import { STATUS_LINKS, statusTexts, summaryAt } from "./statusText";

/** Glob-escapes a file name for a RelativePattern. */
function globEscape(name: string): string {
  return name.replace(/[[\]{}*?!]/g, (c) => `[${c}]`);
}

/** A document filter that matches exactly one document. */
function filterFor(uri: vscode.Uri): vscode.DocumentFilter {
  if (uri.scheme === "untitled") return { scheme: "untitled", language: "toml" };
  const dir = vscode.Uri.joinPath(uri, "..");
  const base = uri.path.slice(uri.path.lastIndexOf("/") + 1);
  return { scheme: uri.scheme, pattern: new vscode.RelativePattern(dir, globEscape(base)) };
}

export class PrecisionStatus implements vscode.Disposable {
  private readonly framework: vscode.LanguageStatusItem;
  private readonly version: vscode.LanguageStatusItem;
  private readonly worldSize: vscode.LanguageStatusItem;
  /** Protocol URI → last summary; only claimed documents (framework !== null). */
  private readonly summaries = new Map<string, SummaryResult>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly toKey: (uri: vscode.Uri) => string) {
    this.framework = vscode.languages.createLanguageStatusItem("precisionLens.framework", []);
    this.framework.name = "Precision Lens: framework and precision";
    this.version = vscode.languages.createLanguageStatusItem("precisionLens.torchtitanVersion", []);
    this.version.name = "Precision Lens: torchtitan version";
    this.worldSize = vscode.languages.createLanguageStatusItem("precisionLens.worldSize", []);
    this.worldSize.name = "Precision Lens: world size";
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.render()),
      // A registry's status follows the config function under the cursor.
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (this.summaries.get(this.toKey(e.textEditor.document.uri))?.configFunctions?.length) this.render();
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (this.summaries.delete(this.toKey(d.uri))) this.updateSelector();
      }),
    );
  }

  summaryFor(uri: vscode.Uri): SummaryResult | undefined {
    return this.summaries.get(this.toKey(uri));
  }

  update(uri: string, summary: SummaryResult): void {
    if (summary.framework === null) this.summaries.delete(uri);
    else this.summaries.set(uri, summary);
    this.updateSelector();
    this.render();
  }

  clear(): void {
    this.summaries.clear();
    this.updateSelector();
  }

  private updateSelector(): void {
    const all: vscode.DocumentFilter[] = [];
    const withVersion: vscode.DocumentFilter[] = [];
    const withWorldSize: vscode.DocumentFilter[] = [];
    for (const [key, s] of this.summaries) {
      const filter = filterFor(vscode.Uri.parse(key));
      all.push(filter);
      if (s.version) withVersion.push(filter);
      if (s.worldSize) withWorldSize.push(filter);
    }
    this.framework.selector = all;
    this.version.selector = withVersion;
    this.worldSize.selector = withWorldSize;
  }

  private render(): void {
    const editor = vscode.window.activeTextEditor;
    const doc = editor?.document;
    const fileSummary = doc ? this.summaries.get(this.toKey(doc.uri)) : undefined;
    if (!doc || !fileSummary) return;
    const s = summaryAt(fileSummary, editor?.selection.active.line);
    const uri = doc.uri.toString();
    const t = statusTexts(s);
    this.framework.text = t.framework.text;
    this.framework.detail = t.framework.detail;
    this.framework.severity = vscode.LanguageStatusSeverity.Information;
    this.framework.command = { title: STATUS_LINKS.framework, command: "precisionLens.openReport", arguments: [uri], tooltip: t.framework.full };
    this.framework.accessibilityInformation = { label: `Precision Lens: ${t.framework.text.replace(/\$\([^)]*\)\s*/g, "")}. ${t.framework.full}` };
    if (t.version) {
      this.version.text = t.version.text;
      this.version.detail = t.version.detail;
      this.version.command = { title: STATUS_LINKS.version, command: "precisionLens.setTorchtitanVersion", arguments: [uri], tooltip: t.version.full };
    }
    if (t.worldSize) {
      this.worldSize.text = t.worldSize.text;
      this.worldSize.detail = t.worldSize.detail;
    }
    this.worldSize.command = { title: STATUS_LINKS.worldSize, command: "precisionLens.setWorldSize", arguments: [uri], tooltip: t.worldSize?.full };
  }

  dispose(): void {
    this.framework.dispose();
    this.version.dispose();
    this.worldSize.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
