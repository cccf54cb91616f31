#!/usr/bin/env bash
# Creates .oracle-venv (Python 3.11) with the oracle's pinned frameworks. Each package is installed on its
# own so that one that cannot install is reported (install-report.json, with pip's message) and the rest run.
set -uo pipefail
cd "$(dirname "$0")/.."
V=${ORACLE_VENV:-.oracle-venv}
PY=${PYTHON:-python3}
[ -x "$V/bin/python" ] || "$PY" -m venv "$V" || exit 1
PIP=("$V/bin/pip" install -q --disable-pip-version-check -c oracle/constraints.txt)
report="$V/install-report.jsonl"; : > "$report"
note() { "$V/bin/python" -c 'import json,sys; print(json.dumps({"name":sys.argv[1],"version":sys.argv[2],"status":sys.argv[3],"message":sys.argv[4][-600:]}))' "$@" >> "$report"; }
try() { # name version -- pip args...
  local name=$1 ver=$2; shift 2
  local tmp rc; tmp=$(mktemp)
  DS_BUILD_OPS=0 "$@" > "$tmp" 2>&1; rc=$?
  if [ "$rc" -eq 0 ]; then note "$name" "$ver" installed ""
  else note "$name" "$ver" failed "$(grep -v '^WARNING: Location' "$tmp")"; echo "::: oracle: $name $ver did not install" >&2; fi
  rm -f "$tmp"
}
while read -r line; do
  spec=${line%%#*}; spec=$(echo "$spec" | tr -d ' '); [ -z "$spec" ] && continue
  try "${spec%%==*}" "${spec##*==}" "${PIP[@]}" "$spec"
done < oracle/requirements.txt
while read -r line; do
  spec=${line%%#*}; spec=$(echo "$spec" | tr -d ' '); [ -z "$spec" ] && continue
  v=${spec##*==}
  if [ -d "$V/torchtitan/$v/torchtitan" ]; then note torchtitan "$v" installed ""; continue; fi
  try torchtitan "$v" "$V/bin/pip" install -q --disable-pip-version-check --no-deps --target "$V/torchtitan/$v" "$spec"
done < oracle/requirements-torchtitan.txt
# 0.3.0 (Python config registries, oracle/titan_registry.py) imports spmd_types: installed beside it, --no-deps
[ -d "$V/torchtitan/0.3.0/torchtitan" ] && { [ -d "$V/torchtitan/0.3.0/spmd_types" ] || try spmd-types 0.3.1 "$V/bin/pip" install -q --disable-pip-version-check --no-deps --target "$V/torchtitan/0.3.0" spmd-types==0.3.1; }
# The transformers family's pin sets (requirements-hf.txt: a set's name, then its packages), each installed with
# --no-deps into .oracle-venv/hf/<set>/ and put first on sys.path by frameworks/transformers_worker.py (the
# LLaMA-Factory set, lf<version>, with the releases its check_dependencies accepts: frameworks/llamafactory_worker.py).
while read -r set specs; do
  case "$set" in ''|\#*) continue;; esac
  if [ -d "$V/hf/$set/transformers" ]; then note "hf-$set" "${specs// /,}" installed ""; continue; fi
  # shellcheck disable=SC2086
  try "hf-$set" "${specs// /,}" "$V/bin/pip" install -q --disable-pip-version-check --no-deps --target "$V/hf/$set" $specs
done < oracle/requirements-hf.txt
# megatron-core, verl and NeMo AutoModel (oracle/requirements-targets.txt), each --no-deps into its own folder
while read -r name folder pins; do
  [ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
  v=${folder##*/}
  if [ -d "$V/$folder/${name}" ] || [ -d "$V/$folder/megatron" ]; then note "$name" "$v" installed ""; continue; fi
  # shellcheck disable=SC2086
  try "$name" "$v" "$V/bin/pip" install -q --disable-pip-version-check --no-deps --target "$V/$folder" $pins
done < oracle/requirements-targets.txt
"$V/bin/python" -c 'import json,sys; rows=[json.loads(l) for l in open(sys.argv[1])]; json.dump(rows, open(sys.argv[2],"w"), indent=1)' "$report" "$V/install-report.json"
