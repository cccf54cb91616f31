/**
 * A config's bytes as text, and the diagnostic when its encoding is one the frameworks' loaders reject
 * (shared by files, standard input and explain). UTF-8 is the only encoding torchtitan's tomllib and Python's
 * YAML/JSON loaders reading UTF-8 accept; a UTF-16 file (with a byte-order mark) is decoded so that it is
 * recognised and its error says UTF-16, not "binary".
 */
import type { AnalysisResult } from "../core/analysis";
import { diag } from "../core/diagnostics/build";
import { LineIndex } from "../core/model/lineIndex";
import { decodeUtf8, firstInvalidUtf8 } from "../host/files";

export type ConfigEncoding = "utf-8" | "utf-16le" | "utf-16be";

/** The text of a config: UTF-16 when it starts with a UTF-16 byte-order mark, else UTF-8 (BOM kept). */
export function decodeConfig(bytes: Uint8Array): { text: string; encoding: ConfigEncoding } {
  const le = bytes[0] === 0xff && bytes[1] === 0xfe;
  const be = bytes[0] === 0xfe && bytes[1] === 0xff;
  if (le || be) {
    const encoding = le ? "utf-16le" : "utf-16be";
    return { text: new TextDecoder(encoding).decode(bytes), encoding };
  }
  return { text: decodeUtf8(bytes), encoding: "utf-8" };
}

/**
 * Not valid UTF-8: torchtitan's tomllib (and Python's YAML/JSON loaders reading UTF-8) reject the file, so
 * a training config gets an error at the first bad byte (UTF-16: at the start); other files get nothing.
 * --fix never rewrites it. Returns whether the bytes are not UTF-8.
 */
export function addEncodingDiagnostic(r: AnalysisResult, bytes: Uint8Array, encoding: ConfigEncoding = "utf-8"): boolean {
  const bad = encoding === "utf-8" ? firstInvalidUtf8(bytes) : 0;
  if (bad < 0) return false;
  if (!r.framework && !r.likelyFramework) return true;
  const loader = r.format === "toml" ? "torchtitan's tomllib rejects it" : "Python's loaders reading it as UTF-8 reject it";
  if (encoding !== "utf-8") {
    const order = encoding === "utf-16le" ? "little" : "big";
    const message = `This file is UTF-16 (${order}-endian, with a byte-order mark), not UTF-8: ${loader}`;
    r.diagnostics.unshift(diag("invalid-utf8", "error", { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, message, undefined, { detail: `${message}. Save it as UTF-8; --fix does not rewrite it.` }));
    return true;
  }
  const offset = decodeUtf8(bytes.subarray(0, bad)).length;
  const pos = new LineIndex(r.doc.text).positionAt(offset);
  const message = `This file is not valid UTF-8 (byte 0x${bytes[bad]!.toString(16).padStart(2, "0")} at offset ${bad}): ${loader}`;
  r.diagnostics.unshift(diag("invalid-utf8", "error", { start: pos, end: { line: pos.line, character: pos.character + 1 } }, message, undefined, { detail: `${message}. Save it as UTF-8; --fix does not rewrite it.` }));
  return true;
}
