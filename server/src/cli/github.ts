/**
 * `check --format github`: GitHub Actions workflow commands, one annotation per diagnostic:
 *   ::warning file=PATH,line=L,endLine=L,col=C,endColumn=C,title=precision-lens CODE::MESSAGE
 * (col/endColumn only when the range stays on one line).
 * Escaping follows the runner's rules for workflow commands: in the message `%`, CR and LF are
 * percent-encoded; in properties also `:` and `,`. The other control characters (ESC, BEL, ...) and the
 * bidirectional and zero-width format characters are then escaped as in the text output (`\x1b`,
 * `\u202e`): the log is read on a terminal-like page, where they would recolour or reorder it. Information
 * and hints are notices.
 */
import type { Severity } from "../core/model/types";
import type { ReportedFile } from "./report";
import { escapeControls } from "../host/terminal";
import { table } from "../core/model/table";

const COMMAND: Readonly<Record<Severity, "error" | "warning" | "notice">> = table({ error: "error", warning: "warning", information: "notice", hint: "notice" });

export function escapeData(s: string): string {
  return escapeControls(s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A"));
}

export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** One file's annotations. Paths use forward slashes, relative to the repository checkout (the working directory). */
export function githubLines(f: ReportedFile): string[] {
  const lines: string[] = [];
  const file = f.path.replace(/\\/g, "/");
  for (const d of f.result.diagnostics) {
    const r = d.range;
    const props = [
      `file=${escapeProperty(file)}`,
      `line=${r.start.line + 1}`,
      `endLine=${r.end.line + 1}`,
      // GitHub supports columns only on a one-line annotation (checks API: start_column/end_column).
      ...(r.end.line === r.start.line ? [`col=${r.start.character + 1}`, `endColumn=${Math.max(r.end.character, r.start.character) + 1}`] : []),
      `title=${escapeProperty(`precision-lens ${d.code}`)}`,
    ];
    lines.push(`::${COMMAND[d.severity]} ${props.join(",")}::${escapeData(d.message)}`);
  }
  return lines;
}

export function toGithub(files: readonly ReportedFile[]): string {
  const lines = files.flatMap(githubLines);
  return lines.length ? lines.join("\n") + "\n" : "";
}
