/**
 * When to publish diagnostics after an edit. A document whose last analysis was fast is published at once
 * (the next turn of the event loop, so a burst of queued didChange messages still coalesces into one
 * analysis); a slow one waits for a quiet period proportional to what its analysis costs, so typing in a
 * huge file does not queue analyses behind each other.
 */

/** Analyses under this many milliseconds are cheap enough to run on every keystroke. */
export const INSTANT_ANALYSIS_MS = 20;
/** A slow document waits this many times its last analysis cost... */
export const DEBOUNCE_PER_COST = 2;
/** ...but never less than this (just above the instant threshold)... */
export const MIN_DEBOUNCE_MS = 50;
/** ...nor more than this, so even the largest file is re-checked within a second of the last keystroke. */
export const MAX_DEBOUNCE_MS = 1000;

/**
 * The delay, in milliseconds, before analysing and publishing a document after an edit.
 * `lastCostMs` is how long its previous analysis took; undefined when it was never analysed (publish now).
 */
export function diagnosticsDelay(lastCostMs: number | undefined): number {
  if (lastCostMs === undefined || !Number.isFinite(lastCostMs) || lastCostMs < INSTANT_ANALYSIS_MS) return 0;
  return Math.min(MAX_DEBOUNCE_MS, Math.max(MIN_DEBOUNCE_MS, Math.round(lastCostMs * DEBOUNCE_PER_COST)));
}
