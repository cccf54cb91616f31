/**
 * Names of a folder listing that match a pattern, computed once per listing: the Node env returns the same
 * (frozen) listing array while the folder is unchanged, so checking N configs in one folder filters it once
 * instead of N times (a 10,000-config monorepo folder stays linear). Other envs simply miss the memo.
 */
const memo = new WeakMap<readonly string[], Map<string, string[]>>();

export function matchingNames(names: readonly string[], key: string, test: (name: string) => boolean): string[] {
  let m = memo.get(names);
  if (!m) {
    m = new Map();
    memo.set(names, m);
  }
  let hit = m.get(key);
  if (!hit) {
    hit = names.filter(test).sort();
    m.set(key, hit);
  }
  return hit;
}
