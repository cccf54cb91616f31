/**
 * Set World Size / Set torchtitan Version: for this file (a `# precision-lens:` directive comment written
 * with a WorkspaceEdit, so it is undoable and shows as an unsaved change) or as a workspace setting.
 */
import * as vscode from "vscode";
import { directiveEdit, supportsDirectiveComments, type DirectiveKey } from "./directiveEdit";
import { SETTINGS_SECTION, VERSION_PICKS, isValidTorchtitanVersion, parseWorldSize } from "./settings";
import type { SummaryResult } from "../../server/src/protocol";

type Target = "file" | "removeFile" | "setting" | "resetSetting";
interface TargetPick extends vscode.QuickPickItem {
  target: Target;
}

/** The document a command acts on: the `uri` argument (code lens, status item) or the active editor. */
export function targetDocument(arg: unknown): vscode.TextDocument | undefined {
  if (typeof arg === "string" || arg instanceof vscode.Uri) {
    const s = arg.toString();
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === s) ?? undefined;
  }
  return vscode.window.activeTextEditor?.document;
}

function settingTarget(): { target: vscode.ConfigurationTarget; label: string } {
  return vscode.workspace.workspaceFolders?.length
    ? { target: vscode.ConfigurationTarget.Workspace, label: "Workspace setting" }
    : { target: vscode.ConfigurationTarget.Global, label: "User setting" };
}

async function pickTarget(doc: vscode.TextDocument, key: DirectiveKey, settingKey: string, what: string): Promise<Target | undefined> {
  const st = settingTarget();
  const items: TargetPick[] = [];
  const canComment = supportsDirectiveComments(doc.languageId, doc.fileName);
  if (canComment) {
    items.push({
      target: "file",
      label: "$(file) This file",
      description: `writes \`# precision-lens: ${key}=…\` at the top of ${basename(doc)}`,
    });
    if (directiveEdit(doc.getText(), key, null)) {
      items.push({ target: "removeFile", label: "$(trash) Remove from this file", description: `deletes the ${key} directive` });
    }
  }
  const inspected = vscode.workspace.getConfiguration(SETTINGS_SECTION, doc.uri).inspect(settingKey);
  const current = st.target === vscode.ConfigurationTarget.Workspace ? inspected?.workspaceValue : inspected?.globalValue;
  items.push({
    target: "setting",
    label: `$(settings-gear) ${st.label}`,
    description: `${SETTINGS_SECTION}.${settingKey}${current !== undefined ? ` (now ${JSON.stringify(current)})` : ""}`,
  });
  if (current !== undefined) items.push({ target: "resetSetting", label: `$(discard) Reset ${st.label.toLowerCase()}`, description: `${SETTINGS_SECTION}.${settingKey}` });
  const picked = await vscode.window.showQuickPick(items, { title: `Set ${what}`, placeHolder: `Where should the ${what} be set?` });
  return picked?.target;
}

function basename(doc: vscode.TextDocument): string {
  return doc.uri.path.slice(doc.uri.path.lastIndexOf("/") + 1);
}

/** Writes (or removes, with null) a directive through an undoable WorkspaceEdit. */
export async function writeDirective(doc: vscode.TextDocument, key: DirectiveKey, value: string | null): Promise<boolean> {
  const e = directiveEdit(doc.getText(), key, value);
  if (!e) return true;
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(e.start.line, e.start.character, e.end.line, e.end.character), e.newText);
  return vscode.workspace.applyEdit(edit);
}

async function writeSetting(doc: vscode.TextDocument, settingKey: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration(SETTINGS_SECTION, doc.uri).update(settingKey, value, settingTarget().target);
}

export async function setWorldSize(arg: unknown, summaryFor: (uri: vscode.Uri) => SummaryResult | undefined): Promise<void> {
  const doc = targetDocument(arg);
  if (!doc) return void vscode.window.showWarningMessage("Precision Lens: open a training config first.");
  const target = await pickTarget(doc, "world-size", "worldSize", "world size");
  if (!target) return;
  if (target === "removeFile") return void (await writeDirective(doc, "world-size", null));
  if (target === "resetSetting") return writeSetting(doc, "worldSize", undefined);
  const current = summaryFor(doc.uri)?.worldSize?.value;
  const input = await vscode.window.showInputBox({
    title: "World size (number of GPUs)",
    prompt: "Total GPUs of the run (WORLD_SIZE)",
    value: current ? String(current) : "",
    validateInput: (v) => (parseWorldSize(v) === undefined ? "A whole number ≥ 1" : undefined),
  });
  const n = input === undefined ? undefined : parseWorldSize(input);
  if (n === undefined) return;
  if (target === "file") await writeDirective(doc, "world-size", String(n));
  else await writeSetting(doc, "worldSize", n);
}

export async function setTorchtitanVersion(arg: unknown, summaryFor: (uri: vscode.Uri) => SummaryResult | undefined): Promise<void> {
  const doc = targetDocument(arg);
  if (!doc) return void vscode.window.showWarningMessage("Precision Lens: open a training config first.");
  const target = await pickTarget(doc, "torchtitan-version", "torchtitanVersion", "torchtitan version");
  if (!target) return;
  if (target === "removeFile") return void (await writeDirective(doc, "torchtitan-version", null));
  if (target === "resetSetting") return writeSetting(doc, "torchtitanVersion", undefined);
  const current = summaryFor(doc.uri)?.version;
  const items: (vscode.QuickPickItem & { id: string })[] = VERSION_PICKS.map((v) => ({
    id: v.id,
    label: v.id,
    detail: v.description,
    description: current?.value === v.id ? "current" : undefined,
  }));
  items.push({ id: "main@", label: "main@YYYY-MM-DD…", detail: "A main-branch checkout of that date (torchtitan read TOML until 2026-02-23)." });
  const picked = await vscode.window.showQuickPick(items, { title: "torchtitan version", placeHolder: current ? `now ${current.value} (${current.source})` : undefined });
  if (!picked) return;
  let value = picked.id;
  if (value === "main@") {
    const input = await vscode.window.showInputBox({
      title: "torchtitan main-branch date",
      value: "main@2026-02-20",
      validateInput: (v) => (isValidTorchtitanVersion(v.trim()) && v.trim().startsWith("main@") ? undefined : "main@YYYY-MM-DD"),
    });
    if (input === undefined) return;
    value = input.trim();
  }
  if (target === "file") await writeDirective(doc, "torchtitan-version", value === "auto" ? null : value);
  else await writeSetting(doc, "torchtitanVersion", value === "auto" ? undefined : value);
}
