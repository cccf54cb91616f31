/** Types of rename-rule-codes.mjs (for the tests). */
export declare const RENAMED: Readonly<Record<string, string>>;
export declare function renameCodes(text: string, options?: { bare?: boolean }): { text: string; count: number };
