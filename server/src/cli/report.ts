/** What the CLI's machine formats (SARIF, GitHub annotations) receive: one analysed file each. */
import type { AnalysisResult } from "../core/analysis";

export interface ReportedFile {
  /** As shown to the user: relative to the working directory where possible (or the --stdin-filename). */
  path: string;
  /** Absolute path on disk (for standard input: the --stdin-filename resolved against the working directory). */
  absPath: string;
  result: AnalysisResult;
}

/** The tool's name and version as the formats report them. */
export const TOOL_NAME = "precision-lens";
export const TOOL_VERSION = "0.1.0";
