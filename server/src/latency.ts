/**
 * When to publish diagnostics after an edit (issues #21, #36). A document whose analysis is cheap is published at
 * once (the next turn of the event loop, so a burst of queued didChange messages still coalesces into one
 * analysis). So is a slow one when the edit is the only one waiting: its latency is the analysis cost, nothing
 * added (issue #36: the bench's didChange after the last publish waited as long again as the analysis had cost,
 * doubling the latency). Only while edits come faster than the document is analysed (an edit arrives while an
 * earlier one still waits for its analysis) does the next analysis wait until as long as the last one cost has
 * passed since it ended: typing in a huge file keeps at most about half of a core on analysis, and never queues
 * analyses behind each other. A publish is never for a stale version (server.ts `publish` checks after analysing).
 */

/** Analyses under this many milliseconds are cheap enough to run on every keystroke. */
export const INSTANT_ANALYSIS_MS = 20;
/** The idle time a slow document needs after its last analysis ended: this many times what it cost... */
export const THROTTLE_PER_COST = 1;
/** ...but never more than this, so even the largest file is re-checked within a second of the last keystroke. */
export const MAX_DEBOUNCE_MS = 1000;
/** How many recent costs the server keeps per document; their minimum is the cost (a GC pause or a busy machine is not the document's). */
export const COST_WINDOW = 3;

/**
 * The delay, in milliseconds, before analysing and publishing a document after an edit.
 * `costMs`: what its analysis costs (the minimum of its recent costs); undefined when it was never analysed
 * (publish now). `sinceLastMs`: how long ago its last analysis ended (undefined or Infinity: never).
 * `superseding`: an earlier edit of the document is still waiting for its analysis (a timer or the publish
 * queue), i.e. edits come faster than analyses; false (the edit is the only one pending): publish now.
 */
export function diagnosticsDelay(costMs: number | undefined, sinceLastMs = Number.POSITIVE_INFINITY, superseding = false): number {
  if (!superseding) return 0;
  if (costMs === undefined || !Number.isFinite(costMs) || costMs < INSTANT_ANALYSIS_MS) return 0;
  const idle = Math.min(MAX_DEBOUNCE_MS, Math.round(costMs * THROTTLE_PER_COST));
  const since = Number.isNaN(sinceLastMs) || sinceLastMs < 0 ? 0 : sinceLastMs;
  return Math.max(0, idle - Math.floor(since));
}

/** Recent analysis costs of one document: `add` one, `cost` is the minimum of the last COST_WINDOW. */
export class CostWindow {
  private readonly costs: number[] = [];
  /** performance.now() when the last analysis ended. */
  endedAt = Number.NEGATIVE_INFINITY;
  add(ms: number, endedAt: number): void {
    this.costs.push(ms);
    if (this.costs.length > COST_WINDOW) this.costs.shift();
    this.endedAt = endedAt;
  }
  get cost(): number | undefined {
    return this.costs.length ? Math.min(...this.costs) : undefined;
  }
}
