/**
 * What Precision Lens bounds, in one place (README "Limits and guarantees" lists the same figures).
 * Inputs past a bound are reported, never analysed at unbounded cost.
 */

/** The largest parallelism degree, and world size, analysed: 2^20 GPUs (far above any real cluster). */
export const MAX_DEGREE = 2 ** 20;
export const MAX_WORLD_SIZE = MAX_DEGREE;

/** Brackets/braces a TOML or JSON value may nest before the file is not parsed (real configs: under 5). */
export const MAX_NESTING = 64;

/**
 * Parts a dotted key or table header may have (`[a.b.c]` has 3; real configs: under 6). A file with a longer
 * one is not analysed: every rule that walks a key's prefixes would otherwise cost the square of its length.
 */
export const MAX_KEY_PARTS = 64;

/**
 * Diagnostics of one repeated kind (a key defined twice) listed per file; past it, one more diagnostic says
 * how many were left out (a 390 kB file of duplicates made 15,000 diagnostics, 10 MB of SARIF).
 */
export const MAX_REPEATED_DIAGNOSTICS = 20;
