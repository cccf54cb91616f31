/** What the CLI reads and writes through: its streams and working folder (tests pass their own). */
import type { WorkspaceSnapshot } from "../host/nodeEnv";

export interface CliIO {
  stdout(s: string): void;
  stderr(s: string): void;
  cwd: string;
  /** Reads all of standard input (for `check -`): its bytes (checked for UTF-8 like a file's) or text; absent where there is none. */
  stdin?: () => string | Uint8Array;
  /**
   * What this run reads around the configs (pins, run scripts, config sources), read once per run
   * (issue #21); runCli makes one when the caller gives none.
   */
  snapshot?: WorkspaceSnapshot;
}
