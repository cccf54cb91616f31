/**
 * What Precision Lens bounds, in one place (README "Limits and guarantees" lists the same figures).
 * Inputs past a bound are reported, never analysed at unbounded cost.
 */

/** The largest parallelism degree, and world size, analysed: 2^20 GPUs (far above any real cluster). */
export const MAX_DEGREE = 2 ** 20;
export const MAX_WORLD_SIZE = MAX_DEGREE;

/** Brackets/braces a TOML or JSON value may nest before the file is not parsed (real configs: under 5). */
export const MAX_NESTING = 64;
