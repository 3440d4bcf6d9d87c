#!/usr/bin/env bash
# Runs the pinned Quint (spec/node_modules) for ctest, offline.
#
#   run_quint.sh SPEC_DIR expect-ok        quint ARGS...   # quint must exit 0
#   run_quint.sh SPEC_DIR expect-violation quint ARGS...   # `quint run` must report a violation
#   run_quint.sh SPEC_DIR batch JOBS_FILE                  # run_batch.js: many jobs, one node
#
# Exits 77 (ctest SKIP_RETURN_CODE) when spec/node_modules is absent: ./memwal installs it
# with `npm ci --prefix spec`. A violation counts only when Quint printed "[violation]", so a
# parse or type error never passes as a found bug.
set -uo pipefail

spec_dir=$1
mode=$2
shift 2
if [ ! -x "$spec_dir/node_modules/.bin/quint" ]; then
  echo "skipped: $spec_dir/node_modules is absent (run: npm ci --prefix $spec_dir)"
  exit 77
fi
cd "$spec_dir" || exit 2
if [ "$mode" = batch ]; then
  exec node "$spec_dir/quint/run_batch.js" "$spec_dir" "$@"
fi

output=$(npx --prefix "$spec_dir" --offline "$@" 2>&1)
status=$?
printf '%s\n' "$output" | tail -n 40
case "$mode" in
  expect-ok)
    exit "$status"
    ;;
  expect-violation)
    if [ "$status" -ne 0 ] && grep -q '^\[violation\]' <<<"$output"; then
      echo "expected violation found"
      exit 0
    fi
    echo "FAILED: expected a violation (quint exit $status)"
    exit 1
    ;;
  *)
    echo "usage: run_quint.sh SPEC_DIR expect-ok|expect-violation quint ARGS... | batch JOBS_FILE" >&2
    exit 2
    ;;
esac
