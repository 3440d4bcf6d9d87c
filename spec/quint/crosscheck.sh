#!/usr/bin/env bash
# The spec-vs-model cross-check of one configuration:
#   crosscheck.sh SPEC_DIR CONFIG TRACES INVARIANT OUT_DIR SPEC_CROSSCHECK MODEL_CONFIG...
# Quint simulates CONFIG (a module of memwal_catchup.qnt) and writes TRACES --mbt ITF traces
# into OUT_DIR; SPEC_CROSSCHECK (tests/spec/crosscheck.cc) replays each through the C++ model
# configured by MODEL_CONFIG and requires equal states at every step. INVARIANT (a definition
# name, or - for none) is checked on every sample as well: a violation fails the step, so a
# configuration that must hold gets its seeded simulation from the same Quint run. Exits 77
# (skip) when spec/node_modules is absent.
set -euo pipefail

spec_dir=$1
config=$2
traces=$3
invariant=$4
out_dir=$5
crosscheck=$6
shift 6
if [ ! -x "$spec_dir/node_modules/.bin/quint" ]; then
  echo "skipped: $spec_dir/node_modules is absent (run: npm ci --prefix $spec_dir)"
  exit 77
fi
rm -rf "$out_dir"
mkdir -p "$out_dir"
cd "$spec_dir"
# Every sample is written (with an invariant too, as long as it holds); a seed makes the
# traces reproducible.
check=()
[ "$invariant" = - ] || check=(--invariant="$invariant")
npx --prefix "$spec_dir" --offline quint run --backend=typescript --main="$config" \
  --max-samples="$traces" --n-traces="$traces" --max-steps=20 --seed=11 --mbt "${check[@]}" \
  --out-itf="$out_dir/trace_{seq}.itf.json" memwal_catchup.qnt >"$out_dir/quint.log" 2>&1 ||
  { tail -n 20 "$out_dir/quint.log"; echo "FAILED: quint run (${invariant})"; exit 1; }
shopt -s nullglob
files=("$out_dir"/trace_*.itf.json)
if [ "${#files[@]}" -eq 0 ]; then
  echo "FAILED: quint wrote no traces"
  tail -n 20 "$out_dir/quint.log"
  exit 1
fi
exec "$crosscheck" "$@" "${files[@]}"
