/** Types of rule-docs.mjs (for the tests). */
export declare function docParagraphs(text: string): string[];
export declare function ruleSummaries(): Map<string, { summary: string; file: string }>;
export declare function pageHeader(code: string, info: { summary: string; file: string }): string;
export declare function generatedDocs(): Map<string, string>;
