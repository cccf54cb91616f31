/**
 * Custom LSP requests between our client and server (types only; both bundles import this file).
 * Standard LSP covers diagnostics, hover, code actions, completion, symbols, inlay hints and code lenses.
 */

/** `precisionLens/summary`: what the language status item shows for one open document. */
export const SUMMARY_REQUEST = "precisionLens/summary";
export interface SummaryParams {
  uri: string;
}
export interface SummaryResult {
  /** null when the document is not a training config we claim. */
  framework: string | null;
  /** Why the framework was (or was not) detected. */
  frameworkReason: string;
  /** e.g. {value: "v0.2.2", source: "default", detail: "..."}; absent for non-torchtitan files. */
  version?: { value: string; source: string; detail: string };
  worldSize?: { value: number; source: string; detail: string };
  /** e.g. "TP-only", "FSDP+TP". */
  layoutName?: string;
  mechanism?: string;
  /** One line, e.g. "TP-only on 8 GPUs: no mixed precision (fp32 compute)". */
  headline?: string;
  /**
   * A torchtitan Python registry's config functions, each a config of its own (issue #30 §4): the status item
   * shows the one under the cursor (client/src/statusText.ts `summaryAt`).
   */
  configFunctions?: { name: string; startLine: number; endLine: number; headline: string; worldSize?: { value: number; source: string; detail: string }; layoutName?: string; mechanism?: string }[];
}

/** `precisionLens/report`: the full Markdown precision report for a document (null when none). */
export const REPORT_REQUEST = "precisionLens/report";
export interface ReportParams {
  uri: string;
  /** A torchtitan registry's config function: the report is that function's (its code lens passes it). */
  configFunction?: string;
}
export interface ReportResult {
  markdown: string;
}

/**
 * `precisionLens/reportHtml`: the visual report (charts, what-if matrix) as one HTML page for a webview,
 * with a content security policy that allows only the given nonce (null when the document is not open).
 * The page posts `{type: "whatIf", worldSize, version}` when a what-if cell is clicked and
 * `{type: "openMarkdown"}` for the Markdown report.
 */
export const REPORT_HTML_REQUEST = "precisionLens/reportHtml";
export interface ReportHtmlParams {
  uri: string;
  /** Fresh per page, base64 (8–128 characters). */
  nonce: string;
  /** A torchtitan registry's config function: the report is that function's (its code lens passes it). */
  configFunction?: string;
}
export interface ReportHtmlResult {
  html: string;
  /** The document's file name. */
  title: string;
}
/** Messages the report page posts to the client. */
export type ReportPageMessage = { type: "whatIf"; worldSize: number; version: string } | { type: "openMarkdown" };

/** Server → client notification: the summary of a document changed (after each analysis). */
export const SUMMARY_CHANGED_NOTIFICATION = "precisionLens/summaryChanged";
export interface SummaryChangedParams extends SummaryResult {
  uri: string;
}

/** Settings section the server reads with workspace/configuration. */
export const SETTINGS_SECTION = "precisionLens";
export interface ServerSettings {
  /** null or 0: infer. */
  worldSize: number | null;
  /** A torchtitan Python registry's world size per config function (function name → GPUs). */
  worldSizeByFunction?: Record<string, number>;
  /** "auto" or a version id (see README). */
  torchtitanVersion: string;
  /** GPU type id for throughput / memory-capacity estimates (engine/gpus.ts). */
  gpu: string;
  /** A torchtitan fork's config source (path; empty: found by the upward search). */
  torchtitanConfigSource: string;
}
