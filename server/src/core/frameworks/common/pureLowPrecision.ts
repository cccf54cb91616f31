/**
 * One wording for pure low-precision training (the model built or cast in bf16, no fp32 master weights),
 * shared by every framework's advice: torchtune torchtune/pure-bf16, Lightning lightning/pure-bf16, torchtitan `pure-bf16`.
 */

/** Learning rates below this lose many updates to bf16 rounding (meta-pytorch/torchtune#2254). */
export const PURE_BF16_SMALL_LR = 1e-5;

/** "weights, gradients and optimizer state are bf16 with no fp32 master copy" */
export function pureLowPrecisionState(low: string): string {
  return `weights, gradients and optimizer state are ${low} with no fp32 master copy`;
}

/**
 * Why pure bf16 may hurt this run: a small learning rate (updates smaller than bf16 resolves relative to
 * the weights round away) or a long run (the rounding accumulates). `long` asks for a warning rather than
 * information; `why` is empty or a sentence starting with a space; `short` is empty or the same reason as a
 * clause for a one-sentence message ("with lr = 5e-6, small updates round away in bf16").
 */
export function pureBf16Risk(opts: { lr?: number | undefined; epochs?: number | undefined }): { long: boolean; why: string; short: string } {
  const { lr, epochs } = opts;
  const smallLr = lr !== undefined && lr < PURE_BF16_SMALL_LR;
  const long = smallLr || (epochs !== undefined && epochs >= 10);
  const why = smallLr ? ` With lr = ${lr}, many updates are smaller than bf16 can represent relative to the weights and round away (meta-pytorch/torchtune#2254).` : long ? ` With ${epochs} epochs, rounding of small updates accumulates (meta-pytorch/torchtune#2254).` : "";
  const short = smallLr ? `with lr = ${lr}, small updates round away in bf16` : long ? `over ${epochs} epochs, rounding of small updates accumulates` : "";
  return { long, why, short };
}
