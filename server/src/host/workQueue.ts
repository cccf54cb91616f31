/**
 * The language server's background work, in chunks that yield (issue #18). Publishing diagnostics for
 * thousands of open documents (after a settings change, or when a workspace opens them at once) is one
 * document per turn of the event loop: between two, Node reads the client's messages, so a hover or a
 * `$/cancelRequest` waits for at most one analysis, never for the whole batch.
 */

/** How long the server waits for a `workspace/configuration` answer before analysing with the defaults. */
export const SETTINGS_TIMEOUT_MS = 2000;

/** Resolves on the next turn of the event loop, after pending I/O (client messages) has been read. */
export function yieldToIO(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Resolves with `p`, or with `fallback` (calling `onTimeout`) when `p` has not settled within `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, fallback: T, onTimeout: () => void): Promise<T> {
  return new Promise<T>((resolve) => {
    const timer = setTimeout(() => {
      onTimeout();
      resolve(fallback);
    }, ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      () => {
        clearTimeout(timer);
        resolve(fallback);
      },
    );
  });
}

/** After this many turns deferred to client messages in a row, one item runs anyway (no starvation). */
export const MAX_DEFERRALS = 64;

/**
 * A de-duplicated FIFO of keys, drained one key per event-loop turn by `run`, and only in a turn in which
 * no client message was handled (`touch()` marks one): vscode-jsonrpc handles one message per turn, so a
 * flood of 5,000 didOpen ahead of a hover is handled first, and the hover waits for at most one analysis.
 */
export class WorkQueue {
  private readonly queued = new Set<string>();
  private running = false;
  private activity = 0;

  /** A client message was handled: background work waits for a quiet turn. */
  touch(): void {
    this.activity++;
  }

  constructor(private readonly run: (key: string) => Promise<void>) {}

  get size(): number {
    return this.queued.size;
  }

  add(key: string): void {
    this.queued.add(key);
    if (!this.running) void this.drain();
  }

  /** `key` waits in the queue (added, not yet run). */
  has(key: string): boolean {
    return this.queued.has(key);
  }

  delete(key: string): void {
    this.queued.delete(key);
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      let seen = this.activity;
      let deferred = 0;
      for (;;) {
        await yieldToIO();
        if (this.activity !== seen && deferred < MAX_DEFERRALS) {
          seen = this.activity;
          deferred++;
          continue;
        }
        deferred = 0;
        const next = this.queued.values().next();
        if (next.done) return;
        this.queued.delete(next.value);
        try {
          await this.run(next.value);
        } catch {
          // `run` reports its own failures; the queue goes on.
        }
        seen = this.activity;
      }
    } finally {
      this.running = false;
    }
  }
}
