import type { Position, Range } from "./types";

/** Converts between string offsets and LSP positions for one text. Built once per document version. */
export class LineIndex {
  private readonly starts: number[];

  /**
   * `text`'s index from `prev`'s, when the two texts share their first `prefix` and last `suffix` characters
   * (an edit between them): a line starts at q when the character before q is a line feed, or a carriage return
   * not followed by one, so only the starts around the edited region are looked for; the others are kept or
   * moved by the length change (issue #36: a keystroke in a large registry does not rescan the file).
   */
  static afterEdit(prev: LineIndex, text: string, prefix: number, suffix: number): LineIndex {
    const old = prev.starts;
    const delta = text.length - prev.text.length;
    const starts: number[] = [];
    let k = 0;
    // Starts below the prefix's end depend on characters before it only.
    for (; k < old.length && old[k]! < prefix; k++) starts.push(old[k]!);
    if (!starts.length) starts.push(0);
    const to = text.length - suffix;
    for (let q = Math.max(1, prefix); q <= to && q <= text.length; q++) {
      const c = text.charCodeAt(q - 1);
      if (c === 10 || (c === 13 && text.charCodeAt(q) !== 10)) starts.push(q);
    }
    // Past the edited region, both characters a start depends on lie in the shared suffix.
    const oldTo = prev.text.length - suffix;
    while (k < old.length && old[k]! <= oldTo) k++;
    for (; k < old.length; k++) starts.push(old[k]! + delta);
    return new LineIndex(text, starts);
  }

  constructor(
    readonly text: string,
    known?: number[],
  ) {
    if (known) {
      this.starts = known;
      return;
    }
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 /* \n */) starts.push(i + 1);
      else if (c === 13 /* \r */) {
        if (text.charCodeAt(i + 1) === 10) i++;
        starts.push(i + 1);
      }
    }
    this.starts = starts;
  }

  get lineCount(): number {
    return this.starts.length;
  }

  positionAt(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - this.starts[lo]! };
  }

  offsetAt(pos: Position): number {
    if (pos.line < 0) return 0;
    if (pos.line >= this.starts.length) return this.text.length;
    const start = this.starts[pos.line]!;
    const end = this.lineEnd(pos.line);
    return Math.min(start + Math.max(0, pos.character), end);
  }

  range(start: number, end: number): Range {
    return { start: this.positionAt(start), end: this.positionAt(end) };
  }

  /** Offset just past the last character of `line`, before its line break. */
  lineEnd(line: number): number {
    if (line + 1 < this.starts.length) {
      let e = this.starts[line + 1]!;
      if (this.text.charCodeAt(e - 1) === 10) e--;
      if (this.text.charCodeAt(e - 1) === 13) e--;
      return e;
    }
    return this.text.length;
  }

  lineText(line: number): string {
    if (line < 0 || line >= this.starts.length) return "";
    return this.text.slice(this.starts[line], this.lineEnd(line));
  }

  lineStart(line: number): number {
    return this.starts[Math.max(0, Math.min(line, this.starts.length - 1))]!;
  }

  /** The line break the file uses ("\r\n" when its first break is CRLF). */
  get eol(): string {
    const i = this.text.indexOf("\n");
    return i > 0 && this.text.charCodeAt(i - 1) === 13 ? "\r\n" : "\n";
  }
}

export function containsPosition(r: Range, p: Position): boolean {
  if (p.line < r.start.line || p.line > r.end.line) return false;
  if (p.line === r.start.line && p.character < r.start.character) return false;
  if (p.line === r.end.line && p.character > r.end.character) return false;
  return true;
}
