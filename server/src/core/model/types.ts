/**
 * Plain-data types shared by every part of the analysis core. Nothing here imports `vscode` or the LSP
 * connection: positions, ranges and edits are shaped like LSP's so the server can pass them through, but
 * they are our own types.
 */

/** Zero-based line and UTF-16 character offset, as in LSP. */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface TextEdit {
  range: Range;
  newText: string;
}

export type Severity = "error" | "warning" | "information" | "hint";

/** One quick fix: a title and the edits that apply it to the same document. */
export interface Fix {
  title: string;
  edits: TextEdit[];
  /** The fix an editor should offer first (VS Code's "preferred" quick fix). */
  isPreferred?: boolean;
}

/**
 * What a diagnostic carries in LSP's `data` field. Code actions are computed from this alone
 * (yaml-language-server style), so the server needs no state between publishing and fixing.
 */
export interface DiagnosticData {
  fixes?: Fix[];
  /** Free-form facts a front end may show (world size, resolved degree, ...). */
  facts?: Record<string, string | number | boolean>;
}

export interface Diagnostic {
  /** Stable code, the rule's name (see README "Diagnostic codes"). */
  code: string;
  severity: Severity;
  /** Self-contained: readable without the hover or the rest of the file. */
  message: string;
  range: Range;
  source: "precision-lens";
  data?: DiagnosticData;
  /** Marks a diagnostic about code that has no effect (rendered faded by editors). Set from the code registry (codes.ts). */
  unnecessary?: boolean;
  /** Marks a diagnostic about a deprecated setting (rendered struck through). Set from the code registry (codes.ts). */
  deprecated?: boolean;
  /**
   * The long explanation behind a short `message` (Markdown): shown in the hover over the diagnostic's range,
   * in the report and in the CLI's JSON. Absent when the message says everything.
   */
  detail?: string;
  /** What decided this diagnostic (LSP relatedInformation): the `-1` line, the run script line, the pin, the other file. */
  related?: RelatedInformation[];
}

/** A place (in this document or another file) and why it matters to a diagnostic. */
export interface RelatedInformation {
  location: SourceLocation;
  message: string;
}

/** A range in a document: `uri` is the document's URI (file:// for files on disk). */
export interface SourceLocation {
  uri: string;
  range: Range;
}

/** Torch dtype spellings used everywhere in output and JSON. */
export type DType = "float32" | "bfloat16" | "float16" | "float8_e4m3fn" | "float8_e5m2" | "float64";

export const DIAGNOSTIC_SOURCE = "precision-lens" as const;
