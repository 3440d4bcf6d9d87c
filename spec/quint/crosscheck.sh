#!/usr/bin/env bash
# The spec-vs-model cross-check of one configuration:
#   crosscheck.sh SPEC_DIR TRACES_DIR SPEC_CROSSCHECK MODEL_CONFIG...
# TRACES_DIR holds the --mbt ITF traces that Quint wrote for the configuration (the job
# spec.crosscheck.CONFIG.traces of ctest spec.quint, tests/spec/CMakeLists.txt: every sample
# is written, and the invariant of the configuration is checked on every sample, so a
# configuration that must hold gets its seeded simulation from the same Quint run).
# SPEC_CROSSCHECK (tests/spec/crosscheck.cc) replays each trace through the C++ model
# configured by MODEL_CONFIG and requires equal states at every step. Exits 77 (skip) when
# spec/node_modules is absent (then Quint wrote no traces).
set -euo pipefail

spec_dir=$1
traces_dir=$2
crosscheck=$3
shift 3
if [ ! -x "$spec_dir/node_modules/.bin/quint" ]; then
  echo "skipped: $spec_dir/node_modules is absent (run: npm ci --prefix $spec_dir)"
  exit 77
fi
shopt -s nullglob
files=("$traces_dir"/trace_*.itf.json)
if [ "${#files[@]}" -eq 0 ]; then
  echo "FAILED: no Quint traces in $traces_dir (ctest spec.quint writes them)"
  exit 1
fi
exec "$crosscheck" "$@" "${files[@]}"
