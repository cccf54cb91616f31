/**
 * relatedInformation for cross-file framework diagnostics (deepspeed/precision-mismatch): the place in the other file that
 * decided them. Attached to the diagnostic just added, so the analysers keep their one-line `add` calls.
 */
import { fileUri } from "../../workspace/paths";
import type { Range } from "../../model/types";
import type { Diags } from "./diagnosticBuilder";

/** Points the last diagnostic of `d` with this code at `range` in the file at `path`. */
export function relateLast(d: Diags, code: string, path: string, range: Range | undefined, message: string): void {
  const last = d.out[d.out.length - 1];
  if (!last || last.code !== code || !range) return;
  (last.related ??= []).push({ location: { uri: fileUri(path), range }, message });
}
