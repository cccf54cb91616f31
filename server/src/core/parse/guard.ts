/**
 * Checks every front end makes before parsing: the text must look like text and be of a size the
 * parsers handle quickly (toml-eslint-parser grows super-linearly; see README "Limits").
 */

/** Above this many characters a config is not analysed (real training configs are under 20 kB; a 500 kB TOML file takes about a second to parse and analyse on a 2-core machine). */
export const MAX_ANALYSED_CHARS = 512_000;

/** Returns a user-facing reason to skip the text, or undefined when it can be parsed. */
export function skipReason(text: string): string | undefined {
  if (text.length > MAX_ANALYSED_CHARS) {
    return `Precision Lens did not analyse this file: it has ${text.length} characters, over the limit of ${MAX_ANALYSED_CHARS}.`;
  }
  const probe = text.slice(0, 8192);
  if (probe.includes("\u0000")) {
    return "Precision Lens did not analyse this file: it contains NUL bytes and looks binary.";
  }
  return undefined;
}
