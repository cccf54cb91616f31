/**
 * Messages from the report webview, validated before use (the page is ours, but what crosses the
 * webview boundary is still untrusted input). No `vscode` import (unit-tested in Node).
 */
import type { ReportPageMessage } from "../../server/src/protocol";

/** Validates a message from the page (the page is ours, but its messages are still untrusted input). */
export function parsePageMessage(m: unknown): ReportPageMessage | undefined {
  if (!m || typeof m !== "object") return undefined;
  const o = m as Record<string, unknown>;
  if (o.type === "openMarkdown") return { type: "openMarkdown" };
  if (o.type === "whatIf" && typeof o.worldSize === "number" && Number.isInteger(o.worldSize) && o.worldSize > 0 && o.worldSize <= 1 << 20 && typeof o.version === "string" && /^(v\d+\.\d+\.\d+(\+pr2213)?|main@\d{4}-\d{2}-\d{2})$/.test(o.version)) {
    return { type: "whatIf", worldSize: o.worldSize, version: o.version };
  }
  return undefined;
}
