#!/usr/bin/env bash
# Behaviour-preserving refactors: compare `check --format json` over the corpus and examples/
# against a saved baseline. Usage:
#   scripts/corpus-diff.sh save  DIR   # write DIR/corpus.json and DIR/examples.json from the current build
#   scripts/corpus-diff.sh check DIR   # rebuild, then fail (and show the diff) unless byte-identical
set -u
mode=${1:?save|check}; dir=${2:?baseline dir}
cd "$(dirname "$0")/.."
node scripts/build.mjs >/dev/null || exit 2
mkdir -p "$dir"
out=$(mktemp -d)
node dist/cli.js check --format json ../shared/corpus > "$out/corpus.json"
node dist/cli.js check --format json examples > "$out/examples.json"
if [ "$mode" = save ]; then cp "$out"/*.json "$dir"/; echo "saved baseline in $dir"; exit 0; fi
rc=0
for f in corpus examples; do
  if cmp -s "$dir/$f.json" "$out/$f.json"; then echo "$f: identical ($(wc -c < "$out/$f.json") bytes)"
  else echo "$f: DIFFERS"; diff <(tr ',' '\n' < "$dir/$f.json") <(tr ',' '\n' < "$out/$f.json") | head -40; rc=1; fi
done
exit $rc
