/** Types of rule-docs.mjs (for the tests). */
export declare function docParagraphs(text: string): string[];
export interface RuleSummary {
  summary: string;
  file: string;
  tag?: "Unnecessary" | "Deprecated";
}
export declare function ruleSummaries(): Map<string, RuleSummary>;
export declare function pageHeader(code: string, info: RuleSummary): string;
export declare function generatedDocs(): Map<string, string>;
