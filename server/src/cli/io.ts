/** What the CLI reads and writes through: its streams and working folder (tests pass their own). */
export interface CliIO {
  stdout(s: string): void;
  stderr(s: string): void;
  cwd: string;
  /** Reads all of standard input (for `check -`); absent where there is none. */
  stdin?: () => string;
}
