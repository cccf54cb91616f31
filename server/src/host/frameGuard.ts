/**
 * The language server's stdio framing, checked before vscode-jsonrpc sees it (issue #18). A frame is
 * `Header: value\r\n...\r\n\r\n` + Content-Length bytes. vscode-jsonrpc throws on a header line without
 * `:` after it has consumed the header, then reads the body as the next header: one bad frame left the
 * server silently deaf to every later message. This transform passes good frames through byte for byte,
 * and drops a bad one (reporting why): it skips to the next `Content-Length:` and goes on from there.
 */
import { Transform, type TransformCallback } from "node:stream";

/** A header block longer than this is not a header (a real one is about 40 bytes). */
export const MAX_FRAME_HEADER_BYTES = 8 * 1024;
/** A body longer than this is refused (a didOpen of the largest analysed file is a few MiB). */
export const MAX_FRAME_BODY_BYTES = 64 * 1024 * 1024;

const TERMINATOR = Buffer.from("\r\n\r\n", "ascii");
const RESYNC = "content-length:";
const RESYNC_CANONICAL = "Content-Length:";

export class FrameGuard extends Transform {
  private buffer: Buffer = Buffer.alloc(0);
  /** The body bytes still to pass through for the frame being forwarded, or -1 while reading a header. */
  private bodyLeft = -1;
  /** After a bad frame with no next header in sight: bytes are dropped until a `Content-Length:` arrives. */
  private skipping = false;

  constructor(private readonly onBadFrame: (reason: string) => void) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    this.drain();
    done();
  }

  private drain(): void {
    for (;;) {
      if (this.bodyLeft >= 0) {
        if (this.buffer.length === 0) return;
        const n = Math.min(this.bodyLeft, this.buffer.length);
        this.push(this.buffer.subarray(0, n));
        this.buffer = this.buffer.subarray(n);
        this.bodyLeft -= n;
        if (this.bodyLeft > 0) return;
        this.bodyLeft = -1;
        continue;
      }
      if (this.buffer.length === 0) return;
      if (this.skipping) {
        const next = resyncPoint(this.buffer, 0);
        if (next < 0) {
          this.keepTail();
          return;
        }
        this.buffer = this.buffer.subarray(next);
        this.skipping = false;
      }
      const end = this.buffer.indexOf(TERMINATOR);
      if (end < 0) {
        if (this.buffer.length > MAX_FRAME_HEADER_BYTES) this.skipBadFrame(`a frame header longer than ${MAX_FRAME_HEADER_BYTES} bytes`);
        else return;
        continue;
      }
      const header = this.buffer.subarray(0, end).toString("latin1");
      const problem = end > MAX_FRAME_HEADER_BYTES ? `a frame header longer than ${MAX_FRAME_HEADER_BYTES} bytes` : headerProblem(header);
      if (typeof problem === "string") {
        this.skipBadFrame(problem);
        continue;
      }
      const frameHeader = this.buffer.subarray(0, end + TERMINATOR.length);
      this.push(Buffer.from(frameHeader));
      this.buffer = this.buffer.subarray(end + TERMINATOR.length);
      this.bodyLeft = problem.length;
      if (this.bodyLeft === 0) this.bodyLeft = -1;
    }
  }

  /** Reports a bad frame and skips to the next `Content-Length:` after its first byte (or keeps a possible partial one). */
  private skipBadFrame(reason: string): void {
    this.onBadFrame(reason);
    const next = resyncPoint(this.buffer, 1);
    if (next >= 0) {
      this.buffer = this.buffer.subarray(next);
      return;
    }
    this.skipping = true;
    this.buffer = this.buffer.subarray(1);
    this.keepTail();
  }

  /** While skipping, keeps only a tail that may be the start of the next header ("Content-Le" split across chunks). */
  private keepTail(): void {
    if (this.buffer.length > RESYNC.length) this.buffer = this.buffer.subarray(this.buffer.length - RESYNC.length);
  }
}

/** Where the next `Content-Length:` (either case) starts at or after `from`, or -1. */
function resyncPoint(buffer: Buffer, from: number): number {
  const a = buffer.indexOf(RESYNC, from, "latin1");
  const b = buffer.indexOf(RESYNC_CANONICAL, from, "latin1");
  return a < 0 ? b : b < 0 ? a : Math.min(a, b);
}

/** Why a header block (without its terminator) is not a frame header, or the body length it announces. */
export function headerProblem(header: string): string | { length: number } {
  let length: number | undefined;
  for (const line of header.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) return `a frame header line without ':' (${JSON.stringify(line.slice(0, 80))})`;
    if (line.slice(0, colon).trim().toLowerCase() !== "content-length") continue;
    const value = line.slice(colon + 1).trim();
    if (!/^\d{1,10}$/.test(value)) return `a Content-Length that is not a number (${JSON.stringify(value.slice(0, 40))})`;
    length = Number(value);
  }
  if (length === undefined) return "a frame header without Content-Length";
  if (length > MAX_FRAME_BODY_BYTES) return `a frame body of ${length} bytes (over ${MAX_FRAME_BODY_BYTES})`;
  return { length };
}
