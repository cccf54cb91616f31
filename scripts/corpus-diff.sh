#!/usr/bin/env bash
# Behaviour-preserving refactors: compare `check --format json` over the corpus and examples/
# against a saved baseline. Usage:
#   scripts/corpus-diff.sh save  DIR   # write DIR/corpus.json, DIR/examples.json (CLI) and DIR/dump.jsonl (analysis-dump.ts)
#   scripts/corpus-diff.sh check DIR   # rebuild, then fail (and show the diff) unless byte-identical
set -u
mode=${1:?save|check}; dir=${2:?baseline dir}
cd "$(dirname "$0")/.."
node scripts/build.mjs >/dev/null || exit 2
mkdir -p "$dir"
out=$(mktemp -d)
node dist/cli.js check --format json ../shared/corpus > "$out/corpus.json"
node dist/cli.js check --format json examples > "$out/examples.json"
# Everything else the analysis returns (hovers, inlay hints, report Markdown, fixes), from the sources.
node --import tsx scripts/analysis-dump.ts ../shared/corpus examples > "$out/dump.jsonl"
if [ "$mode" = save ]; then cp "$out"/*.json "$out"/dump.jsonl "$dir"/; echo "saved baseline in $dir"; exit 0; fi
rc=0
for f in corpus.json examples.json dump.jsonl; do
  if cmp -s "$dir/$f" "$out/$f"; then echo "$f: identical ($(wc -c < "$out/$f") bytes)"
  else echo "$f: DIFFERS"; diff <(tr ',' '\n' < "$dir/$f") <(tr ',' '\n' < "$out/$f") | head -40; rc=1; fi
done
exit $rc
