/**
 * Positions and ranges from the client are untrusted (`line: 1e9`, `-1`, `NaN`, fractions): every
 * position-taking request of the server goes through `clampPosition` before the core sees it.
 */
import type { Position, Range } from "../core/model/types";

export interface LineSource {
  readonly lineCount: number;
  offsetAt(p: Position): number;
  positionAt(offset: number): Position;
}

function toInt(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) ? Math.trunc(n) : 0;
}

/** The nearest position inside the document (line clamped to its lines, character to the line's end). */
export function clampPosition(doc: LineSource, p: unknown): Position {
  const raw = (p && typeof p === "object" ? p : {}) as { line?: unknown; character?: unknown };
  const line = Math.min(Math.max(0, toInt(raw.line)), Math.max(0, doc.lineCount - 1));
  const character = Math.min(Math.max(0, toInt(raw.character)), 1 << 30);
  // TextDocument.offsetAt keeps the offset before the line's end of line; positionAt maps it back.
  return doc.positionAt(doc.offsetAt({ line, character }));
}

export function clampRange(doc: LineSource, r: unknown): Range {
  const raw = (r && typeof r === "object" ? r : {}) as { start?: unknown; end?: unknown };
  const start = clampPosition(doc, raw.start);
  const end = clampPosition(doc, raw.end);
  return end.line < start.line || (end.line === start.line && end.character < start.character) ? { start, end: start } : { start, end };
}
