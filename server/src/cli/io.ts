/** What the CLI reads and writes through: its streams and working folder (tests pass their own). */
export interface CliIO {
  stdout(s: string): void;
  stderr(s: string): void;
  cwd: string;
  /** Reads all of standard input (for `check -`): its bytes (checked for UTF-8 like a file's) or text; absent where there is none. */
  stdin?: () => string | Uint8Array;
}
