/** Message wording helpers: plurals, quoted lists, did-you-mean by edit distance. */
/** Plural helper for messages. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function quoteList(xs: readonly string[]): string {
  return xs.map((x) => `\`${x}\``).join(", ");
}

/** Nearest string by edit distance (for did-you-mean fixes). */
export function nearest(s: string, choices: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const limit = Math.max(2, Math.floor(s.length / 3));
  for (const c of choices) {
    // The distance is at least the length difference: a key far longer than every name (a hostile
    // 100 kB key) costs nothing here instead of a length × name table per choice.
    if (Math.abs(c.length - s.length) > Math.min(limit, bestD)) continue;
    const d = editDistance(s.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return bestD <= limit ? best : undefined;
}

export function editDistance(a: string, b: string): number {
  if (a.length * b.length > 1_000_000) return Math.max(a.length, b.length);
  const dp = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) dp[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) dp[i]![j] = Math.min(dp[i - 1]![j]! + 1, dp[i]![j - 1]! + 1, dp[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  return dp[a.length]![b.length]!;
}
