/**
 * The visual precision report: a view-model built from an AnalysisResult (view.ts), charts (svg.ts: HTML text around SVG shapes)
 * and a self-contained HTML page (html.ts). Pure: no editor, no I/O, no network.
 */
export { buildReportView, throughputOf, type ReportView, type ReportOptions, type ThroughputData, type ThroughputAlternative, type MemoryView, type DtypeStripOp, type ThroughputView, type ThroughputBar, type WhatIfView, type WhatIfCell, type WhatIfVersion } from "./view";
export { buildWhatIf, whatIfCell, WHAT_IF_WORLD_SIZES, WHAT_IF_VERSIONS } from "./whatIf";
export { memoryChartHtml, dtypeStripHtml, throughputChartHtml, whatIfMatrixHtml } from "./svg";
export { renderReportHtml, contentSecurityPolicy, type HtmlOptions } from "./html";
