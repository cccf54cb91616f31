/**
 * Bounded, linear reading of the files beside a config (run scripts, slurm files, requirements, lock
 * files, job_config.py; issue #18). Only the start of such a file can matter (a real one is a few kB), and
 * every line the pattern matchers see is short and has its runs of blanks shortened to one space, so no
 * pattern over it can backtrack on a long run: whatever the file holds, a scan costs time linear in the
 * part read.
 */

/** Characters of a neighbour file that are scanned (the rest is not read). */
export const MAX_NEIGHBOUR_SCAN_CHARS = 256 * 1024;
/** A line (a logical line for shell scripts) longer than this is not scanned: no real command is that long. */
export const MAX_SCANNED_LINE_CHARS = 4096;

/** The part of a neighbour file's text that is scanned. */
export function scannedPart(text: string): string {
  return text.length > MAX_NEIGHBOUR_SCAN_CHARS ? text.slice(0, MAX_NEIGHBOUR_SCAN_CHARS) : text;
}

/**
 * One line as the pattern matchers see it: "" when over MAX_SCANNED_LINE_CHARS; otherwise the leading
 * indentation kept (Python reads it) and every later run of blanks shortened to one space.
 */
export function scanLine(line: string): string {
  if (line.length > MAX_SCANNED_LINE_CHARS) return "";
  let i = 0;
  while (i < line.length && (line[i] === " " || line[i] === "\t")) i++;
  return line.slice(0, i) + line.slice(i).replace(/\s+/g, " ");
}

/** The scanned lines of a neighbour file. */
export function scanLines(text: string, limit?: number): string[] {
  return scannedPart(text).split(/\r?\n/, limit).map(scanLine);
}
